/* SPDX-License-Identifier: MIT */
/* demo_tasks_test.c - MCP tasks through the demo server spawned over pipes:
 * the task tools end to end (progress on the original token, structured
 * result with a resource_link, elicitation on the tasks/result stream),
 * error codes over stdio, ttl expiry, --cleanup-tasks, and a crash test:
 * SIGKILL while one task works and another has completed, restart on the
 * same SQLite file, and check from a new session that the completed result
 * is intact and the interrupted task is failed with a statusMessage. */
#include "demo_proc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int next_id = 1;

static json_t *rpc(tu_proc *p, const char *method, const char *params,
                   json_t *seen) {
  char buf[2048];
  int id = next_id++;
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":%s}",
           id, method, params);
  assert_int_equal(tu_proc_send_line(p, buf), 0);
  return tu_proc_wait_id(p, id, seen);
}

static void handshake(tu_proc *p) {
  json_t *r = rpc(p, "initialize",
                  "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
                  "{\"elicitation\":{}},\"clientInfo\":{\"name\":\"t\","
                  "\"version\":\"1\"}}",
                  NULL);
  json_t *tasks = json_object_get(
      json_object_get(json_object_get(r, "result"), "capabilities"), "tasks");
  assert_non_null(json_object_get(tasks, "list"));
  assert_non_null(json_object_get(tasks, "cancel"));
  json_decref(r);
  tu_proc_send_line(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                       "initialized\"}");
}

static char *start_task(tu_proc *p, const char *tool, const char *args,
                        const char *task, const char *token) {
  char params[1024];
  snprintf(params, sizeof params,
           "{\"name\":\"%s\",\"arguments\":%s,\"task\":%s,\"_meta\":"
           "{\"progressToken\":\"%s\"}}",
           tool, args, task, token);
  json_t *r = rpc(p, "tools/call", params, NULL);
  json_t *t = json_object_get(json_object_get(r, "result"), "task");
  assert_non_null(t);
  assert_string_equal(json_string_value(json_object_get(t, "status")),
                      "working");
  char *id = strdup(json_string_value(json_object_get(t, "taskId")));
  json_decref(r);
  return id;
}

static json_t *task_rpc(tu_proc *p, const char *method, const char *id,
                        json_t *seen) {
  char params[128];
  snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", id);
  return rpc(p, method, params, seen);
}

static int code_of(json_t *m) {
  return (int)json_integer_value(
      json_object_get(json_object_get(m, "error"), "code"));
}

static const char *status_of(json_t *m) {
  return json_string_value(
      json_object_get(json_object_get(m, "result"), "status"));
}

static void test_long_export_end_to_end(void **state) {
  (void)state;
  tu_proc p;
  spawn_demo(&p, false);
  handshake(&p);
  /* required without task: -32601 */
  json_t *r = rpc(&p, "tools/call",
                  "{\"name\":\"start_long_export\",\"arguments\":{}}", NULL);
  assert_int_equal(code_of(r), -32601);
  json_decref(r);
  /* forbidden (absent) with task: -32601 */
  r = rpc(&p, "tools/call",
          "{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2},\"task\":{}}",
          NULL);
  assert_int_equal(code_of(r), -32601);
  json_decref(r);
  char *id = start_task(&p, "start_long_export",
                        "{\"format\":\"json\",\"seconds\":0.4}", "{}", "exp-1");
  json_t *seen = json_array();
  r = task_rpc(&p, "tasks/result", id, seen);
  json_t *res = json_object_get(r, "result");
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(res, "structuredContent"), "rows")),
                   10000);
  json_t *link = json_array_get(json_object_get(res, "content"), 1);
  assert_string_equal(json_string_value(json_object_get(link, "type")),
                      "resource_link");
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(json_object_get(res, "_meta"),
                          "io.modelcontextprotocol/related-task"),
          "taskId")),
      id);
  json_decref(r);
  /* progress used the original token; status notifications were sent */
  size_t progress = 0, status = 0, i;
  json_t *m;
  json_array_foreach(seen, i, m) {
    const char *method = json_string_value(json_object_get(m, "method"));
    json_t *params = json_object_get(m, "params");
    if (method && strcmp(method, "notifications/progress") == 0) {
      assert_string_equal(
          json_string_value(json_object_get(params, "progressToken")), "exp-1");
      progress++;
    } else if (method && strcmp(method, "notifications/tasks/status") == 0)
      status++;
  }
  json_decref(seen);
  assert_int_equal(progress, 20);
  assert_true(status >= 1);
  /* cancel of a completed task: -32602; unknown task: -32602 */
  r = task_rpc(&p, "tasks/cancel", id, NULL);
  assert_int_equal(code_of(r), -32602);
  json_decref(r);
  r = task_rpc(&p, "tasks/get", "00000000-0000-4000-8000-000000000000", NULL);
  assert_int_equal(code_of(r), -32602);
  json_decref(r);
  /* cancel a working export */
  char *id2 =
      start_task(&p, "start_long_export", "{\"seconds\":20}", "{}", "exp-2");
  r = task_rpc(&p, "tasks/cancel", id2, NULL);
  assert_string_equal(status_of(r), "cancelled");
  json_decref(r);
  r = task_rpc(&p, "tasks/result", id2, NULL);
  assert_int_equal(code_of(r), -32602);
  json_decref(r);
  /* tasks/list shows this session's tasks */
  r = rpc(&p, "tasks/list", "{}", NULL);
  assert_int_equal(
      json_array_size(json_object_get(json_object_get(r, "result"), "tasks")),
      2);
  json_decref(r);
  free(id);
  free(id2);
  assert_int_equal(tu_proc_finish(&p, 10000), 0);
}

static void test_elicitation_mid_task(void **state) {
  (void)state;
  tu_proc p;
  spawn_demo(&p, false);
  handshake(&p);
  char *id =
      start_task(&p, "archive_orders", "{\"older_than_days\":30}", "{}", "arc");
  int result_id = next_id++;
  char buf[256];
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tasks/result\","
           "\"params\":{\"taskId\":\"%s\"}}",
           result_id, id);
  tu_proc_send_line(&p, buf);
  json_t *req = NULL;
  while (req == NULL) {
    char *line = tu_proc_read_line(&p, 20000);
    assert_non_null(line);
    json_t *m = json_loads(line, 0, NULL);
    free(line);
    const char *method = json_string_value(json_object_get(m, "method"));
    if (method && strcmp(method, "elicitation/create") == 0)
      req = m;
    else
      json_decref(m);
  }
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(
              json_object_get(json_object_get(req, "params"), "_meta"),
              "io.modelcontextprotocol/related-task"),
          "taskId")),
      id);
  json_t *g = task_rpc(&p, "tasks/get", id, NULL);
  assert_string_equal(status_of(g), "input_required");
  json_decref(g);
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":"
           "\"accept\",\"content\":{\"confirm\":true}}}",
           (long long)json_integer_value(json_object_get(req, "id")));
  json_decref(req);
  tu_proc_send_line(&p, buf);
  json_t *r = tu_proc_wait_id(&p, result_id, NULL);
  const char *text = json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(r, "result"), "content"),
                     0),
      "text"));
  assert_non_null(strstr(text, "Archived 42 orders"));
  json_decref(r);
  g = task_rpc(&p, "tasks/get", id, NULL);
  assert_string_equal(status_of(g), "completed");
  json_decref(g);
  free(id);
  assert_int_equal(tu_proc_finish(&p, 10000), 0);
}

static void test_ttl_expiry_and_cleanup_command(void **state) {
  (void)state;
  tu_proc p;
  spawn_demo(&p, false);
  handshake(&p);
  /* reindex_catalog sleeps 300 ms: the ttl leaves room for a slow
   * (ThreadSanitizer, loaded) machine to finish it before it expires */
  char *id = start_task(&p, "reindex_catalog", "{\"section\":\"media\"}",
                        "{\"ttl\":4000}", "rx");
  json_t *r = task_rpc(&p, "tasks/result", id, NULL);
  assert_int_equal(
      json_integer_value(json_object_get(
          json_object_get(json_object_get(r, "result"), "structuredContent"),
          "documents")),
      85);
  json_decref(r);
  /* past the ttl it is gone (polled: at most 20 s after its end) */
  int code = 0;
  for (int i = 0; i < 240 && code != -32602; i++) {
    r = task_rpc(&p, "tasks/get", id, NULL);
    code = code_of(r);
    json_decref(r);
    if (code != -32602)
      usleep(100000);
  }
  assert_int_equal(code, -32602);
  assert_int_equal(tu_proc_finish(&p, 10000), 0);
  /* the expired row is still in the file until cleanup removes it */
  tu_proc c;
  spawn_demo(&c, true);
  bool listed = false, summary = false;
  char *line;
  while ((line = tu_proc_read_line(&c, 10000)) != NULL) {
    if (strstr(line, "expired") && strstr(line, id))
      listed = true;
    if (strncmp(line, "removed ", 8) == 0)
      summary = true;
    free(line);
  }
  assert_int_equal(tu_proc_finish(&c, 10000), 0);
  assert_true(listed);
  assert_true(summary);
  free(id);
}

/* A crash (SIGKILL) keeps completed results; at the next start the
 * start_long_export task it interrupted is resumed by the demo's resume
 * hook and completes, and a task nothing can take (archive_orders, waiting
 * for its question: not idempotent, not resumed) is failed as
 * interrupted. */
static void test_crash_keeps_results_and_resumes(void **state) {
  (void)state;
  remove_db();
  tu_proc p;
  spawn_demo(&p, false);
  handshake(&p);
  /* first, as a caller runs two tasks at once (half the 4 threads) */
  char *done = start_task(&p, "reindex_catalog", "{\"section\":\"products\"}",
                          "{}", "d");
  json_t *before = task_rpc(&p, "tasks/result", done, NULL);
  json_t *before_res = json_incref(json_object_get(before, "result"));
  json_decref(before);
  char *working =
      start_task(&p, "start_long_export", "{\"seconds\":5}", "{}", "w");
  char *asking =
      start_task(&p, "archive_orders", "{\"older_than_days\":30}", "{}", "a");
  json_t *g = task_rpc(&p, "tasks/get", working, NULL);
  assert_string_equal(status_of(g), "working");
  json_decref(g);
  for (int i = 0; i < 500; i++) { /* its question is out */
    g = task_rpc(&p, "tasks/get", asking, NULL);
    bool asked = strcmp(status_of(g), "input_required") == 0;
    json_decref(g);
    if (asked)
      break;
    usleep(10000);
  }
  tu_proc_kill(&p);

  tu_proc q;
  spawn_demo(&q, false);
  handshake(&q);
  g = task_rpc(&q, "tasks/get", done, NULL);
  assert_string_equal(status_of(g), "completed");
  json_decref(g);
  json_t *after = task_rpc(&q, "tasks/result", done, NULL);
  assert_true(json_equal(json_object_get(after, "result"), before_res));
  json_decref(after);
  json_decref(before_res);
  /* resumed: tasks/result waits for the export the hook runs */
  json_t *r = task_rpc(&q, "tasks/result", working, NULL);
  assert_int_equal(
      json_integer_value(json_object_get(
          json_object_get(json_object_get(r, "result"), "structuredContent"),
          "rows")),
      10000);
  json_decref(r);
  g = task_rpc(&q, "tasks/get", asking, NULL);
  assert_string_equal(status_of(g), "failed");
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(g, "result"), "statusMessage")),
                         "Interrupted"));
  json_decref(g);
  r = task_rpc(&q, "tasks/result", asking, NULL);
  assert_true(
      json_is_true(json_object_get(json_object_get(r, "result"), "isError")));
  json_decref(r);
  free(working);
  free(asking);
  free(done);
  assert_int_equal(tu_proc_finish(&q, 10000), 0);
}

int main(void) {
  snprintf(db_path, sizeof db_path, "/tmp/mcp-demo-tasks-%d.db", (int)getpid());
  remove_db();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_long_export_end_to_end),
      cmocka_unit_test(test_elicitation_mid_task),
      cmocka_unit_test(test_ttl_expiry_and_cleanup_command),
      cmocka_unit_test(test_crash_keeps_results_and_resumes),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  remove_db();
  return rc;
}
