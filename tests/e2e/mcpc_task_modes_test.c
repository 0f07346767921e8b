/* SPDX-License-Identifier: MIT */
/* mcpc_task_modes_test.c - how mcpc runs tools with and without tasks, in
 * both eras, against tests/client_fixture/task_fixture_server.c:
 *   - without --task a tool runs as a task only when it requires one
 *     (taskSupport optional answers at once, with its progress fraction,
 *     message and log lines on stderr);
 *   - --task on a tool whose taskSupport is forbidden is an error naming it
 *     (exit 2);
 *   - a waited-for task shows its status without a made-up counter, and in
 *     2025-11-25 its progress and log lines;
 *   - `mcpc tasks result ID` answers as soon as another process completes
 *     the task (the fixture's pollInterval is 5 s), on SQLite and, with the
 *     argument "postgres" (tests/pg/CMakeLists.txt), on PostgreSQL.
 * Each mcpc invocation is a new session. */
#include <poll.h>

#include "mcpc_run.h"
#include "pg_test.h"

static char fixture[1100];

static const char *const eras[] = {"auto", "2025-11-25"};

static void test_without_task_flag(void **state) {
  (void)state;
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "%s --stdio --store sqlite:%s/stdio.db", fixture,
           mr_tmpdir);
  for (size_t i = 0; i < sizeof eras / sizeof *eras; i++) {
    const char *era = eras[i];
    char *out = NULL, *err = NULL;
    /* optional: at once, not as a task, progress and logs shown */
    MR_RUN2(0, &out, &err, "--protocol", era, "-c", cmd, "tools", "call",
            "work");
    assert_string_equal(out, "worked\n");
    assert_non_null(strstr(err, "progress 1/3 step 1 ("));
    assert_non_null(strstr(err, "progress 3/3 step 3 ("));
    assert_non_null(strstr(err, "[info] fixture working on step 2"));
    assert_null(strstr(err, "task"));
    free(out);
    free(err);
    /* required: run as the task it must be, and waited for */
    MR_RUN2(0, &out, &err, "--protocol", era, "-c", cmd, "tools", "call",
            "must");
    assert_string_equal(out, "worked\n");
    free(out);
    free(err);
    /* forbidden with --task: refused, naming the taskSupport */
    MR_RUN2(2, &out, &err, "--protocol", era, "-c", cmd, "tools", "call",
            "plain", "--task");
    assert_non_null(strstr(err, "\"plain\""));
    assert_non_null(strstr(err, "taskSupport"));
    assert_non_null(strstr(err, "\"forbidden\""));
    free(out);
    free(err);
    /* optional with --task --wait: a task, its status shown as such */
    MR_RUN2(0, &out, &err, "--protocol", era, "-c", cmd, "tools", "call",
            "work", "--task", "--wait");
    assert_string_equal(out, "worked\n");
    assert_non_null(strstr(err, "mcpc: task "));
    assert_non_null(strstr(err, "progress working ("));
    assert_null(strstr(err, "progress 1 working")); /* no poll counter */
    if (strcmp(era, "2025-11-25") == 0) { /* the protocol carries them */
      assert_non_null(strstr(err, "/3 working - step "));
      assert_non_null(strstr(err, "[info] fixture working on step "));
    }
    free(out);
    free(err);
  }
  /* JSON: the refusal is the one document, with what the server ran */
  char *out = NULL, *err = NULL;
  MR_RUN2(2, &out, &err, "-c", cmd, "--format", "json", "tools", "call",
          "plain", "--task");
  json_t *j = json_loads(out, 0, NULL);
  json_t *e = json_object_get(j, "error");
  assert_int_equal(json_integer_value(json_object_get(e, "exit")), 2);
  assert_non_null(
      strstr(json_string_value(json_object_get(e, "message")), "forbidden"));
  json_decref(j);
  free(out);
  free(err);
}

/* The HTTP fixture on store spec: its pid, its URL in url; *hold is the
 * write end of its stdin (closing it stops the server, as does the end of
 * this process). */
static pid_t start_http_fixture(const char *spec, char *url, size_t n,
                                int *hold) {
  int in[2], out[2];
  assert_int_equal(pipe(in), 0);
  assert_int_equal(pipe(out), 0);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    tu_child_dies_with(parent);
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execl(fixture, fixture, "--http", "--store", spec, (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  *hold = in[1];
  char line[64] = "";
  FILE *f = fdopen(out[0], "r");
  assert_non_null(fgets(line, sizeof line, f));
  fclose(f);
  unsigned port = 0;
  assert_int_equal(sscanf(line, "PORT %u", &port), 1);
  snprintf(url, n, "http://127.0.0.1:%u/mcp", port);
  return pid;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* mcpc tasks result of a task that another process completes: how long
 * after that process ended the result line came (ms). */
static int64_t result_after_completion(const char *spec, const char *url,
                                       const char *era) {
  char *out = NULL, id[128];
  MR_RUN(0, &out, "--protocol", era, "-u", url, "tools", "call", "elsewhere",
         "--task");
  assert_int_equal(sscanf(out, "task %127s", id), 1);
  free(out);
  int p[2];
  assert_int_equal(pipe(p), 0);
  pid_t parent = getpid();
  pid_t waiter = fork();
  if (waiter == 0) {
    tu_child_dies_with(parent);
    dup2(p[1], 1);
    close(p[0]);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    execl(mr_mcpc, mr_mcpc, "--protocol", era, "-u", url, "tasks", "result",
          id, (char *)NULL);
    _exit(127);
  }
  close(p[1]);
  /* let it settle into waiting: blocked in tasks/result (2025-11-25), on
   * its listen stream after the first tasks/get (2026-07-28) */
  struct timespec settle = {1, 0};
  nanosleep(&settle, NULL);
  int64_t started = now_ms();
  pid_t done = fork();
  if (done == 0) {
    tu_child_dies_with(parent);
    execl(fixture, fixture, "--store", spec, "--complete", id, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(done, &status, 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  int64_t completed = now_ms();
  struct pollfd pf = {.fd = p[0], .events = POLLIN};
  char buf[256] = "";
  ssize_t got = 0;
  if (poll(&pf, 1, 20000) == 1)
    got = read(p[0], buf, sizeof buf - 1);
  int64_t answered = now_ms(), latency = answered - completed;
  close(p[0]);
  waitpid(waiter, &status, 0);
  assert_true(got > 0);
  buf[got] = '\0';
  assert_non_null(strstr(buf, "completed by another process"));
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  fprintf(stderr,
          "%s, %s: tasks result answered %lld ms after the completing "
          "process ended (%lld ms after it started)\n",
          strncmp(spec, "sqlite:", 7) == 0 ? "sqlite" : "postgres", era,
          (long long)latency, (long long)(answered - started));
  return latency;
}

static void completion_elsewhere(const char *spec) {
  char url[128];
  int hold;
  pid_t pid = start_http_fixture(spec, url, sizeof url, &hold);
  for (size_t i = 0; i < sizeof eras / sizeof *eras; i++)
    /* the server's pollInterval is 5 s: polling would take that long; the
     * promise is 200 ms, with room here for a loaded machine */
    assert_true(result_after_completion(spec, url, eras[i]) < 1500);
  close(hold);
  waitpid(pid, NULL, 0);
}

static void test_completion_elsewhere_sqlite(void **state) {
  (void)state;
  char spec[400];
  snprintf(spec, sizeof spec, "sqlite:%s/http.db", mr_tmpdir);
  completion_elsewhere(spec);
}

static void test_completion_elsewhere_postgres(void **state) {
  (void)state;
  char uri[600];
  assert_true(pg_test_env("MCP_PG_URI", uri, sizeof uri));
  completion_elsewhere(uri);
}

int main(int argc, char **argv) {
  bool postgres = argc > 1 && strcmp(argv[1], "postgres") == 0;
  if (postgres) {
    char base[600];
    pg_test_base(base, sizeof base); /* skips as the fixture did */
  }
  if (mr_setup("mcpc-task-modes-test") != 0)
    return 1;
  snprintf(fixture, sizeof fixture, "%s/mcp-task-fixture", MCP_BIN_DIR);
  const struct CMUnitTest all[] = {
      cmocka_unit_test(test_without_task_flag),
      cmocka_unit_test(test_completion_elsewhere_sqlite),
  };
  const struct CMUnitTest pg[] = {
      cmocka_unit_test(test_completion_elsewhere_postgres),
  };
  int rc = postgres ? cmocka_run_group_tests(pg, NULL, NULL)
                    : cmocka_run_group_tests(all, NULL, NULL);
  mr_teardown();
  return rc;
}
