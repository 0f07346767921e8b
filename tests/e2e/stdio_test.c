/* SPDX-License-Identifier: MIT */
/* stdio_test.c - the stdio transport over real pipes: concurrent calls that
 * complete out of order, whole lines, oversize lines, orderly shutdown at end
 * of input with in-flight requests still answered, cheap tools run on the
 * reading thread only when nothing rules it out. */
#include "testutil.h"

#include <string.h>
#include <unistd.h>

#include "util/clock.h"

typedef struct served {
  mcp_server_t *server;
  int to_server[2], from_server[2];
  pthread_t thread;
  mcp_status result;
  tu_proc io; /* reuses the line reader: pid unused */
  mcp_store_t *store;
  pthread_t serving; /* the thread in mcp_server_serve_fds */
  int returned;      /* atomic: serving returned */
  int gate_armed;    /* atomic: the next "gate" call on a worker blocks */
  int gate_blocked;  /* atomic: it is blocking now */
  int gate_open;     /* atomic: ... until this is set */
} served;

/* Says which thread ran it: the one reading stdin, or a worker. */
static mcp_status where_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)call, (void)args;
  const served *sv = ud;
  mcp_result_add_text(r, pthread_equal(pthread_self(), sv->serving) ? "reader"
                                                                    : "worker");
  return MCP_OK;
}

/* "where", but the first call run on a worker after the test arms the
 * gate blocks until the test opens it: a tool proven cheap that turns
 * slow. */
static mcp_status gate_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  served *sv = ud;
  if (!pthread_equal(pthread_self(), sv->serving) &&
      __atomic_exchange_n(&sv->gate_armed, 0, __ATOMIC_SEQ_CST)) {
    __atomic_store_n(&sv->gate_blocked, 1, __ATOMIC_SEQ_CST);
    for (int i = 0;
         i < 30000 && !__atomic_load_n(&sv->gate_open, __ATOMIC_SEQ_CST); i++)
      usleep(1000);
    __atomic_store_n(&sv->gate_blocked, 0, __ATOMIC_SEQ_CST);
  }
  return where_tool(call, args, r, ud);
}

static mcp_status sleep_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)call, (void)ud;
  int64_t ms = 0;
  mcp_arg_integer(args, "ms", &ms);
  usleep((useconds_t)ms * 1000);
  mcp_result_add_textf(r, "slept %lld", (long long)ms);
  return MCP_OK;
}

static mcp_status big_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)call, (void)args, (void)ud;
  size_t n = 300000;
  char *s = malloc(n + 1);
  memset(s, 'x', n);
  s[n] = '\0';
  mcp_result_add_text(r, s);
  free(s);
  return MCP_OK;
}

/* Sleeps ms (default 400); run as a task by the test below. */
static mcp_status nap_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)ud;
  int64_t ms = 400;
  mcp_arg_integer(args, "ms", &ms);
  for (int64_t i = 0; i < ms / 10 && !mcp_call_is_cancelled(call); i++)
    usleep(10000);
  mcp_result_add_textf(r, "napped %lld", (long long)ms);
  return MCP_OK;
}

static void *serve_thread(void *p) {
  served *sv = p;
  sv->serving = pthread_self();
  sv->result =
      mcp_server_serve_fds(sv->server, sv->to_server[0], sv->from_server[1]);
  close(sv->from_server[1]); /* the client sees EOF once we are done */
  __atomic_store_n(&sv->returned, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static void start_with(served *sv, size_t max_bytes, unsigned workers) {
  memset(sv, 0, sizeof *sv);
  assert_int_equal(mcp_server_new("stdio-test", "1", &sv->server), MCP_OK);
  if (workers)
    mcp_server_set_worker_threads(sv->server, workers);
  if (max_bytes)
    mcp_server_set_max_message_bytes(sv->server, max_bytes);
  mcp_tool_t *t;
  mcp_tool_new("sleep", &t);
  mcp_tool_set_input_schema_text(
      t,
      "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\"}}}");
  mcp_tool_set_handler(t, sleep_tool, NULL, NULL);
  assert_int_equal(mcp_server_add_tool(sv->server, t, NULL), MCP_OK);
  mcp_tool_new("where", &t);
  mcp_tool_set_handler(t, where_tool, sv, NULL);
  assert_int_equal(mcp_server_add_tool(sv->server, t, NULL), MCP_OK);
  mcp_tool_new("gate", &t);
  mcp_tool_set_handler(t, gate_tool, sv, NULL);
  assert_int_equal(mcp_server_add_tool(sv->server, t, NULL), MCP_OK);
  mcp_tool_new("big", &t);
  mcp_tool_set_handler(t, big_tool, NULL, NULL);
  assert_int_equal(mcp_server_add_tool(sv->server, t, NULL), MCP_OK);
  mcp_tool_new("where_task", &t); /* "where", and a task when asked */
  mcp_tool_set_handler(t, where_tool, sv, NULL);
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  assert_int_equal(mcp_server_add_tool(sv->server, t, NULL), MCP_OK);
  mcp_tool_new("nap", &t);
  mcp_tool_set_handler(t, nap_tool, NULL, NULL);
  mcp_tool_set_task_support(t, MCP_TASK_REQUIRED);
  assert_int_equal(mcp_server_add_tool(sv->server, t, NULL), MCP_OK);
  assert_int_equal(mcp_store_memory_new(&sv->store), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(sv->server, sv->store, NULL, NULL),
                   MCP_OK);
  assert_int_equal(pipe(sv->to_server), 0);
  assert_int_equal(pipe(sv->from_server), 0);
  sv->io.in_fd = sv->to_server[1];
  sv->io.out_fd = sv->from_server[0];
  pthread_create(&sv->thread, NULL, serve_thread, sv);
}

static void start(served *sv, size_t max_bytes) {
  start_with(sv, max_bytes, 0);
}

/* Waits for the server to return MCP_OK and frees everything. */
static void reap(served *sv) {
  pthread_join(sv->thread, NULL);
  assert_int_equal(sv->result, MCP_OK);
  close(sv->to_server[0]);
  close(sv->from_server[0]);
  free(sv->io.buf);
  mcp_server_free(sv->server);
  mcp_store_free(sv->store);
}

static void stop(served *sv) {
  close(sv->to_server[1]);
  reap(sv);
}

static json_t *read_msg(served *sv) {
  char *line = tu_proc_read_line(&sv->io, 5000);
  assert_non_null(line);
  json_error_t err;
  json_t *v = json_loads(line, 0, &err);
  if (v == NULL)
    fprintf(stderr, "not JSON: %s\n", line);
  assert_non_null(v);
  free(line);
  return v;
}

/* The next response, skipping notifications (e.g. tasks/status). */
static json_t *read_response(served *sv) {
  for (;;) {
    json_t *v = read_msg(sv);
    if (json_object_get(v, "id") != NULL)
      return v;
    json_decref(v);
  }
}

static void handshake_with(served *sv, const char *capabilities) {
  char line[512];
  snprintf(line, sizeof line,
           "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
           "\"params\":{\"protocolVersion\":\"2025-11-25\","
           "\"capabilities\":%s,\"clientInfo\":{\"name\":\"t\","
           "\"version\":\"1\"}}}",
           capabilities);
  tu_proc_send_line(&sv->io, line);
  json_decref(read_msg(sv));
  tu_proc_send_line(&sv->io, "{\"jsonrpc\":\"2.0\",\"method\":"
                             "\"notifications/initialized\"}");
}

static void handshake(served *sv) {
  handshake_with(sv, "{}");
}

/* After the client closed its end: the server finishes and closes its
 * output; then as reap(). */
static void expect_orderly_end(served *sv) {
  assert_null(tu_proc_read_line(&sv->io, 2000)); /* EOF: server finished */
  reap(sv);
}

static void test_concurrent_calls_complete_out_of_order(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  /* one pipelined write: slow first, fast second, ping third */
  const char *batch =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"sleep\",\"arguments\":{\"ms\":400}}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"sleep\",\"arguments\":{\"ms\":10}}}\r\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n";
  tu_proc_write(&sv.io, batch, strlen(batch));
  json_t *a = read_msg(&sv), *b = read_msg(&sv), *c = read_msg(&sv);
  assert_int_equal(json_integer_value(json_object_get(a, "id")), 3);
  assert_int_equal(json_integer_value(json_object_get(b, "id")), 2);
  assert_int_equal(json_integer_value(json_object_get(c, "id")), 1);
  json_decref(a);
  json_decref(b);
  json_decref(c);
  stop(&sv);
}

static void test_large_responses_are_written_whole(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  for (int i = 0; i < 8; i++) {
    char buf[128];
    snprintf(buf, sizeof buf,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
             "\"params\":{\"name\":\"big\"}}",
             i);
    tu_proc_send_line(&sv.io, buf);
  }
  for (int i = 0; i < 8; i++) {
    json_t *m = read_msg(&sv); /* a torn line would not parse */
    const char *text = json_string_value(json_object_get(
        json_array_get(json_object_get(json_object_get(m, "result"), "content"),
                       0),
        "text"));
    assert_int_equal(strlen(text), 300000);
    json_decref(m);
  }
  stop(&sv);
}

static void test_oversize_line_gets_an_error_and_serving_continues(void **s) {
  (void)s;
  served sv;
  start(&sv, 1024);
  handshake(&sv);
  char *huge = malloc(200000);
  memset(huge, ' ', 200000);
  memcpy(huge, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"",
         46);
  huge[199998] = '"';
  huge[199999] = '}';
  tu_proc_write(&sv.io, huge, 200000);
  tu_proc_write(&sv.io, "\n", 1);
  free(huge);
  json_t *m = read_msg(&sv);
  assert_int_equal(
      json_integer_value(json_object_get(json_object_get(m, "error"), "code")),
      MCP_RPC_INVALID_REQUEST);
  assert_null(json_object_get(m, "id"));
  json_decref(m);
  tu_proc_send_line(&sv.io,
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  m = read_msg(&sv);
  assert_int_equal(json_integer_value(json_object_get(m, "id")), 2);
  json_decref(m);
  stop(&sv);
}

static void test_end_of_input_finishes_in_flight_requests(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  tu_proc_send_line(
      &sv.io, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":200}}}");
  /* last line without newline is still a message */
  tu_proc_write(&sv.io, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}",
                41);
  close(sv.to_server[1]);
  sv.to_server[1] = -1;
  json_t *a = read_msg(&sv), *b = read_msg(&sv);
  assert_int_equal(json_integer_value(json_object_get(a, "id")) +
                       json_integer_value(json_object_get(b, "id")),
                   19);
  json_decref(a);
  json_decref(b);
  expect_orderly_end(&sv);
}

static void test_requests_never_block_the_reader(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  /* mentions "notifications/" so the reader parses it itself; it must still
   * run on a worker */
  tu_proc_send_line(&sv.io,
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                    "\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":400,"
                    "\"note\":\"notifications/x\"}}}");
  tu_proc_send_line(&sv.io,
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  json_t *a = read_msg(&sv), *b = read_msg(&sv);
  assert_int_equal(json_integer_value(json_object_get(a, "id")), 2);
  assert_int_equal(json_integer_value(json_object_get(b, "id")), 1);
  json_decref(a);
  json_decref(b);
  stop(&sv);
}

static void test_cancel_of_a_queued_request_suppresses_it(void **state) {
  (void)state;
  served sv;
  start_with(&sv, 0, 1); /* one worker: the second call waits in the queue */
  handshake(&sv);
  tu_proc_send_line(
      &sv.io, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":300}}}");
  tu_proc_send_line(
      &sv.io, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":10}}}");
  tu_proc_send_line(&sv.io, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                            "cancelled\",\"params\":{\"requestId\":2}}");
  tu_proc_send_line(
      &sv.io, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":10}}}");
  json_t *a = read_msg(&sv), *b = read_msg(&sv);
  assert_int_equal(json_integer_value(json_object_get(a, "id")), 1);
  assert_int_equal(json_integer_value(json_object_get(b, "id")), 3);
  json_decref(a);
  json_decref(b);
  char *extra = tu_proc_read_line(&sv.io, 300);
  assert_null(extra); /* nothing for the cancelled id 2 */
  stop(&sv);
}

/* With one worker, three clients blocked in tasks/result must not stop a
 * fourth request from being served: a waiting tasks/result holds no worker.
 * The task results still arrive, and end of input waits for them. */
static void test_blocked_tasks_result_holds_no_worker(void **state) {
  (void)state;
  served sv;
  start_with(&sv, 0, 1);
  handshake(&sv);
  char line[512];
  char ids[3][128];
  for (int i = 0; i < 3; i++) {
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
             "\"params\":{\"name\":\"nap\",\"arguments\":{\"ms\":%d},"
             "\"task\":{\"ttl\":60000}}}",
             10 + i, 300 + 100 * i);
    tu_proc_send_line(&sv.io, line);
    json_t *created = read_response(&sv);
    const char *id = json_string_value(json_object_get(
        json_object_get(json_object_get(created, "result"), "task"), "taskId"));
    assert_non_null(id);
    snprintf(ids[i], sizeof ids[i], "%s", id);
    json_decref(created);
  }
  for (int i = 0; i < 3; i++) {
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tasks/result\","
             "\"params\":{\"taskId\":\"%s\"}}",
             20 + i, ids[i]);
    tu_proc_send_line(&sv.io, line);
  }
  tu_proc_send_line(
      &sv.io, "{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"sleep\",\"arguments\":{\"ms\":1}}}");
  json_t *first = read_response(&sv);
  /* the quick call comes first although the only worker took the three
   * tasks/result requests before it */
  assert_int_equal(json_integer_value(json_object_get(first, "id")), 30);
  json_decref(first);
  close(sv.to_server[1]); /* end of input: the parked calls still finish */
  sv.to_server[1] = -1;
  int seen = 0;
  for (int i = 0; i < 3; i++) {
    json_t *r = read_response(&sv);
    json_int_t id = json_integer_value(json_object_get(r, "id"));
    assert_true(id >= 20 && id <= 22);
    seen |= 1 << (id - 20);
    json_t *content = json_array_get(
        json_object_get(json_object_get(r, "result"), "content"), 0);
    assert_non_null(
        strstr(json_string_value(json_object_get(content, "text")), "napped"));
    json_decref(r);
  }
  assert_int_equal(seen, 7);
  expect_orderly_end(&sv);
}

/* A parked tasks/result that the client cancels gets no answer (the task
 * itself goes on), frees its place in flight, and end of input then
 * returns without waiting for the task. */
static void test_cancelled_tasks_result_is_not_answered(void **state) {
  (void)state;
  served sv;
  start_with(&sv, 0, 1);
  handshake(&sv);
  tu_proc_send_line(
      &sv.io, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"nap\",\"arguments\":{\"ms\":600000},"
              "\"task\":{\"ttl\":1200000}}}");
  json_t *created = read_response(&sv);
  const char *id = json_string_value(json_object_get(
      json_object_get(json_object_get(created, "result"), "task"), "taskId"));
  assert_non_null(id);
  char line[512];
  snprintf(line, sizeof line,
           "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tasks/result\","
           "\"params\":{\"taskId\":\"%s\"}}",
           id);
  json_decref(created);
  tu_proc_send_line(&sv.io, line);
  usleep(100000); /* parked */
  tu_proc_send_line(&sv.io, "{\"jsonrpc\":\"2.0\",\"method\":"
                            "\"notifications/cancelled\",\"params\":{"
                            "\"requestId\":20}}");
  tu_proc_send_line(&sv.io,
                    "{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"ping\"}");
  json_t *r = read_response(&sv);
  assert_int_equal(json_integer_value(json_object_get(r, "id")), 30);
  json_decref(r);
  close(sv.to_server[1]);
  sv.to_server[1] = -1;
  /* nothing for id 20, and the server returns without waiting for the
   * task (10 minutes; the wait for the return is bounded at 30 s; at the
   * end of output a read returns at once, hence the pause) */
  char *extra;
  for (int i = 0; i < 300 && !__atomic_load_n(&sv.returned, __ATOMIC_SEQ_CST);
       i++) {
    while ((extra = tu_proc_read_line(&sv.io, 100)) != NULL) {
      json_t *m = json_loads(extra, 0, NULL);
      assert_null(json_object_get(m, "id"));
      json_decref(m);
      free(extra);
    }
    usleep(100000);
  }
  assert_true(__atomic_load_n(&sv.returned, __ATOMIC_SEQ_CST));
  while ((extra = tu_proc_read_line(&sv.io, 1000)) != NULL) { /* the rest */
    json_t *m = json_loads(extra, 0, NULL);
    assert_null(json_object_get(m, "id"));
    json_decref(m);
    free(extra);
  }
  reap(&sv);
}

/* Calls "where" (with extra params members) and returns the thread it
 * names. */
static bool ran_on_reader_named(served *sv, const char *tool, int id,
                                const char *extra) {
  char line[512];
  snprintf(line, sizeof line,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
           "\"params\":{\"name\":\"%s\"%s}}",
           id, tool, extra);
  tu_proc_send_line(&sv->io, line);
  json_t *m = read_response(sv);
  assert_int_equal(json_integer_value(json_object_get(m, "id")), id);
  const char *text = json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(m, "result"), "content"),
                     0),
      "text"));
  assert_non_null(text);
  bool reader = strcmp(text, "reader") == 0;
  json_decref(m);
  return reader;
}

static bool ran_on_reader(served *sv, int id, const char *extra) {
  return ran_on_reader_named(sv, "where", id, extra);
}

/* Whether a test may keep calling a tool until it is learnt as cheap: for
 * a minute. A tool proves cheap in 32 fast runs on the workers, and a slow
 * one starts the count again: a sanitizer build on a slow, busy machine
 * needs many more than 32 calls (CI once saw 5000 not suffice). */
static bool still_learning(int64_t started_ns) {
  return mcp__monotonic_ns() - started_ns < 60 * (int64_t)1000000000;
}

/* A task outlives the connection that started it: once the client is
 * gone and the server has returned, the task still finishes with its
 * session (the call took its own reference when the task took it over;
 * under ASan a session freed with the connection shows here). */
static void test_task_outlives_its_connection(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  tu_proc_send_line(&sv.io, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
                            "\"tools/call\",\"params\":{\"name\":\"nap\","
                            "\"arguments\":{\"ms\":300},\"task\":{}}}");
  json_t *created = read_response(&sv);
  assert_non_null(json_object_get(
      json_object_get(json_object_get(created, "result"), "task"), "taskId"));
  json_decref(created);
  close(sv.to_server[1]);
  sv.to_server[1] = -1;
  pthread_join(sv.thread, NULL); /* returned: its session is released */
  sv.thread = 0;
  assert_int_equal(sv.result, MCP_OK);
  usleep(600000); /* the task ends meanwhile, on its executor */
  close(sv.to_server[0]);
  close(sv.from_server[0]);
  free(sv.io.buf);
  mcp_server_free(sv.server);
  mcp_store_free(sv.store);
}

/* Runs tool until a call runs on the reading thread; returns the next
 * id. */
static int until_named_on_reader(served *sv, const char *tool, int id) {
  int64_t started = mcp__monotonic_ns();
  while (!ran_on_reader_named(sv, tool, id, "")) {
    id++;
    assert_true(still_learning(started));
  }
  return id + 1;
}

static int until_on_reader(served *sv, int id) {
  return until_named_on_reader(sv, "where", id);
}

/* Writes n pipelined calls of tool with ids id, id+1, ... */
static void send_burst(served *sv, const char *tool, int id, int n) {
  size_t cap = (size_t)n * 128, len = 0;
  char *burst = malloc(cap);
  assert_non_null(burst);
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(burst + len, cap - len,
                            "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
                            "\"tools/call\",\"params\":{\"name\":\"%s\"}}\n",
                            id + i, tool);
  tu_proc_write(&sv->io, burst, len);
  free(burst);
}

/* A worker that runs a call which may block (not proven cheap) leaves the
 * cheap calls queued behind it to the others: a pipelined burst is
 * answered whole while a long call runs. */
static void test_long_call_holds_up_no_cheap_calls(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  int id = until_on_reader(&sv, 1);
  tu_proc_send_line(&sv.io, "{\"jsonrpc\":\"2.0\",\"id\":1000000,"
                            "\"method\":\"tools/call\",\"params\":{"
                            "\"name\":\"sleep\",\"arguments\":{\"ms\":4000}}}");
  send_burst(&sv, "where", id, 300);
  for (int i = 0; i < 300; i++) {
    json_t *m = read_response(&sv);
    json_int_t got = json_integer_value(json_object_get(m, "id"));
    assert_true(got >= id && got < id + 300); /* not the long call's */
    json_decref(m);
  }
  json_t *m = read_response(&sv);
  assert_int_equal(json_integer_value(json_object_get(m, "id")), 1000000);
  json_decref(m);
  stop(&sv);
}

/* A call of a tool proven cheap that blocks on a worker holds up at most
 * the run of cheap calls that worker took with it (WORKER_TAKE, 16): the
 * rest of a pipelined burst is answered while it blocks. */
static void test_cheap_call_turned_slow_holds_up_only_its_run(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  int id = until_named_on_reader(&sv, "gate", 1);
  __atomic_store_n(&sv.gate_armed, 1, __ATOMIC_SEQ_CST);
  enum { BURST = 300, RUN = 16 };
  send_burst(&sv, "gate", id, BURST);
  for (int i = 0; i < BURST - RUN; i++)
    json_decref(read_response(&sv));
  /* the gate was reached on a worker and still blocks */
  assert_int_equal(__atomic_load_n(&sv.gate_armed, __ATOMIC_SEQ_CST), 0);
  assert_int_equal(__atomic_load_n(&sv.gate_blocked, __ATOMIC_SEQ_CST), 1);
  __atomic_store_n(&sv.gate_open, 1, __ATOMIC_SEQ_CST);
  char *extra;
  int rest = 0;
  while (rest < RUN && (extra = tu_proc_read_line(&sv.io, 2000)) != NULL) {
    rest++;
    free(extra);
  }
  stop(&sv);
}

/* A tool starts on the workers; once cheap it runs on the reading thread,
 * and a pipelined burst of such calls is answered whole (held answers go
 * out when the reader's chunk is done). */
static void test_cheap_tool_runs_on_the_reader(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  assert_false(ran_on_reader(&sv, 1, ""));
  int id = until_on_reader(&sv, 2);
  char burst[200 * 128];
  size_t len = 0;
  for (int i = 0; i < 200; i++)
    len += (size_t)snprintf(burst + len, sizeof burst - len,
                            "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
                            "\"tools/call\",\"params\":{\"name\":\"where\"}}\n",
                            id + i);
  tu_proc_write(&sv.io, burst, len);
  char seen[200] = {0};
  for (int i = 0; i < 200; i++) {
    json_t *m = read_response(&sv);
    json_int_t got = json_integer_value(json_object_get(m, "id"));
    assert_true(got >= id && got < id + 200);
    assert_false(seen[got - id]);
    seen[got - id] = 1;
    json_decref(m);
  }
  stop(&sv);
}

/* A worker holds the answers of the cheap calls it runs, but never a
 * task's CreateTaskResult: the task's notifications/tasks/status follow at
 * once from another thread and must not reach the client before the task
 * id they name. Pipelined bursts of a cheap tool with task calls among
 * them, on the workers' share and the reader's. */
static void test_task_answer_precedes_its_status(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  int id = 1;
  int64_t started = mcp__monotonic_ns();
  for (;; id++) { /* until where_task has proven cheap */
    char line[256];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
             "\"params\":{\"name\":\"where_task\"}}",
             id);
    tu_proc_send_line(&sv.io, line);
    json_t *m = read_response(&sv);
    const char *text = json_string_value(json_object_get(
        json_array_get(json_object_get(json_object_get(m, "result"), "content"),
                       0),
        "text"));
    bool reader = text && strcmp(text, "reader") == 0;
    json_decref(m);
    if (reader)
      break;
    assert_true(still_learning(started));
  }
  id++;
  enum { BURST = 400 };
  static char burst[BURST * 160];
  size_t len = 0, tasks = 0;
  for (int i = 0; i < BURST; i++) {
    bool task = i % 8 == 3;
    tasks += task;
    len += (size_t)snprintf(burst + len, sizeof burst - len,
                            "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
                            "\"tools/call\",\"params\":{\"name\":\"where_"
                            "task\"%s}}\n",
                            id + i, task ? ",\"task\":{}" : "");
  }
  tu_proc_write(&sv.io, burst, len);
  json_t *announced = json_object(); /* task ids the client has been told */
  size_t responses = 0, created = 0;
  while (responses < BURST) {
    json_t *m = read_msg(&sv);
    json_t *result = json_object_get(m, "result");
    const char *method = json_string_value(json_object_get(m, "method"));
    if (json_object_get(m, "id") != NULL) {
      responses++;
      const char *task = json_string_value(
          json_object_get(json_object_get(result, "task"), "taskId"));
      if (task != NULL) {
        created++;
        json_object_set_new(announced, task, json_true());
      }
    } else if (method && strcmp(method, "notifications/tasks/status") == 0) {
      const char *task = json_string_value(
          json_object_get(json_object_get(m, "params"), "taskId"));
      if (task == NULL || json_object_get(announced, task) == NULL)
        fail_msg("status of task %s before its CreateTaskResult",
                 task ? task : "?");
    }
    json_decref(m);
  }
  /* A caller may have 16 unfinished tasks: on a slow machine some of the
   * 50 are refused (-32603), never the first 16. */
  assert_true(created >= 16 && created <= tasks);
  json_decref(announced);
  stop(&sv);
}

/* Even a cheap tool goes to a worker when the request carries a progress
 * token (its notifications would be sent while the reader is busy). */
static void test_progress_token_keeps_a_call_off_the_reader(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  int id = until_on_reader(&sv, 1);
  assert_false(ran_on_reader(&sv, id, ",\"_meta\":{\"progressToken\":\"p1\"}"));
  assert_true(ran_on_reader(&sv, id + 1, ""));
  stop(&sv);
}

/* A client that writes all its requests before it reads any answer (far
 * more answers than a pipe holds) is still served: the reader never blocks
 * on output while input waits. A deadlock here would hang the write below
 * (the alarm turns that into a failure). */
static void test_client_that_reads_late_is_served(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  int id = until_on_reader(&sv, 1);
  enum { CALLS = 4000 };
  size_t cap = (size_t)CALLS * 128, len = 0;
  char *all = malloc(cap);
  assert_non_null(all);
  for (int i = 0; i < CALLS; i++) /* ids of 5 digits: lines of one length */
    len += (size_t)snprintf(all + len, cap - len,
                            "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
                            "\"tools/call\",\"params\":{\"name\":\"where\"}}\n",
                            10000 + id + i);
  alarm(120);
  /* in pieces of 50 lines with pauses, so that the reader sees small
   * chunks and runs every call itself (only it sends answers then) */
  size_t line = len / CALLS;
  for (size_t off = 0; off < len; off += 50 * line) {
    size_t n = len - off < 50 * line ? len - off : 50 * line;
    assert_int_equal(tu_proc_write(&sv.io, all + off, n), 0);
    usleep(2000);
  }
  free(all);
  char *seen = calloc(CALLS, 1);
  for (int i = 0; i < CALLS; i++) {
    json_t *m = read_response(&sv);
    json_int_t got = json_integer_value(json_object_get(m, "id"));
    assert_true(got >= 10000 + id && got < 10000 + id + CALLS);
    assert_false(seen[got - 10000 - id]);
    seen[got - 10000 - id] = 1;
    json_decref(m);
  }
  alarm(0);
  free(seen);
  stop(&sv);
}

/* A client that can be asked things (elicitation, sampling, roots) never
 * gets a tool run on the reader, even one proven cheap with another
 * client: a handler waiting for its answer would wait for the very thread
 * that reads it. */
static void test_askable_client_never_runs_on_the_reader(void **state) {
  (void)state;
  served sv;
  start(&sv, 0);
  handshake(&sv);
  until_on_reader(&sv, 1); /* "where" is proven cheap on this server */
  close(sv.to_server[1]);
  assert_null(tu_proc_read_line(&sv.io, 5000)); /* that client is done */
  pthread_join(sv.thread, NULL);
  assert_int_equal(sv.result, MCP_OK);
  close(sv.to_server[0]);
  close(sv.from_server[0]);
  /* a second client of the same server, one that can be asked */
  assert_int_equal(pipe(sv.to_server), 0);
  assert_int_equal(pipe(sv.from_server), 0);
  sv.io.in_fd = sv.to_server[1];
  sv.io.out_fd = sv.from_server[0];
  sv.io.len = 0;
  pthread_create(&sv.thread, NULL, serve_thread, &sv);
  handshake_with(&sv, "{\"elicitation\":{}}");
  for (int id = 1; id <= 50; id++)
    assert_false(ran_on_reader(&sv, id, ""));
  stop(&sv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_calls_complete_out_of_order),
      cmocka_unit_test(test_large_responses_are_written_whole),
      cmocka_unit_test(test_oversize_line_gets_an_error_and_serving_continues),
      cmocka_unit_test(test_end_of_input_finishes_in_flight_requests),
      cmocka_unit_test(test_requests_never_block_the_reader),
      cmocka_unit_test(test_cancel_of_a_queued_request_suppresses_it),
      cmocka_unit_test(test_blocked_tasks_result_holds_no_worker),
      cmocka_unit_test(test_cancelled_tasks_result_is_not_answered),
      cmocka_unit_test(test_cheap_tool_runs_on_the_reader),
      cmocka_unit_test(test_progress_token_keeps_a_call_off_the_reader),
      cmocka_unit_test(test_task_answer_precedes_its_status),
      cmocka_unit_test(test_askable_client_never_runs_on_the_reader),
      cmocka_unit_test(test_client_that_reads_late_is_served),
      cmocka_unit_test(test_long_call_holds_up_no_cheap_calls),
      cmocka_unit_test(test_task_outlives_its_connection),
      cmocka_unit_test(test_cheap_call_turned_slow_holds_up_only_its_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
