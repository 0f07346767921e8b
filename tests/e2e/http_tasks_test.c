/* SPDX-License-Identifier: MIT */
/* http_tasks_test.c - MCP tasks over Streamable HTTP, in-process server on
 * 127.0.0.1 driven through raw sockets: CreateTaskResult as JSON,
 * taskSupport errors, tasks/get, tasks/list per session (and in stateless
 * mode), tasks/result blocking then replaying the exact result, tasks/cancel,
 * the input_required round trip (elicitation queued until the tasks/result
 * stream opens, answer POSTed, status seen from another connection), status
 * and progress on the GET stream without duplicates, many blocked
 * tasks/result calls with few workers, and tasks outliving a DELETEd
 * session. Tools wait on gates, so nothing depends on timing. */
#include <pthread.h>
#include <stdatomic.h>

#include "http_fixture.h"
#include "tasks/runner_internal.h"

#define RELATED "io.modelcontextprotocol/related-task"

static atomic_int gate;     /* "work" and "ask" finish once it is open */
static atomic_int progress; /* "work": progress steps to report first */

/* Until the gate opens or the call is cancelled (at most 60 s: far beyond
 * any wait of the tests, so that a gated task is still working whenever a
 * test looks). */
static void wait_gate(mcp_call_t *call) {
  for (int i = 0;
       i < 12000 && !atomic_load(&gate) && !mcp_call_is_cancelled(call); i++)
    sleep_ms(5);
}

static mcp_status tool_work(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)ud;
  int steps = atomic_load(&progress);
  for (int i = 1; i <= steps; i++)
    mcp_call_progress(call, i, steps, "working");
  wait_gate(call);
  mcp_result_add_textf(r, "worked %s",
                       mcp_arg_string_or(args, "tag", "untagged"));
  mcp_result_set_structured(r, json_pack("{s:i}", "n", 7));
  return MCP_OK;
}

/* Asks for confirmation, then waits for the gate. */
static mcp_status tool_ask(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)args;
  (void)ud;
  json_t *res = ask_client(call, "sure?", 10000, r);
  if (res == NULL)
    return MCP_OK;
  wait_gate(call);
  mcp_result_add_textf(r, "answer=%s",
                       json_string_value(json_object_get(res, "action")));
  json_decref(res);
  return MCP_OK;
}

static mcp_status tool_add(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)call;
  (void)args;
  (void)ud;
  mcp_result_add_text(r, "5");
  return MCP_OK;
}

static void start_with(fixture *f, bool stateless, unsigned workers) {
  atomic_store(&gate, 0);
  atomic_store(&progress, 0);
  fixture_new_server(f, "http-tasks-test");
  add_tool(f->server, "work", tool_work, MCP_TASK_OPTIONAL);
  add_tool(f->server, "ask", tool_ask, MCP_TASK_OPTIONAL);
  add_tool(f->server, "must", tool_work, MCP_TASK_REQUIRED);
  add_tool(f->server, "never", tool_add, MCP_TASK_FORBIDDEN);
  add_tool(f->server, "add", tool_add, MCP_TASK_FORBIDDEN);
  assert_int_equal(mcp_store_memory_new(&f->store), MCP_OK);
  mcp_task_options_t *to = NULL;
  assert_int_equal(mcp_task_options_new(&to), MCP_OK);
  mcp_task_options_set_list(to, true);
  mcp_task_options_set_max_per_caller(to, 64);
  assert_int_equal(mcp_server_enable_tasks(f->server, f->store, to, NULL),
                   MCP_OK);
  mcp_task_options_free(to);
  mcp_http_options_t *o = base_options();
  mcp_http_options_set_stateless(o, stateless);
  if (workers)
    assert_int_equal(mcp_http_options_set_worker_threads(o, workers), MCP_OK);
  fixture_serve(f, o);
}

static void start(fixture *f) {
  start_with(f, false, 0);
}

static void stop(fixture *f) {
  atomic_store(&gate, 1);
  fixture_stop(f);
}

/* initialize (the answer announces tasks) + initialized. */
static void open_session(int port, char sid[64]) {
  open_session_expecting(port, "\"tasks\"", sid);
}

static atomic_int next_id = 100;

/* One JSON-RPC request answered as application/json; returns the message. */
static json_t *rpc(int port, const char *sid, const char *method,
                   const char *params) {
  char hdr[256], body[1024];
  session_hdr(hdr, sizeof hdr, sid);
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":%s}",
           atomic_fetch_add(&next_id, 1), method, params);
  tc_conn c;
  assert_true(tc_open(&c, port, "POST", "/mcp", hdr, body, 10000));
  assert_int_equal(c.status, 200);
  char ctype[64];
  assert_string_equal(tc_header(&c, "Content-Type", ctype, sizeof ctype),
                      "application/json");
  assert_true(tc_read_body(&c, 10000));
  json_t *m = json_loads(c.body, 0, NULL);
  assert_non_null(m);
  tc_close(&c);
  return m;
}

static json_t *task_rpc(int port, const char *sid, const char *method,
                        const char *id) {
  char params[128];
  snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", id);
  return rpc(port, sid, method, params);
}

static int code_of(json_t *m) {
  return (int)json_integer_value(
      json_object_get(json_object_get(m, "error"), "code"));
}

static const char *status_of(json_t *m) {
  return json_string_value(
      json_object_get(json_object_get(m, "result"), "status"));
}

/* tools/call as a task; returns the task id (malloc'd). */
static char *start_task(int port, const char *sid, const char *tool,
                        const char *args, const char *token) {
  char params[512];
  snprintf(params, sizeof params,
           "{\"name\":\"%s\",\"arguments\":%s,\"task\":{\"ttl\":60000},"
           "\"_meta\":{\"progressToken\":\"%s\"}}",
           tool, args, token ? token : "none");
  json_t *m = rpc(port, sid, "tools/call", params);
  json_t *t = json_object_get(json_object_get(m, "result"), "task");
  assert_non_null(t);
  assert_string_equal(json_string_value(json_object_get(t, "status")),
                      "working");
  char *id = strdup(json_string_value(json_object_get(t, "taskId")));
  json_decref(m);
  return id;
}

static void wait_status(int port, const char *sid, const char *id,
                        const char *want) {
  for (int i = 0; i < 1000; i++) {
    json_t *g = task_rpc(port, sid, "tasks/get", id);
    bool ok = status_of(g) && strcmp(status_of(g), want) == 0;
    json_decref(g);
    if (ok)
      return;
    sleep_ms(5);
  }
  fail_msg("task %s never reached %s", id, want);
}

/* The next JSON-RPC message of an SSE stream (skips priming and
 * heartbeats), or NULL at its end. */
static json_t *next_message(tc_conn *c, int timeout_ms) {
  char *ev, data[8192];
  while ((ev = tc_next_event(c, timeout_ms)) != NULL) {
    event_field(ev, "data", data, sizeof data);
    free(ev);
    if (data[0]) {
      json_t *m = json_loads(data, 0, NULL);
      assert_non_null(m);
      return m;
    }
  }
  return NULL;
}

static const char *related_of(json_t *obj) {
  return json_string_value(json_object_get(
      json_object_get(json_object_get(obj, "_meta"), RELATED), "taskId"));
}

/* The text of the first content item of a tools/call result. */
static const char *text_of(json_t *result) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(result, "content"), 0), "text"));
}

/* The start of most tests: a server with the tools above, one session on
 * it (its id in sid) and, when tool is not NULL, a task of tool with
 * arguments args, whose id is returned (free it); NULL without a tool. */
static char *start_session_task(fixture *f, char sid[64], const char *tool,
                                const char *args) {
  start(f);
  open_session(f->port, sid);
  return tool ? start_task(f->port, sid, tool, args, NULL) : NULL;
}

/* ---- tests --------------------------------------------------------------- */

static void test_create_get_and_support_errors(void **state) {
  (void)state;
  fixture f;
  char sid[64];
  char *id = start_session_task(&f, sid, "work", "{}");
  /* tasks/get: the Task, flat */
  json_t *g = task_rpc(f.port, sid, "tasks/get", id);
  json_t *res = json_object_get(g, "result");
  assert_string_equal(json_string_value(json_object_get(res, "taskId")), id);
  assert_string_equal(status_of(g), "working");
  assert_true(json_is_string(json_object_get(res, "createdAt")));
  assert_true(json_is_string(json_object_get(res, "lastUpdatedAt")));
  assert_true(json_is_integer(json_object_get(res, "ttl")));
  assert_null(json_object_get(res, "task"));
  json_decref(g);
  /* taskSupport: required without task, forbidden with task: -32601 */
  json_t *m = rpc(f.port, sid, "tools/call", "{\"name\":\"must\"}");
  assert_int_equal(code_of(m), -32601);
  json_decref(m);
  m = rpc(f.port, sid, "tools/call", "{\"name\":\"never\",\"task\":{}}");
  assert_int_equal(code_of(m), -32601);
  json_decref(m);
  /* optional without task: the ordinary result */
  atomic_store(&gate, 1);
  m = rpc(f.port, sid, "tools/call", "{\"name\":\"work\",\"arguments\":{}}");
  assert_non_null(strstr(text_of(json_object_get(m, "result")), "worked"));
  json_decref(m);
  /* unknown task: -32602 */
  m = task_rpc(f.port, sid, "tasks/get", "no-such-task");
  assert_int_equal(code_of(m), -32602);
  json_decref(m);
  free(id);
  stop(&f);
}

typedef struct bg_result {
  int port;
  char sid[64];
  char id[64];
  atomic_int status; /* 0 while the request is blocked */
  char ctype[64];
  char *body;
  pthread_t th;
} bg_result;

static void *bg_result_main(void *arg) {
  bg_result *b = arg;
  char hdr[256], body[256];
  session_hdr(hdr, sizeof hdr, b->sid);
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tasks/result\","
           "\"params\":{\"taskId\":\"%s\"}}",
           atomic_fetch_add(&next_id, 1), b->id);
  tc_conn c;
  if (tc_open(&c, b->port, "POST", "/mcp", hdr, body, 20000)) {
    if (!tc_header(&c, "Content-Type", b->ctype, sizeof b->ctype))
      b->ctype[0] = '\0';
    if (tc_read_body(&c, 20000)) {
      b->body = c.body;
      c.body = NULL;
    }
    atomic_store(&b->status, c.status);
  }
  tc_close(&c);
  return NULL;
}

/* Starts a tasks/result call of task id in session sid, in the background. */
static void bg_result_start(bg_result *b, int port, const char *sid,
                            const char *id) {
  memset(b, 0, sizeof *b);
  b->port = port;
  snprintf(b->sid, sizeof b->sid, "%s", sid);
  snprintf(b->id, sizeof b->id, "%s", id);
  pthread_create(&b->th, NULL, bg_result_main, b);
}

/* start_session_task with a "work" task (arguments args) and a tasks/result
 * for it sent on another thread (b; join b->th, free b->body). */
static char *start_blocked_result(fixture *f, char sid[64], const char *args,
                                  bg_result *b) {
  char *id = start_session_task(f, sid, "work", args);
  bg_result_start(b, f->port, sid, id);
  return id;
}

static void test_result_blocks_then_replays_exact_result(void **state) {
  (void)state;
  fixture f;
  char sid[64];
  bg_result b;
  char *id = start_blocked_result(&f, sid, "{\"tag\":\"x1\"}", &b);
  sleep_ms(100);
  assert_int_equal(atomic_load(&b.status), 0); /* still blocked */
  json_t *g = task_rpc(f.port, sid, "tasks/get", id);
  assert_string_equal(status_of(g), "working");
  json_decref(g);
  atomic_store(&gate, 1);
  pthread_join(b.th, NULL);
  assert_int_equal(b.status, 200);
  assert_string_equal(b.ctype, "application/json");
  json_t *m = json_loads(b.body, 0, NULL);
  free(b.body);
  json_t *res = json_object_get(m, "result");
  assert_non_null(res);
  assert_string_equal(related_of(res), id);
  assert_string_equal(text_of(res), "worked x1");
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(res, "structuredContent"), "n")),
                   7);
  json_decref(m);
  /* once terminal, the same result again, at once */
  m = task_rpc(f.port, sid, "tasks/result", id);
  assert_string_equal(text_of(json_object_get(m, "result")), "worked x1");
  json_decref(m);
  g = task_rpc(f.port, sid, "tasks/get", id);
  assert_string_equal(status_of(g), "completed");
  json_decref(g);
  free(id);
  stop(&f);
}

static void test_list_per_session_and_cancel(void **state) {
  (void)state;
  fixture f;
  start(&f);
  char a[64], b[64];
  open_session(f.port, a);
  open_session(f.port, b);
  char *t1 = start_task(f.port, a, "work", "{}", NULL);
  char *t2 = start_task(f.port, a, "work", "{}", NULL);
  json_t *l = rpc(f.port, a, "tasks/list", "{}");
  json_t *tasks = json_object_get(json_object_get(l, "result"), "tasks");
  assert_int_equal(json_array_size(tasks), 2);
  json_decref(l);
  l = rpc(f.port, b, "tasks/list", "{}");
  assert_int_equal(
      json_array_size(json_object_get(json_object_get(l, "result"), "tasks")),
      0);
  json_decref(l);
  /* cancel: cancelled in the reply; again: -32602 */
  json_t *c = task_rpc(f.port, a, "tasks/cancel", t1);
  assert_string_equal(status_of(c), "cancelled");
  json_decref(c);
  c = task_rpc(f.port, a, "tasks/cancel", t1);
  assert_int_equal(code_of(c), -32602);
  json_decref(c);
  /* tasks/result of a cancelled task: -32602 with data.status */
  c = task_rpc(f.port, a, "tasks/result", t1);
  assert_int_equal(code_of(c), -32602);
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(json_object_get(c, "error"), "data"), "status")),
      "cancelled");
  json_decref(c);
  /* a completed task cannot be cancelled either */
  atomic_store(&gate, 1);
  wait_status(f.port, a, t2, "completed");
  c = task_rpc(f.port, a, "tasks/cancel", t2);
  assert_int_equal(code_of(c), -32602);
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(c, "error"), "message")),
                         "completed"));
  json_decref(c);
  free(t1);
  free(t2);
  stop(&f);
}

/* A tasks/result blocked while the task is cancelled gets the cancelled
 * error at once (not at the next poll). */
static void test_cancel_ends_blocked_result(void **state) {
  (void)state;
  fixture f;
  char sid[64];
  bg_result b;
  char *id = start_blocked_result(&f, sid, "{}", &b);
  sleep_ms(50);
  json_t *c = task_rpc(f.port, sid, "tasks/cancel", id);
  assert_string_equal(status_of(c), "cancelled");
  json_decref(c);
  pthread_join(b.th, NULL);
  assert_int_equal(b.status, 200);
  assert_non_null(b.body);
  assert_non_null(strstr(b.body, "-32602"));
  free(b.body);
  free(id);
  stop(&f);
}

static void answer(int port, const char *sid, json_t *req, const char *action) {
  char hdr[256], body[256];
  session_hdr(hdr, sizeof hdr, sid);
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"%s\","
           "\"content\":{},\"_meta\":{\"" RELATED "\":{\"taskId\":\"%s\"}}}}",
           (long long)json_integer_value(json_object_get(req, "id")), action,
           related_of(json_object_get(req, "params")));
  assert_int_equal(tc_do(port, "POST", hdr, body, NULL, NULL), 202);
}

/* No stream is open when the task asks: the request waits in the task's
 * queue, the task shows input_required (seen from another connection), the
 * tasks/result POST is answered as SSE carrying the request, the answer is
 * POSTed (202), the task works again, and the same stream ends with the
 * result. */
static void test_input_required_round_trip(void **state) {
  (void)state;
  fixture f;
  char sid[64], hdr[256], body[256], ctype[64];
  char *id = start_session_task(&f, sid, "ask", "{}");
  wait_status(f.port, sid, id, "input_required");
  session_hdr(hdr, sizeof hdr, sid);
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":4242,\"method\":\"tasks/result\","
           "\"params\":{\"taskId\":\"%s\"}}",
           id);
  tc_conn c;
  assert_true(tc_open(&c, f.port, "POST", "/mcp", hdr, body, 10000));
  assert_int_equal(c.status, 200);
  assert_string_equal(tc_header(&c, "Content-Type", ctype, sizeof ctype),
                      "text/event-stream");
  json_t *req = next_message(&c, 10000);
  assert_non_null(req);
  assert_string_equal(json_string_value(json_object_get(req, "method")),
                      "elicitation/create");
  assert_string_equal(related_of(json_object_get(req, "params")), id);
  /* still waiting: tasks/get from another connection */
  json_t *g = task_rpc(f.port, sid, "tasks/get", id);
  assert_string_equal(status_of(g), "input_required");
  json_decref(g);
  answer(f.port, sid, req, "accept");
  json_decref(req);
  wait_status(f.port, sid, id, "working");
  atomic_store(&gate, 1);
  json_t *m = next_message(&c, 10000);
  assert_non_null(m);
  assert_int_equal(json_integer_value(json_object_get(m, "id")), 4242);
  json_t *res = json_object_get(m, "result");
  assert_string_equal(related_of(res), id);
  assert_string_equal(text_of(res), "answer=accept");
  json_decref(m);
  assert_null(next_message(&c, 5000)); /* the stream ends after the result */
  tc_close(&c);
  free(id);
  stop(&f);
}

static void open_get(tc_conn *g, int port, const char *sid) {
  char gh[256];
  get_hdr(gh, sizeof gh, sid);
  assert_true(tc_open(g, port, "GET", "/mcp", gh, NULL, 5000));
  assert_int_equal(g->status, 200);
}

/* With the GET stream open, a task's progress (on the original token), its
 * status notifications and its elicitation travel there, exactly once: the
 * later tasks/result has nothing left to carry and answers as JSON. */
static void test_get_stream_carries_task_messages_once(void **state) {
  (void)state;
  fixture f;
  char sid[64];
  start_session_task(&f, sid, NULL, NULL);
  tc_conn g;
  open_get(&g, f.port, sid);
  atomic_store(&progress, 2);
  char *id = start_task(f.port, sid, "work", "{}", "tok-9");
  int progress_seen = 0;
  while (progress_seen < 2) {
    json_t *m = next_message(&g, 5000);
    assert_non_null(m);
    const char *method = json_string_value(json_object_get(m, "method"));
    if (method && strcmp(method, "notifications/progress") == 0) {
      json_t *p = json_object_get(m, "params");
      assert_string_equal(
          json_string_value(json_object_get(p, "progressToken")), "tok-9");
      assert_string_equal(related_of(p), id);
      progress_seen++;
    }
    json_decref(m);
  }
  atomic_store(&gate, 1);
  bool completed = false;
  while (!completed) {
    json_t *m = next_message(&g, 5000);
    assert_non_null(m);
    const char *method = json_string_value(json_object_get(m, "method"));
    json_t *p = json_object_get(m, "params");
    if (method && strcmp(method, "notifications/tasks/status") == 0 &&
        strcmp(json_string_value(json_object_get(p, "taskId")), id) == 0)
      completed = strcmp(json_string_value(json_object_get(p, "status")),
                         "completed") == 0;
    json_decref(m);
  }
  free(id);
  /* an elicitation goes to the GET stream, not again to tasks/result */
  atomic_store(&gate, 0);
  id = start_task(f.port, sid, "ask", "{}", NULL);
  json_t *req = NULL;
  while (req == NULL) {
    json_t *m = next_message(&g, 5000);
    assert_non_null(m);
    const char *method = json_string_value(json_object_get(m, "method"));
    if (method && strcmp(method, "elicitation/create") == 0)
      req = m;
    else
      json_decref(m);
  }
  assert_string_equal(related_of(json_object_get(req, "params")), id);
  answer(f.port, sid, req, "decline");
  json_decref(req);
  atomic_store(&gate, 1);
  json_t *r = task_rpc(f.port, sid, "tasks/result", id); /* asserts JSON */
  assert_non_null(
      strstr(text_of(json_object_get(r, "result")), "answer=decline"));
  json_decref(r);
  free(id);
  tc_close(&g);
  stop(&f);
}

/* A request queued while no stream was open goes out on the GET stream
 * when it opens, and not again on a later tasks/result. */
static void test_queued_request_flushed_to_new_get_stream(void **state) {
  (void)state;
  fixture f;
  char sid[64];
  char *id = start_session_task(&f, sid, "ask", "{}");
  wait_status(f.port, sid, id, "input_required");
  tc_conn g;
  open_get(&g, f.port, sid);
  json_t *req = next_message(&g, 5000);
  assert_non_null(req);
  assert_string_equal(json_string_value(json_object_get(req, "method")),
                      "elicitation/create");
  answer(f.port, sid, req, "accept");
  json_decref(req);
  atomic_store(&gate, 1);
  json_t *r = task_rpc(f.port, sid, "tasks/result", id); /* JSON: no dup */
  assert_non_null(json_object_get(r, "result"));
  json_decref(r);
  free(id);
  tc_close(&g);
  stop(&f);
}

/* More blocked tasks/result calls than HTTP workers: other requests are
 * still served, and every blocked call gets its result. */
#define MANY 12
static void test_many_blocked_results(void **state) {
  (void)state;
  fixture f;
  start_with(&f, false, 2);
  char sid[64];
  open_session(f.port, sid);
  bg_result b[MANY];
  char *ids[MANY];
  for (int i = 0; i < MANY; i++) {
    char args[64];
    snprintf(args, sizeof args, "{\"tag\":\"t%d\"}", i);
    ids[i] = start_task(f.port, sid, "work", args, NULL);
    bg_result_start(&b[i], f.port, sid, ids[i]);
  }
  sleep_ms(100);
  for (int k = 0; k < 5; k++) {
    json_t *m = rpc(f.port, sid, "tools/call", "{\"name\":\"add\"}");
    assert_non_null(json_object_get(m, "result"));
    json_decref(m);
    m = task_rpc(f.port, sid, "tasks/get", ids[k]);
    assert_string_equal(status_of(m), "working");
    json_decref(m);
    m = rpc(f.port, sid, "tasks/list", "{}");
    assert_non_null(json_object_get(m, "result"));
    json_decref(m);
  }
  for (int i = 0; i < MANY; i++)
    assert_int_equal(atomic_load(&b[i].status), 0);
  atomic_store(&gate, 1);
  for (int i = 0; i < MANY; i++) {
    pthread_join(b[i].th, NULL);
    assert_int_equal(b[i].status, 200);
    char want[32];
    snprintf(want, sizeof want, "worked t%d", i);
    assert_non_null(b[i].body);
    assert_non_null(strstr(b[i].body, want));
    free(b[i].body);
    free(ids[i]);
  }
  stop(&f);
}

/* DELETE ends the session, not its tasks: the id works from a new one. */
static void test_delete_keeps_running_task(void **state) {
  (void)state;
  fixture f;
  start(&f);
  char a[64], b[64], hdr[256];
  open_session(f.port, a);
  char *id = start_task(f.port, a, "work", "{\"tag\":\"kept\"}", NULL);
  session_hdr(hdr, sizeof hdr, a);
  assert_int_equal(tc_do(f.port, "DELETE", hdr, NULL, NULL, NULL), 204);
  open_session(f.port, b);
  json_t *g = task_rpc(f.port, b, "tasks/get", id);
  assert_string_equal(status_of(g), "working");
  json_decref(g);
  atomic_store(&gate, 1);
  json_t *r = task_rpc(f.port, b, "tasks/result", id);
  json_t *res = json_object_get(r, "result");
  assert_string_equal(related_of(res), id);
  assert_string_equal(text_of(res), "worked kept");
  json_decref(r);
  free(id);
  stop(&f);
}

/* Stateless HTTP: each request runs in its own throw-away session. Tasks
 * still work by id (the unguessable id is the capability), but tasks/list
 * can never show anything: no later request shares the creating session. */
static void test_stateless_mode(void **state) {
  (void)state;
  fixture f;
  start_with(&f, true, 0);
  char sid[64] = "";
  char *body = NULL;
  assert_int_equal(tc_do(f.port, "POST", ACCEPT, INIT, &body, sid), 200);
  assert_string_equal(sid, "");
  free(body);
  char *id = start_task(f.port, NULL, "work", "{\"tag\":\"sl\"}", NULL);
  json_t *g = task_rpc(f.port, NULL, "tasks/get", id);
  assert_string_equal(status_of(g), "working");
  json_decref(g);
  json_t *l = rpc(f.port, NULL, "tasks/list", "{}");
  assert_int_equal(
      json_array_size(json_object_get(json_object_get(l, "result"), "tasks")),
      0);
  json_decref(l);
  atomic_store(&gate, 1);
  json_t *r = task_rpc(f.port, NULL, "tasks/result", id);
  assert_string_equal(text_of(json_object_get(r, "result")), "worked sl");
  json_decref(r);
  free(id);
  stop(&f);
}

/* Stopping the transport while tasks/result calls are suspended ends them
 * cleanly (no leak, no hang). */
static void test_stop_with_suspended_result(void **state) {
  (void)state;
  fixture f;
  char sid[64];
  bg_result b;
  char *id = start_blocked_result(&f, sid, "{}", &b);
  /* the stop must find the tasks/result parked: wait for it (20 s) */
  mcp__task_runner *e = mcp__tasks_runner(f.server);
  bool parked = false;
  for (int i = 0; i < 2000 && !parked; i++) {
    pthread_mutex_lock(&e->lock);
    for (waiter *w = e->waiters; w && !parked; w = w->next)
      parked = w->async && w->armed;
    pthread_mutex_unlock(&e->lock);
    if (!parked)
      sleep_ms(10);
  }
  assert_true(parked);
  assert_int_equal(atomic_load(&b.status), 0); /* still blocked */
  mcp_http_server_stop(f.http);
  pthread_join(b.th, NULL);
  /* the stop ended the session: the parked call ends without an answer,
   * and the exchange with 204 (docs/http.md) */
  assert_int_equal(b.status, 204);
  free(b.body);
  atomic_store(&gate, 1);
  mcp_server_free(f.server);
  mcp_store_free(f.store);
  free(id);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_get_and_support_errors),
      cmocka_unit_test(test_result_blocks_then_replays_exact_result),
      cmocka_unit_test(test_list_per_session_and_cancel),
      cmocka_unit_test(test_cancel_ends_blocked_result),
      cmocka_unit_test(test_input_required_round_trip),
      cmocka_unit_test(test_get_stream_carries_task_messages_once),
      cmocka_unit_test(test_queued_request_flushed_to_new_get_stream),
      cmocka_unit_test(test_many_blocked_results),
      cmocka_unit_test(test_delete_keeps_running_task),
      cmocka_unit_test(test_stateless_mode),
      cmocka_unit_test(test_stop_with_suspended_result),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
