/* SPDX-License-Identifier: MIT */
/* restart_test.c - restarts keep tasks (issue #24 item 5), with the demo
 * server as a real process over HTTP, on SQLite (argument "sqlite") or on
 * the private PostgreSQL of tests/pg/pg-fixture.sh ("postgres"):
 *   - SIGTERM while an export_orders task (idempotent) and a
 *     start_long_export task (taken by the demo's resume hook) run: both
 *     stay working, "Interrupted by a server stop; will resume ...", and
 *     complete with their real result after a restart (a task neither
 *     resumed nor idempotent is failed then: tasks_test);
 *   - SIGKILL (a crash): the same two complete after a restart;
 *   - --fail-tasks-on-stop: SIGTERM fails the running task as interrupted
 *     (the behaviour before).
 * Every demo process is started with a parent-death signal, so it dies
 * with the test even when CTest kills the test. */
#include "../e2e/mcpc_run.h"
#include "pg_test.h"

#include <sys/prctl.h>

#include <jansson.h>

#include <mcp/mcp.h>

#define DBNAME "mcp_restart"
#define LEGACY "--protocol", "2025-11-25"

static bool on_postgres;
static char store_spec[800]; /* --store of the demo and of the checks */
static char demo_db[400], hp[64], url[128], bin[1024], logpath[400];
static pid_t demo_pid; /* the demo running now, 0 when none */

static void stop_demo(pid_t pid, int sig);

/* Starts the demo (its stderr appended to the log) with a parent-death
 * signal; waits until it answers ping. extra: one more flag or NULL. */
static pid_t start_demo(const char *extra) {
  if (demo_pid > 0) /* left by a failed test */
    stop_demo(demo_pid, SIGKILL);
  char *argv[16] = {bin,        "--http", hp,         "--db", demo_db,
                    "--store",  store_spec};
  int n = 7;
  if (on_postgres) { /* claims start after one whole lease of renewals */
    argv[n++] = "--task-lease";
    argv[n++] = "1000";
  }
  if (extra)
    argv[n++] = (char *)extra;
  argv[n] = NULL;
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the test died before prctl */
      _exit(1);
    int log = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (log >= 0)
      dup2(log, 2);
    if (chdir(mr_tmpdir) != 0)
      _exit(126);
    execv(bin, argv);
    _exit(127);
  }
  assert_true(pid > 0);
  for (int i = 0; i < 600; i++) { /* up to 30 s on a loaded machine */
    usleep(50 * 1000);
    const char *a[] = {"-u", url, "--timeout", "2000", "ping", NULL};
    if (mr_run(a, NULL, NULL) == 0)
      return demo_pid = pid;
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  fail_msg("the demo server did not start (log %s)", logpath);
  return -1;
}

/* Stops it with sig and waits; a SIGTERM stop must exit 0. */
static void stop_demo(pid_t pid, int sig) {
  assert_int_equal(kill(pid, sig), 0);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  demo_pid = 0;
  if (sig == SIGTERM)
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Starts a task of tool with args; its id in id. */
static void start_task(const char *tool, const char *args, char id[128]) {
  char *out = NULL;
  MR_RUN(0, &out, "-u", url, LEGACY, "tools", "call", tool, "--task", "--ttl",
         "600000", "--args", args);
  assert_int_equal(sscanf(out, "task %127s", id), 1);
  free(out);
}

/* The task as stored, read by this process (the server is down). */
static json_t *stored_task(const char *id) {
  mcp_store_t *store = NULL;
  mcp_tasks_t *tasks = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_store_open(store_spec, &store, &err), MCP_OK);
  assert_int_equal(mcp_tasks_open(store, "libmcp-demo", &tasks), MCP_OK);
  json_t *task = NULL;
  assert_int_equal(mcp_task_get(tasks, id, &task), MCP_OK);
  mcp_tasks_free(tasks);
  mcp_store_free(store);
  return task;
}

static const char *field(const json_t *task, const char *name) {
  const char *v = json_string_value(json_object_get(task, name));
  return v ? v : "";
}

static void assert_left_for_next_start(const char *id) {
  json_t *t = stored_task(id);
  assert_string_equal(field(t, "status"), "working");
  if (strstr(field(t, "statusMessage"), "Interrupted by a server stop; will "
                                        "resume") == NULL)
    fail_msg("task %s: statusMessage \"%s\"", id, field(t, "statusMessage"));
  json_decref(t);
}

/* tasks/result (blocks until the task ends) holds the real export. */
static void assert_exported(const char *id, const char *format) {
  char *out = NULL, want[64];
  MR_RUN(0, &out, "-u", url, LEGACY, "--timeout", "60000", "tasks", "result",
         id);
  snprintf(want, sizeof want, "Exported 10000 rows as %s.", format);
  if (strstr(out, want) == NULL)
    fail_msg("task %s: %s", id, out);
  free(out);
}

static json_t *task_get(const char *id) {
  char *out = NULL;
  MR_RUN(0, &out, "-u", url, LEGACY, "--format", "json", "tasks", "get", id);
  json_t *j = json_loads(out, 0, NULL);
  free(out);
  assert_non_null(j);
  return j;
}

static void test_sigterm_then_restart_keeps_tasks(void **state) {
  (void)state;
  pid_t pid = start_demo(NULL);
  char again[128], resumed[128];
  start_task("export_orders", "{\"seconds\": 3}", again);
  start_task("start_long_export", "{\"seconds\": 3, \"format\": \"json\"}",
             resumed);
  usleep(500 * 1000);
  stop_demo(pid, SIGTERM);
  assert_left_for_next_start(again);
  assert_left_for_next_start(resumed);
  pid = start_demo(NULL);
  assert_exported(again, "csv");
  assert_exported(resumed, "json");
  json_t *t = task_get(again);
  assert_string_equal(field(t, "status"), "completed");
  json_decref(t);
  stop_demo(pid, SIGTERM);
}

static void test_sigkill_then_restart_keeps_tasks(void **state) {
  (void)state;
  pid_t pid = start_demo(NULL);
  char again[128], resumed[128];
  start_task("export_orders", "{\"seconds\": 2, \"format\": \"json\"}",
             again);
  start_task("start_long_export", "{\"seconds\": 2}", resumed);
  usleep(300 * 1000);
  stop_demo(pid, SIGKILL);
  pid = start_demo(NULL);
  assert_exported(again, "json");
  assert_exported(resumed, "csv");
  stop_demo(pid, SIGTERM);
}

static void test_fail_on_stop_keeps_the_old_behaviour(void **state) {
  (void)state;
  pid_t pid = start_demo("--fail-tasks-on-stop");
  char id[128];
  start_task("start_long_export", "{\"seconds\": 30}", id);
  usleep(300 * 1000);
  stop_demo(pid, SIGTERM);
  json_t *t = stored_task(id);
  assert_string_equal(field(t, "status"), "failed");
  assert_non_null(strstr(field(t, "statusMessage"),
                         "Interrupted: the server stopped"));
  json_decref(t);
}

static int setup(void **state) {
  (void)state;
  if (mr_setup("mcp-restart") != 0)
    return -1;
  int port = mr_free_port();
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://%s/mcp", hp);
  snprintf(bin, sizeof bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  snprintf(demo_db, sizeof demo_db, "%s/demo.db", mr_tmpdir);
  snprintf(logpath, sizeof logpath, "%s/demo.log", mr_tmpdir);
  if (!on_postgres) {
    snprintf(store_spec, sizeof store_spec, "sqlite:%s/tasks.db", mr_tmpdir);
    return 0;
  }
  char conninfo[700], base_uri[600];
  pg_test_fresh_db(DBNAME, conninfo, sizeof conninfo);
  if (!pg_test_env("MCP_PG_URI", base_uri, sizeof base_uri))
    return -1;
  /* postgresql://postgres@/postgres?host=DIR -> .../<our database>?host=DIR */
  char *q = strchr(base_uri, '?'), *slash;
  if (q == NULL)
    return -1;
  *q = '\0';
  if ((slash = strrchr(base_uri, '/')) == NULL)
    return -1;
  *slash = '\0';
  snprintf(store_spec, sizeof store_spec, "%s/%s_%d?%s", base_uri, DBNAME,
           (int)getpid(), q + 1);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  if (demo_pid > 0)
    stop_demo(demo_pid, SIGKILL);
  char *log = tu_read_file(logpath, NULL);
  if (log) /* what the servers said, for a failure's diagnosis */
    fprintf(stderr, "---- demo log ----\n%s------------------\n", log);
  free(log);
  if (on_postgres)
    pg_test_drop_db(DBNAME);
  mr_teardown();
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2 ||
      (strcmp(argv[1], "sqlite") != 0 && strcmp(argv[1], "postgres") != 0)) {
    fprintf(stderr, "usage: restart_test sqlite|postgres\n");
    return 2;
  }
  on_postgres = strcmp(argv[1], "postgres") == 0;
  if (on_postgres) {
    char base[600];
    pg_test_base(base, sizeof base); /* skips as the fixture did */
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sigterm_then_restart_keeps_tasks),
      cmocka_unit_test(test_sigkill_then_restart_keeps_tasks),
      cmocka_unit_test(test_fail_on_stop_keeps_the_old_behaviour),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
