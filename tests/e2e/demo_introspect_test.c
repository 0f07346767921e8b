/* SPDX-License-Identifier: MIT */
/* demo_introspect_test.c - the demo server checking opaque tokens by RFC
 * 7662 introspection (--auth-introspect URL --auth-client-id ID
 * --auth-client-secret SECRET, issue #25): a small introspection endpoint
 * on 127.0.0.1 (tests/e2e/mini_as.h) answers for made-up tokens; the demo
 * asks it with HTTP Basic credentials, serves an active token with the
 * scope a tool needs, refuses an inactive one (401 invalid_token) and one
 * without the scope (403 insufficient_scope), and asks no token for the
 * protected-resource metadata. Flags that cannot work (a secret without a
 * client id) stop the demo with a message naming them. */
#include <signal.h>

#pragma GCC diagnostic push /* header-only helpers: not every one is used */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_client.h"
#pragma GCC diagnostic pop
#include "mcpc_run.h"
#include "mini_as.h"

static char resource[160];

/* The endpoint: "good" is active with mcp:tools, "weak" active without
 * it, anything else inactive. */
static char *introspect(mini_as *as, const char *method, const char *path,
                        const char *body, int *status) {
  (void)as, (void)method;
  *status = 200;
  if (strcmp(path, "/introspect") != 0)
    return NULL;
  const char *t = strstr(body, "token=");
  size_t n = t ? strcspn(t + 6, "&") : 0;
  json_t *doc;
  if (t && n == 4 && strncmp(t + 6, "good", 4) == 0)
    doc = json_pack("{s:b,s:s,s:s,s:s,s:I}", "active", 1, "sub", "gina",
                    "scope", "mcp:tools", "aud", resource, "exp",
                    (json_int_t)time(NULL) + 3600);
  else if (t && n == 4 && strncmp(t + 6, "weak", 4) == 0)
    doc = json_pack("{s:b,s:s,s:s,s:s}", "active", 1, "sub", "walt", "scope",
                    "other", "aud", resource);
  else
    doc = json_pack("{s:b}", "active", 0);
  char *out = json_dumps(doc, JSON_COMPACT);
  json_decref(doc);
  return out;
}

/* The demo with argv, killed when the test dies; -1 when it did not come
 * up (or exited at once: then *exit_status is its status). */
static pid_t start_demo(char *const *argv, const char *url, int *exit_status) {
  pid_t parent = getpid(), pid = fork();
  if (pid == 0) {
    tu_child_dies_with(parent);
    char err[300];
    snprintf(err, sizeof err, "%s/demo.err", mr_tmpdir);
    int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 2) < 0 || chdir(mr_tmpdir) != 0)
      _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  for (int i = 0; i < 600; i++) { /* up to 30 s on a loaded machine */
    usleep(50 * 1000);
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      *exit_status = st;
      return -1;
    }
    tc_conn c;
    bool up = tc_open(&c, atoi(strrchr(url, ':') + 1), "GET",
                      "/.well-known/oauth-protected-resource", "", NULL, 1000) &&
              tc_read_body(&c, 1000);
    tc_close(&c);
    if (up)
      return pid;
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

/* A 2026-07-28 tools/call of add with token (NULL: none); the status, and
 * WWW-Authenticate and body copied out. */
static int call_add(int port, const char *token, char www[512], char **body) {
  char hdr[1024];
  snprintf(hdr, sizeof hdr,
           "Accept: application/json, text/event-stream\r\n"
           "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
           "Mcp-Name: add\r\n%s%s%s",
           token ? "Authorization: Bearer " : "", token ? token : "",
           token ? "\r\n" : "");
  const char *req =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3},\"_meta\":{"
      "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  tc_conn c;
  int status = 0;
  www[0] = '\0';
  *body = NULL;
  if (tc_open(&c, port, "POST", "/mcp", hdr, req, 5000) &&
      tc_read_body(&c, 5000)) {
    status = c.status;
    if (!tc_header(&c, "WWW-Authenticate", www, 512))
      www[0] = '\0';
    *body = c.body ? c.body : strdup("");
    c.body = NULL;
  }
  tc_close(&c);
  return status;
}

static void test_demo_with_introspection(void **state) {
  (void)state;
  mini_as as;
  mini_as_start(&as, introspect, NULL);
  char endpoint[128];
  snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d/introspect",
           as.port);
  mr_demo_http d;
  mr_demo_http_init(&d, "introspect.db");
  snprintf(resource, sizeof resource, "%s", d.url);
  int port = atoi(strrchr(d.hp, ':') + 1);
  char *argv[] = {d.bin,
                  "--http",
                  d.hp,
                  "--db",
                  d.db,
                  "--no-tasks",
                  "--auth-introspect",
                  endpoint,
                  "--auth-client-id",
                  "demo-rs",
                  "--auth-client-secret",
                  "s3cret",
                  "--auth-scope",
                  "add=mcp:tools",
                  NULL};
  int exit_status = 0;
  pid_t pid = start_demo(argv, d.url, &exit_status);
  if (pid < 0)
    fail_msg("the demo did not start (status %d)", exit_status);
  char www[512], *body = NULL;
  /* no token: 401 with the scope hint */
  assert_int_equal(call_add(port, NULL, www, &body), 401);
  assert_non_null(strstr(www, "scope=\"mcp:tools\""));
  free(body);
  /* an active token with the scope: served; the endpoint was asked with
   * the demo's client credentials (demo-rs:s3cret) */
  int before = atomic_load(&as.requests);
  assert_int_equal(call_add(port, "good", www, &body), 200);
  if (strstr(body, "\"sum\":5") == NULL)
    fail_msg("add answered %s", body);
  free(body);
  assert_int_equal(atomic_load(&as.requests), before + 1);
  assert_string_equal(as.last_auth, " Basic ZGVtby1yczpzM2NyZXQ=");
  /* inactive: 401 invalid_token; active without the scope: 403 */
  assert_int_equal(call_add(port, "revoked", www, &body), 401);
  assert_non_null(strstr(www, "error=\"invalid_token\""));
  free(body);
  assert_int_equal(call_add(port, "weak", www, &body), 403);
  assert_non_null(strstr(www, "error=\"insufficient_scope\""));
  free(body);
  mr_stop(pid);
  mini_as_stop(&as);

  /* a secret without a client id: refused at start, naming the flags */
  char *bad[] = {d.bin,     "--http",
                 d.hp,      "--db",
                 d.db,      "--no-tasks",
                 "--auth-introspect", endpoint,
                 "--auth-client-secret", "s3cret",
                 NULL};
  assert_true(start_demo(bad, d.url, &exit_status) < 0);
  assert_true(WIFEXITED(exit_status) && WEXITSTATUS(exit_status) != 0);
  char path[300], said[1024] = "";
  snprintf(path, sizeof path, "%s/demo.err", mr_tmpdir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(said, 1, sizeof said - 1, f);
  said[n] = '\0';
  fclose(f);
  if (strstr(said, "--auth-client-id") == NULL)
    fail_msg("the demo said: %s", said);
}

static int setup(void **state) {
  (void)state;
  return mr_setup("mcp-demo-introspect");
}

static int teardown(void **state) {
  (void)state;
  mr_teardown();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_demo_with_introspection),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
