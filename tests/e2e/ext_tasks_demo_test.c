/* SPDX-License-Identifier: MIT */
/* ext_tasks_demo_test.c - the 2026-07-28 tasks extension through the demo
 * server spawned over pipes (stdio) on a SQLite file: the life cycle
 * working -> input_required -> (tasks/update) -> completed, cancel (also
 * of a parked task), a 2025-11-25 session and 2026-07-28 requests
 * creating tasks side by side in one process and one file (each readable
 * in both eras), and the crash test in the new era: SIGKILL while one task
 * works and another has completed, restart on the same file, the completed
 * result intact inline and the interrupted task failed with an error. Also
 * the demo's skill (skills extension): listed, fetched, read. */
#include "demo_proc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXT "io.modelcontextprotocol/tasks"
#define META_WITH(caps)                                                        \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define WITH_EXT                                                               \
  META_WITH("{\"elicitation\":{},\"extensions\":{\"" EXT "\":{}}}")
#define NO_EXT META_WITH("{}")

static int next_id = 1;

/* method with params (an object's members as text, without braces). */
static json_t *rpc(tu_proc *p, const char *method, const char *members) {
  char buf[4096];
  int id = next_id++;
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s}}",
           id, method, members);
  assert_int_equal(tu_proc_send_line(p, buf), 0);
  return tu_proc_wait_id(p, id, NULL);
}

static json_t *result_of(json_t *m) {
  json_t *r = json_object_get(m, "result");
  assert_non_null(r);
  return r;
}

static int code_of(json_t *m) {
  return (int)json_integer_value(
      json_object_get(json_object_get(m, "error"), "code"));
}

static const char *field(json_t *m, const char *name) {
  return json_string_value(json_object_get(json_object_get(m, "result"), name));
}

/* tools/call in the new era with the extension: a task id (malloc'd). */
static char *start(tu_proc *p, const char *tool, const char *args) {
  char members[1024];
  snprintf(members, sizeof members,
           "\"name\":\"%s\",\"arguments\":%s," WITH_EXT, tool, args);
  json_t *r = rpc(p, "tools/call", members);
  assert_string_equal(field(r, "resultType"), "task");
  assert_string_equal(field(r, "status"), "working");
  assert_non_null(json_object_get(result_of(r), "ttlMs"));
  assert_null(json_object_get(result_of(r), "ttl"));
  assert_null(json_object_get(result_of(r), "task"));
  char *id = strdup(field(r, "taskId"));
  json_decref(r);
  return id;
}

static json_t *task_rpc(tu_proc *p, const char *method, const char *id,
                        const char *extra) {
  char members[2048];
  snprintf(members, sizeof members, "\"taskId\":\"%s\",%s" WITH_EXT, id,
           extra ? extra : "");
  return rpc(p, method, members);
}

/* tasks/get until status is want or terminal (at most ~20 s). */
static json_t *poll_until(tu_proc *p, const char *id, const char *want) {
  for (int i = 0; i < 2000; i++) {
    json_t *g = task_rpc(p, "tasks/get", id, NULL);
    const char *s = field(g, "status");
    assert_non_null(s);
    if (strcmp(s, want) == 0 || strcmp(s, "completed") == 0 ||
        strcmp(s, "failed") == 0 || strcmp(s, "cancelled") == 0)
      return g;
    json_decref(g);
    usleep(10000);
  }
  fail_msg("task %s never reached %s", id, want);
  return NULL;
}

static void handshake(tu_proc *p) {
  json_t *r = rpc(p, "initialize",
                  "\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
                  "{\"elicitation\":{}},\"clientInfo\":{\"name\":\"t\","
                  "\"version\":\"1\"}");
  json_decref(r);
  tu_proc_send_line(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                       "initialized\"}");
}

static void test_discover_and_listing(void **state) {
  (void)state;
  remove_db();
  tu_proc p;
  spawn_demo(&p, false);
  json_t *d = rpc(&p, "server/discover", NO_EXT);
  json_t *caps = json_object_get(result_of(d), "capabilities");
  assert_null(json_object_get(caps, "tasks"));
  assert_non_null(json_object_get(json_object_get(caps, "extensions"), EXT));
  json_decref(d);
  json_t *l = rpc(&p, "tools/list", NO_EXT);
  size_t i;
  json_t *t;
  json_array_foreach(json_object_get(result_of(l), "tools"), i, t)
      assert_null(json_object_get(t, "execution"));
  json_decref(l);
  /* the required-task tool without the extension: -32021 naming it */
  json_t *r = rpc(&p, "tools/call",
                  "\"name\":\"start_long_export\",\"arguments\":{}," NO_EXT);
  assert_int_equal(code_of(r), -32021);
  assert_non_null(json_object_get(
      json_object_get(
          json_object_get(json_object_get(json_object_get(r, "error"), "data"),
                          "requiredCapabilities"),
          "extensions"),
      EXT));
  json_decref(r);
  /* an optional one runs synchronously */
  r = rpc(&p, "tools/call",
          "\"name\":\"reindex_catalog\",\"arguments\":{\"section\":"
          "\"media\"}," NO_EXT);
  assert_string_equal(field(r, "resultType"), "complete");
  json_decref(r);
  /* 2025-11-25 methods of tasks do not exist in 2026-07-28 */
  r = rpc(&p, "tasks/result", "\"taskId\":\"x\"," WITH_EXT);
  assert_int_equal(code_of(r), -32601);
  json_decref(r);
  r = rpc(&p, "tasks/list", WITH_EXT);
  assert_int_equal(code_of(r), -32601);
  json_decref(r);
  /* the task methods need the extension, and a known id */
  r = rpc(&p, "tasks/get", "\"taskId\":\"x\"," NO_EXT);
  assert_int_equal(code_of(r), -32021);
  json_decref(r);
  r = rpc(&p, "tasks/get", "\"taskId\":\"x\"," WITH_EXT);
  assert_int_equal(code_of(r), -32602);
  json_decref(r);
  assert_int_equal(tu_proc_finish(&p, 10000), 0);
}

static void test_life_cycle_over_stdio(void **state) {
  (void)state;
  remove_db();
  tu_proc p;
  spawn_demo(&p, false);
  /* working -> input_required -> tasks/update -> completed */
  char *id = start(&p, "archive_orders", "{\"older_than_days\":30}");
  json_t *g = poll_until(&p, id, "input_required");
  assert_string_equal(field(g, "status"), "input_required");
  json_t *asked = json_object_get(result_of(g), "inputRequests");
  assert_int_equal(json_object_size(asked), 1);
  const char *key = json_object_iter_key(json_object_iter(asked));
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(asked, key), "method")),
      "elicitation/create");
  char extra[512];
  snprintf(extra, sizeof extra,
           "\"inputResponses\":{\"%s\":{\"action\":\"accept\",\"content\":"
           "{\"confirm\":true}},\"not-asked\":{\"action\":\"decline\"}},",
           key);
  json_decref(g);
  json_t *u = task_rpc(&p, "tasks/update", id, extra);
  assert_string_equal(field(u, "resultType"), "complete");
  assert_null(json_object_get(result_of(u), "taskId"));
  json_decref(u);
  g = poll_until(&p, id, "completed");
  assert_string_equal(field(g, "status"), "completed");
  json_t *res = json_object_get(result_of(g), "result");
  assert_non_null(
      strstr(json_string_value(json_object_get(
                 json_array_get(json_object_get(res, "content"), 0), "text")),
             "Archived 42 orders"));
  assert_null(json_object_get(result_of(g), "inputRequests"));
  json_decref(g);
  free(id);

  /* cancel: an empty ack, then cancelled; again on the terminal task */
  id = start(&p, "start_long_export", "{\"seconds\":60}");
  json_t *c = task_rpc(&p, "tasks/cancel", id, NULL);
  assert_string_equal(field(c, "resultType"), "complete");
  assert_null(json_object_get(result_of(c), "status"));
  json_decref(c);
  g = poll_until(&p, id, "cancelled");
  assert_string_equal(field(g, "status"), "cancelled");
  json_decref(g);
  c = task_rpc(&p, "tasks/cancel", id, NULL);
  assert_string_equal(field(c, "resultType"), "complete");
  json_decref(c);
  free(id);

  /* cancel while input_required ends the parked run */
  id = start(&p, "archive_orders", "{}");
  json_decref(poll_until(&p, id, "input_required"));
  json_decref(task_rpc(&p, "tasks/cancel", id, NULL));
  g = task_rpc(&p, "tasks/get", id, NULL);
  assert_string_equal(field(g, "status"), "cancelled");
  json_decref(g);
  free(id);
  assert_int_equal(tu_proc_finish(&p, 10000), 0);
}

static void test_both_eras_one_file(void **state) {
  (void)state;
  remove_db();
  tu_proc p;
  spawn_demo(&p, false);
  handshake(&p);
  /* a 2025-11-25 task in the session */
  json_t *r = rpc(&p, "tools/call",
                  "\"name\":\"reindex_catalog\",\"arguments\":{\"section\":"
                  "\"articles\"},\"task\":{}");
  json_t *t = json_object_get(result_of(r), "task");
  assert_non_null(json_object_get(t, "ttl"));
  char *old_id = strdup(json_string_value(json_object_get(t, "taskId")));
  json_decref(r);
  /* a 2026-07-28 task on the same server and store */
  char *new_id = start(&p, "reindex_catalog", "{\"section\":\"products\"}");
  json_t *g = poll_until(&p, new_id, "completed");
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(json_object_get(result_of(g), "result"),
                                       "structuredContent"),
                       "documents")),
                   1200);
  json_decref(g);
  /* the old era's task in the new era's form, and the other way round */
  g = poll_until(&p, old_id, "completed");
  assert_string_equal(field(g, "status"), "completed");
  assert_non_null(json_object_get(result_of(g), "ttlMs"));
  json_decref(g);
  char members[256];
  snprintf(members, sizeof members, "\"taskId\":\"%s\"", new_id);
  r = rpc(&p, "tasks/result", members);
  assert_int_equal(
      json_integer_value(json_object_get(
          json_object_get(result_of(r), "structuredContent"), "documents")),
      1200);
  json_decref(r);
  r = rpc(&p, "tasks/get", members);
  assert_non_null(json_object_get(result_of(r), "ttl"));
  assert_null(json_object_get(result_of(r), "ttlMs"));
  json_decref(r);
  assert_int_equal(tu_proc_finish(&p, 10000), 0);
  free(old_id);
  free(new_id);
}

/* A crash keeps completed results; at the next start the interrupted
 * start_long_export task is resumed by the demo's resume hook, and a
 * parked archive_orders task (not idempotent, not resumed) is failed as
 * interrupted, with the JSON-RPC error of the new era. */
static void test_crash_in_new_era(void **state) {
  (void)state;
  remove_db();
  tu_proc p;
  spawn_demo(&p, false);
  char *working = start(&p, "start_long_export", "{\"seconds\":5}");
  char *asking = start(&p, "archive_orders", "{\"older_than_days\":30}");
  char *done = start(&p, "reindex_catalog", "{\"section\":\"products\"}");
  json_t *before = poll_until(&p, done, "completed");
  json_t *before_res =
      json_incref(json_object_get(result_of(before), "result"));
  json_decref(before);
  json_t *g = task_rpc(&p, "tasks/get", working, NULL);
  assert_string_equal(field(g, "status"), "working");
  json_decref(g);
  g = poll_until(&p, asking, "input_required");
  assert_string_equal(field(g, "status"), "input_required");
  json_decref(g);
  tu_proc_kill(&p);

  tu_proc q;
  spawn_demo(&q, false);
  g = task_rpc(&q, "tasks/get", done, NULL);
  assert_string_equal(field(g, "status"), "completed");
  assert_true(json_equal(json_object_get(result_of(g), "result"), before_res));
  json_decref(g);
  json_decref(before_res);
  g = poll_until(&q, working, "completed");
  assert_string_equal(field(g, "status"), "completed");
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(json_object_get(result_of(g), "result"),
                                       "structuredContent"),
                       "rows")),
                   10000);
  json_decref(g);
  g = task_rpc(&q, "tasks/get", asking, NULL);
  assert_string_equal(field(g, "status"), "failed");
  json_t *err = json_object_get(result_of(g), "error");
  assert_true(json_is_integer(json_object_get(err, "code")));
  assert_non_null(strstr(field(g, "statusMessage"), "Interrupted"));
  assert_null(json_object_get(result_of(g), "result"));
  json_decref(g);
  free(working);
  free(asking);
  free(done);
  assert_int_equal(tu_proc_finish(&q, 10000), 0);
}

static void test_demo_publishes_its_skill(void **state) {
  (void)state;
  remove_db();
  tu_proc p;
  spawn_demo(&p, false);
  json_t *d = rpc(&p, "server/discover", NO_EXT);
  assert_non_null(json_object_get(
      json_object_get(json_object_get(result_of(d), "capabilities"),
                      "extensions"),
      "io.modelcontextprotocol/skills"));
  json_decref(d);
  json_t *l = rpc(&p, "skills/list", NO_EXT);
  json_t *e = json_array_get(json_object_get(result_of(l), "skills"), 0);
  assert_string_equal(json_string_value(json_object_get(e, "uri")),
                      "skill://flight-booking/SKILL.md");
  assert_int_equal(json_array_size(json_object_get(e, "resources")), 2);
  json_decref(l);
  json_t *r = rpc(&p, "resources/read",
                  "\"uri\":\"skill://flight-booking/SKILL.md\"," NO_EXT);
  const char *text = json_string_value(json_object_get(
      json_array_get(json_object_get(result_of(r), "contents"), 0), "text"));
  assert_non_null(strstr(text, "get_flight_details"));
  assert_non_null(strstr(text, "process_order"));
  json_decref(r);
  r = rpc(&p, "resources/directory/read",
          "\"uri\":\"skill://flight-booking\"," NO_EXT);
  assert_int_equal(json_array_size(json_object_get(result_of(r), "resources")),
                   2);
  json_decref(r);
  assert_int_equal(tu_proc_finish(&p, 10000), 0);
}

int main(void) {
  snprintf(db_path, sizeof db_path, "/tmp/mcp-ext-tasks-%d.db", (int)getpid());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_discover_and_listing),
      cmocka_unit_test(test_life_cycle_over_stdio),
      cmocka_unit_test(test_both_eras_one_file),
      cmocka_unit_test(test_crash_in_new_era),
      cmocka_unit_test(test_demo_publishes_its_skill),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  remove_db();
  return rc;
}
