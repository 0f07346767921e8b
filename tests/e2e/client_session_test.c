/* SPDX-License-Identifier: MIT */
/* client_session_test.c - the client library's core: JSON-RPC correlation
 * with several requests in flight answered out of order (the raw fixture
 * holds four calls and answers them newest first, each after a progress
 * notification and a log message), cursor following with its guards
 * (repeating cursor, endless pagination), a new session after HTTP 404
 * when the server restarted, and messages whose envelope src/jsonrpc's
 * decoder refuses (no "jsonrpc", an error code that is not an integer),
 * still routed as before: the client is a tolerant reader. */
#include <pthread.h>

#include "mcp/client.h"
#include "mcpc_run.h"

static char raw_cmd[1100];

static mcp_client_t *connect_argv(const char *const *argv) {
  mcp_client_options_t *o = NULL;
  mcp_client_t *c = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_command(o, argv), MCP_OK);
  assert_int_equal(mcp_client_options_set_timeout_ms(o, 20000), MCP_OK);
  mcp_status st = mcp_client_connect(o, &c, &err);
  mcp_client_options_free(o);
  if (st != MCP_OK)
    fprintf(stderr, "connect: %s\n", err.message);
  assert_int_equal(st, MCP_OK);
  return c;
}

typedef struct caller {
  mcp_client_t *c;
  int n;
  int progress_calls; /* progress callbacks seen by this call */
  mcp_status st;
  char text[64];
} caller;

static void on_progress(double progress, double total, const char *message,
                        void *ud) {
  caller *k = ud;
  k->progress_calls++;
}

static void *call_hold(void *arg) {
  caller *k = arg;
  json_t *args = json_pack("{s:i}", "n", k->n);
  json_t *result = NULL;
  mcp_error_t err;
  k->st =
      mcp_client_call_tool(k->c, "hold", args, on_progress, k, &result, &err);
  const char *t = json_string_value(json_object_get(
      json_array_get(json_object_get(result, "content"), 0), "text"));
  snprintf(k->text, sizeof k->text, "%s", t ? t : "");
  json_decref(result);
  json_decref(args);
  return NULL;
}

static void test_out_of_order_answers(void **state) {
  const char *argv[] = {"/bin/sh", "-c", raw_cmd, NULL};
  mcp_client_t *c = connect_argv(argv);
  caller k[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    k[i] = (caller){.c = c, .n = i + 1};
    assert_int_equal(pthread_create(&th[i], NULL, call_hold, &k[i]), 0);
  }
  /* while the four wait, another request is answered at once */
  mcp_error_t err;
  assert_int_equal(mcp_client_ping(c, &err), MCP_OK);
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    char want[32];
    snprintf(want, sizeof want, "{\"n\":%d}", i + 1);
    assert_int_equal(k[i].st, MCP_OK);
    assert_string_equal(k[i].text, want); /* its own answer, not another's */
    assert_int_equal(k[i].progress_calls, 1); /* its own progress only */
  }
  mcp_client_close(c);
}

static void test_cursor_guards(void **state) {
  const char *argv[] = {"/bin/sh", "-c", raw_cmd, NULL};
  mcp_client_t *c = connect_argv(argv);
  json_t *items = (json_t *)1;
  mcp_error_t err;
  /* prompts/list answers nextCursor "again" on every page */
  assert_int_equal(
      mcp_client_list_all(c, "prompts/list", "prompts", 0, &items, &err),
      MCP_ERR_LIMIT);
  assert_null(items);
  assert_non_null(strstr(err.message, "repeats"));
  /* resources/list never ends: stopped after max_pages */
  assert_int_equal(
      mcp_client_list_all(c, "resources/list", "resources", 5, &items, &err),
      MCP_ERR_LIMIT);
  assert_non_null(strstr(err.message, "more than 5 pages"));
  /* three pages, followed to the end */
  assert_int_equal(mcp_client_list_all(c, "resources/templates/list",
                                       "resourceTemplates", 0, &items, &err),
                   MCP_OK);
  assert_int_equal(json_array_size(items), 3);
  assert_string_equal(
      json_string_value(json_object_get(json_array_get(items, 2), "name")),
      "p3");
  json_decref(items);
  /* the wrong key: the result has no such array */
  assert_int_equal(
      mcp_client_list_all(c, "tools/list", "nope", 0, &items, &err),
      MCP_ERR_PARSE);
  mcp_client_close(c);
}

static void test_http_404_new_session(void **state) {
  mr_demo_http demo;
  mr_demo_http_init(&demo, "demo.db");
  const char *url = demo.url;
  pid_t pid = mr_start_http(demo.argv, url);
  assert_true(pid > 0);

  mcp_client_options_t *o = NULL;
  mcp_client_t *c = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_url(o, url), MCP_OK);
  /* sessions exist only in 2025-11-25 */
  assert_int_equal(mcp_client_options_set_protocol_version(o, "2025-11-25"),
                   MCP_OK);
  assert_int_equal(mcp_client_connect(o, &c, &err), MCP_OK);
  mcp_client_options_free(o);
  char first[128];
  assert_non_null(mcp_client_session_id(c));
  snprintf(first, sizeof first, "%s", mcp_client_session_id(c));
  json_t *init = mcp_client_initialize_result(c);

  json_t *args = json_pack("{s:i,s:i}", "a", 2, "b", 3);
  json_t *result = NULL;
  assert_int_equal(
      mcp_client_call_tool(c, "add", args, NULL, NULL, &result, &err), MCP_OK);
  json_decref(result);

  /* the server restarts on the same port: the old session is unknown */
  mr_stop(pid);
  pid = mr_start_http(demo.argv, url);
  assert_true(pid > 0);
  mcp_status st =
      mcp_client_call_tool(c, "add", args, NULL, NULL, &result, &err);
  if (st != MCP_OK)
    fprintf(stderr, "after restart: %s\n", err.message);
  assert_int_equal(st, MCP_OK);
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(result, "structuredContent"), "sum")),
                   5);
  json_decref(result);
  assert_non_null(mcp_client_session_id(c));
  assert_string_not_equal(mcp_client_session_id(c), first);
  /* the first InitializeResult stays valid (borrowed for the client's life) */
  assert_non_null(json_object_get(init, "serverInfo"));
  assert_int_equal(mcp_client_ping(c, &err), MCP_OK);

  /* the server goes away for good: a transport error, no endless retry */
  mr_stop(pid);
  st = mcp_client_ping(c, &err);
  assert_true(st == MCP_ERR_IO || st == MCP_ERR_CLOSED);
  json_decref(args);
  mcp_client_close(c);
}

static void count_sloppy(mcp_client_t *c, const char *method, json_t *params,
                         void *ud) {
  (void)c;
  const char *data = json_string_value(json_object_get(params, "data"));
  if (strcmp(method, "notifications/message") == 0 && data != NULL &&
      strcmp(data, "sloppy") == 0)
    (*(int *)ud)++;
}

static void test_tolerant_reader(void **state) {
  const char *argv[] = {"/bin/sh", "-c", raw_cmd, NULL};
  mcp_client_options_t *o = NULL;
  mcp_client_t *c = NULL;
  mcp_error_t err;
  int notes = 0;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_command(o, argv), MCP_OK);
  assert_int_equal(mcp_client_options_set_timeout_ms(o, 20000), MCP_OK);
  assert_int_equal(
      mcp_client_options_set_notification_handler(o, count_sloppy, &notes),
      MCP_OK);
  assert_int_equal(mcp_client_connect(o, &c, &err), MCP_OK);
  mcp_client_options_free(o);
  json_t *r = NULL;
  assert_int_equal(
      mcp_client_call_tool(c, "sloppy", NULL, NULL, NULL, &r, &err), MCP_OK);
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(r, "content"), 0), "text")),
      "sloppy");
  json_decref(r);
  /* the notification came first on the same stream */
  assert_int_equal(notes, 1);
  r = NULL;
  assert_int_equal(
      mcp_client_call_tool(c, "sloppy_error", NULL, NULL, NULL, &r, &err),
      MCP_ERR_PEER);
  assert_null(r);
  assert_string_equal(err.message, "odd code");
  assert_int_equal(err.rpc_code, 0);
  mcp_client_close(c);
}

int main(void) {
  if (mr_setup("client-session-test") != 0)
    return 1;
  snprintf(raw_cmd, sizeof raw_cmd, "exec %s/mcp-client-fixture --raw",
           MCP_BIN_DIR);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_out_of_order_answers),
      cmocka_unit_test(test_cursor_guards),
      cmocka_unit_test(test_http_404_new_session),
      cmocka_unit_test(test_tolerant_reader),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  mr_teardown();
  return rc;
}
