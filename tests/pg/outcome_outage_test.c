/* SPDX-License-Identifier: MIT */
/* outcome_outage_test.c - issue #25 N5: a task's handler finishes while
 * PostgreSQL is stopped. Two demo servers (A, B) over HTTP share one
 * database; a task runs on A, the database is stopped (pg_ctl stop -m
 * fast) before its handler returns and started again a few seconds after.
 * The outcome A computed meanwhile is kept and stored once the database is
 * back: the task ends completed with its real result, seen from B within
 * a few seconds, and is never shown failed. Before the fix it was failed
 * ("could not be stored") and B saw it working until A's 60 s sweep.
 *
 * The test runs its own PostgreSQL (tests/pg/pg-fixture.sh), since it stops
 * it; the fixture's watchdog stops that server should the test be killed,
 * and the demo servers die with the test (mr_start_http). */
#include "../e2e/mcpc_run.h"
#include "pg_test.h"
#include "replica.h"

#include <jansson.h>

static char envfile[300];
static char uri[600];

static replica rep[2];

static void fixture(const char *cmd) { replica_fixture(envfile, cmd); }

/* the default task lease (10 s): longer than the pool's reconnection
 * backoff, so that no replica fails another's task as lost meanwhile */
static void start_replica(replica *r, const char *name) {
  replica_start(r, name, uri, NULL);
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_outcome_stored_after_the_outage(void **state) {
  (void)state;
  char *out = NULL, id[128];
  MR_RUN(0, &out, "-u", rep[0].d.url, "tools", "call", "start_long_export",
         "--task", "--args", "{\"seconds\": 2}");
  assert_int_equal(sscanf(out, "task %127s", id), 1);
  free(out);
  int64_t started = now_ms();
  fixture("down"); /* pg_ctl stop -m fast, before the handler returns */
  assert_true(now_ms() - started < 2000);
  /* the handler returns at 2 s; its outcome cannot be stored meanwhile */
  while (now_ms() - started < 6000)
    usleep(100 * 1000);
  fixture("up");
  int64_t back = now_ms();
  /* B: working until the outcome is stored, then completed; never failed */
  const char *status = NULL;
  json_t *t = NULL;
  while (now_ms() - back < 30000) {
    json_decref(t);
    t = replica_task(&rep[1], id);
    status = t ? json_string_value(json_object_get(t, "status")) : NULL;
    if (status && strcmp(status, "working") != 0)
      break;
    usleep(100 * 1000);
  }
  int64_t seen = now_ms() - back;
  fprintf(stderr, "outcome_outage: B saw the task %s %lld ms after the "
                  "database was back\n",
          status ? status : "(unreadable)", (long long)seen);
  assert_non_null(status);
  if (strcmp(status, "completed") != 0)
    fail_msg("task %s is %s: %s", id, status,
             json_string_value(json_object_get(t, "statusMessage")));
  json_decref(t);
  /* within a few seconds: each replica's pool reconnects within 5 s of
   * the database's return, the kept outcome is retried every second */
  assert_true(seen < 12000);
  /* its real result, read on B */
  MR_RUN(0, &out, "-u", rep[1].d.url, "tasks", "result", id);
  assert_non_null(strstr(out, "Exported 10000 rows as csv."));
  free(out);
}

static int setup(void **state) {
  (void)state;
  if (mr_setup("mcp-outcome-outage") != 0)
    return -1;
  setenv("MCP_PG_ENV", envfile, 1);
  if (!pg_test_env("MCP_PG_URI", uri, sizeof uri))
    return -1;
  start_replica(&rep[0], "a");
  start_replica(&rep[1], "b");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int i = 0; i < 2; i++)
    mr_stop(rep[i].pid);
  mr_teardown();
  return 0;
}

int main(void) {
  if (getenv("MCP_PG_FIXTURE") == NULL) {
    fprintf(stderr, "run through ctest (MCP_PG_FIXTURE)\n");
    return 1;
  }
  char base[600];
  pg_test_base(base, sizeof base); /* skips as the shared fixture did */
  snprintf(envfile, sizeof envfile, "/tmp/mcp-pg-outcome-%d.env",
           (int)getpid());
  fixture("start");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_outcome_stored_after_the_outage),
  };
  int rc = cmocka_run_group_tests(tests, setup, teardown);
  fixture("stop");
  return rc;
}
