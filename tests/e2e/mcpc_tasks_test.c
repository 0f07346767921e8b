/* SPDX-License-Identifier: MIT */
/* mcpc_tasks_test.c - MCP tasks through mcpc against the demo server over
 * stdio and HTTP: tools call --task (prints the id), --ttl, --wait, tasks
 * get/result/list/cancel from new sessions (the task id is the capability;
 * tasks/list shows only the calling session's tasks), cancelling a finished
 * task (exit 3), and the progress bar of a running task under a
 * pseudo-terminal. Each mcpc invocation is a new session. */
#include "mcpc_run.h"

static char stdio_cmd[1200];

/* "task ID STATUS\n" -> ID (static buffer). */
static const char *task_id_of(const char *out) {
  static char id[128];
  assert_int_equal(sscanf(out, "task %127s", id), 1);
  return id;
}

/* These checks are about 2025-11-25 core tasks (ttl, tasks/list per
 * session, tasks/result); the demo also serves the 2026-07-28 tasks
 * extension, which mcpc would pick by itself. */
#define LEGACY "--protocol", "2025-11-25"

static void test_tasks_stdio(void **state) {
  const char *w = "-c", *where = stdio_cmd;
  char *out = NULL, *err = NULL;
  /* --wait: the task runs to the end within the one invocation */
  MR_RUN2(0, &out, &err, w, where, LEGACY, "tools", "call", "start_long_export",
          "--task", "--wait", "--args", "{\"seconds\": 0.4}");
  assert_non_null(strstr(out, "Exported 10000 rows as csv."));
  assert_non_null(strstr(err, "mcpc: task "));
  assert_non_null(strstr(err, " working")); /* status lines while polling */
  free(out);
  free(err);
  /* 2025-11-25, taskSupport required: the server refuses a plain call
   * (-32601), so mcpc runs it as the task it must be and waits for it */
  MR_RUN2(0, &out, &err, w, where, LEGACY, "tools", "call", "start_long_export",
          "--args", "{\"seconds\": 0.2}");
  assert_non_null(strstr(out, "Exported 10000 rows as csv."));
  assert_non_null(strstr(err, "mcpc: task "));
  free(out);
  free(err);
  /* 2026-07-28 (auto): -32021 without the tasks extension, so the client
   * declares it and follows the task to its result: a plain call answers */
  MR_RUN(0, &out, w, where, "tools", "call", "start_long_export", "--args",
         "{\"seconds\": 0.2}");
  assert_non_null(strstr(out, "Exported 10000 rows as csv."));
  free(out);
  /* --task without --wait: the id, and the stdio warning; the server stops
   * with mcpc (--fail-tasks-on-stop: failing its running tasks), so a new
   * session finds the task interrupted */
  MR_RUN2(0, &out, &err, w, where, LEGACY, "tools", "call", "start_long_export",
          "--task", "--ttl", "600000", "--args", "{\"seconds\": 30}");
  assert_non_null(strstr(out, " working"));
  assert_non_null(strstr(err, "use --wait"));
  char id[128];
  snprintf(id, sizeof id, "%s", task_id_of(out));
  free(out);
  free(err);
  MR_RUN(0, &out, w, where, LEGACY, "--format", "json", "tasks", "get", id);
  json_t *j = json_loads(out, 0, NULL);
  assert_string_equal(json_string_value(json_object_get(j, "status")),
                      "failed");
  assert_int_equal(json_integer_value(json_object_get(j, "ttl")), 600000);
  json_decref(j);
  free(out);
  MR_RUN(1, &out, w, where, LEGACY, "tasks", "result",
         id); /* failed: isError */
  assert_non_null(strstr(out, "Interrupted"));
  free(out);
  MR_RUN(3, NULL, w, where, LEGACY, "tasks", "cancel",
         id); /* already terminal */
  /* tasks/list is scoped to the calling session: a new one sees nothing */
  MR_RUN(0, &out, w, where, LEGACY, "--format", "json", "tasks", "list");
  j = json_loads(out, 0, NULL);
  assert_int_equal(json_array_size(json_object_get(j, "tasks")), 0);
  json_decref(j);
  free(out);
  /* an optional-task tool as a task, waited for, JSON output */
  MR_RUN(0, &out, w, where, LEGACY, "--format", "json", "tools", "call",
         "reindex_catalog", "section=media", "--task", "--wait");
  j = json_loads(out, 0, NULL);
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(j, "structuredContent"), "documents")),
                   85);
  json_decref(j);
  free(out);
  MR_RUN(3, NULL, w, where, LEGACY, "tasks", "get",
         "00000000-0000-4000-8000-000000000000");
  MR_RUN(2, NULL, w, where, LEGACY, "tasks", "get");
  MR_RUN(2, NULL, w, where, LEGACY, "tasks", "list", "extra");
  MR_RUN(2, NULL, w, where, LEGACY, "tools", "call", "reindex_catalog", "--ttl",
         "5");
  MR_RUN(2, NULL, w, where, LEGACY, "tools", "call", "reindex_catalog",
         "--task", "--ttl", "0");
}

static void test_tasks_http(void **state) {
  mr_demo_http demo;
  mr_demo_http_init(&demo, "http.db");
  const char *url = demo.url;
  pid_t pid = mr_start_http(demo.argv, url);
  assert_true(pid > 0);
  char *out = NULL, *err = NULL;
  const char *w = "-u";

  /* a long task keeps running on the server after mcpc exits, and ending
   * the session (mcpc's DELETE right after the CreateTaskResult) must not
   * cancel it */
  char id[128];
  MR_RUN2(0, &out, &err, w, url, LEGACY, "tools", "call", "start_long_export",
          "--task", "--args", "{\"seconds\": 30}");
  assert_null(strstr(err, "use --wait")); /* no stdio warning over HTTP */
  snprintf(id, sizeof id, "%s", task_id_of(out));
  free(out);
  free(err);
  /* get from a new session: the id is the capability */
  MR_RUN(0, &out, w, url, LEGACY, "tasks", "get", id);
  assert_true(strncmp(out, id, strlen(id)) == 0);
  if (strstr(out, " working") == NULL)
    fprintf(stderr, "task not working after its session ended: %s", out);
  assert_non_null(strstr(out, " working"));
  free(out);
  /* ... but tasks/list shows only the calling session's tasks */
  MR_RUN(0, &out, w, url, LEGACY, "--format", "json", "tasks", "list");
  json_t *j = json_loads(out, 0, NULL);
  assert_int_equal(json_array_size(json_object_get(j, "tasks")), 0);
  json_decref(j);
  free(out);
  MR_RUN(0, &out, w, url, LEGACY, "tasks", "list");
  assert_string_equal(out, "");
  free(out);
  /* cancel from a new session, then again: terminal, exit 3 */
  MR_RUN(0, &out, w, url, LEGACY, "tasks", "cancel", id);
  assert_non_null(strstr(out, " cancelled"));
  free(out);
  MR_RUN2(3, NULL, &err, w, url, LEGACY, "tasks", "cancel", id);
  assert_non_null(strstr(err, "terminal"));
  free(err);
  MR_RUN2(1, NULL, &err, w, url, LEGACY, "tasks", "result", id);
  assert_non_null(strstr(err, "was cancelled"));
  free(err);

  /* --ttl reaches the server; result of a completed task from a new
   * session */
  MR_RUN(0, &out, w, url, LEGACY, "--format", "json", "tools", "call",
         "start_long_export", "--task", "--ttl", "120000", "--args",
         "{\"seconds\": 0.2, \"format\": \"json\"}");
  j = json_loads(out, 0, NULL);
  json_t *task = json_object_get(j, "task");
  assert_int_equal(json_integer_value(json_object_get(task, "ttl")), 120000);
  snprintf(id, sizeof id, "%s",
           json_string_value(json_object_get(task, "taskId")));
  json_decref(j);
  free(out);
  MR_RUN(0, &out, w, url, LEGACY, "--format", "json", "tasks", "result", id);
  j = json_loads(out, 0, NULL);
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(j, "structuredContent"), "format")),
                      "json");
  json_decref(j);
  free(out);
  MR_RUN(0, &out, w, url, LEGACY, "tasks", "get", id);
  assert_non_null(strstr(out, " completed"));
  free(out);
  MR_RUN(3, NULL, w, url, LEGACY, "tasks", "cancel",
         id); /* completed: terminal */

  /* --wait over HTTP, with the task's progress lines */
  MR_RUN2(0, &out, &err, w, url, LEGACY, "tools", "call", "start_long_export",
          "--task", "--wait", "--args", "{\"seconds\": 0.5}");
  assert_non_null(strstr(out, "Exported 10000 rows"));
  assert_non_null(strstr(err, "/20 working - exporting rows"));
  free(out);
  free(err);

  /* the progress bar of a running task on a terminal: status, the
   * progress message and elapsed time, redrawn in place */
  const char *a[] = {LEGACY,   "-u",
                     url,      "tools",
                     "call",   "start_long_export",
                     "--task", "--wait",
                     "--args", "{\"seconds\": 1}",
                     NULL};
  int rc = -1;
  char *tty = mr_run_pty(a, &rc);
  assert_non_null(tty);
  if (rc != 0)
    fprintf(stderr, "pty output: %s\n", tty);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(tty, "\r\033[K["));
  assert_non_null(strstr(tty, "working - exporting rows"));
  assert_non_null(strstr(tty, "s\r\033[K")); /* "... 0.4s" then redrawn */
  assert_non_null(strstr(tty, "Exported 10000 rows"));
  assert_null(strstr(tty, "progress 1/20")); /* no plain lines on a tty */
  free(tty);

  mr_stop(pid);
}

int main(void) {
  if (mr_setup("mcpc-tasks-test") != 0)
    return 1;
  snprintf(stdio_cmd, sizeof stdio_cmd,
           "%s/mcp-demo-server --stdio --db %s/demo.db --store sqlite:%s/"
           "demo.db --fail-tasks-on-stop",
           MCP_BIN_DIR, mr_tmpdir, mr_tmpdir);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tasks_stdio),
      cmocka_unit_test(test_tasks_http),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  mr_teardown();
  return rc;
}
