/* SPDX-License-Identifier: MIT */
/* demo_era_test.c - the demo's archive_orders and customer_brief in both
 * protocol eras (issue #11 item 8), over the demo's stdio: archive_orders
 * asks for confirmation with a server-to-client elicitation/create in a
 * 2025-11-25 session and with a multi-round input_required exchange in
 * 2026-07-28 (one handler); the customer_brief prompt lists, renders,
 * completes its argument and refuses an unknown customer in both. */
#include "demo_proc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define META_CAPS(caps)                                                        \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":" caps "}"

static json_t *read_msg(tu_proc *p) {
  char *line = tu_proc_read_line(p, 10000);
  assert_non_null(line);
  json_t *v = json_loads(line, 0, NULL);
  if (v == NULL)
    fail_msg("not JSON on stdout: %s", line);
  free(line);
  return v;
}

static json_t *rpc(tu_proc *p, const char *line) {
  assert_int_equal(tu_proc_send_line(p, line), 0);
  return read_msg(p);
}

static void start(tu_proc *p) {
  snprintf(db_path, sizeof db_path, "/tmp/demo-era-%d.db", (int)getpid());
  remove_db();
  spawn_demo(p, false);
}

static void stop(tu_proc *p) {
  assert_int_equal(tu_proc_finish(p, 10000), 0);
  remove_db();
}

static const char *text_of(json_t *msg) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(msg, "result"), "content"),
                     0),
      "text"));
}

/* 2026-07-28: input_required with the question "confirm", the retry with
 * the answer and the requestState; decline; no elicitation capability. */
static void test_archive_orders_modern(void **state) {
  (void)state;
  tu_proc p;
  start(&p);
  json_t *r = rpc(
      &p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
          "\"params\":{\"name\":\"archive_orders\",\"arguments\":"
          "{\"older_than_days\":30}," META_CAPS("{\"elicitation\":{}}") "}}");
  json_t *res = json_object_get(r, "result");
  assert_string_equal(json_string_value(json_object_get(res, "resultType")),
                      "input_required");
  json_t *q = json_object_get(json_object_get(res, "inputRequests"), "confirm");
  assert_string_equal(json_string_value(json_object_get(q, "method")),
                      "elicitation/create");
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(q, "params"), "message")),
                         "older than 30 days"));
  const char *token = json_string_value(json_object_get(res, "requestState"));
  assert_non_null(token);
  assert_null(json_object_get(res, "ttlMs")); /* no hints on interim results */
  static const struct {
    const char *answer, *expect;
  } rounds[] = {
      {"{\"action\":\"accept\",\"content\":{\"confirm\":true}}",
       "Archived 42 orders older than 30 days."},
      {"{\"action\":\"accept\",\"content\":{\"confirm\":false}}",
       "Nothing archived"},
      {"{\"action\":\"decline\"}", "Nothing archived"},
  };
  for (int i = 0; i < 3; i++) {
    char line[4096];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
             "\"params\":{\"name\":\"archive_orders\",\"arguments\":{"
             "\"older_than_days\":30},\"inputResponses\":{\"confirm\":%s},"
             "\"requestState\":\"%s\"," META_CAPS("{\"elicitation\":{}}") "}}",
             2 + i, rounds[i].answer, token);
    json_t *a = rpc(&p, line);
    const char *text = text_of(a);
    if (text == NULL || strstr(text, rounds[i].expect) == NULL)
      fail_msg("round %d: %s", i, json_dumps(a, 0));
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(a, "result"), "resultType")),
                        "complete");
    json_decref(a);
  }
  /* the accepted archive offers restore_orders (no notification on stdio:
   * 2026-07-28 delivers list changes on listen streams only) */
  json_t *l = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
                      "\"tools/list\",\"params\":{" META_CAPS("{}") "}}");
  char *listed = json_dumps(l, 0);
  json_decref(l);
  bool offered = listed && strstr(listed, "\"restore_orders\"");
  free(listed);
  assert_true(offered);
  char line[4096];
  /* issue #25 N7: the confirmation without the requestState of the round
   * that asked it is refused, never used at once (it archived) */
  json_t *refused = rpc(
      &p, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\","
          "\"params\":{\"name\":\"archive_orders\",\"arguments\":{"
          "\"older_than_days\":7},\"inputResponses\":{\"confirm\":{"
          "\"action\":\"accept\",\"content\":{\"confirm\":true}}},"
          META_CAPS("{\"elicitation\":{}}") "}}");
  assert_int_equal(tu_error_code(refused), MCP_RPC_INVALID_PARAMS);
  json_decref(refused);
  /* the state is bound to the arguments */
  snprintf(line, sizeof line,
           "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
           "{\"name\":\"archive_orders\",\"arguments\":{\"older_than_days\":1},"
           "\"inputResponses\":{\"confirm\":{\"action\":\"accept\",\"content\":"
           "{\"confirm\":true}}},\"requestState\":\"%s\"," META_CAPS(
               "{\"elicitation\":{}}") "}}",
           token);
  json_t *a = rpc(&p, line);
  assert_int_equal(tu_error_code(a), MCP_RPC_INVALID_PARAMS);
  json_decref(a);
  json_decref(r);
  /* no elicitation capability: -32021 naming it */
  r = rpc(&p,
          "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\","
          "\"params\":{\"name\":\"archive_orders\",\"arguments\":{}," META_CAPS(
              "{}") "}}");
  assert_int_equal(tu_error_code(r), MCP_RPC_MISSING_CLIENT_CAPABILITY);
  assert_non_null(json_object_get(
      json_object_get(json_object_get(json_object_get(r, "error"), "data"),
                      "requiredCapabilities"),
      "elicitation"));
  json_decref(r);
  stop(&p);
}

static void handshake(tu_proc *p, const char *caps) {
  char line[512];
  snprintf(line, sizeof line,
           "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
           "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":%s,"
           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
           caps);
  json_t *r = rpc(p, line);
  assert_non_null(json_object_get(r, "result"));
  json_decref(r);
  tu_proc_send_line(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                       "initialized\"}");
}

/* 2025-11-25: the same handler sends elicitation/create and waits. */
static void test_archive_orders_legacy(void **state) {
  (void)state;
  tu_proc p;
  start(&p);
  handshake(&p, "{\"elicitation\":{}}");
  json_t *q = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                      "\"params\":{\"name\":\"archive_orders\",\"arguments\":"
                      "{\"older_than_days\":7}}}");
  assert_string_equal(json_string_value(json_object_get(q, "method")),
                      "elicitation/create");
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(q, "params"), "message")),
                         "older than 7 days"));
  char line[256];
  char *id = json_dumps(json_object_get(q, "id"), JSON_ENCODE_ANY);
  snprintf(line, sizeof line,
           "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"action\":\"accept\","
           "\"content\":{\"confirm\":true}}}",
           id);
  free(id);
  json_decref(q);
  /* the archive offers restore_orders: tools/list_changed in the session,
   * before the result */
  assert_int_equal(tu_proc_send_line(&p, line), 0);
  json_t *r;
  int changes = 0;
  while (json_object_get(r = read_msg(&p), "id") == NULL) {
    changes += strcmp(json_string_value(json_object_get(r, "method")),
                      "notifications/tools/list_changed") == 0;
    json_decref(r);
  }
  assert_int_equal(json_integer_value(json_object_get(r, "id")), 1);
  assert_non_null(strstr(text_of(r), "Archived 42 orders older than 7 days"));
  assert_null(json_object_get(json_object_get(r, "result"), "resultType"));
  json_decref(r);
  assert_int_equal(changes, 1);
  /* restore_orders works once and takes itself away again */
  assert_int_equal(tu_proc_send_line(&p,
                                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
                                     "\"tools/call\",\"params\":{\"name\":"
                                     "\"restore_orders\",\"arguments\":{}}}"),
                   0);
  changes = 0;
  while (json_object_get(r = read_msg(&p), "id") == NULL) {
    changes += strcmp(json_string_value(json_object_get(r, "method")),
                      "notifications/tools/list_changed") == 0;
    json_decref(r);
  }
  assert_string_equal(text_of(r), "Restored the archived orders.");
  json_decref(r);
  assert_int_equal(changes, 1);
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"restore_orders\",\"arguments\":{}}}");
  assert_true(
      tu_error_code(r) != 0 ||
      json_is_true(json_object_get(json_object_get(r, "result"), "isError")));
  json_decref(r);
  stop(&p);
  /* a client without elicitation: a tool error, nothing archived */
  start(&p);
  handshake(&p, "{}");
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"archive_orders\",\"arguments\":{}}}");
  assert_true(
      json_is_true(json_object_get(json_object_get(r, "result"), "isError")));
  assert_non_null(strstr(text_of(r), "Could not ask for confirmation"));
  json_decref(r);
  stop(&p);
}

/* customer_brief in both eras: listed, rendered from the database,
 * completed, and -32602 for an unknown customer. */
static void test_customer_brief_prompt(void **state) {
  (void)state;
  tu_proc p;
  start(&p);
  json_t *r;
  /* 2026-07-28 first (no session), then the legacy session */
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\","
              "\"params\":{\"name\":\"customer_brief\",\"arguments\":{"
              "\"customer_id\":\"C003\"}," META_CAPS("{}") "}}");
  json_t *msg = json_array_get(
      json_object_get(json_object_get(r, "result"), "messages"), 0);
  assert_string_equal(json_string_value(json_object_get(msg, "role")), "user");
  const char *text = json_string_value(
      json_object_get(json_object_get(msg, "content"), "text"));
  assert_non_null(text);
  assert_non_null(strstr(text, "Konrad Zuse from Berlin"));
  json_decref(r);
  handshake(&p, "{}");
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/list\"}");
  json_t *prompts = json_object_get(json_object_get(r, "result"), "prompts");
  bool listed = false;
  for (size_t i = 0; i < json_array_size(prompts); i++) {
    json_t *pr = json_array_get(prompts, i);
    if (strcmp(json_string_value(json_object_get(pr, "name")),
               "customer_brief") == 0) {
      listed = true;
      json_t *arg = json_array_get(json_object_get(pr, "arguments"), 0);
      assert_string_equal(json_string_value(json_object_get(arg, "name")),
                          "customer_id");
      assert_true(json_is_true(json_object_get(arg, "required")));
    }
  }
  assert_true(listed);
  json_decref(r);
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/get\","
              "\"params\":{\"name\":\"customer_brief\",\"arguments\":{"
              "\"customer_id\":\"C001\"}}}");
  text = json_string_value(json_object_get(
      json_object_get(
          json_array_get(
              json_object_get(json_object_get(r, "result"), "messages"), 0),
          "content"),
      "text"));
  assert_non_null(text);
  assert_non_null(strstr(text, "Ada Lovelace"));
  assert_non_null(strstr(text, "Open orders: O1001 (199.99)."));
  json_decref(r);
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\","
              "\"params\":{\"name\":\"customer_brief\",\"arguments\":{"
              "\"customer_id\":\"C999\"}}}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(r, "error"), "message")),
                         "C999"));
  json_decref(r);
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\","
              "\"params\":{\"name\":\"customer_brief\",\"arguments\":{}}}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  r = rpc(&p,
          "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"completion/complete\","
          "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
          "\"customer_brief\"},\"argument\":{\"name\":\"customer_id\","
          "\"value\":\"C00\"}}}");
  json_t *values = json_object_get(
      json_object_get(json_object_get(r, "result"), "completion"), "values");
  assert_int_equal(json_array_size(values), 4);
  assert_string_equal(json_string_value(json_array_get(values, 0)), "C001");
  json_decref(r);
  stop(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_archive_orders_modern),
      cmocka_unit_test(test_archive_orders_legacy),
      cmocka_unit_test(test_customer_brief_prompt),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
