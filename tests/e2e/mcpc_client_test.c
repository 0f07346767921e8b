/* SPDX-License-Identifier: MIT */
/* mcpc_client_test.c - mcpc driving real servers: the demo server over
 * stdio and Streamable HTTP, the client fixture (progress, cursors), the
 * progress bar under a pseudo-terminal, profiles, and every exit code. */
#include <pthread.h>

#include "mcpc_run.h"

static char demo_cmd[1024], fixture_cmd[1024];

static void test_demo_stdio(void **state) {
  char *out = NULL;
  MR_RUN(0, &out, "-c", demo_cmd, "info");
  assert_non_null(strstr(out, "server: libmcp-demo"));
  free(out);
  MR_RUN(0, &out, "-c", demo_cmd, "ping");
  assert_non_null(strstr(out, "pong"));
  free(out);
  MR_RUN(0, &out, "-c", demo_cmd, "--format", "json", "ping");
  assert_non_null(strstr(out, "\"ok\": true"));
  free(out);
  MR_RUN(0, &out, "-c", demo_cmd, "tools", "list");
  assert_non_null(strstr(out, "get_flight_details"));
  free(out);
  MR_RUN(0, &out, "-c", demo_cmd, "--format", "json", "tools", "list");
  json_t *j = json_loads(out, 0, NULL);
  /* 9 tools of the foundation demo + show_orders + 4 task tools */
  assert_int_equal(json_array_size(json_object_get(j, "tools")), 14);
  json_decref(j);
  free(out);
  /* MCP Apps: the tool with a view is marked, its view shown and written */
  MR_RUN(0, &out, "-c", demo_cmd, "tools", "list");
  assert_non_null(strstr(out, "show_orders                  [ui] Lists"));
  assert_null(strstr(out, "get_flight_details           [ui]"));
  free(out);
  char html_path[] = "/tmp/mcpc_apps_XXXXXX";
  int html_fd = mkstemp(html_path);
  assert_true(html_fd >= 0);
  close(html_fd);
  MR_RUN(0, &out, "-c", demo_cmd, "apps", "show", "show_orders", "--out",
         html_path);
  assert_non_null(strstr(out, "resourceUri: ui://demo/orders\n"));
  assert_non_null(strstr(out, "mimeType: text/html;profile=mcp-app\n"));
  assert_non_null(strstr(out, "prefersBorder: true\n"));
  char *html = tu_read_file(html_path, NULL);
  unlink(html_path);
  assert_non_null(html);
  assert_non_null(strstr(html, "ui/initialize"));
  free(html);
  free(out);
  MR_RUN(1, &out, "-c", demo_cmd, "apps", "show", "add");
  free(out);
  MR_RUN(0, &out, "tools", "call", "add", "--args", "{\"a\": 10, \"b\": 5}",
         "-c", demo_cmd);
  assert_non_null(strstr(out, "15"));
  free(out);
  MR_RUN(0, &out, "-c", demo_cmd, "--format", "json", "tools", "call", "add",
         "a=1", "b=2");
  j = json_loads(out, 0, NULL);
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(j, "structuredContent"), "sum")),
                   3);
  assert_null(json_object_get(j, "isError"));
  json_decref(j);
  free(out);
  /* exit 1: isError */
  MR_RUN(1, &out, "-c", demo_cmd, "tools", "call", "divide", "a=1", "b=0");
  assert_non_null(strstr(out, "Division by zero"));
  free(out);
  /* exit 3: protocol errors (unknown tool, undeclared capability) */
  MR_RUN(3, NULL, "-c", demo_cmd, "tools", "call", "no_such_tool");
  /* the demo offers a resource template, tasks and a prompt */
  MR_RUN(0, &out, "-c", demo_cmd, "resources", "templates");
  assert_non_null(strstr(out, "reports://sales/{period}"));
  free(out);
  MR_RUN(0, &out, "-c", demo_cmd, "resources", "read",
         "reports://sales/2026-Q3");
  assert_non_null(strstr(out, "O1001"));
  free(out);
  MR_RUN(3, NULL, "-c", demo_cmd, "resources", "read", "nope://x");
  MR_RUN(0, &out, "-c", demo_cmd, "--format", "json", "tools", "call",
         "start_long_export", "--task", "--wait", "--args",
         "{\"seconds\":0.2}");
  j = json_loads(out, 0, NULL);
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(j, "structuredContent"), "rows")),
                   10000);
  json_decref(j);
  free(out);
  MR_RUN(0, NULL, "-c", demo_cmd, "tasks", "list");
  MR_RUN(3, NULL, "-c", demo_cmd, "tasks", "get",
         "00000000-0000-4000-8000-000000000000");
  MR_RUN(0, &out, "-c", demo_cmd, "prompts", "list");
  assert_non_null(strstr(out, "customer_brief"));
  free(out);
  MR_RUN(3, NULL, "-c", demo_cmd, "complete", "--prompt", "p", "a", "v");
  MR_RUN(3, NULL, "-c", demo_cmd, "log-level", "loud");
  MR_RUN(0, NULL, "-c", demo_cmd, "log-level", "debug");
  MR_RUN(0, &out, "-c", demo_cmd, "--format", "json", "inspect");
  j = json_loads(out, 0, NULL);
  assert_int_equal(json_integer_value(json_object_get(j, "failures")), 0);
  assert_true(json_array_size(json_object_get(j, "findings")) > 9);
  json_decref(j);
  free(out);
  /* exit 3: transport (the server cannot start) */
  MR_RUN(3, NULL, "-c", "/nonexistent/server", "ping");
  /* exit 2: usage */
  MR_RUN(2, NULL, "-c", demo_cmd, "tools", "call");
  MR_RUN(2, NULL, "tools", "list");
  MR_RUN(2, NULL, "-c", demo_cmd, "tools", "call", "add", "--args", "[1]");
  MR_RUN(2, NULL, "-c", demo_cmd, "--format", "yaml", "ping");
  MR_RUN(2, NULL, "-c", demo_cmd, "-u", "http://127.0.0.1:1/mcp", "ping");
}

static void test_profiles(void **state) {
  char cfg[300], *out = NULL;
  snprintf(cfg, sizeof cfg, "%s/config.json", mr_tmpdir);
  MR_RUN(0, NULL, "--config", cfg, "profile", "add", "local", "-c", demo_cmd,
         "--bearer", "s3cret");
  MR_RUN(0, &out, "--config", cfg, "profile", "list");
  assert_non_null(strstr(out, "local"));
  assert_null(strstr(out, "s3cret"));
  free(out);
  /* the handbook's line, with the profile after the command */
  MR_RUN(0, &out, "--config", cfg, "tools", "call", "add", "--args",
         "{\"a\": 10, \"b\": 5}", "--profile", "local");
  assert_non_null(strstr(out, "15"));
  free(out);
  MR_RUN(2, NULL, "--config", cfg, "-p", "missing", "ping");
  MR_RUN(0, NULL, "--config", cfg, "profile", "remove", "local");
  MR_RUN(1, NULL, "--config", cfg, "profile", "remove", "local");
}

static void test_fixture_cursors_progress(void **state) {
  char *out = NULL, *err = NULL;
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "%s --bad-output", fixture_cmd);
  /* page size 2, three tools: two pages */
  MR_RUN(0, &out, "-c", cmd, "--format", "json", "tools", "list");
  json_t *j = json_loads(out, 0, NULL);
  assert_int_equal(json_array_size(json_object_get(j, "tools")), 3);
  json_decref(j);
  free(out);
  /* not a terminal: plain progress lines on stderr */
  const char *args[] = {"-c", fixture_cmd, "tools", "call", "slow", NULL};
  assert_int_equal(mr_run(args, &out, &err), 0);
  assert_non_null(strstr(err, "progress 4/4 step 4 of 4"));
  assert_non_null(strstr(out, "\"steps\":4"));
  free(out);
  free(err);
}

/* inspect exits 1 when a MUST fails: the raw fixture lists a tool with an
 * invalid name, one with an http: icon and a read-only one whose
 * structuredContent breaks its outputSchema. */
static void test_inspect_failures(void **state) {
  char cmd[1100], *out = NULL;
  snprintf(cmd, sizeof cmd, "%s --raw", fixture_cmd);
  MR_RUN(1, &out, "-c", cmd, "inspect");
  assert_non_null(strstr(out, "FAIL name bad name!: "));
  assert_non_null(strstr(out, "FAIL icons icon_tool: icon src must be https: "
                              "or data:, got http://example.com/icon.png"));
  assert_non_null(strstr(out,
                         "FAIL structuredContent bad_output: does not match "
                         "outputSchema"));
  assert_non_null(strstr(out, "3 failures"));
  free(out);
  MR_RUN(1, &out, "-c", cmd, "--format", "json", "inspect");
  json_t *j = json_loads(out, 0, NULL);
  assert_int_equal(json_integer_value(json_object_get(j, "failures")), 3);
  json_decref(j);
  free(out);
  /* the libmcp fixture refuses to send bad output (isError): a WARN only */
  snprintf(cmd, sizeof cmd, "%s --bad-output", fixture_cmd);
  MR_RUN(0, &out, "-c", cmd, "inspect");
  assert_non_null(strstr(out, "WARN call bad_output"));
  free(out);
}

/* subscribe prints each notifications/resources/updated */
static void test_subscribe_updates(void **state) {
  char *out = NULL;
  MR_RUN(0, &out, "-c", fixture_cmd, "resources", "subscribe", "test://ticking",
         "--count", "2", "--wait-ms", "10000");
  assert_string_equal(out, "subscribed to test://ticking\n"
                           "updated test://ticking\nupdated test://ticking\n");
  free(out);
  MR_RUN(0, &out, "-c", fixture_cmd, "--format", "json", "resources",
         "subscribe", "test://ticking", "--count", "1");
  json_t *j = json_loads(out, 0, NULL);
  assert_int_equal(json_array_size(json_object_get(j, "updates")), 1);
  json_decref(j);
  free(out);
  /* undeclared resources.subscribe: exit 3 before anything is sent */
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "%s --raw", fixture_cmd);
  MR_RUN(3, NULL, "-c", cmd, "resources", "subscribe", "x://y");
}

/* listen prints notifications: in 2026-07-28 the acknowledgement first,
 * then the updates of the URI asked for; in 2025-11-25 the updates after
 * resources/subscribe */
static void test_listen(void **state) {
  char *out = NULL;
  MR_RUN(0, &out, "-c", fixture_cmd, "listen", "--resource", "test://ticking",
         "--count", "2", "--wait-ms", "10000");
  assert_non_null(strstr(out, "notifications/subscriptions/acknowledged"));
  char *first = strstr(out, "notifications/resources/updated");
  assert_non_null(first);
  assert_non_null(strstr(first + 1, "notifications/resources/updated"));
  free(out);
  MR_RUN(0, &out, "--protocol", "2025-11-25", "-c", fixture_cmd, "--format",
         "json", "listen", "--resource", "test://ticking", "--count", "1",
         "--wait-ms", "10000");
  json_t *j = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);
  assert_string_equal(json_string_value(json_object_get(j, "method")),
                      "notifications/resources/updated");
  json_decref(j);
  free(out);
}

static void test_progress_bar_pty(void **state) {
  const char *a[] = {"-c", fixture_cmd, "tools", "call", "slow", NULL};
  int rc = -1;
  char *buf = mr_run_pty(a, &rc);
  assert_non_null(buf); /* forkpty worked */
  assert_int_equal(rc, 0);
  assert_non_null(strstr(buf, "\r\033[K["));
  assert_non_null(strstr(buf, "100% step 4 of 4"));
  assert_null(strstr(buf, "progress 4/4")); /* no plain lines on a tty */
  free(buf);
}

/* On a terminal an elicitation is asked field by field: a wrong answer is
 * asked again, the default is taken on an empty line, and the accepted
 * content reaches the server (2026-07-28 multi-round over stdio, and the
 * 2025-11-25 server-to-client request). */
static void test_elicit_on_terminal(void **state) {
  char conf[1100];
  snprintf(conf, sizeof conf, "%s/mcp-conformance-server --stdio", MCP_BIN_DIR);
  const char *protocols[] = {"auto", "2025-11-25"};
  for (int i = 0; i < 2; i++) {
    const char *args[] = {"--protocol",
                          protocols[i],
                          "-c",
                          conf,
                          "tools",
                          "call",
                          "test_input_required_result_elicitation",
                          NULL};
    int rc = -1;
    char *out = mr_run_pty_input(args, "a\nAda\n", &rc);
    assert_non_null(out);
    if (rc != 0)
      fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "What is your name?"));
    assert_non_null(strstr(out, "accept, decline or cancel?"));
    assert_non_null(strstr(out, "Hello, Ada!"));
    free(out);
    /* decline */
    out = mr_run_pty_input(args, "d\n", &rc);
    assert_non_null(strstr(out, "Hello, (declined)!"));
    free(out);
  }
  /* defaults on empty lines, an invalid integer asked again, an enum
   * chosen by number, a boolean as yes/no */
  const char *args[] = {"--protocol",
                        "2025-11-25",
                        "-c",
                        conf,
                        "tools",
                        "call",
                        "test_elicitation_sep1034_defaults",
                        NULL};
  int rc = -1;
  char *out = mr_run_pty_input(args, "\n\nabc\n41\n\n2\nno\n", &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "a whole number is needed"));
  assert_non_null(strstr(out, "1) \"active\" 2) \"inactive\""));
  assert_non_null(strstr(out, "action=accept, content={\"name\":\"John Doe\","
                              "\"age\":41,\"score\":95.5,\"status\":"
                              "\"inactive\",\"verified\":false}"));
  free(out);
}

static void test_demo_http(void **state) {
  /* the demo's default files, in its working directory */
  mr_demo_http demo;
  mr_demo_http_init(&demo, "mcp-demo.db");
  const char *url = demo.url;
  pid_t pid = mr_start_http(demo.argv, url);
  assert_true(pid > 0); /* it answers ping */
  char *out = NULL;
  MR_RUN(0, &out, "-u", url, "info");
  assert_non_null(strstr(out, "session: "));
  free(out);
  MR_RUN(0, &out, "-u", url, "-H", "X-Test: 1", "tools", "call", "add", "a=4",
         "b=5");
  assert_non_null(strstr(out, "9"));
  free(out);
  MR_RUN(1, NULL, "-u", url, "tools", "call", "divide", "a=4", "b=0");
  MR_RUN(3, NULL, "-u", url, "tools", "call", "nope");
  MR_RUN(0, NULL, "-u", url, "log-level", "info");
  mr_stop(pid);
  MR_RUN(3, NULL, "-u", url, "ping"); /* nobody listens any more */
}

/* -H and --bearer reach the server: a raw listener records the first
 * request mcpc sends (initialize) and answers 500, so mcpc exits 3. */
typedef struct recorded {
  int listen_fd;
  char request[8192];
} recorded;

static void *record_one(void *arg) {
  recorded *r = arg;
  int c = accept(r->listen_fd, NULL, NULL);
  if (c < 0)
    return NULL;
  size_t n = 0;
  while (n < sizeof r->request - 1 && strstr(r->request, "\r\n\r\n") == NULL) {
    ssize_t got = read(c, r->request + n, sizeof r->request - 1 - n);
    if (got <= 0)
      break;
    n += (size_t)got;
    r->request[n] = '\0';
  }
  const char *reply = "HTTP/1.1 500 Internal Server Error\r\n"
                      "Content-Length: 0\r\nConnection: close\r\n\r\n";
  if (write(c, reply, strlen(reply)) < 0)
    perror("write");
  close(c);
  return NULL;
}

static void test_headers_and_bearer_are_sent(void **state) {
  (void)state;
  recorded r = {.listen_fd = socket(AF_INET, SOCK_STREAM, 0)};
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  assert_int_equal(bind(r.listen_fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(r.listen_fd, 4), 0);
  assert_int_equal(getsockname(r.listen_fd, (struct sockaddr *)&a, &len), 0);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", ntohs(a.sin_port));
  pthread_t th;
  pthread_create(&th, NULL, record_one, &r);
  MR_RUN(3, NULL, "-u", url, "-H", "X-Tenant: acme", "--bearer", "tok-123",
         "ping");
  pthread_join(th, NULL);
  close(r.listen_fd);
  assert_non_null(strstr(r.request, "POST /mcp HTTP/1.1"));
  assert_non_null(strcasestr(r.request, "\r\nX-Tenant: acme\r\n"));
  assert_non_null(
      strcasestr(r.request, "\r\nAuthorization: Bearer tok-123\r\n"));
  assert_non_null(strcasestr(r.request, "application/json, text/event-stream"));
}

int main(void) {
  if (mr_setup("mcpc-client-test") != 0)
    return 1;
  snprintf(
      demo_cmd, sizeof demo_cmd,
      "%s/mcp-demo-server --stdio --db %s/demo.db --store sqlite:%s/demo.db",
      MCP_BIN_DIR, mr_tmpdir, mr_tmpdir);
  snprintf(fixture_cmd, sizeof fixture_cmd, "%s/mcp-client-fixture",
           MCP_BIN_DIR);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_demo_stdio),
      cmocka_unit_test(test_profiles),
      cmocka_unit_test(test_fixture_cursors_progress),
      cmocka_unit_test(test_inspect_failures),
      cmocka_unit_test(test_subscribe_updates),
      cmocka_unit_test(test_listen),
      cmocka_unit_test(test_progress_bar_pty),
      cmocka_unit_test(test_elicit_on_terminal),
      cmocka_unit_test(test_demo_http),
      cmocka_unit_test(test_headers_and_bearer_are_sent),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  mr_teardown();
  return rc;
}
