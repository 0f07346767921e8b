/* SPDX-License-Identifier: MIT */
/* relay_test.c - notification fan-out over PostgreSQL LISTEN/NOTIFY between
 * server objects standing for replicas (each with its own store, pool and
 * listening connection on one database): a tool added on A reaches B's
 * session as notifications/tools/list_changed exactly once and A's own
 * session once (never echoed back); resources/updated reaches only the
 * sessions subscribed to the URI; a server of another name ignores both;
 * a listening connection killed by the database comes back and delivers a
 * resync (list_changed of every announced list); a 2026-07-28
 * subscriptions/listen stream on B hears what A causes; task status and
 * tasks/cancel travel between replicas serving one session. */
#include "testutil.h"

#include <string.h>
#include <unistd.h>

#include "pg_test.h"
#include "server/internal.h"

#include <stdatomic.h>

static char conninfo[768];

typedef struct replica {
  mcp_server_t *server;
  mcp_store_t *store;
  mcp_session_t *session;
  tu_capture notes;
} replica;

static mcp_status read_nothing(mcp_call_t *call, const char *uri, json_t *vars,
                               mcp_read_result_t *out, void *ud) {
  (void)call, (void)uri, (void)vars, (void)out, (void)ud;
  return MCP_OK;
}

static mcp_status do_nothing(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)call, (void)args, (void)r, (void)ud;
  return MCP_OK;
}

static void open_replica(replica *r, const char *name) {
  mcp_error_t err;
  assert_int_equal(mcp_store_postgres_open(conninfo, 2, &r->store, &err),
                   MCP_OK);
  assert_int_equal(mcp_server_new(name, "1.0", &r->server), MCP_OK);
  mcp_server_set_tools_list_changed(r->server, true);
  mcp_server_set_resources_subscribe(r->server, true);
  mcp_resource_t *res = NULL;
  assert_int_equal(mcp_resource_new("file:///data.csv", "data", &res), MCP_OK);
  mcp_resource_set_handler(res, read_nothing, NULL, NULL);
  assert_int_equal(mcp_server_add_resource(r->server, res), MCP_OK);
  mcp_relay relay;
  assert_int_equal(mcp_relay_postgres_new(r->store, &relay, &err), MCP_OK);
  assert_int_equal(mcp_server_set_relay(r->server, relay), MCP_OK);
  tu_capture_init(&r->notes);
  r->session = tu_session(r->server, &r->notes);
  tu_initialize(r->server, r->session, NULL);
}

static void close_replica(replica *r) {
  mcp__session_release(r->session);
  mcp_server_free(r->server); /* closes the relay first */
  mcp_store_free(r->store);
  tu_capture_destroy(&r->notes);
}

static const char *method_at(tu_capture *c, size_t i) {
  pthread_mutex_lock(&c->lock);
  const char *m = json_string_value(
      json_object_get(json_array_get(c->messages, i), "method"));
  pthread_mutex_unlock(&c->lock);
  return m;
}

static size_t count(tu_capture *c) {
  pthread_mutex_lock(&c->lock);
  size_t n = json_array_size(c->messages);
  pthread_mutex_unlock(&c->lock);
  return n;
}

static void add_tool(mcp_server_t *s, const char *name) {
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  mcp_tool_set_handler(t, do_nothing, NULL, NULL);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
}

/* Waits until the listening connections of n relays are up: each names
 * itself "mcp-relay:<origin>" in pg_stat_activity once it listens. */
static void wait_listeners(int n) {
  char sql[300];
  snprintf(sql, sizeof sql,
           "DO $$BEGIN IF (SELECT count(*) FROM pg_stat_activity WHERE"
           " application_name LIKE 'mcp-relay:%%' AND datname ="
           " current_database()) < %d"
           " THEN RAISE EXCEPTION 'not yet'; END IF; END$$",
           n);
  bool up = false;
  for (int i = 0; i < 300 && !up; i++) {
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r = PQexec(c, sql);
    up = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    PQfinish(c);
    if (!up)
      usleep(50 * 1000);
  }
  assert_true(up);
}

/* Waits until events of from reach to: probes with notifications/message
 * (which listen streams never get) until one arrives in to's session. */
static void wait_relay(replica *from, replica *to) {
  size_t n = count(&to->notes);
  bool got = false;
  for (int i = 0; i < 200 && !got; i++) {
    mcp_server_broadcast(from->server, "notifications/message",
                         json_pack("{s:s,s:s}", "level", "info", "data", "p"));
    got = tu_capture_wait(&to->notes, n + 1, 50) > n;
  }
  assert_true(got);
}

static void test_fan_out(void **state) {
  (void)state;
  replica a, b, other, other2;
  open_replica(&a, "shop");
  open_replica(&b, "shop");
  open_replica(&other, "other");
  open_replica(&other2, "other");
  wait_listeners(4);
  size_t a0 = count(&a.notes), b0 = count(&b.notes), o0 = count(&other.notes);

  add_tool(a.server, "new_tool");
  assert_true(tu_capture_wait(&b.notes, b0 + 1, 10000) >= b0 + 1);
  assert_string_equal(method_at(&b.notes, b0),
                      "notifications/tools/list_changed");
  assert_true(tu_capture_wait(&a.notes, a0 + 1, 10000) >= a0 + 1);
  assert_string_equal(method_at(&a.notes, a0),
                      "notifications/tools/list_changed");

  /* resources/updated: only subscribers hear it */
  json_t *sub = tu_request(b.server, b.session, "resources/subscribe",
                           "{\"uri\":\"file:///data.csv\"}");
  assert_int_equal(tu_error_code(sub), 0);
  json_decref(sub);
  assert_int_equal(
      mcp_server_notify_resource_updated(a.server, "file:///data.csv"), MCP_OK);
  assert_true(tu_capture_wait(&b.notes, b0 + 2, 10000) >= b0 + 2);
  assert_string_equal(method_at(&b.notes, b0 + 1),
                      "notifications/resources/updated");

  /* a marker from the other server arrives after A's events (NOTIFY keeps
   * commit order): it must be the first thing "other" hears, so A's events
   * did not reach it */
  add_tool(other2.server, "marker");
  assert_true(tu_capture_wait(&other.notes, o0 + 1, 10000) >= o0 + 1);
  assert_string_equal(method_at(&other.notes, o0),
                      "notifications/tools/list_changed");
  /* and A never got its own events back: one list_changed, the local one
   * (B's and A's later messages come from the marker's server? no: other
   * name) */
  assert_int_equal(count(&a.notes), a0 + 1);

  /* the listening connections are killed: they come back and resync */
  size_t b1 = count(&b.notes);
  assert_true(pg_test_sql(conninfo,
                          "SELECT pg_terminate_backend(pid) FROM "
                          "pg_stat_activity WHERE application_name LIKE"
                          " 'mcp-relay:%' AND datname = current_database()"));
  assert_true(tu_capture_wait(&b.notes, b1 + 1, 20000) >= b1 + 1);
  assert_string_equal(method_at(&b.notes, b1),
                      "notifications/tools/list_changed");
  wait_listeners(4);
  /* and fan-out works again */
  size_t b2 = count(&b.notes);
  add_tool(a.server, "after_reconnect");
  bool seen = false;
  for (size_t want = b2 + 1; !seen && want <= b2 + 4; want++) {
    if (tu_capture_wait(&b.notes, want, 10000) < want)
      break;
    seen = strcmp(method_at(&b.notes, want - 1),
                  "notifications/tools/list_changed") == 0;
  }
  assert_true(seen);

  close_replica(&a);
  close_replica(&b);
  close_replica(&other);
  close_replica(&other2);
}

/* A 2026-07-28 subscriptions/listen stream on B hears what A causes: the
 * relay delivers into the same local path as B's own changes. */
static void test_listen_stream_on_b(void **state) {
  (void)state;
  replica a, b;
  open_replica(&a, "listen-shop");
  open_replica(&b, "listen-shop");
  wait_relay(&a, &b);
  tu_capture stream;
  tu_capture_init(&stream);
  const char *listen =
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"subscriptions/listen\","
      "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}},"
      "\"notifications\":{\"toolsListChanged\":true,"
      "\"resourceSubscriptions\":[\"file:///data.csv\"]}}}";
  mcp_call_t *call = NULL;
  assert_int_equal(mcp__server_accept(b.server, NULL, NULL, listen,
                                      strlen(listen),
                                      tu_capture_channel(&stream), &call),
                   MCP__ACCEPT_REQUEST);
  mcp__call_allow_suspend(call);
  mcp__call_run(call);
  assert_int_equal(tu_capture_wait(&stream, 1, 5000), 1); /* the ack */
  add_tool(a.server, "from_a");
  assert_int_equal(
      mcp_server_notify_resource_updated(a.server, "file:///data.csv"), MCP_OK);
  assert_true(tu_capture_wait(&stream, 3, 10000) >= 3);
  assert_string_equal(method_at(&stream, 1),
                      "notifications/tools/list_changed");
  assert_string_equal(method_at(&stream, 2), "notifications/resources/updated");
  pthread_mutex_lock(&stream.lock);
  json_t *sub = json_object_get(
      json_object_get(
          json_object_get(json_array_get(stream.messages, 1), "params"),
          "_meta"),
      "io.modelcontextprotocol/subscriptionId");
  assert_int_equal(json_integer_value(sub), 7);
  pthread_mutex_unlock(&stream.lock);
  mcp__server_end_streams(b.server, NULL);
  close_replica(&a);
  close_replica(&b);
  tu_capture_destroy(&stream);
}

static atomic_int gate, saw_cancel, started;

/* Waits for the gate; stops when cancelled (and says so). */
static mcp_status slow_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)args, (void)ud;
  atomic_store(&started, 1);
  for (int i = 0; i < 3000 && !atomic_load(&gate); i++) {
    if (mcp_call_is_cancelled(call)) {
      atomic_store(&saw_cancel, 1);
      return MCP_OK;
    }
    usleep(10 * 1000);
  }
  mcp_result_add_text(r, "done");
  return MCP_OK;
}

static void enable_tasks(replica *r) {
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new("slow", &t), MCP_OK);
  mcp_tool_set_handler(t, slow_tool, NULL, NULL);
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  assert_int_equal(mcp_server_add_tool(r->server, t, NULL), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(r->server, r->store, NULL, NULL),
                   MCP_OK);
}

static char *start_task(replica *r) {
  json_t *res = tu_request(r->server, r->session, "tools/call",
                           "{\"name\":\"slow\",\"arguments\":{},\"task\":{}}");
  const char *id = json_string_value(json_object_get(
      json_object_get(json_object_get(res, "result"), "task"), "taskId"));
  assert_non_null(id);
  char *copy = strdup(id);
  json_decref(res);
  return copy;
}

/* Waits for notifications/tasks/status of task id with status in c. */
static bool wait_status(tu_capture *c, const char *id, const char *status) {
  for (size_t want = 1; want < 64; want++) {
    if (tu_capture_wait(c, want, 10000) < want)
      return false;
    pthread_mutex_lock(&c->lock);
    json_t *m = json_array_get(c->messages, want - 1);
    json_t *p = json_object_get(m, "params");
    bool hit =
        strcmp(json_string_value(json_object_get(m, "method")),
               "notifications/tasks/status") == 0 &&
        strcmp(json_string_value(json_object_get(p, "taskId")), id) == 0 &&
        strcmp(json_string_value(json_object_get(p, "status")), status) == 0;
    pthread_mutex_unlock(&c->lock);
    if (hit)
      return true;
  }
  return false;
}

/* One session served by A and B (its state moved as the HTTP session store
 * does): a task started on A and cancelled on B stops its handler on A, and
 * A's session hears "cancelled"; a task completed on A is announced to the
 * session on B. */
static void test_tasks_across_replicas(void **state) {
  (void)state;
  replica a, b;
  open_replica(&a, "task-shop");
  open_replica(&b, "task-shop");
  enable_tasks(&a);
  enable_tasks(&b);
  mcp__session_release(b.session); /* B serves A's session instead */
  b.session = tu_session(b.server, &b.notes);
  char *state_text = mcp__session_export(a.session);
  assert_non_null(state_text);
  assert_int_equal(mcp__session_import(b.session, state_text), MCP_OK);
  free(state_text);
  wait_relay(&a, &b);
  wait_relay(&b, &a);

  atomic_store(&gate, 0);
  char *t1 = start_task(&a);
  /* cancel it while its handler runs (a task cancelled while queued never
   * runs its handler at all) */
  for (int i = 0; i < 1000 && !atomic_load(&started); i++)
    usleep(10 * 1000);
  assert_true(atomic_load(&started));
  char params[128];
  snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", t1);
  json_t *r = tu_request(b.server, b.session, "tasks/cancel", params);
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(r, "result"), "status")),
                      "cancelled");
  json_decref(r);
  for (int i = 0; i < 1000 && !atomic_load(&saw_cancel); i++)
    usleep(10 * 1000);
  assert_true(atomic_load(&saw_cancel)); /* the handler on A stopped */
  assert_true(wait_status(&a.notes, t1, "cancelled"));

  char *t2 = start_task(&a);
  atomic_store(&gate, 1);
  assert_true(wait_status(&b.notes, t2, "completed"));
  free(t1);
  free(t2);
  close_replica(&a);
  close_replica(&b);
}

/* What is not an event is refused; requests are never delivered. */
/* An event bigger than a PostgreSQL notification (8000 bytes) arrives
 * whole: it travels through mcp_relay_events. */
static void test_big_event(void **state) {
  (void)state;
  replica a, b;
  open_replica(&a, "big");
  open_replica(&b, "big");
  wait_listeners(2);
  wait_relay(&a, &b);
  size_t b0 = count(&b.notes);
  size_t n = 50000;
  char *data = malloc(n + 1);
  assert_non_null(data);
  for (size_t i = 0; i < n; i++)
    data[i] = (char)('a' + i % 26);
  data[n] = '\0';
  mcp_server_broadcast(a.server, "notifications/message",
                       json_pack("{s:s,s:s}", "level", "info", "data", data));
  assert_true(tu_capture_wait(&b.notes, b0 + 1, 10000) >= b0 + 1);
  pthread_mutex_lock(&b.notes.lock);
  json_t *m = json_array_get(b.notes.messages, b0);
  const char *got =
      json_string_value(json_object_get(json_object_get(m, "params"), "data"));
  assert_non_null(got);
  assert_string_equal(got, data);
  pthread_mutex_unlock(&b.notes.lock);
  free(data);
  close_replica(&a);
  close_replica(&b);
}

static void test_deliver_rejects(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("x", "1", &s), MCP_OK);
  const char *bad[] = {"",
                       "[]",
                       "{\"kind\":\"broadcast\"}",
                       "{\"kind\":\"broadcast\",\"method\":\"tools/call\"}",
                       "{\"kind\":\"broadcast\",\"method\":"
                       "\"notifications/x\",\"params\":[]}",
                       "{\"kind\":\"nope\"}",
                       "{\"kind\":\"resource_updated\"}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_not_equal(mcp_server_relay_deliver(s, bad[i], strlen(bad[i])),
                         MCP_OK);
  const char *ok = "{\"kind\":\"broadcast\",\"method\":\"notifications/x\"}";
  assert_int_equal(mcp_server_relay_deliver(s, ok, strlen(ok)), MCP_OK);
  mcp_error_t err;
  mcp_relay r;
  mcp_store_t *m = NULL;
  assert_int_equal(mcp_store_memory_new(&m), MCP_OK);
  assert_int_equal(mcp_relay_postgres_new(m, &r, &err), MCP_ERR_INVALID_ARG);
  mcp_store_free(m);
  mcp_server_free(s);
}

int main(void) {
  pg_test_fresh_db("mcp_relay", conninfo, sizeof conninfo);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fan_out),
      cmocka_unit_test(test_listen_stream_on_b),
      cmocka_unit_test(test_tasks_across_replicas),
      cmocka_unit_test(test_big_event),
      cmocka_unit_test(test_deliver_rejects),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  pg_test_drop_db("mcp_relay");
  return rc;
}
