/* SPDX-License-Identifier: MIT */
/* client_modern_test.c - libmcp-client in both eras against the
 * conformance server (HTTP and stdio): auto picks 2026-07-28 after
 * server/discover (no session, server info from _meta); multi-round
 * input_required answered through the elicitation handler over two rounds;
 * Mcp-Param-* headers accepted by a server that checks them; the result
 * cache honouring ttlMs; the same calls forced to 2025-11-25 (initialize,
 * a session, elicitation as a server-to-client request); a server that
 * does not speak 2026-07-28 makes auto fall back and a forced 2026-07-28
 * fail; a plain tools/call runs as a task only when the tool requires one. */
#include "mcp/client.h"
#include "mcpc_run.h"

static char conf_bin[1024], fixture_bin[1024], task_fixture_bin[1024];

typedef struct counts {
  int elicitations;
  int sent_lists; /* tools/list requests that went out */
} counts;

static mcp_status on_elicit(mcp_client_t *c, const char *method, json_t *params,
                            json_t **result, mcp_error_t *err, void *ud) {
  counts *n = ud;
  n->elicitations++;
  json_t *content = json_object();
  const char *key;
  json_t *prop;
  json_object_foreach(
      json_object_get(json_object_get(params, "requestedSchema"), "properties"),
      key, prop) {
    char v[64];
    snprintf(v, sizeof v, "x-%s", key);
    json_object_set_new(content, key, json_string(v));
  }
  *result = json_pack("{s:s,s:o}", "action", "accept", "content", content);
  return MCP_OK;
}

static void observe(mcp_client_t *c, bool incoming, json_t *msg, void *ud) {
  counts *n = ud;
  const char *m = json_string_value(json_object_get(msg, "method"));
  if (!incoming && m != NULL && strcmp(m, "tools/list") == 0)
    n->sent_lists++;
}

static mcp_client_t *connect_to(const char *url, const char *const *argv,
                                const char *protocol, counts *n,
                                mcp_status *st_out) {
  mcp_client_options_t *o = NULL;
  mcp_client_t *c = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  if (url != NULL)
    assert_int_equal(mcp_client_options_set_url(o, url), MCP_OK);
  else
    assert_int_equal(mcp_client_options_set_command(o, argv), MCP_OK);
  if (protocol != NULL)
    assert_int_equal(mcp_client_options_set_protocol_version(o, protocol),
                     MCP_OK);
  assert_int_equal(mcp_client_options_set_timeout_ms(o, 20000), MCP_OK);
  assert_int_equal(
      mcp_client_options_set_elicitation_handler(o, on_elicit, NULL, n),
      MCP_OK);
  assert_int_equal(mcp_client_options_set_observer(o, observe, n), MCP_OK);
  mcp_status st = mcp_client_connect(o, &c, &err);
  mcp_client_options_free(o);
  if (st != MCP_OK && st_out == NULL)
    fprintf(stderr, "connect: %s\n", err.message);
  if (st_out != NULL)
    *st_out = st;
  else
    assert_int_equal(st, MCP_OK);
  return c;
}

static const char *text_of(json_t *result) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(result, "content"), 0), "text"));
}

/* The calls an application makes, the same in both eras. */
static void exercise(mcp_client_t *c, counts *n) {
  mcp_error_t err;
  json_t *r = NULL;
  int before = n->elicitations;
  assert_int_equal(mcp_client_call_tool(c,
                                        "test_input_required_result_multi_"
                                        "round",
                                        NULL, NULL, NULL, &r, &err),
                   MCP_OK);
  assert_string_equal(text_of(r), "x-name likes x-color");
  assert_int_equal(n->elicitations - before, 2);
  json_decref(r);
  json_t *args = json_pack("{s:s,s:i,s:s}", "region", "  é-west ", "priority",
                           7, "query", "q");
  assert_int_equal(
      mcp_client_call_tool(c, "test_header_params", args, NULL, NULL, &r, &err),
      MCP_OK);
  assert_false(json_is_true(json_object_get(r, "isError")));
  json_decref(r);
  json_decref(args);
  assert_int_equal(mcp_client_ping(c, &err), MCP_OK);
}

static void test_http_both_eras(void **state) {
  int port = mr_free_port();
  char hp[64], url[128];
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://%s/mcp", hp);
  char *argv[] = {conf_bin, "--http", hp, NULL};
  pid_t pid = mr_start_http(argv, url);
  assert_true(pid > 0);

  counts n = {0};
  mcp_client_t *c = connect_to(url, NULL, NULL, &n, NULL);
  assert_string_equal(mcp_client_protocol_version(c), "2026-07-28");
  assert_null(mcp_client_session_id(c));
  assert_non_null(mcp_client_server_info(c));
  exercise(c, &n);
  /* the cache: a second list within ttlMs costs no request */
  json_t *t1 = NULL, *t2 = NULL;
  mcp_error_t err;
  int sent = n.sent_lists;
  json_t *raw = NULL;
  assert_int_equal(
      mcp_client_request(c, "tools/list", NULL, NULL, NULL, &raw, &err),
      MCP_OK);
  bool cacheable = json_integer_value(json_object_get(raw, "ttlMs")) > 0;
  json_decref(raw);
  assert_int_equal(mcp_client_list_tools(c, &t1, &err), MCP_OK);
  assert_int_equal(mcp_client_list_tools(c, &t2, &err), MCP_OK);
  assert_true(json_equal(t1, t2));
  assert_int_equal(n.sent_lists - sent, cacheable ? 1 : 3);
  json_decref(t1);
  json_decref(t2);
  mcp_client_close(c);

  counts m = {0};
  c = connect_to(url, NULL, "2025-11-25", &m, NULL);
  assert_string_equal(mcp_client_protocol_version(c), "2025-11-25");
  assert_non_null(mcp_client_session_id(c));
  exercise(c, &m);
  mcp_client_close(c);
  mr_stop(pid);
}

static void test_stdio_modern(void **state) {
  const char *argv[] = {conf_bin, "--stdio", NULL};
  counts n = {0};
  mcp_client_t *c = connect_to(NULL, argv, NULL, &n, NULL);
  assert_string_equal(mcp_client_protocol_version(c), "2026-07-28");
  exercise(c, &n);
  mcp_client_close(c);
}

/* A server that knows only initialize: auto falls back, forced fails. */
static void test_legacy_only_server(void **state) {
  const char *argv[] = {fixture_bin, "--raw", NULL};
  counts n = {0};
  mcp_client_t *c = connect_to(NULL, argv, NULL, &n, NULL);
  assert_string_equal(mcp_client_protocol_version(c), "2025-11-25");
  mcp_client_close(c);
  mcp_status st;
  c = connect_to(NULL, argv, "2026-07-28", &n, &st);
  assert_null(c);
  assert_int_equal(st, MCP_ERR_UNSUPPORTED);
}

/* The tools/call requests sent: with and without the tasks extension. */
typedef struct task_calls {
  int with_extension, without;
  int progress;
} task_calls;

static void count_calls(mcp_client_t *c, bool incoming, json_t *msg,
                        void *ud) {
  (void)c;
  task_calls *n = ud;
  const char *m = json_string_value(json_object_get(msg, "method"));
  if (incoming || m == NULL || strcmp(m, "tools/call") != 0)
    return;
  json_t *ext = json_object_get(
      json_object_get(json_object_get(json_object_get(msg, "params"), "_meta"),
                      "io.modelcontextprotocol/clientCapabilities"),
      "extensions");
  if (json_object_get(ext, "io.modelcontextprotocol/tasks") != NULL)
    n->with_extension++;
  else
    n->without++;
}

static void on_progress(double progress, double total, const char *message,
                        void *ud) {
  (void)progress, (void)total, (void)message;
  ((task_calls *)ud)->progress++;
}

/* 2026-07-28: mcp_client_call_tool runs a tool as a task only when it
 * requires one (tests/client_fixture/task_fixture_server.c: "work" is
 * optional, "must" required); mcp_client_call_tool_task asks for one. */
static void test_tasks_only_when_needed(void **state) {
  (void)state;
  char store[400];
  snprintf(store, sizeof store, "sqlite:%s/tasks.db", mr_tmpdir);
  const char *argv[] = {task_fixture_bin, "--stdio", "--store", store, NULL};
  task_calls n = {0};
  mcp_client_options_t *o = NULL;
  mcp_client_t *c = NULL;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_command(o, argv), MCP_OK);
  assert_int_equal(mcp_client_options_set_observer(o, count_calls, &n),
                   MCP_OK);
  assert_int_equal(mcp_client_connect(o, &c, NULL), MCP_OK);
  mcp_client_options_free(o);
  assert_string_equal(mcp_client_protocol_version(c), "2026-07-28");
  json_t *r = NULL;
  /* optional: at once, with its progress, the extension not declared */
  assert_int_equal(mcp_client_call_tool(c, "work", NULL, on_progress, &n, &r,
                                        NULL),
                   MCP_OK);
  assert_null(json_object_get(r, "taskId"));
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(json_object_get(r, "content"), 0),
                          "text")),
                      "worked");
  json_decref(r);
  assert_int_equal(n.without, 1);
  assert_int_equal(n.with_extension, 0);
  assert_int_equal(n.progress, 3);
  /* required: -32021 without the extension, then with it, followed */
  assert_int_equal(
      mcp_client_call_tool(c, "must", NULL, NULL, NULL, &r, NULL), MCP_OK);
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(json_object_get(r, "content"), 0),
                          "text")),
                      "worked");
  json_decref(r);
  assert_int_equal(n.without, 2);
  assert_int_equal(n.with_extension, 1);
  /* asked for: the task itself */
  assert_int_equal(
      mcp_client_call_tool_task(c, "work", NULL, 0, NULL, NULL, &r, NULL),
      MCP_OK);
  assert_string_equal(json_string_value(json_object_get(r, "resultType")),
                      "task");
  json_decref(r);
  assert_int_equal(n.with_extension, 2);
  mcp_client_close(c);
}

int main(void) {
  if (mr_setup("client-modern-test") != 0)
    return 1;
  snprintf(conf_bin, sizeof conf_bin, "%s/mcp-conformance-server", MCP_BIN_DIR);
  snprintf(fixture_bin, sizeof fixture_bin, "%s/mcp-client-fixture",
           MCP_BIN_DIR);
  snprintf(task_fixture_bin, sizeof task_fixture_bin, "%s/mcp-task-fixture",
           MCP_BIN_DIR);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_http_both_eras),
      cmocka_unit_test(test_stdio_modern),
      cmocka_unit_test(test_legacy_only_server),
      cmocka_unit_test(test_tasks_only_when_needed),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  mr_teardown();
  return rc;
}
