/* SPDX-License-Identifier: MIT */
/* ext_tasks_test.c - the 2026-07-28 tasks extension in-process and over
 * Streamable HTTP: the flat CreateTaskResult, DetailedTask by status (tool
 * error = completed with isError, protocol error = failed with error),
 * several questions at once answered in parts with tasks/update, a tool
 * that asks first and then continues as a task, TTL expiry of a parked task
 * while it is polled, notifications/tasks on a subscriptions/listen stream,
 * tasks bound to the subject that created them,
 * and the routing headers (Mcp-Method, Mcp-Name = task id) over HTTP.
 * Tools wait on gates or ask questions, so nothing depends on timing. */
#include <pthread.h>
#include <stdatomic.h>

/* the fixture is shared by several tests; not all of it is used here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#include "server/internal.h"

#define EXT  "io.modelcontextprotocol/tasks"
#define CAPS "{\"elicitation\":{},\"extensions\":{\"" EXT "\":{}}}"

static atomic_int gate;

static mcp_status tool_wait(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)args, (void)ud;
  for (int i = 0;
       i < 4000 && !atomic_load(&gate) && !mcp_call_is_cancelled(call); i++)
    sleep_ms(5);
  mcp_result_add_text(r, "waited");
  return MCP_OK;
}

static mcp_status tool_error(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_result_set_error(r, "the tool failed");
}

static mcp_status tool_crash(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)args, (void)r, (void)ud;
  mcp_call_set_error(call, -32603, "Internal error: crashed", NULL);
  return MCP_ERR_INTERNAL;
}

static json_t *bool_schema(void) {
  return json_pack("{s:s,s:{s:{s:s}}}", "type", "object", "properties", "ok",
                   "type", "boolean");
}

/* Two questions in one round, then a third after both answers. */
static mcp_status tool_ask(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)args, (void)ud;
  mcp_elicit_action a = MCP_ELICIT_DECLINE, b = MCP_ELICIT_DECLINE,
                    c = MCP_ELICIT_DECLINE;
  mcp_call_set_question_key(call, "a");
  mcp_status s1 =
      mcp_call_elicit(call, "first?", bool_schema(), 0, &a, NULL, NULL);
  mcp_call_set_question_key(call, "b");
  mcp_status s2 =
      mcp_call_elicit(call, "second?", bool_schema(), 0, &b, NULL, NULL);
  if (s1 != MCP_OK || s2 != MCP_OK)
    return s1 != MCP_OK ? s1 : s2;
  mcp_call_set_question_key(call, "c");
  mcp_status s3 =
      mcp_call_elicit(call, "third?", bool_schema(), 0, &c, NULL, NULL);
  if (s3 != MCP_OK)
    return s3;
  mcp_result_add_textf(r, "%d%d%d", a == MCP_ELICIT_ACCEPT,
                       b == MCP_ELICIT_ACCEPT, c == MCP_ELICIT_ACCEPT);
  return MCP_OK;
}

static mcp_status tool_ask_first(mcp_call_t *call, json_t *args,
                                 mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  mcp_elicit_action a = MCP_ELICIT_DECLINE;
  mcp_call_set_question_key(call, "who");
  mcp_status st =
      mcp_call_elicit(call, "who?", bool_schema(), 0, &a, NULL, NULL);
  if (st == MCP_OK)
    st = mcp_call_continue_as_task(call);
  if (st == MCP_OK)
    mcp_result_add_textf(r, "task=%s accepted=%d",
                         mcp_call_task_id(call) ? "yes" : "no",
                         a == MCP_ELICIT_ACCEPT);
  return st;
}

static void add(mcp_server_t *s, const char *name, mcp_tool_fn fn,
                mcp_task_support support, bool first) {
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  assert_int_equal(mcp_tool_set_task_support(t, support), MCP_OK);
  assert_int_equal(mcp_tool_set_task_start_in_handler(t, first), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, fn, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
}

static fixture f;

static void start_server(int64_t ttl_ms, int64_t sweep_ms) {
  atomic_store(&gate, 0);
  fixture_new_server(&f, "ext-tasks-test");
  add(f.server, "wait", tool_wait, MCP_TASK_OPTIONAL, false);
  add(f.server, "error", tool_error, MCP_TASK_OPTIONAL, false);
  add(f.server, "crash", tool_crash, MCP_TASK_OPTIONAL, false);
  add(f.server, "ask", tool_ask, MCP_TASK_OPTIONAL, false);
  add(f.server, "ask_first", tool_ask_first, MCP_TASK_REQUIRED, true);
  assert_int_equal(mcp_store_memory_new(&f.store), MCP_OK);
  mcp_task_options_t *o = NULL;
  assert_int_equal(mcp_task_options_new(&o), MCP_OK);
  assert_int_equal(mcp_task_options_set_ttl(o, ttl_ms, -1), MCP_OK);
  assert_int_equal(mcp_task_options_set_cleanup(o, 60000, 86400000, sweep_ms),
                   MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(f.server, f.store, o, NULL), MCP_OK);
  mcp_task_options_free(o);
}

static void stop_server(void) {
  atomic_store(&gate, 1);
  if (f.http)
    fixture_stop(&f);
  else {
    mcp_server_free(f.server);
    mcp_store_free(f.store);
  }
}

static json_t *call_tool(const char *tool, const char *caps) {
  char params[256];
  snprintf(params, sizeof params, "{\"name\":\"%s\",\"arguments\":{}}", tool);
  return tu_modern_request(f.server, "tools/call", params, caps);
}

static json_t *res(json_t *m) {
  json_t *r = json_object_get(m, "result");
  if (r == NULL)
    fail_msg("no result: %s", json_dumps(m, 0));
  return r;
}

static const char *str(json_t *m, const char *k) {
  return json_string_value(json_object_get(res(m), k));
}

static char *start(const char *tool) {
  json_t *m = call_tool(tool, CAPS);
  assert_string_equal(str(m, "resultType"), "task");
  assert_null(json_object_get(res(m), "requestState"));
  char *id = strdup(str(m, "taskId"));
  json_decref(m);
  return id;
}

static json_t *task_call(const char *method, const char *id,
                         const char *extra) {
  char params[1024];
  snprintf(params, sizeof params, "{\"taskId\":\"%s\"%s%s}", id,
           extra ? "," : "", extra ? extra : "");
  return tu_modern_request(f.server, method, params, CAPS);
}

/* tasks/get until the status is want (or terminal). */
static json_t *poll_status(const char *id, const char *want) {
  for (int i = 0; i < 4000; i++) {
    json_t *g = task_call("tasks/get", id, NULL);
    const char *s = str(g, "status");
    if (strcmp(s, want) == 0 || strcmp(s, "completed") == 0 ||
        strcmp(s, "failed") == 0 || strcmp(s, "cancelled") == 0)
      return g;
    json_decref(g);
    sleep_ms(5);
  }
  fail_msg("%s never became %s", id, want);
  return NULL;
}

static void test_statuses(void **state) {
  (void)state;
  start_server(60000, 0);
  char *id = start("wait");
  json_t *g = task_call("tasks/get", id, NULL);
  assert_string_equal(str(g, "status"), "working");
  assert_null(json_object_get(res(g), "result"));
  json_decref(g);
  atomic_store(&gate, 1);
  g = poll_status(id, "completed");
  assert_string_equal(str(g, "status"), "completed");
  assert_null(json_object_get(json_object_get(res(g), "result"), "_meta"));
  json_decref(g);
  free(id);

  id = start("error"); /* a tool error is a completed task */
  g = poll_status(id, "completed");
  assert_string_equal(str(g, "status"), "completed");
  assert_true(json_is_true(
      json_object_get(json_object_get(res(g), "result"), "isError")));
  json_decref(g);
  free(id);

  id = start("crash"); /* a protocol error fails it, with the error */
  g = poll_status(id, "failed");
  assert_string_equal(str(g, "status"), "failed");
  json_t *err = json_object_get(res(g), "error");
  assert_int_equal(json_integer_value(json_object_get(err, "code")), -32603);
  assert_null(json_object_get(res(g), "result"));
  json_decref(g);
  free(id);

  /* without the extension: synchronous, never a task */
  json_t *m = call_tool("wait", "{}");
  assert_string_equal(str(m, "resultType"), "complete");
  json_decref(m);
  m = call_tool("ask_first", "{}");
  assert_int_equal(tu_error_code(m), -32021);
  json_decref(m);
  stop_server();
}

static void test_questions_in_parts(void **state) {
  (void)state;
  start_server(60000, 0);
  char *id = start("ask");
  json_t *g = poll_status(id, "input_required");
  json_t *asked = json_object_get(res(g), "inputRequests");
  assert_non_null(json_object_get(asked, "a"));
  assert_non_null(json_object_get(asked, "b"));
  json_decref(g);
  /* one of two: still input_required, only the other outstanding */
  json_decref(task_call("tasks/update", id,
                        "\"inputResponses\":{\"a\":{\"action\":\"accept\","
                        "\"content\":{\"ok\":true}}}"));
  g = task_call("tasks/get", id, NULL);
  assert_string_equal(str(g, "status"), "input_required");
  asked = json_object_get(res(g), "inputRequests");
  assert_null(json_object_get(asked, "a"));
  assert_non_null(json_object_get(asked, "b"));
  json_decref(g);
  /* the second: the handler runs again and asks a third question */
  json_decref(task_call("tasks/update", id,
                        "\"inputResponses\":{\"b\":{\"action\":\"decline\"},"
                        "\"a\":{\"action\":\"decline\"}}"));
  g = poll_status(id, "input_required");
  asked = json_object_get(res(g), "inputRequests");
  assert_int_equal(json_object_size(asked), 1);
  assert_non_null(json_object_get(asked, "c"));
  json_decref(g);
  json_decref(task_call("tasks/update", id,
                        "\"inputResponses\":{\"c\":{\"action\":\"accept\","
                        "\"content\":{\"ok\":true}}}"));
  g = poll_status(id, "completed");
  /* "a" keeps its first answer: a later one for an answered key is
   * ignored */
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(
              json_object_get(json_object_get(res(g), "result"), "content"), 0),
          "text")),
      "101");
  json_decref(g);
  /* bad params and unknown tasks */
  json_t *u = task_call("tasks/update", id, "\"inputResponses\":3");
  assert_int_equal(tu_error_code(u), -32602);
  json_decref(u);
  u = task_call("tasks/update", "nope", "\"inputResponses\":{}");
  assert_int_equal(tu_error_code(u), -32602);
  json_decref(u);
  free(id);
  /* a task left waiting for its answers when the server stops: failed as
   * interrupted, its parked run freed (ASan) */
  id = start("ask");
  json_decref(poll_status(id, "input_required"));
  mcp_server_free(f.server);
  f.server = NULL;
  mcp_tasks_t *again = NULL;
  assert_int_equal(mcp_tasks_open(f.store, "ext-tasks-test", &again), MCP_OK);
  mcp_task_status status;
  assert_int_equal(mcp_task_get_status(again, id, &status), MCP_OK);
  assert_int_equal(status, MCP_TASK_FAILED);
  mcp_tasks_free(again);
  mcp_store_free(f.store);
  free(id);
}

static void test_ask_first_then_task(void **state) {
  (void)state;
  start_server(60000, 0);
  json_t *m = call_tool("ask_first", CAPS);
  assert_string_equal(str(m, "resultType"), "input_required");
  assert_null(json_object_get(res(m), "taskId"));
  char params[4096];
  snprintf(params, sizeof params,
           "{\"name\":\"ask_first\",\"arguments\":{},\"requestState\":\"%s\","
           "\"inputResponses\":{\"who\":{\"action\":\"accept\",\"content\":"
           "{\"ok\":true}}}}",
           str(m, "requestState"));
  json_decref(m);
  m = tu_modern_request(f.server, "tools/call", params, CAPS);
  assert_string_equal(str(m, "resultType"), "task");
  assert_null(json_object_get(res(m), "requestState"));
  assert_null(json_object_get(res(m), "inputRequests"));
  char *id = strdup(str(m, "taskId"));
  json_decref(m);
  json_t *g = poll_status(id, "completed");
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(
              json_object_get(json_object_get(res(g), "result"), "content"), 0),
          "text")),
      "task=yes accepted=1");
  json_decref(g);
  free(id);
  stop_server();
}

static void test_ttl_expiry_while_polled(void **state) {
  (void)state;
  start_server(300, 50); /* 300 ms ttl, sweeper every 50 ms */
  json_t *m = call_tool("ask", CAPS);
  assert_int_equal(json_integer_value(json_object_get(res(m), "ttlMs")), 300);
  char *id = strdup(str(m, "taskId"));
  json_decref(m);
  /* polled (working or input_required, however slow the machine) until
   * the ttl has passed: then not found */
  int code = 0;
  for (int i = 0; i < 4000 && code == 0; i++) {
    json_t *g = task_call("tasks/get", id, NULL);
    code = tu_error_code(g);
    if (code == 0)
      assert_null(json_object_get(res(g), "result"));
    json_decref(g);
    if (code == 0)
      sleep_ms(5);
  }
  assert_int_equal(code, -32602);
  free(id);
  stop_server(); /* the parked run is freed (ASan checks) */
}

static void test_listen_notifications(void **state) {
  (void)state;
  start_server(60000, 0);
  char *id = start("wait");
  tu_capture c;
  tu_capture_init(&c);
  char text[1024];
  snprintf(text, sizeof text,
           "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"subscriptions/listen\","
           "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
           "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
           "%s},\"notifications\":{\"taskIds\":[\"%s\"]}}}",
           CAPS, id);
  mcp_call_t *call = NULL;
  assert_int_equal(mcp__server_accept(f.server, NULL, NULL, text, strlen(text),
                                      tu_capture_channel(&c), &call),
                   MCP__ACCEPT_REQUEST);
  mcp__call_allow_suspend(call);
  mcp__call_run(call);
  assert_int_equal(tu_capture_wait(&c, 1, 5000), 1); /* the ack */
  atomic_store(&gate, 1);
  json_t *done = NULL;
  for (int i = 0; i < 4000 && done == NULL; i++) {
    size_t n = tu_capture_wait(&c, 2, 5);
    for (size_t k = 1; k < n && done == NULL; k++) {
      pthread_mutex_lock(&c.lock);
      json_t *m = json_array_get(c.messages, k);
      json_t *p = json_object_get(m, "params");
      if (strcmp(json_string_value(json_object_get(m, "method")),
                 "notifications/tasks") == 0 &&
          strcmp(json_string_value(json_object_get(p, "status")),
                 "completed") == 0)
        done = json_incref(p);
      pthread_mutex_unlock(&c.lock);
    }
  }
  assert_non_null(done);
  assert_string_equal(json_string_value(json_object_get(done, "taskId")), id);
  assert_non_null(json_object_get(done, "result"));
  json_decref(done);
  /* taskIds without the extension: -32021 */
  snprintf(text, sizeof text, "{\"notifications\":{\"taskIds\":[\"%s\"]}}", id);
  json_t *m = tu_modern_request(f.server, "subscriptions/listen", text, "{}");
  assert_int_equal(tu_error_code(m), -32021);
  json_decref(m);
  mcp__server_channel_gone(f.server, &c);
  tu_capture_destroy(&c);
  free(id);
  stop_server();
}

/* A 2026-07-28 request as an authenticated subject (NULL: none). */
static json_t *as_subject(const char *subject, const char *method,
                          const char *params) {
  char text[2048];
  snprintf(text, sizeof text,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{%s,"
           "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
           "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
           "%s}}}",
           method, params, CAPS);
  mcp__peer peer = {0};
  peer.subject = subject;
  tu_capture c;
  tu_capture_init(&c);
  mcp_call_t *call = NULL;
  if (mcp__server_accept(f.server, NULL, &peer, text, strlen(text),
                         tu_capture_channel(&c), &call) == MCP__ACCEPT_REQUEST)
    mcp__call_run(call);
  json_t *last = json_incref(json_array_get(c.messages, 0));
  tu_capture_destroy(&c);
  return last;
}

static void test_bound_to_subject(void **state) {
  (void)state;
  start_server(60000, 0);
  json_t *m =
      as_subject("alice", "tools/call", "\"name\":\"wait\",\"arguments\":{}");
  char *id = strdup(str(m, "taskId"));
  json_decref(m);
  char params[128];
  snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
  /* another subject, and no subject, cannot see it: not found */
  static const char *const methods[] = {"tasks/get", "tasks/cancel"};
  for (size_t i = 0; i < 2; i++) {
    m = as_subject("bob", methods[i], params);
    assert_int_equal(tu_error_code(m), -32602);
    json_decref(m);
    m = as_subject(NULL, methods[i], params);
    assert_int_equal(tu_error_code(m), -32602);
    json_decref(m);
  }
  m = as_subject("bob", "tasks/update",
                 "\"taskId\":\"x\",\"inputResponses\":{}");
  assert_int_equal(tu_error_code(m), -32602);
  json_decref(m);
  m = as_subject("alice", "tasks/get", params);
  assert_string_equal(str(m, "status"), "working");
  json_decref(m);
  free(id);
  stop_server();
}

/* ---- over HTTP ----------------------------------------------------------- */
#define MODERN_HDR ACCEPT "MCP-Protocol-Version: 2026-07-28\r\n"

static int post(const char *method, const char *name, const char *params,
                char **body) {
  char hdr[512], payload[2048];
  snprintf(hdr, sizeof hdr, MODERN_HDR "Mcp-Method: %s\r\n%s%s%s", method,
           name ? "Mcp-Name: " : "", name ? name : "", name ? "\r\n" : "");
  snprintf(payload, sizeof payload,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{%s,"
           "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
           "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
           "%s}}}",
           method, params, CAPS);
  return tc_do(f.port, "POST", hdr, payload, body, NULL);
}

static void test_http_routing_headers(void **state) {
  (void)state;
  start_server(60000, 0);
  fixture_serve(&f, base_options());
  char *body = NULL;
  assert_int_equal(
      post("tools/call", "wait", "\"name\":\"wait\",\"arguments\":{}", &body),
      200);
  json_t *m = json_loads(body, 0, NULL);
  free(body);
  char *id = strdup(str(m, "taskId"));
  json_decref(m);
  char params[128];
  snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
  body = NULL;
  assert_int_equal(post("tasks/get", id, params, &body), 200);
  assert_non_null(strstr(body, "\"working\""));
  free(body);
  body = NULL; /* Mcp-Name must be the task id */
  assert_int_equal(post("tasks/get", "another-task", params, &body), 400);
  assert_non_null(strstr(body, "-32020"));
  free(body);
  body = NULL; /* and is required */
  assert_int_equal(post("tasks/cancel", NULL, params, &body), 400);
  free(body);
  body = NULL;
  assert_int_equal(post("tasks/cancel", id, params, &body), 200);
  assert_non_null(strstr(body, "\"resultType\":\"complete\""));
  free(body);
  free(id);
  stop_server();
}

/* tasks/get over HTTP until the status is want (or terminal); the body. */
static json_t *http_poll(const char *id, const char *want) {
  char params[128];
  snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
  for (int i = 0; i < 4000; i++) {
    char *body = NULL;
    assert_int_equal(post("tasks/get", id, params, &body), 200);
    json_t *m = json_loads(body, 0, NULL);
    free(body);
    const char *s = str(m, "status");
    if (strcmp(s, want) == 0 || strcmp(s, "completed") == 0 ||
        strcmp(s, "failed") == 0 || strcmp(s, "cancelled") == 0)
      return m;
    json_decref(m);
    sleep_ms(5);
  }
  fail_msg("%s never became %s over HTTP", id, want);
  return NULL;
}

static char *http_start(const char *tool) {
  char params[128], *body = NULL;
  snprintf(params, sizeof params, "\"name\":\"%s\",\"arguments\":{}", tool);
  assert_int_equal(post("tools/call", tool, params, &body), 200);
  json_t *m = json_loads(body, 0, NULL);
  free(body);
  assert_string_equal(str(m, "resultType"), "task");
  char *id = strdup(str(m, "taskId"));
  json_decref(m);
  return id;
}

static void test_http_life_cycle(void **state) {
  (void)state;
  start_server(60000, 0);
  fixture_serve(&f, base_options());
  /* working -> input_required -> (update) -> ... -> completed */
  char *id = http_start("ask");
  json_t *g = http_poll(id, "input_required");
  assert_non_null(
      json_object_get(json_object_get(res(g), "inputRequests"), "a"));
  json_decref(g);
  char params[512], *body = NULL;
  snprintf(params, sizeof params,
           "\"taskId\":\"%s\",\"inputResponses\":{\"a\":{\"action\":"
           "\"accept\",\"content\":{}},\"b\":{\"action\":\"accept\","
           "\"content\":{}}}",
           id);
  assert_int_equal(post("tasks/update", id, params, &body), 200);
  free(body);
  g = http_poll(id, "input_required"); /* the third question */
  assert_non_null(
      json_object_get(json_object_get(res(g), "inputRequests"), "c"));
  json_decref(g);
  snprintf(params, sizeof params,
           "\"taskId\":\"%s\",\"inputResponses\":{\"c\":{\"action\":"
           "\"decline\"}}",
           id);
  body = NULL;
  assert_int_equal(post("tasks/update", id, params, &body), 200);
  free(body);
  g = http_poll(id, "completed");
  assert_string_equal(str(g, "status"), "completed");
  json_decref(g);
  free(id);
  /* failed */
  id = http_start("crash");
  g = http_poll(id, "failed");
  assert_string_equal(str(g, "status"), "failed");
  assert_non_null(json_object_get(res(g), "error"));
  json_decref(g);
  free(id);
  stop_server();
  /* TTL (300 ms) expiry while polled: -32602, HTTP 200 with the error */
  start_server(300, 20);
  fixture_serve(&f, base_options());
  id = http_start("ask");
  snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
  bool gone = false;
  for (int i = 0; i < 4000 && !gone; i++) {
    body = NULL;
    post("tasks/get", id, params, &body);
    gone = strstr(body, "-32602") != NULL;
    free(body);
    if (!gone)
      sleep_ms(5);
  }
  assert_true(gone);
  free(id);
  stop_server();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_statuses),
      cmocka_unit_test(test_questions_in_parts),
      cmocka_unit_test(test_ask_first_then_task),
      cmocka_unit_test(test_ttl_expiry_while_polled),
      cmocka_unit_test(test_listen_notifications),
      cmocka_unit_test(test_bound_to_subject),
      cmocka_unit_test(test_http_routing_headers),
      cmocka_unit_test(test_http_life_cycle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
