/* SPDX-License-Identifier: MIT */
/* tasks_test.c - the task engine in-process: capabilities, taskSupport
 * enforcement and its error codes, CreateTaskResult and Task shape,
 * tasks/get|result|list|cancel, progress and status notifications,
 * input_required through elicitation, subject isolation and the id-as-
 * capability model, ttl expiry, per-caller caps, 200 tasks from 4 callers,
 * cancel racing completion, the application API and recovery. */
#include "task_fixture.h"
#include "testutil.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/internal.h"
#include "util/clock.h"

/* ---- tools --------------------------------------------------------------- */
static mcp_status quick_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)ud;
  if (json_object_get(args, "fail_rpc")) {
    mcp_call_set_error(call, -32099, "custom failure",
                       json_pack("{s:i}", "d", 7));
    return MCP_ERR_INTERNAL;
  }
  if (json_object_get(args, "is_error")) {
    mcp_result_set_error(r, "bad input %d", 1);
    return MCP_OK;
  }
  mcp_result_add_text(r, mcp_arg_string_or(args, "text", "done"));
  mcp_result_set_structured(
      r, json_pack("{s:b}", "task", mcp_call_task_id(call) != NULL));
  return MCP_OK;
}

static int hook_calls;
static void cancel_hook(mcp_tasks_t *t, const char *id, void *ud) {
  (void)t, (void)id, (void)ud;
  __atomic_add_fetch(&hook_calls, 1, __ATOMIC_SEQ_CST);
}

/* Handlers of slow that have started. */
static int slow_started;

/* Works until cancelled (or 60 s: far beyond any wait of the tests, so
 * that a slow task is still working whenever a test looks), reporting
 * progress. */
static mcp_status slow_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)args, (void)ud;
  __atomic_add_fetch(&slow_started, 1, __ATOMIC_SEQ_CST);
  double p = 0;
  for (int i = 0; i < 30000 && !mcp_call_is_cancelled(call); i++) {
    if (i % 25 == 0)
      mcp_call_progress(call, ++p, -1, "working");
    usleep(2000);
  }
  mcp_result_add_text(r, mcp_call_is_cancelled(call) ? "stopped" : "finished");
  return MCP_OK;
}

static mcp_status ask_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)args, (void)ud;
  json_t *res = NULL;
  mcp_error_t err;
  mcp_status st = mcp_call_request(
      call, "elicitation/create",
      json_pack("{s:s,s:{s:s,s:{s:{s:s}}}}", "message", "Proceed?",
                "requestedSchema", "type", "object", "properties", "ok", "type",
                "boolean"),
      5000, &res, &err);
  if (st != MCP_OK) {
    mcp_result_set_error(r, "%s", err.message);
    return MCP_OK;
  }
  mcp_result_add_text(r, json_string_value(json_object_get(res, "action")));
  json_decref(res);
  return MCP_OK;
}

static mcp_status defer_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)args, (void)r, (void)ud;
  return mcp_call_task_defer(call);
}

typedef struct fixture {
  mcp_server_t *server;
  mcp_store_t *store;
  mcp_session_t *session;
  tu_capture notify;
} fixture;

static void setup_with(fixture *f, mcp_task_options_t *o, bool enable) {
  memset(f, 0, sizeof *f);
  __atomic_store_n(&slow_started, 0, __ATOMIC_SEQ_CST);
  assert_int_equal(mcp_server_new("tasks-test", "1", &f->server), MCP_OK);
  mcp_server_set_log_level(f->server, MCP_LOG_EMERGENCY);
  tu_add_task_tool(f->server, "quick", quick_tool, MCP_TASK_OPTIONAL);
  tu_add_task_tool(f->server, "slow", slow_tool, MCP_TASK_OPTIONAL);
  tu_add_task_tool(f->server, "must_task", quick_tool, MCP_TASK_REQUIRED);
  tu_add_task_tool(f->server, "never_task", quick_tool, MCP_TASK_FORBIDDEN);
  tu_add_task_tool(f->server, "ask", ask_tool, MCP_TASK_OPTIONAL);
  tu_add_task_tool(f->server, "defer", defer_tool, MCP_TASK_REQUIRED);
  assert_int_equal(mcp_store_memory_new(&f->store), MCP_OK);
  if (enable)
    assert_int_equal(mcp_server_enable_tasks(f->server, f->store, o, NULL),
                     MCP_OK);
  tu_capture_init(&f->notify);
  f->session = tu_session(f->server, &f->notify);
  tu_initialize(f->server, f->session, "{\"elicitation\":{}}");
}

static void setup(fixture *f) {
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_list(o, true);
  mcp_task_options_set_cancel_hook(o, cancel_hook, NULL);
  setup_with(f, o, true);
  mcp_task_options_free(o);
}

static void teardown(fixture *f) {
  mcp__session_close(f->session);
  mcp__session_release(f->session);
  mcp_server_free(f->server);
  mcp_store_free(f->store);
  tu_capture_destroy(&f->notify);
}

/* ---- JSON-RPC helpers (tests/util/task_fixture.h) ----------------------- */
static json_t *rpc_as(fixture *f, mcp_session_t *se, const char *subject,
                      const char *text) {
  return tu_rpc_as(f->server, se, subject, text);
}

static json_t *call_tool(fixture *f, mcp_session_t *se, const char *subject,
                         const char *name, const char *args, const char *task) {
  return tu_call_tool(f->server, se, subject, name, args, task);
}

static json_t *task_method(fixture *f, mcp_session_t *se, const char *subject,
                           const char *method, const char *id) {
  return tu_task_method(f->server, se, subject, method, id);
}

/* Starts a task and returns its id (malloc'd). */
static char *start(fixture *f, mcp_session_t *se, const char *subject,
                   const char *tool, const char *args) {
  return tu_start_task(f->server, se, subject, tool, args, "{}");
}

/* Waits (at most 20 s) until n handlers of slow have started. */
static void wait_slow_started(int n) {
  for (int i = 0;
       i < 2000 && __atomic_load_n(&slow_started, __ATOMIC_SEQ_CST) < n; i++)
    usleep(10000);
  assert_true(__atomic_load_n(&slow_started, __ATOMIC_SEQ_CST) >= n);
}

/* Polls tasks/get of id until its answer has error code want (at most
 * 20 s); false when it never had. */
static bool wait_get_error(fixture *f, const char *id, int want) {
  for (int i = 0; i < 2000; i++) {
    json_t *r = task_method(f, f->session, NULL, "tasks/get", id);
    bool done = tu_error_code(r) == want;
    json_decref(r);
    if (done)
      return true;
    usleep(10000);
  }
  return false;
}

/* ---- tests --------------------------------------------------------------- */
static void test_capabilities_follow_the_switch(void **state) {
  (void)state;
  fixture f;
  setup_with(&f, NULL, false);
  json_t *r = rpc_as(&f, f.session, NULL,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                     "\"params\":{\"protocolVersion\":\"2025-11-25\","
                     "\"capabilities\":{},\"clientInfo\":{\"name\":\"a\","
                     "\"version\":\"1\"}}}");
  assert_null(json_object_get(json_object_get(tu_result_of(r), "capabilities"),
                              "tasks"));
  json_decref(r);
  /* disabled: params.task is ignored, the tasks methods are unknown */
  r = call_tool(&f, f.session, NULL, "quick", "{}", "{\"ttl\":1000}");
  assert_non_null(json_object_get(tu_result_of(r), "content"));
  assert_null(json_object_get(tu_result_of(r), "task"));
  json_decref(r);
  r = call_tool(&f, f.session, NULL, "must_task", "{}", NULL);
  assert_non_null(json_object_get(tu_result_of(r), "content"));
  json_decref(r);
  r = task_method(&f, f.session, NULL, "tasks/get", "x");
  assert_int_equal(tu_error_code(r), -32601);
  json_decref(r);
  assert_null(mcp_server_tasks(f.server));
  teardown(&f);

  setup_with(&f, NULL, true);
  json_t *caps = mcp__server_capabilities(f.server, MCP__ERA_LEGACY);
  json_t *tasks = json_object_get(caps, "tasks");
  assert_non_null(json_object_get(tasks, "cancel"));
  assert_null(json_object_get(tasks, "list")); /* not declared by default */
  assert_non_null(json_object_get(
      json_object_get(json_object_get(tasks, "requests"), "tools"), "call"));
  json_decref(caps);
  r = rpc_as(&f, f.session, NULL,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/list\"}");
  assert_int_equal(tu_error_code(r), -32601);
  json_decref(r);
  assert_int_equal(mcp_server_enable_tasks(f.server, f.store, NULL, NULL),
                   MCP_ERR_EXISTS);
  teardown(&f);

  setup(&f);
  caps = mcp__server_capabilities(f.server, MCP__ERA_LEGACY);
  assert_non_null(json_object_get(json_object_get(caps, "tasks"), "list"));
  json_decref(caps);
  teardown(&f);
}

static void test_task_support_is_enforced(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  json_t *r = call_tool(&f, f.session, NULL, "must_task", "{}", NULL);
  assert_int_equal(tu_error_code(r), -32601);
  json_decref(r);
  r = call_tool(&f, f.session, NULL, "never_task", "{}", "{}");
  assert_int_equal(tu_error_code(r), -32601);
  json_decref(r);
  r = call_tool(&f, f.session, NULL, "never_task", "{}", NULL);
  assert_non_null(json_object_get(tu_result_of(r), "content"));
  json_decref(r);
  r = call_tool(&f, f.session, NULL, "quick", "{}", "5");
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  r = call_tool(&f, f.session, NULL, "quick", "{}", "{\"ttl\":\"x\"}");
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  /* optional: one handler, both paths */
  r = call_tool(&f, f.session, NULL, "quick", "{}", NULL);
  assert_false(json_is_true(json_object_get(
      json_object_get(tu_result_of(r), "structuredContent"), "task")));
  json_decref(r);
  char *id = start(&f, f.session, NULL, "quick", "{}");
  r = task_method(&f, f.session, NULL, "tasks/result", id);
  assert_true(json_is_true(json_object_get(
      json_object_get(tu_result_of(r), "structuredContent"), "task")));
  json_decref(r);
  free(id);
  teardown(&f);
}

static bool matches(const char *re, const char *s) {
  regex_t rx;
  assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
  bool ok = s && regexec(&rx, s, 0, NULL, 0) == 0;
  regfree(&rx);
  return ok;
}

#define RFC3339_MS                                                             \
  "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"

static void test_create_task_result_and_task_shape(void **state) {
  (void)state;
  fixture f;
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_ttl(o, 60000, 120000);
  mcp_task_options_set_poll_interval(o, 500);
  assert_int_equal(mcp_task_options_set_immediate_response(o, "%s %d"),
                   MCP_ERR_INVALID_ARG);
  mcp_task_options_set_immediate_response(o, "Started %s in the background");
  setup_with(&f, o, true);
  mcp_task_options_free(o);
  json_t *r = call_tool(&f, f.session, NULL, "slow", "{}", "{\"ttl\":999999}");
  json_t *res = tu_result_of(r);
  json_t *task = json_object_get(res, "task");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(res, "_meta"),
                          "io.modelcontextprotocol/model-immediate-response")),
                      "Started slow in the background");
  const char *id = json_string_value(json_object_get(task, "taskId"));
  assert_true(matches("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                      "[0-9a-f]{12}$",
                      id));
  assert_string_equal(json_string_value(json_object_get(task, "status")),
                      "working");
  assert_true(matches(RFC3339_MS,
                      json_string_value(json_object_get(task, "createdAt"))));
  assert_true(matches(
      RFC3339_MS, json_string_value(json_object_get(task, "lastUpdatedAt"))));
  assert_int_equal(json_integer_value(json_object_get(task, "ttl")), 120000);
  assert_int_equal(json_integer_value(json_object_get(task, "pollInterval")),
                   500);
  /* tasks/get is flat and equal in shape */
  json_t *g = task_method(&f, f.session, NULL, "tasks/get", id);
  assert_string_equal(
      json_string_value(json_object_get(tu_result_of(g), "taskId")), id);
  assert_null(json_object_get(tu_result_of(g), "task"));
  json_decref(g);
  g = task_method(&f, f.session, NULL, "tasks/cancel", id);
  json_decref(g);
  json_decref(r);
  teardown(&f);

  /* unlimited ttl is null on the wire */
  mcp_task_options_new(&o);
  mcp_task_options_set_ttl(o, -1, -1);
  setup_with(&f, o, true);
  mcp_task_options_free(o);
  r = call_tool(&f, f.session, NULL, "quick", "{}", "{}");
  task = json_object_get(tu_result_of(r), "task");
  assert_true(json_is_null(json_object_get(task, "ttl")));
  assert_non_null(json_object_get(task, "ttl"));
  json_decref(r);
  teardown(&f);
}

static void test_result_replays_the_outcome(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  char *id = start(&f, f.session, NULL, "quick", "{\"text\":\"hello\"}");
  json_t *r = task_method(&f, f.session, NULL, "tasks/result", id);
  json_t *res = tu_result_of(r);
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(res, "content"), 0), "text")),
      "hello");
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(json_object_get(res, "_meta"),
                          "io.modelcontextprotocol/related-task"),
          "taskId")),
      id);
  json_decref(r);
  r = task_method(&f, f.session, NULL, "tasks/get", id);
  assert_string_equal(tu_status_of(r), "completed");
  json_decref(r);
  free(id);

  /* isError result: failed, and tasks/result returns that result */
  id = start(&f, f.session, NULL, "quick", "{\"is_error\":true}");
  r = task_method(&f, f.session, NULL, "tasks/result", id);
  assert_true(json_is_true(json_object_get(tu_result_of(r), "isError")));
  json_decref(r);
  r = task_method(&f, f.session, NULL, "tasks/get", id);
  assert_string_equal(tu_status_of(r), "failed");
  assert_non_null(json_object_get(tu_result_of(r), "statusMessage"));
  json_decref(r);
  free(id);

  /* JSON-RPC error: failed, and tasks/result answers the same error */
  id = start(&f, f.session, NULL, "quick", "{\"fail_rpc\":true}");
  r = task_method(&f, f.session, NULL, "tasks/result", id);
  json_t *err = json_object_get(r, "error");
  assert_int_equal(json_integer_value(json_object_get(err, "code")), -32099);
  assert_string_equal(json_string_value(json_object_get(err, "message")),
                      "custom failure");
  assert_int_equal(
      json_integer_value(json_object_get(json_object_get(err, "data"), "d")),
      7);
  json_decref(r);
  r = task_method(&f, f.session, NULL, "tasks/get", id);
  assert_string_equal(tu_status_of(r), "failed");
  json_decref(r);
  free(id);

  /* unknown ids and bad params */
  const char *methods[] = {"tasks/get", "tasks/result", "tasks/cancel"};
  for (int i = 0; i < 3; i++) {
    r = task_method(&f, f.session, NULL, methods[i], "no-such-task");
    assert_int_equal(tu_error_code(r), -32602);
    json_decref(r);
  }
  r = rpc_as(&f, f.session, NULL,
             "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tasks/get\","
             "\"params\":{\"taskId\":5}}");
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  teardown(&f);
}

static size_t count_method(tu_capture *c, const char *method,
                           const char *task_id) {
  size_t n = 0, i;
  json_t *m;
  pthread_mutex_lock(&c->lock);
  json_array_foreach(c->messages, i, m) {
    const char *mm = json_string_value(json_object_get(m, "method"));
    json_t *params = json_object_get(m, "params");
    const char *rel = json_string_value(
        json_object_get(json_object_get(json_object_get(params, "_meta"),
                                        "io.modelcontextprotocol/related-task"),
                        "taskId"));
    const char *tid = json_string_value(json_object_get(params, "taskId"));
    if (mm && strcmp(mm, method) == 0 &&
        (task_id == NULL || (rel && strcmp(rel, task_id) == 0) ||
         (tid && strcmp(tid, task_id) == 0)))
      n++;
  }
  pthread_mutex_unlock(&c->lock);
  return n;
}

/* A task outlives the session that created it: a client may end its
 * session (HTTP DELETE) the moment it reads the CreateTaskResult, before any
 * executor thread picked the task up, and the task must go on. The channel
 * below plays that client: it closes the session inside the send of the
 * response, the earliest moment a real client could. */
typedef struct closing_client {
  mcp_session_t *session;
  char task_id[64];
} closing_client;

static mcp_status close_on_response(void *ctx, const char *msg, size_t len,
                                    unsigned flags) {
  closing_client *c = ctx;
  if (flags & MCP__SEND_FINAL) {
    json_t *m = json_loadb(msg, len, 0, NULL);
    snprintf(
        c->task_id, sizeof c->task_id, "%s",
        json_string_value(json_object_get(
            json_object_get(json_object_get(m, "result"), "task"), "taskId")));
    json_decref(m);
    mcp__session_close(c->session);
  }
  return MCP_OK;
}

static void test_session_end_does_not_cancel_tasks(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  closing_client client = {tu_session(f.server, NULL), ""};
  tu_initialize(f.server, client.session, NULL);
  const char *text = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"slow\",\"arguments\":{},"
                     "\"task\":{}}}";
  mcp__channel ch = {close_on_response, NULL, &client, NULL, false};
  mcp_call_t *call = NULL;
  assert_int_equal(mcp__server_accept(f.server, client.session, NULL, text,
                                      strlen(text), ch, &call),
                   MCP__ACCEPT_REQUEST);
  mcp__call_run(call);
  mcp__session_release(client.session);
  assert_true(client.task_id[0] != '\0');
  /* the session's end did not cancel the call: its handler starts (a
   * cancelled call never does) and goes on until tasks/cancel */
  wait_slow_started(1);
  json_t *r = task_method(&f, f.session, NULL, "tasks/get", client.task_id);
  assert_string_equal(tu_status_of(r), "working");
  json_decref(r);
  r = task_method(&f, f.session, NULL, "tasks/cancel", client.task_id);
  assert_string_equal(tu_status_of(r), "cancelled");
  json_decref(r);
  teardown(&f);
}

static void test_cancel_progress_and_notifications(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  hook_calls = 0;
  json_t *r = call_tool(&f, f.session, NULL, "slow", "{}", "{}");
  char *id = strdup(json_string_value(
      json_object_get(json_object_get(tu_result_of(r), "task"), "taskId")));
  json_decref(r);
  /* progress with the original token, carrying the related task */
  for (int i = 0;
       i < 500 && count_method(&f.notify, "notifications/progress", id) < 2;
       i++)
    usleep(2000);
  assert_true(count_method(&f.notify, "notifications/progress", id) >= 2);
  r = task_method(&f, f.session, NULL, "tasks/cancel", id);
  assert_string_equal(tu_status_of(r), "cancelled");
  json_decref(r);
  assert_int_equal(hook_calls, 1);
  /* the handler sees its flag and stops; the task stays cancelled */
  usleep(50000);
  r = task_method(&f, f.session, NULL, "tasks/get", id);
  assert_string_equal(tu_status_of(r), "cancelled");
  json_decref(r);
  r = task_method(&f, f.session, NULL, "tasks/cancel", id);
  assert_int_equal(tu_error_code(r), -32602);
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(r, "error"), "message")),
                         "terminal status 'cancelled'"));
  json_decref(r);
  r = task_method(&f, f.session, NULL, "tasks/result", id);
  assert_int_equal(tu_error_code(r), -32602);
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(json_object_get(r, "error"), "data"), "status")),
      "cancelled");
  json_decref(r);
  assert_true(count_method(&f.notify, "notifications/tasks/status", id) >= 1);
  free(id);
  /* a completed task cannot be cancelled */
  id = start(&f, f.session, NULL, "quick", "{}");
  json_decref(task_method(&f, f.session, NULL, "tasks/result", id));
  r = task_method(&f, f.session, NULL, "tasks/cancel", id);
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  free(id);
  teardown(&f);
}

static void test_input_required_via_tasks_result_stream(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  char *id = start(&f, f.session, NULL, "ask", "{}");
  tu_bg_rpc b;
  tu_bg_start(&b, f.server, f.session, NULL, "tasks/result", id);
  /* the elicitation reaches the client on its tasks/result stream (or the
   * standalone stream if it came first) */
  tu_capture *caps[2] = {&b.cap, &f.notify};
  json_t *req = tu_find_request(caps, 2, "elicitation/create");
  assert_non_null(req);
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(
              json_object_get(json_object_get(req, "params"), "_meta"),
              "io.modelcontextprotocol/related-task"),
          "taskId")),
      id);
  json_t *g = task_method(&f, f.session, NULL, "tasks/get", id);
  assert_string_equal(tu_status_of(g), "input_required");
  json_decref(g);
  tu_accept_elicitation(f.server, f.session, req, "{\"ok\":true}");
  json_decref(req);
  json_t *last = tu_bg_answer(&b);
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(tu_result_of(last), "content"), 0),
          "text")),
      "accept");
  json_decref(last);
  g = task_method(&f, f.session, NULL, "tasks/get", id);
  assert_string_equal(tu_status_of(g), "completed");
  json_decref(g);
  free(id);
  teardown(&f);
}

static size_t list_all(fixture *f, mcp_session_t *se, const char *subject) {
  size_t total = 0;
  char cursor[512] = "";
  for (int pages = 0; pages < 1000; pages++) {
    char buf[768];
    if (cursor[0])
      snprintf(buf, sizeof buf,
               "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tasks/list\","
               "\"params\":{\"cursor\":\"%s\"}}",
               cursor);
    else
      snprintf(buf, sizeof buf,
               "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tasks/list\"}");
    json_t *r = rpc_as(f, se, subject, buf);
    json_t *res = tu_result_of(r);
    assert_non_null(res);
    total += json_array_size(json_object_get(res, "tasks"));
    const char *next = json_string_value(json_object_get(res, "nextCursor"));
    if (next == NULL) {
      json_decref(r);
      break;
    }
    snprintf(cursor, sizeof cursor, "%s", next);
    json_decref(r);
  }
  return total;
}

static void test_list_pages_and_access_model(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  mcp_server_set_page_size(f.server, 2);
  char *ids[5];
  for (int i = 0; i < 5; i++)
    ids[i] = start(&f, f.session, NULL, "quick", "{}");
  assert_int_equal(list_all(&f, f.session, NULL), 5);
  json_t *r = rpc_as(&f, f.session, NULL,
                     "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tasks/list\","
                     "\"params\":{\"cursor\":\"bm9wZQ==\"}}");
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  /* without authentication: another session sees none in its list, but
   * the id is the capability for get/result/cancel */
  tu_capture n2;
  tu_capture_init(&n2);
  mcp_session_t *s2 = tu_session(f.server, &n2);
  tu_initialize(f.server, s2, NULL);
  assert_int_equal(list_all(&f, s2, NULL), 0);
  r = task_method(&f, s2, NULL, "tasks/result", ids[0]);
  assert_non_null(json_object_get(tu_result_of(r), "content"));
  json_decref(r);
  /* an authenticated caller cannot see unauthenticated tasks */
  r = task_method(&f, s2, "mallory", "tasks/get", ids[1]);
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  /* with authentication: bound to the subject */
  char *a = start(&f, s2, "alice", "slow", "{}");
  const char *methods[] = {"tasks/get", "tasks/result", "tasks/cancel"};
  for (int i = 0; i < 3; i++) {
    r = task_method(&f, s2, "bob", methods[i], a);
    assert_int_equal(tu_error_code(r), -32602);
    json_decref(r);
    r = task_method(&f, f.session, NULL, methods[i], a);
    assert_int_equal(tu_error_code(r), -32602);
    json_decref(r);
  }
  assert_int_equal(list_all(&f, s2, "alice"), 1);
  assert_int_equal(list_all(&f, f.session, "alice"), 1); /* any session */
  assert_int_equal(list_all(&f, s2, "bob"), 0);
  r = task_method(&f, s2, "alice", "tasks/cancel", a);
  assert_string_equal(tu_status_of(r), "cancelled");
  json_decref(r);
  free(a);
  for (int i = 0; i < 5; i++)
    free(ids[i]);
  mcp__session_close(s2);
  mcp__session_release(s2);
  tu_capture_destroy(&n2);
  teardown(&f);
}

/* A task's ttl ends: tasks/get and tasks/result say not found, and the
 * sweeper removes it from the store. Waits for each condition (bounded);
 * the first tasks/get is only checked when it surely came before the ttl
 * ended (a loaded machine may take longer). */
static void test_ttl_expiry_and_sweeper(void **state) {
  (void)state;
  fixture f;
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_cleanup(o, 0, 86400000, 20);
  setup_with(&f, o, true);
  mcp_task_options_free(o);
  int64_t t0 = mcp__monotonic_ms();
  json_t *r = call_tool(&f, f.session, NULL, "quick", "{}", "{\"ttl\":300}");
  char *id = strdup(json_string_value(
      json_object_get(json_object_get(tu_result_of(r), "task"), "taskId")));
  json_decref(r);
  r = task_method(&f, f.session, NULL, "tasks/get", id);
  if (mcp__monotonic_ms() - t0 < 150)
    assert_non_null(tu_result_of(r));
  json_decref(r);
  assert_true(wait_get_error(&f, id, -32602));
  r = task_method(&f, f.session, NULL, "tasks/result", id);
  assert_int_equal(tu_error_code(r), -32602);
  json_decref(r);
  /* the sweeper removes it from the store */
  mcp_task_record rec;
  mcp_status st = MCP_OK;
  for (int i = 0; i < 2000; i++) {
    st = mcp_store_task_get(f.store, "tasks-test", id, &rec, NULL);
    if (st != MCP_OK)
      break;
    mcp_task_record_clear(&rec);
    usleep(10000);
  }
  assert_int_equal(st, MCP_ERR_NOT_FOUND);
  free(id);
  teardown(&f);
}

static void test_per_caller_cap(void **state) {
  (void)state;
  fixture f;
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_max_per_caller(o, 2);
  setup_with(&f, o, true);
  mcp_task_options_free(o);
  char *a = start(&f, f.session, NULL, "slow", "{}");
  char *b = start(&f, f.session, NULL, "slow", "{}");
  json_t *r = call_tool(&f, f.session, NULL, "slow", "{}", "{}");
  assert_int_equal(tu_error_code(r), -32603);
  assert_int_equal(
      json_integer_value(json_object_get(
          json_object_get(json_object_get(r, "error"), "data"), "limit")),
      2);
  json_decref(r);
  /* another caller has its own budget */
  char *c = start(&f, f.session, "carol", "slow", "{}");
  json_decref(task_method(&f, f.session, NULL, "tasks/cancel", a));
  for (int i = 0; i < 500; i++) { /* the slot frees when the handler ends */
    r = call_tool(&f, f.session, NULL, "quick", "{}", "{}");
    bool ok = tu_result_of(r) != NULL;
    json_decref(r);
    if (ok)
      break;
    usleep(2000);
  }
  json_decref(task_method(&f, f.session, NULL, "tasks/cancel", b));
  json_decref(task_method(&f, f.session, "carol", "tasks/cancel", c));
  free(a);
  free(b);
  free(c);
  teardown(&f);
}

typedef struct worker_arg {
  fixture *f;
  mcp_session_t *se;
  char subject[16];
  int ok;
} worker_arg;

static void *caller_main(void *arg) {
  worker_arg *w = arg;
  char *ids[50];
  for (int i = 0; i < 50; i++) {
    char args[64];
    snprintf(args, sizeof args, "{\"text\":\"%s-%d\"}", w->subject, i);
    ids[i] = start(w->f, w->se, w->subject, "quick", args);
  }
  for (int i = 0; i < 50; i++) {
    json_t *r = task_method(w->f, w->se, w->subject, "tasks/result", ids[i]);
    char want[64];
    snprintf(want, sizeof want, "%s-%d", w->subject, i);
    const char *text = json_string_value(json_object_get(
        json_array_get(json_object_get(tu_result_of(r), "content"), 0),
        "text"));
    if (text && strcmp(text, want) == 0)
      w->ok++;
    json_decref(r);
    free(ids[i]);
  }
  return NULL;
}

static void test_200_tasks_from_4_callers_are_isolated(void **state) {
  (void)state;
  fixture f;
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_list(o, true);
  mcp_task_options_set_max_per_caller(o, 64);
  mcp_task_options_set_threads(o, 8);
  setup_with(&f, o, true);
  mcp_task_options_free(o);
  worker_arg w[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (worker_arg){.f = &f, .se = f.session};
    snprintf(w[i].subject, sizeof w[i].subject, "user%d", i);
    pthread_create(&th[i], NULL, caller_main, &w[i]);
  }
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) {
    assert_int_equal(w[i].ok, 50);
    assert_int_equal(list_all(&f, f.session, w[i].subject), 50);
  }
  assert_int_equal(list_all(&f, f.session, "nobody"), 0);
  teardown(&f);
}

static void test_cancel_racing_completion(void **state) {
  (void)state;
  fixture f;
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_max_per_caller(o, 1000);
  setup_with(&f, o, true);
  mcp_task_options_free(o);
  int cancelled = 0, completed = 0;
  for (int i = 0; i < 100; i++) {
    char *id = start(&f, f.session, NULL, "quick", "{}");
    json_t *c = task_method(&f, f.session, NULL, "tasks/cancel", id);
    bool won = tu_result_of(c) != NULL;
    if (won)
      assert_string_equal(tu_status_of(c), "cancelled");
    else
      assert_int_equal(tu_error_code(c), -32602);
    json_decref(c);
    json_t *r = task_method(&f, f.session, NULL, "tasks/result", id);
    json_t *g = task_method(&f, f.session, NULL, "tasks/get", id);
    if (won) {
      cancelled++;
      assert_int_equal(tu_error_code(r), -32602);
      assert_string_equal(tu_status_of(g), "cancelled");
    } else {
      completed++;
      assert_non_null(tu_result_of(r));
      assert_string_equal(tu_status_of(g), "completed");
    }
    json_decref(r);
    json_decref(g);
    free(id);
  }
  assert_int_equal(cancelled + completed, 100);
  teardown(&f);
}

typedef struct ext {
  mcp_tasks_t *tasks;
  char id[MCP_TASK_ID_SIZE];
} ext;

static void *complete_later(void *arg) {
  ext *x = arg;
  usleep(30000);
  mcp_result_t *r;
  mcp_result_new(&r);
  mcp_result_add_text(r, "from outside");
  mcp_task_complete(x->tasks, x->id, r);
  mcp_result_free(r);
  return NULL;
}

static void test_application_api(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  mcp_tasks_t *t = mcp_server_tasks(f.server);
  assert_non_null(t);
  /* create + complete from another thread; tasks/result blocks for it */
  ext x = {t, ""};
  assert_int_equal(mcp_task_create(t, "job", 60000, 1000, x.id), MCP_OK);
  pthread_t th;
  pthread_create(&th, NULL, complete_later, &x);
  json_t *r = task_method(&f, f.session, NULL, "tasks/result", x.id);
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(tu_result_of(r), "content"), 0),
          "text")),
      "from outside");
  json_decref(r);
  pthread_join(th, NULL);
  mcp_task_status s;
  assert_int_equal(mcp_task_get_status(t, x.id, &s), MCP_OK);
  assert_int_equal(s, MCP_TASK_COMPLETED);
  assert_int_equal(mcp_task_fail(t, x.id, "late"), MCP_ERR_STATE);
  assert_int_equal(mcp_task_cancel(t, x.id), MCP_ERR_STATE);
  assert_int_equal(mcp_task_update_status(t, x.id, MCP_TASK_WORKING, NULL),
                   MCP_ERR_STATE);

  /* update_status, set_payload, an isError completion */
  char id[MCP_TASK_ID_SIZE];
  assert_int_equal(mcp_task_create(t, NULL, -1, -1, id), MCP_OK);
  json_t *task;
  assert_int_equal(mcp_task_get(t, id, &task), MCP_OK);
  assert_true(json_is_null(json_object_get(task, "ttl")));
  assert_null(json_object_get(task, "pollInterval"));
  json_decref(task);
  assert_int_equal(
      mcp_task_update_status(t, id, MCP_TASK_INPUT_REQUIRED, "need"), MCP_OK);
  assert_int_equal(mcp_task_update_status(t, id, MCP_TASK_WORKING, NULL),
                   MCP_OK);
  assert_int_equal(mcp_task_set_payload(t, id, json_pack("{s:[]}", "content")),
                   MCP_OK);
  assert_int_equal(
      mcp_task_complete_json(t, id,
                             json_pack("{s:[{s:s,s:s}],s:b}", "content", "type",
                                       "text", "text", "nope", "isError", 1)),
      MCP_OK);
  assert_int_equal(mcp_task_get_status(t, id, &s), MCP_OK);
  assert_int_equal(s, MCP_TASK_FAILED);
  r = task_method(&f, f.session, NULL, "tasks/result", id);
  assert_true(json_is_true(json_object_get(tu_result_of(r), "isError")));
  json_decref(r);

  /* fail(message): tasks/result gives an isError result with the message */
  assert_int_equal(mcp_task_create(t, NULL, 60000, -1, id), MCP_OK);
  assert_int_equal(mcp_task_fail(t, id, "disk full"), MCP_OK);
  r = task_method(&f, f.session, NULL, "tasks/get", id);
  assert_string_equal(
      json_string_value(json_object_get(tu_result_of(r), "statusMessage")),
      "disk full");
  json_decref(r);

  /* list through the API, then delete */
  json_t *page;
  assert_int_equal(mcp_task_list(t, NULL, 1, &page), MCP_OK);
  assert_int_equal(json_array_size(json_object_get(page, "tasks")), 1);
  const char *next = json_string_value(json_object_get(page, "nextCursor"));
  assert_non_null(next);
  json_t *page2;
  assert_int_equal(mcp_task_list(t, next, 10, &page2), MCP_OK);
  assert_int_equal(json_array_size(json_object_get(page2, "tasks")), 2);
  json_decref(page2);
  json_decref(page);
  assert_int_equal(mcp_task_list(t, "garbage", 10, &page), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_task_delete(t, id), MCP_OK);
  assert_int_equal(mcp_task_get(t, id, &task), MCP_ERR_NOT_FOUND);

  /* a deferred handler: completed later from outside the handler */
  char *did = start(&f, f.session, NULL, "defer", "{}");
  usleep(20000);
  assert_int_equal(mcp_task_get_status(t, did, &s), MCP_OK);
  assert_int_equal(s, MCP_TASK_WORKING);
  snprintf(x.id, sizeof x.id, "%s", did);
  pthread_create(&th, NULL, complete_later, &x);
  r = task_method(&f, f.session, NULL, "tasks/result", did);
  assert_non_null(tu_result_of(r));
  json_decref(r);
  pthread_join(th, NULL);
  free(did);

  /* a standalone manager on the same store (another process would do the
   * same) sees and changes the same tasks */
  mcp_tasks_t *other;
  assert_int_equal(mcp_tasks_open(f.store, "tasks-test", &other), MCP_OK);
  assert_int_equal(mcp_task_create(t, NULL, 60000, -1, id), MCP_OK);
  assert_int_equal(mcp_task_fail(other, id, "elsewhere"), MCP_OK);
  assert_int_equal(mcp_task_get_status(t, id, &s), MCP_OK);
  assert_int_equal(s, MCP_TASK_FAILED);
  mcp_tasks_free(other);
  teardown(&f);
}

static bool resume_all(mcp_tasks_t *t, const json_t *task, void *ud) {
  (void)t, (void)task;
  (*(int *)ud)++;
  return true;
}

static void cleanup_seen(const char *id, const char *reason, void *ud) {
  (void)id;
  json_array_append_new(ud, json_string(reason));
}

static void test_recovery_and_cleanup(void **state) {
  (void)state;
  mcp_store_t *store;
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  mcp_tasks_t *t;
  assert_int_equal(mcp_tasks_open(store, "tasks-test", &t), MCP_OK);
  char a[MCP_TASK_ID_SIZE], b[MCP_TASK_ID_SIZE];
  mcp_task_create(t, "x", -1, -1, a);
  mcp_task_create(t, "x", -1, -1, b);
  /* a resume hook keeps them working */
  mcp_server_t *s;
  mcp_server_new("tasks-test", "1", &s);
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  int resumed = 0;
  mcp_task_options_set_resume_hook(o, resume_all, &resumed);
  assert_int_equal(mcp_server_enable_tasks(s, store, o, NULL), MCP_OK);
  assert_int_equal(resumed, 2);
  mcp_server_free(s);
  mcp_task_options_free(o);
  /* without one they are failed with a statusMessage */
  mcp_server_new("tasks-test", "1", &s);
  assert_int_equal(mcp_server_enable_tasks(s, store, NULL, NULL), MCP_OK);
  json_t *task;
  assert_int_equal(mcp_task_get(t, a, &task), MCP_OK);
  assert_string_equal(json_string_value(json_object_get(task, "status")),
                      "failed");
  assert_non_null(
      strstr(json_string_value(json_object_get(task, "statusMessage")),
             "Interrupted"));
  json_decref(task);
  mcp_server_free(s);
  /* cleanup: stuck working tasks fail, expired and retained ones go */
  char w[MCP_TASK_ID_SIZE], e[MCP_TASK_ID_SIZE];
  mcp_task_create(t, "x", -1, -1, w);
  mcp_task_create(t, "x", 1, -1, e);
  usleep(20000);
  mcp_task_options_new(&o);
  mcp_task_options_set_cleanup(o, 0, 5, 0);
  json_t *seen = json_array();
  mcp_task_cleanup_report rep;
  assert_int_equal(mcp_task_delete_outdated(t, o, cleanup_seen, seen, &rep),
                   MCP_OK);
  assert_int_equal(rep.expired, 1);
  assert_int_equal(rep.retained, 2); /* a and b, failed and without ttl */
  assert_int_equal(rep.stuck, 1);
  assert_int_equal(json_array_size(seen), 4);
  assert_int_equal(mcp_task_get(t, w, &task), MCP_OK);
  assert_string_equal(json_string_value(json_object_get(task, "status")),
                      "failed");
  json_decref(task);
  json_decref(seen);
  mcp_task_options_free(o);
  mcp_tasks_free(t);
  mcp_store_free(store);
}

static void test_shutdown_interrupts_running_tasks(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  char *id = start(&f, f.session, NULL, "slow", "{}");
  wait_slow_started(1);
  mcp_store_t *store = f.store;
  f.store = NULL;
  teardown(&f); /* frees the server while the task runs */
  mcp_tasks_t *t;
  mcp_tasks_open(store, "tasks-test", &t);
  mcp_task_status s;
  assert_int_equal(mcp_task_get_status(t, id, &s), MCP_OK);
  assert_int_equal(s, MCP_TASK_FAILED);
  mcp_tasks_free(t);
  mcp_store_free(store);
  free(id);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_capabilities_follow_the_switch),
      cmocka_unit_test(test_task_support_is_enforced),
      cmocka_unit_test(test_create_task_result_and_task_shape),
      cmocka_unit_test(test_result_replays_the_outcome),
      cmocka_unit_test(test_cancel_progress_and_notifications),
      cmocka_unit_test(test_input_required_via_tasks_result_stream),
      cmocka_unit_test(test_list_pages_and_access_model),
      cmocka_unit_test(test_ttl_expiry_and_sweeper),
      cmocka_unit_test(test_per_caller_cap),
      cmocka_unit_test(test_200_tasks_from_4_callers_are_isolated),
      cmocka_unit_test(test_cancel_racing_completion),
      cmocka_unit_test(test_application_api),
      cmocka_unit_test(test_session_end_does_not_cancel_tasks),
      cmocka_unit_test(test_recovery_and_cleanup),
      cmocka_unit_test(test_shutdown_interrupts_running_tasks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
