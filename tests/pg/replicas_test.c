/* SPDX-License-Identifier: MIT */
/* replicas_test.c - three demo servers (A, B, C) over HTTP sharing one
 * PostgreSQL database (--store postgres://...), each request sent to a
 * different replica:
 *   - a task created on A is polled on B and its result read on C
 *     (2025-11-25: each mcpc run is a new session on its replica;
 *     2026-07-28: the tasks extension, result inline in tasks/get);
 *   - an old-era (2025-11-25) session initialized on A is used on B (its
 *     tasks listed there), and a stream of B is resumed with Last-Event-ID
 *     on C; DELETE ends it in the database;
 *   - a tools list change caused on A (toggle_beta_tool) reaches a
 *     2026-07-28 subscriptions/listen stream on B and an old-era GET stream
 *     on C (LISTEN/NOTIFY relay);
 *   - a multi-round input_required request (2026-07-28) started on A is
 *     completed on B (requestState key shared through the database);
 *   - a 2025-11-25 handler on A asks the client (elicitation/create on its
 *     POST stream), the answer POSTed to B reaches it through the
 *     database; an answer for a replica killed meanwhile is refused with
 *     a clear error; a task on A asks, the question reaches the client
 *     through tasks/result on C (or the GET stream on B), the answer comes
 *     back through another replica;
 *   - PostgreSQL restarted in the middle: task requests fail with a clear
 *     error meanwhile, stateless tools keep working, full service after,
 *     and pg_amcheck finds the data clean;
 *   - SIGKILL of the replica running a task that cannot run again and is
 *     not resumed (archive_orders): the task ends failed ("Lost") within
 *     the lease, as seen from another replica;
 *   - SIGKILL of the replica running a task of an idempotent tool
 *     (export_orders): another replica runs it again and the task
 *     completes with the real result, seen from the third (both eras);
 *   - SIGTERM of the replica running an export_orders and a
 *     start_long_export task: both complete on another replica (the second
 *     through the demo's resume hook).
 * The test runs its own PostgreSQL (tests/pg/pg-fixture.sh), which it
 * restarts. */
#include "../e2e/http_client.h"
#include "../e2e/mcpc_run.h"
#include "pg_test.h"
#include "replica.h"

#include <jansson.h>

static char envfile[300];
static char uri[600];

static replica rep[3];

static void fixture(const char *cmd) { replica_fixture(envfile, cmd); }

static void start_replica(replica *r, const char *name) {
  replica_start(r, name, uri, "1000");
}

/* "task ID STATUS\n" -> ID. */
static void task_id_of(const char *out, char id[128]) {
  assert_int_equal(sscanf(out, "task %127s", id), 1);
}

static json_t *task_get(replica *r, const char *id) {
  json_t *j = replica_task(r, id);
  assert_non_null(j);
  return j;
}

static const char *status_of(json_t *task) {
  return json_string_value(json_object_get(task, "status"));
}

static void test_task_a_b_c(void **state) {
  (void)state;
  char *out = NULL, id[128];
  MR_RUN(0, &out, "-u", rep[0].d.url, "tools", "call", "start_long_export",
         "--task", "--args", "{\"seconds\": 0.5}");
  task_id_of(out, id);
  free(out);
  json_t *t = task_get(&rep[1], id);
  assert_true(strcmp(status_of(t), "working") == 0 ||
              strcmp(status_of(t), "completed") == 0);
  json_decref(t);
  MR_RUN(0, &out, "-u", rep[2].d.url, "tasks", "result", id);
  assert_non_null(strstr(out, "Exported 10000 rows as csv."));
  free(out);
  t = task_get(&rep[1], id);
  assert_string_equal(status_of(t), "completed");
  json_decref(t);
}

/* A 2026-07-28 request with the tasks extension and elicitation declared;
 * name is what Mcp-Name must repeat. */
static json_t *modern_rpc(replica *r, const char *method, const char *name,
                          const char *params) {
  json_t *p = json_loads(params, 0, NULL);
  assert_non_null(p);
  json_object_set_new(
      p, "_meta",
      json_pack("{s:s,s:{s:{s:{}},s:{}}}",
                "io.modelcontextprotocol/protocolVersion", "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities", "extensions",
                "io.modelcontextprotocol/tasks", "elicitation"));
  json_t *req = json_pack("{s:s,s:i,s:s,s:o}", "jsonrpc", "2.0", "id", 11,
                          "method", method, "params", p);
  char *text = json_dumps(req, JSON_COMPACT), hdr[512], *body = NULL;
  json_decref(req);
  snprintf(hdr, sizeof hdr,
           "Accept: application/json, text/event-stream\r\n"
           "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: %s\r\n"
           "Mcp-Name: %s\r\n",
           method, name);
  int status = tc_do(r->port, "POST", hdr, text, &body, NULL);
  free(text);
  assert_int_equal(status, 200);
  json_t *res = json_loads(body, 0, NULL);
  free(body);
  assert_non_null(res);
  return res;
}

static void test_task_a_b_c_modern(void **state) {
  (void)state;
  json_t *r = modern_rpc(&rep[0], "tools/call", "reindex_catalog",
                         "{\"name\":\"reindex_catalog\",\"arguments\":"
                         "{\"section\":\"media\"}}");
  json_t *res = json_object_get(r, "result");
  assert_string_equal(json_string_value(json_object_get(res, "resultType")),
                      "task");
  char id[64], params[128];
  snprintf(id, sizeof id, "%s",
           json_string_value(json_object_get(res, "taskId")));
  json_decref(r);
  snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", id);
  r = modern_rpc(&rep[1], "tasks/get", id, params);
  const char *st = json_string_value(
      json_object_get(json_object_get(r, "result"), "status"));
  assert_true(strcmp(st, "working") == 0 || strcmp(st, "completed") == 0);
  json_decref(r);
  /* C: completed, the result inline (bounded wait while it runs on A) */
  bool done = false;
  for (int i = 0; i < 200 && !done; i++) {
    r = modern_rpc(&rep[2], "tasks/get", id, params);
    res = json_object_get(r, "result");
    done = strcmp(json_string_value(json_object_get(res, "status")),
                  "completed") == 0;
    if (done)
      assert_string_equal(json_string_value(json_object_get(
                              json_object_get(json_object_get(res, "result"),
                                              "structuredContent"),
                              "section")),
                          "media");
    json_decref(r);
    if (!done)
      usleep(50 * 1000);
  }
  assert_true(done);
}

#define MODERN_HEADERS                                                         \
  "Accept: application/json, text/event-stream\r\n"                            \
  "MCP-Protocol-Version: 2026-07-28\r\n"                                       \
  "Mcp-Method: tools/call\r\nMcp-Name: archive_orders\r\n"

static json_t *modern_call(replica *r, json_t *params) {
  json_object_set_new(
      params, "_meta",
      json_pack("{s:s,s:{s:{}}}", "io.modelcontextprotocol/protocolVersion",
                "2026-07-28", "io.modelcontextprotocol/clientCapabilities",
                "elicitation"));
  json_t *req = json_pack("{s:s,s:i,s:s,s:o}", "jsonrpc", "2.0", "id", 7,
                          "method", "tools/call", "params", params);
  char *text = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  char *body = NULL;
  int status = tc_do(r->port, "POST", MODERN_HEADERS, text, &body, NULL);
  free(text);
  assert_int_equal(status, 200);
  json_t *res = json_loads(body, 0, NULL);
  free(body);
  assert_non_null(res);
  return res;
}

static void test_input_required_a_then_b(void **state) {
  (void)state;
  json_t *r =
      modern_call(&rep[0], json_pack("{s:s,s:{s:i}}", "name", "archive_orders",
                                     "arguments", "older_than_days", 30));
  json_t *result = json_object_get(r, "result");
  assert_string_equal(json_string_value(json_object_get(result, "resultType")),
                      "input_required");
  const char *rs = json_string_value(json_object_get(result, "requestState"));
  assert_non_null(rs);
  json_t *retry = json_pack("{s:s,s:{s:i},s:{s:{s:s,s:{s:b}}},s:s}", "name",
                            "archive_orders", "arguments", "older_than_days",
                            30, "inputResponses", "confirm", "action", "accept",
                            "content", "confirm", 1, "requestState", rs);
  json_t *done = modern_call(&rep[1], retry);
  json_decref(r);
  result = json_object_get(done, "result");
  assert_string_equal(json_string_value(json_object_get(result, "resultType")),
                      "complete");
  const char *text = json_string_value(json_object_get(
      json_array_get(json_object_get(result, "content"), 0), "text"));
  assert_string_equal(text, "Archived 42 orders older than 30 days.");
  json_decref(done);
}

static json_t *session_post(replica *r, const char *sid, const char *body,
                            int expect) {
  char hdr[512], *out = NULL;
  snprintf(hdr, sizeof hdr,
           "Accept: application/json, text/event-stream\r\n"
           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  assert_int_equal(tc_do(r->port, "POST", hdr, body, &out, NULL), expect);
  json_t *j = out && *out ? json_loads(out, 0, NULL) : NULL;
  free(out);
  return j;
}

/* "id: X" or "data: X" of an SSE event. */
static void event_field(const char *ev, const char *name, char *out,
                        size_t cap) {
  out[0] = '\0';
  size_t n = strlen(name);
  for (const char *l = ev; l && *l;
       l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (strncmp(l, name, n) == 0 && l[n] == ':') {
      const char *v = l + n + 1 + (l[n + 1] == ' ');
      size_t len = strcspn(v, "\n");
      snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), v);
      return;
    }
  }
}

static void test_old_era_session_a_b_c(void **state) {
  (void)state;
  char sid[64] = "", *out = NULL;
  const char *init =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
      "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
      "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
  assert_int_equal(tc_do(rep[0].port, "POST",
                         "Accept: application/json, text/event-stream\r\n",
                         init, &out, sid),
                   200);
  free(out);
  assert_int_equal(strlen(sid), 36);
  /* B: the session exists there too */
  json_t *j = session_post(
      &rep[1], sid,
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", 202);
  json_decref(j);
  j = session_post(&rep[1], sid,
                   "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                   "\"params\":{\"name\":\"add\",\"arguments\":{\"a\":2,"
                   "\"b\":3}}}",
                   200);
  assert_non_null(j);
  assert_non_null(json_object_get(j, "result"));
  json_decref(j);
  /* a task created in the session on A is listed in it on B */
  j = session_post(&rep[0], sid,
                   "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                   "\"params\":{\"name\":\"start_long_export\",\"arguments\":"
                   "{\"seconds\":0.2},\"task\":{\"ttl\":60000}}}",
                   200);
  const char *tid = json_string_value(json_object_get(
      json_object_get(json_object_get(j, "result"), "task"), "taskId"));
  assert_non_null(tid);
  char task_id[64];
  snprintf(task_id, sizeof task_id, "%s", tid);
  json_decref(j);
  j = session_post(&rep[1], sid,
                   "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/list\"}",
                   200);
  json_t *tasks = json_object_get(json_object_get(j, "result"), "tasks");
  assert_int_equal(json_array_size(tasks), 1);
  assert_string_equal(
      json_string_value(json_object_get(json_array_get(tasks, 0), "taskId")),
      task_id);
  json_decref(j);

  /* a stream on B: read up to the first progress event, then drop it */
  char hdr[512], id[64], data[1024], last[64] = "", *ev;
  snprintf(hdr, sizeof hdr,
           "Accept: application/json, text/event-stream\r\n"
           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  tc_conn c;
  assert_true(tc_open(
      &c, rep[1].port, "POST", "/mcp", hdr,
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"reindex_catalog\",\"arguments\":{\"section\":\"media\"},"
      "\"_meta\":{\"progressToken\":\"p1\"}}}",
      5000));
  bool progress = false;
  while (!progress && (ev = tc_next_event(&c, 5000)) != NULL) {
    event_field(ev, "id", id, sizeof id);
    event_field(ev, "data", data, sizeof data);
    if (id[0])
      snprintf(last, sizeof last, "%s", id);
    progress = strstr(data, "notifications/progress") != NULL;
    free(ev);
  }
  tc_close(&c);
  assert_true(progress);
  assert_true(last[0] != '\0');
  /* resume on C: the rest of B's stream, up to the result (retried while
   * the tool still runs on B) */
  char rh[512];
  snprintf(rh, sizeof rh,
           "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
           "MCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: %s\r\n",
           sid, last);
  bool result = false;
  int later_progress = 0;
  for (int attempt = 0; attempt < 100 && !result; attempt++) {
    assert_true(tc_open(&c, rep[2].port, "GET", "/mcp", rh, NULL, 5000));
    assert_int_equal(c.status, 200);
    later_progress = 0;
    while ((ev = tc_next_event(&c, 5000)) != NULL) {
      event_field(ev, "data", data, sizeof data);
      if (strstr(data, "notifications/progress"))
        later_progress++;
      if (strstr(data, "\"id\":5") && strstr(data, "\"result\""))
        result = true;
      free(ev);
    }
    tc_close(&c);
    if (!result)
      usleep(100 * 1000);
  }
  assert_true(result);
  assert_int_equal(later_progress, 4); /* 5 steps, the first one was read */
  /* an unknown Last-Event-ID is still refused */
  snprintf(rh, sizeof rh,
           "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
           "MCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: 1-999999999\r\n",
           sid);
  assert_int_equal(tc_do(rep[2].port, "GET", rh, NULL, NULL, NULL), 400);
  /* DELETE on C ends it in the database */
  snprintf(hdr, sizeof hdr,
           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n", sid);
  assert_int_equal(tc_do(rep[2].port, "DELETE", hdr, NULL, NULL, NULL), 204);
  char base[600], sql[300];
  assert_true(pg_test_env("MCP_PG_CONNINFO", base, sizeof base));
  snprintf(sql, sizeof sql,
           "DO $$BEGIN IF EXISTS (SELECT 1 FROM mcp_sessions WHERE id = '%s')"
           " THEN RAISE EXCEPTION 'still there'; END IF; END$$",
           sid);
  assert_true(pg_test_sql(base, sql));
  /* an unknown session is still 404 everywhere */
  j = session_post(&rep[0], "00000000-0000-4000-8000-000000000000",
                   "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}", 404);
  json_decref(j);
}

/* Reads events from c until one's data contains needle. */
static bool read_until(tc_conn *c, const char *needle) {
  char *ev;
  bool hit = false;
  while (!hit && (ev = tc_next_event(c, 10000)) != NULL) {
    hit = strstr(ev, needle) != NULL;
    free(ev);
  }
  return hit;
}

/* An old-era session with the elicitation capability, initialized on r. */
static void elicit_session(replica *r, char sid[64]) {
  char *out = NULL;
  sid[0] = '\0';
  assert_int_equal(
      tc_do(r->port, "POST", "Accept: application/json, text/event-stream\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
            "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
            "{\"elicitation\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":"
            "\"1\"}}}",
            &out, sid),
      200);
  free(out);
  assert_int_equal(strlen(sid), 36);
  json_decref(session_post(
      r, sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
      202));
}

/* Starts archive_orders (which asks the client to confirm) on r's POST
 * stream in session sid and reads up to its elicitation/create request;
 * returns that request's id. */
static json_int_t ask_on(replica *r, const char *sid, tc_conn *c) {
  char hdr[512], data[4096], *ev;
  snprintf(hdr, sizeof hdr,
           "Accept: application/json, text/event-stream\r\n"
           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  assert_true(tc_open(c, r->port, "POST", "/mcp", hdr,
                      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                      "\"params\":{\"name\":\"archive_orders\",\"arguments\":"
                      "{\"older_than_days\":30}}}",
                      5000));
  assert_int_equal(c->status, 200);
  json_int_t id = -1;
  while (id < 0 && (ev = tc_next_event(c, 10000)) != NULL) {
    event_field(ev, "data", data, sizeof data);
    free(ev);
    json_t *m = json_loads(data, 0, NULL);
    const char *method = json_string_value(json_object_get(m, "method"));
    if (method && strcmp(method, "elicitation/create") == 0)
      id = json_integer_value(json_object_get(m, "id"));
    json_decref(m);
  }
  assert_true(id > 0);
  return id;
}

static json_t *answer_post(replica *r, const char *sid, json_int_t id,
                           int expect) {
  char body[256];
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":"
           "\"accept\",\"content\":{\"confirm\":true}}}",
           (long long)id);
  return session_post(r, sid, body, expect);
}

/* 2025-11-25 server-to-client requests across replicas: a handler on A
 * asks (elicitation/create on its POST stream); the client's answer,
 * POSTed to B, reaches the handler on A through the database; the same
 * session used on B asks with ids of its own (no clash with A's), answered
 * through C. An answer for a replica that was killed meanwhile is refused
 * with a clear error. */
static void test_old_era_question_answered_elsewhere(void **state) {
  (void)state;
  char sid[64];
  elicit_session(&rep[0], sid);
  tc_conn c;
  json_int_t id = ask_on(&rep[0], sid, &c);
  json_decref(answer_post(&rep[1], sid, id, 202));
  assert_true(read_until(&c, "Archived 42 orders older than 30 days."));
  tc_close(&c);
  /* the answer again, now that nobody waits: ignored, as on one replica */
  json_decref(answer_post(&rep[2], sid, id, 202));
  /* the session's requests from B have ids of B's own; answered on C */
  json_int_t id_b = ask_on(&rep[1], sid, &c);
  assert_true(id_b != id);
  json_decref(answer_post(&rep[2], sid, id_b, 202));
  assert_true(read_until(&c, "Archived 42 orders older than 30 days."));
  tc_close(&c);

  /* the replica that asked dies before the answer comes */
  replica d;
  start_replica(&d, "d");
  elicit_session(&d, sid);
  json_int_t id_d = ask_on(&d, sid, &c);
  kill(d.pid, SIGKILL);
  waitpid(d.pid, NULL, 0);
  tc_close(&c);
  /* the database notices at once that its connections dropped; wait for
   * it (the three replicas left each keep one listening connection) */
  char base[600];
  assert_true(pg_test_env("MCP_PG_CONNINFO", base, sizeof base));
  bool gone = false;
  for (int i = 0; i < 200 && !gone; i++) {
    gone = pg_test_sql(
        base, "DO $$BEGIN IF (SELECT count(*) FROM pg_stat_activity WHERE"
              " application_name LIKE 'mcp-relay:%') > 3 THEN RAISE"
              " EXCEPTION 'not yet'; END IF; END$$");
    if (!gone)
      usleep(50 * 1000);
  }
  assert_true(gone);
  json_t *j = answer_post(&rep[1], sid, id_d, 400);
  assert_non_null(j);
  const char *msg = json_string_value(
      json_object_get(json_object_get(j, "error"), "message"));
  assert_non_null(msg);
  assert_non_null(strstr(msg, "replica that sent this request is gone"));
  json_decref(j);
}

/* Starts archive_orders as a task on r in session sid; its id in out. */
static void start_archive_task(replica *r, const char *sid, char out[64]) {
  json_t *j = session_post(
      r, sid,
      "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"archive_orders\",\"arguments\":{\"older_than_days\":30},"
      "\"task\":{\"ttl\":60000}}}",
      200);
  const char *tid = json_string_value(json_object_get(
      json_object_get(json_object_get(j, "result"), "task"), "taskId"));
  assert_non_null(tid);
  snprintf(out, 64, "%s", tid);
  json_decref(j);
}

/* Polls tasks/get on r until task id has status want (bounded). */
static void wait_task_status(replica *r, const char *sid, const char *id,
                             const char *want) {
  char body[256];
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"tasks/get\","
           "\"params\":{\"taskId\":\"%s\"}}",
           id);
  bool seen = false;
  for (int i = 0; i < 200 && !seen; i++) {
    json_t *j = session_post(r, sid, body, 200);
    const char *st = json_string_value(
        json_object_get(json_object_get(j, "result"), "status"));
    seen = st && strcmp(st, want) == 0;
    json_decref(j);
    if (!seen)
      usleep(50 * 1000);
  }
  assert_true(seen);
}

/* Reads c up to an elicitation/create request; returns its id. */
static json_int_t read_question(tc_conn *c) {
  char data[4096], *ev;
  json_int_t id = -1;
  while (id < 0 && (ev = tc_next_event(c, 10000)) != NULL) {
    event_field(ev, "data", data, sizeof data);
    free(ev);
    json_t *m = json_loads(data, 0, NULL);
    const char *method = json_string_value(json_object_get(m, "method"));
    if (method && strcmp(method, "elicitation/create") == 0)
      id = json_integer_value(json_object_get(m, "id"));
    json_decref(m);
  }
  return id;
}

/* 2025-11-25 tasks whose handler asks the client, across replicas: the
 * task runs on A; its question reaches the client through tasks/result on
 * C (then through the standalone GET stream on B for a second task); the
 * answer, POSTed to yet another replica, reaches the handler on A. */
static void test_old_era_task_question_elsewhere(void **state) {
  (void)state;
  char sid[64], tid[64], hdr[512], body[256];
  elicit_session(&rep[0], sid);
  start_archive_task(&rep[0], sid, tid);
  wait_task_status(&rep[1], sid, tid, "input_required");
  snprintf(hdr, sizeof hdr,
           "Accept: application/json, text/event-stream\r\n"
           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"tasks/result\","
           "\"params\":{\"taskId\":\"%s\"}}",
           tid);
  tc_conn c;
  assert_true(tc_open(&c, rep[2].port, "POST", "/mcp", hdr, body, 5000));
  assert_int_equal(c.status, 200);
  json_int_t id = read_question(&c);
  assert_true(id > 0);
  json_decref(answer_post(&rep[1], sid, id, 202));
  assert_true(read_until(&c, "Archived 42 orders older than 30 days."));
  tc_close(&c);
  wait_task_status(&rep[1], sid, tid, "completed");

  /* the standalone stream on B carries the next task's question */
  char gh[512];
  snprintf(gh, sizeof gh,
           "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
           "MCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  assert_true(tc_open(&c, rep[1].port, "GET", "/mcp", gh, NULL, 5000));
  assert_int_equal(c.status, 200);
  start_archive_task(&rep[0], sid, tid);
  id = read_question(&c);
  assert_true(id > 0);
  tc_close(&c);
  json_decref(answer_post(&rep[2], sid, id, 202));
  wait_task_status(&rep[2], sid, tid, "completed");
}

static void test_list_change_reaches_b_and_c(void **state) {
  (void)state;
  /* B: a 2026-07-28 listen stream */
  tc_conn listen;
  assert_true(tc_open(
      &listen, rep[1].port, "POST", "/mcp",
      "Accept: application/json, text/event-stream\r\n"
      "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: "
      "subscriptions/listen\r\n",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\","
      "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}},"
      "\"notifications\":{\"toolsListChanged\":true}}}",
      5000));
  assert_int_equal(listen.status, 200);
  assert_true(read_until(&listen, "io.modelcontextprotocol/subscriptionId"));
  /* C: an old-era session with its GET stream */
  char sid[64] = "", *out = NULL;
  assert_int_equal(
      tc_do(rep[2].port, "POST",
            "Accept: application/json, text/event-stream\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
            "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
            "{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
            &out, sid),
      200);
  free(out);
  json_decref(session_post(
      &rep[2], sid,
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", 202));
  char gh[256];
  snprintf(gh, sizeof gh,
           "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
           "MCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  tc_conn get;
  assert_true(tc_open(&get, rep[2].port, "GET", "/mcp", gh, NULL, 5000));
  assert_int_equal(get.status, 200);
  /* A changes its tools */
  MR_RUN(0, &out, "-u", rep[0].d.url, "tools", "call", "toggle_beta_tool");
  assert_non_null(strstr(out, "beta_echo added"));
  free(out);
  assert_true(read_until(&listen, "notifications/tools/list_changed"));
  assert_true(read_until(&get, "notifications/tools/list_changed"));
  tc_close(&listen);
  tc_close(&get);
  MR_RUN(0, &out, "-u", rep[0].d.url, "tools", "call", "toggle_beta_tool");
  assert_non_null(strstr(out, "beta_echo removed"));
  free(out);
}

static void test_database_restart(void **state) {
  (void)state;
  char *out = NULL, *err = NULL, id[128];
  /* a task whose result is written while the database is away */
  MR_RUN(0, &out, "-u", rep[0].d.url, "tools", "call", "start_long_export",
         "--task", "--args", "{\"seconds\": 0.2}");
  task_id_of(out, id);
  free(out);
  fixture("down");
  /* task requests: a clear error, never a crash */
  const char *a[] = {
      "-u", rep[1].d.url, "tools", "call", "start_long_export", "--task", NULL};
  int rc = mr_run(a, &out, &err);
  assert_int_equal(rc, 3);
  /* the kind of failure; the database's own words stay in the log */
  assert_non_null(strstr(err, "task could not be created"));
  assert_null(strstr(err, "/tmp/"));
  free(out);
  free(err);
  const char *g[] = {"-u", rep[2].d.url, "tasks", "get", id, NULL};
  rc = mr_run(g, &out, &err);
  assert_int_equal(rc, 3);
  assert_non_null(strstr(err, "task store is unavailable"));
  free(out);
  free(err);
  /* a session this replica does not hold cannot be looked up: 503, not a
   * misleading 404 */
  json_decref(session_post(&rep[1], "00000000-0000-4000-8000-000000000001",
                           "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}",
                           503));
  /* what does not need the database goes on */
  MR_RUN(0, &out, "-u", rep[2].d.url, "tools", "call", "add", "a=2", "b=3");
  assert_non_null(strstr(out, "5"));
  free(out);
  fixture("up");
  /* full service again on every replica (reconnection backs off to 5 s) */
  for (int i = 0; i < 3; i++) {
    const char *t[] = {"-u",    rep[i].d.url, "--format", "json",
                       "tasks", "get",        id,         NULL};
    for (int k = 0; k < 150 && (rc = mr_run(t, &out, NULL)) != 0; k++) {
      free(out);
      out = NULL;
      usleep(100 * 1000);
    }
    assert_int_equal(rc, 0);
    free(out);
  }
  /* the task that finished during the outage: its end could not be
   * written, so it is failed by its replica or still working; never a
   * half-written record */
  json_t *t = task_get(&rep[1], id);
  const char *st = status_of(t);
  assert_true(strcmp(st, "completed") == 0 || strcmp(st, "failed") == 0 ||
              strcmp(st, "working") == 0);
  json_decref(t);
  test_task_a_b_c(state);
  /* pg_amcheck: tables and indexes consistent */
  char bin[400], host[400], cmd[1200];
  assert_true(pg_test_env("MCP_PG_BIN", bin, sizeof bin));
  char data[400];
  assert_true(pg_test_env("MCP_PG_DATA", data, sizeof data));
  snprintf(host, sizeof host, "%.*s", (int)(strrchr(data, '/') - data), data);
  snprintf(cmd, sizeof cmd,
           "%s/pg_amcheck --install-missing -h %s -U postgres -d postgres "
           "--heapallindexed",
           bin, host);
  assert_int_equal(system(cmd), 0);
}

static void test_sigkill_fails_task_within_lease(void **state) {
  (void)state;
  char *out = NULL, id[128];
  /* archive_orders, parked on its question: neither idempotent nor taken
   * by the demo's resume hook (start_long_export would be resumed) */
  json_t *call = modern_rpc(&rep[0], "tools/call", "archive_orders",
                            "{\"name\":\"archive_orders\",\"arguments\":"
                            "{\"older_than_days\":30}}");
  json_t *res = json_object_get(call, "result");
  assert_string_equal(json_string_value(json_object_get(res, "resultType")),
                      "task");
  snprintf(id, sizeof id, "%s",
           json_string_value(json_object_get(res, "taskId")));
  json_decref(call);
  json_t *t = NULL;
  bool asked = false;
  for (int i = 0; i < 300 && !asked; i++) {
    t = task_get(&rep[1], id);
    asked = strcmp(status_of(t), "input_required") == 0;
    json_decref(t);
    if (!asked)
      usleep(20 * 1000);
  }
  assert_true(asked);
  kill(rep[0].pid, SIGKILL);
  waitpid(rep[0].pid, NULL, 0);
  rep[0].pid = 0;
  /* lease 1 s: B or C fails it once the lease lapsed (bounded wait) */
  bool failed = false;
  for (int i = 0; i < 300 && !failed; i++) {
    t = task_get(&rep[1 + i % 2], id);
    failed = strcmp(status_of(t), "failed") == 0;
    if (failed)
      assert_non_null(strstr(
          json_string_value(json_object_get(t, "statusMessage")), "Lost"));
    json_decref(t);
    if (!failed)
      usleep(100 * 1000);
  }
  assert_true(failed);
  /* a failed task: its result says why; 2026-07-28 (mcpc's default now)
   * answers it as an error of the task (exit 3), 2025-11-25 as an isError
   * result (exit 1) */
  char *err = NULL;
  const char *r[] = {"-u", rep[2].d.url, "tasks", "result", id, NULL};
  int rc = mr_run(r, &out, &err);
  assert_true(rc == 1 || rc == 3);
  assert_true(strstr(out, "Lost") != NULL || strstr(err, "Lost") != NULL);
  free(out);
  free(err);
}

/* Item 2 of issue #14: export_orders declares itself idempotent. The
 * replica running it (victim) is SIGKILLed; one of the two others claims
 * the task through the database and runs it again from its stored
 * request, so the task completes with the real result, seen from both
 * survivors. The victim is started again afterwards (a new port). */
static void kill_replica(int i) {
  kill(rep[i].pid, SIGKILL);
  waitpid(rep[i].pid, NULL, 0);
  rep[i].pid = 0;
}

static void restart_replica(int i) {
  static const char *const names[] = {"a", "b", "c"};
  if (rep[i].pid == 0)
    start_replica(&rep[i], names[i]);
}

/* Polls the two survivors (B and C) in turn until task id is completed
 * (30 s at most); it may only be working meanwhile, never failed. */
static void wait_completed_elsewhere(const char *id) {
  bool done = false;
  for (int i = 0; i < 300 && !done; i++) {
    json_t *t = task_get(&rep[1 + i % 2], id);
    const char *st = status_of(t);
    if (st == NULL ||
        (strcmp(st, "working") != 0 && strcmp(st, "completed") != 0))
      fail_msg("task %s is %s: %s", id, st ? st : "(no status)",
               json_string_value(json_object_get(t, "statusMessage")));
    done = strcmp(st, "completed") == 0;
    json_decref(t);
    if (!done)
      usleep(100 * 1000);
  }
  assert_true(done);
}

static void test_sigkill_reruns_idempotent_task(void **state) {
  (void)state;
  restart_replica(0);
  char *out = NULL, id[128];
  MR_RUN(0, &out, "-u", rep[0].d.url, "--protocol", "2025-11-25", "tools",
         "call", "export_orders", "--task", "--ttl", "600000", "--args",
         "{\"seconds\": 3, \"format\": \"json\"}");
  task_id_of(out, id);
  free(out);
  json_t *t = task_get(&rep[1], id);
  assert_string_equal(status_of(t), "working");
  json_decref(t);
  kill_replica(0);
  /* lease 1 s, then a whole lease of working renewals before a claim,
   * then the 3 s run again: bounded wait */
  wait_completed_elsewhere(id);
  /* the real result, from either survivor */
  for (int i = 1; i <= 2; i++) {
    MR_RUN(0, &out, "-u", rep[i].d.url, "--protocol", "2025-11-25", "tasks",
           "result", id);
    assert_non_null(strstr(out, "Exported 10000 rows as json."));
    free(out);
  }
}

/* A replica stopped gracefully (SIGTERM) hands its tasks over to a live
 * replica: the idempotent export_orders runs again to completion there,
 * start_long_export is resumed there by the demo's resume hook. */
static void test_graceful_stop_hands_over(void **state) {
  (void)state;
  restart_replica(0);
  char *out = NULL, again[128], once[128];
  MR_RUN(0, &out, "-u", rep[0].d.url, "--protocol", "2025-11-25", "tools",
         "call", "export_orders", "--task", "--ttl", "600000", "--args",
         "{\"seconds\": 2, \"format\": \"json\"}");
  task_id_of(out, again);
  free(out);
  MR_RUN(0, &out, "-u", rep[0].d.url, "tools", "call", "start_long_export",
         "--task", "--args", "{\"seconds\": 4}");
  task_id_of(out, once);
  free(out);
  kill(rep[0].pid, SIGTERM);
  int status;
  assert_int_equal(waitpid(rep[0].pid, &status, 0), rep[0].pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  rep[0].pid = 0;
  wait_completed_elsewhere(again);
  MR_RUN(0, &out, "-u", rep[1].d.url, "--protocol", "2025-11-25", "tasks",
         "result", again);
  assert_non_null(strstr(out, "Exported 10000 rows as json."));
  free(out);
  /* resumed by the demo's resume hook on the replica that took it over */
  wait_completed_elsewhere(once);
  MR_RUN(0, &out, "-u", rep[2].d.url, "--protocol", "2025-11-25", "tasks",
         "result", once);
  assert_non_null(strstr(out, "Exported 10000 rows as csv."));
  free(out);
}

static void test_sigkill_reruns_idempotent_task_modern(void **state) {
  (void)state;
  restart_replica(0);
  json_t *r = modern_rpc(&rep[0], "tools/call", "export_orders",
                         "{\"name\":\"export_orders\",\"arguments\":"
                         "{\"seconds\":3}}");
  json_t *res = json_object_get(r, "result");
  assert_string_equal(json_string_value(json_object_get(res, "resultType")),
                      "task");
  char id[64], params[128];
  snprintf(id, sizeof id, "%s",
           json_string_value(json_object_get(res, "taskId")));
  json_decref(r);
  snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", id);
  kill_replica(0);
  bool done = false;
  for (int i = 0; i < 300 && !done; i++) {
    r = modern_rpc(&rep[1 + i % 2], "tasks/get", id, params);
    res = json_object_get(r, "result");
    const char *st = json_string_value(json_object_get(res, "status"));
    assert_true(strcmp(st, "working") == 0 || strcmp(st, "completed") == 0);
    done = strcmp(st, "completed") == 0;
    if (done) {
      json_t *sc =
          json_object_get(json_object_get(res, "result"), "structuredContent");
      assert_int_equal(json_integer_value(json_object_get(sc, "rows")), 10000);
      assert_string_equal(json_string_value(json_object_get(sc, "format")),
                          "csv");
      assert_false(json_is_true(
          json_object_get(json_object_get(res, "result"), "isError")));
    }
    json_decref(r);
    if (!done)
      usleep(100 * 1000);
  }
  assert_true(done);
  /* the third replica sees the same */
  r = modern_rpc(&rep[2], "tasks/get", id, params);
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(r, "result"), "status")),
                      "completed");
  json_decref(r);
}

static int setup(void **state) {
  (void)state;
  if (mr_setup("mcp-replicas") != 0)
    return -1;
  setenv("MCP_PG_ENV", envfile, 1);
  if (!pg_test_env("MCP_PG_URI", uri, sizeof uri))
    return -1;
  start_replica(&rep[0], "a");
  start_replica(&rep[1], "b");
  start_replica(&rep[2], "c");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  bool stopped = true;
  for (int i = 0; i < 3; i++)
    stopped = mr_stop(rep[i].pid) && stopped;
  mr_teardown();
  return stopped ? 0 : -1;
}

int main(void) {
  if (getenv("MCP_PG_FIXTURE") == NULL) {
    fprintf(stderr, "run through ctest (MCP_PG_FIXTURE)\n");
    return 1;
  }
  char base[600];
  pg_test_base(base, sizeof base); /* skips as the shared fixture did */
  snprintf(envfile, sizeof envfile, "/tmp/mcp-pg-replicas-%d.env",
           (int)getpid());
  fixture("start");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_task_a_b_c),
      cmocka_unit_test(test_task_a_b_c_modern),
      cmocka_unit_test(test_input_required_a_then_b),
      cmocka_unit_test(test_old_era_session_a_b_c),
      cmocka_unit_test(test_old_era_question_answered_elsewhere),
      cmocka_unit_test(test_old_era_task_question_elsewhere),
      cmocka_unit_test(test_list_change_reaches_b_and_c),
      cmocka_unit_test(test_database_restart),
      cmocka_unit_test(test_sigkill_fails_task_within_lease),
      cmocka_unit_test(test_sigkill_reruns_idempotent_task),
      cmocka_unit_test(test_sigkill_reruns_idempotent_task_modern),
      cmocka_unit_test(test_graceful_stop_hands_over),
  };
  int rc = cmocka_run_group_tests(tests, setup, teardown);
  fixture("stop");
  return rc;
}
