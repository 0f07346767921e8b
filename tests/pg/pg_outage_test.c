/* SPDX-License-Identifier: MIT */
/* pg_outage_test.c - the PostgreSQL store while its database goes away and
 * comes back: calls during the outage fail at once with MCP_ERR_IO and a
 * message naming the cause (never a crash or a hang), writes made during it
 * leave nothing behind, and after the restart the same store object serves
 * again (reconnection with backoff) with every committed task intact. The
 * test runs its own PostgreSQL (tests/pg/pg-fixture.sh), since it stops it. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/store.h"
#include "pg_test.h"

static char envfile[256];

static void fixture(const char *cmd) {
  char line[1024];
  /* MCP_PG_OWNER: the server dies with this program (the fixture's
   * watchdog), even when CTest kills it at its timeout */
  snprintf(line, sizeof line, "MCP_PG_OWNER=%d %s %s %s", (int)getpid(),
           getenv("MCP_PG_FIXTURE"), cmd, envfile);
  assert_int_equal(system(line), 0);
}

static mcp_task_record rec_of(const char *id, mcp_task_status st) {
  mcp_task_record r = {0};
  r.scope = "outage";
  r.task_id = (char *)id;
  r.status = st;
  r.created_ms = r.updated_ms = 1000;
  r.ttl_ms = -1;
  r.poll_interval_ms = -1;
  return r;
}

/* A store on this test's own server with a pool of pool_size; its
 * conninfo in conninfo. */
static mcp_store_t *open_store(unsigned pool_size, char conninfo[600]) {
  setenv("MCP_PG_ENV", envfile, 1);
  pg_test_base(conninfo, 600);
  mcp_store_t *s = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_store_postgres_open(conninfo, pool_size, &s, &err),
                   MCP_OK);
  return s;
}

static void test_outage_and_recovery(void **state) {
  (void)state;
  char conninfo[600];
  mcp_store_t *s = open_store(2, conninfo);
  mcp_error_t err;
  mcp_task_record a = rec_of("before", MCP_TASK_WORKING);
  assert_int_equal(mcp_store_task_put(s, &a, NULL), MCP_OK);

  fixture("down");
  /* every kind of call fails cleanly while the database is away */
  mcp_task_record g;
  for (int i = 0; i < 3; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(mcp_store_task_get(s, "outage", "before", &g, &err),
                     MCP_ERR_IO);
    assert_non_null(strstr(err.message, "postgres"));
  }
  mcp_task_record during = rec_of("during", MCP_TASK_WORKING);
  assert_int_equal(mcp_store_task_put(s, &during, &err), MCP_ERR_IO);
  mcp_task_record done = rec_of("before", MCP_TASK_COMPLETED);
  done.result = "{\"content\":[]}";
  assert_int_equal(mcp_store_task_update(s, &done, NULL, &err), MCP_ERR_IO);
  assert_int_equal(mcp_store_task_sweep(s, "outage", 5000, 0, NULL, NULL, &err),
                   MCP_ERR_IO);

  fixture("up");
  /* back within the backoff (at most 5 s between attempts) */
  mcp_status st = MCP_ERR_IO;
  for (int i = 0; i < 200 && st != MCP_OK; i++) {
    st = mcp_store_task_get(s, "outage", "before", &g, &err);
    if (st != MCP_OK)
      usleep(100 * 1000);
  }
  assert_int_equal(st, MCP_OK);
  assert_int_equal(g.status, MCP_TASK_WORKING); /* the failed update left
                                                   nothing behind */
  mcp_task_record_clear(&g);
  assert_int_equal(mcp_store_task_get(s, "outage", "during", &g, NULL),
                   MCP_ERR_NOT_FOUND);
  /* full service: every pooled connection was replaced */
  for (int i = 0; i < 8; i++) {
    char id[16];
    snprintf(id, sizeof id, "after%d", i);
    mcp_task_record r = rec_of(id, MCP_TASK_WORKING);
    assert_int_equal(mcp_store_task_put(s, &r, &err), MCP_OK);
  }
  assert_int_equal(mcp_store_task_update(s, &done, NULL, &err), MCP_OK);
  assert_int_equal(mcp_store_task_get(s, "outage", "before", &g, NULL), MCP_OK);
  assert_int_equal(g.status, MCP_TASK_COMPLETED);
  mcp_task_record_clear(&g);
  mcp_store_free(s);
}

/* Client backends of conninfo's database other than the asking one. */
static long other_backends(const char *conninfo) {
  PGconn *c = PQconnectdb(conninfo);
  long n = -1;
  if (PQstatus(c) == CONNECTION_OK) {
    PGresult *r = PQexec(
        c, "SELECT count(*) FROM pg_stat_activity WHERE datname = "
           "current_database() AND pid <> pg_backend_pid() AND backend_type = "
           "'client backend'");
    if (PQresultStatus(r) == PGRES_TUPLES_OK)
      n = strtol(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
  }
  PQfinish(c);
  return n;
}

/* The server ends idle pooled connections (what a restart or an
 * administrator's pg_terminate_backend does): the next call of each kind
 * gets a fresh connection instead of an error. Without a retry: a task's
 * creation is never retried, since its outcome would be unknown. */
static void test_terminated_connections_are_replaced(void **state) {
  (void)state;
  char conninfo[600];
  mcp_store_t *s = open_store(1, conninfo);
  mcp_error_t err;
  for (int round = 0; round < 3; round++) {
    char id[32];
    snprintf(id, sizeof id, "terminated%d", round);
    mcp_task_record r = rec_of(id, MCP_TASK_WORKING);
    assert_int_equal(mcp_store_task_put(s, &r, &err), MCP_OK);
    assert_true(pg_test_sql(
        conninfo, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                  "WHERE datname = current_database() AND pid <> "
                  "pg_backend_pid() AND backend_type = 'client backend'"));
    /* A terminated backend sends its notice before it exits: once none is
     * listed, every notice is on its way to the pool's sockets. */
    long left = -1;
    for (int i = 0; i < 1000 && left != 0; i++)
      if ((left = other_backends(conninfo)) != 0)
        usleep(5 * 1000);
    assert_int_equal(left, 0);
    snprintf(id, sizeof id, "after_terminated%d", round);
    r = rec_of(id, MCP_TASK_WORKING);
    memset(&err, 0, sizeof err);
    if (mcp_store_task_put(s, &r, &err) != MCP_OK)
      fail_msg("put after the connection was terminated: %s", err.message);
  }
  mcp_store_free(s);
}

int main(void) {
  if (getenv("MCP_PG_FIXTURE") == NULL) {
    fprintf(stderr, "run through ctest (MCP_PG_FIXTURE)\n");
    return 1;
  }
  /* the shared fixture's verdict on PostgreSQL's presence applies here */
  char base[600];
  pg_test_base(base, sizeof base);
  snprintf(envfile, sizeof envfile, "/tmp/mcp-pg-outage-%d.env", (int)getpid());
  fixture("start");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_outage_and_recovery),
      cmocka_unit_test(test_terminated_connections_are_replaced),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  fixture("stop");
  return rc;
}
