/* SPDX-License-Identifier: MIT */
/* pg_batch_test.c - group commit of the PostgreSQL task store
 * (src/store/pg_batch.c): task writes made by many threads at once share
 * transactions, and every writer still hears about its own change only:
 *   - 24 concurrent puts held behind a table lock are committed in a few
 *     shared transactions, each answered MCP_OK and stored;
 *   - one write the database refuses (text that is not UTF-8) in such a
 *     batch fails alone; the 23 others are stored;
 *   - the connection of a batch killed while it waits (pg_terminate_backend)
 *     fails exactly the writes of that batch with MCP_ERR_IO and a message,
 *     none of them is stored, and the store writes again afterwards.
 * The lock only makes the batching certain; no assertion depends on time.
 */
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/store.h"
#include "pg_test.h"
/* the test calls libpq itself (linked), not through the library's table */
#define MCP__PQ_NO_REDIRECT
#include "store/pg_batch.h"

#define WRITERS 24

static char conninfo[600];

typedef struct writer {
  pthread_t thread;
  mcp_store_t *store;
  char id[32];
  bool bad;
  mcp_status st;
  mcp_error_t err;
} writer;

static void *write_one(void *arg) {
  writer *w = arg;
  mcp_task_record r = {0};
  r.scope = "batch";
  r.task_id = w->id;
  r.status = MCP_TASK_WORKING;
  r.status_message = w->bad ? "not UTF-8: \xff\xfe" : "fine";
  r.created_ms = r.updated_ms = 1000;
  r.ttl_ms = -1;
  r.poll_interval_ms = -1;
  memset(&w->err, 0, sizeof w->err);
  w->st = mcp_store_task_put(w->store, &r, &w->err);
  return NULL;
}

/* A connection holding an exclusive lock on mcp_tasks: writes queue up
 * behind it. */
static PGconn *lock_tasks(void) {
  PGconn *c = PQconnectdb(conninfo);
  assert_int_equal(PQstatus(c), CONNECTION_OK);
  PGresult *r = PQexec(c, "BEGIN; LOCK TABLE mcp_tasks IN EXCLUSIVE MODE");
  assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
  PQclear(r);
  return c;
}

static void unlock_tasks(PGconn *c) {
  PQclear(PQexec(c, "COMMIT"));
  PQfinish(c);
}

static PGconn *probe; /* for the test's own queries */

static int scalar(const char *sql) {
  PGresult *r = PQexec(probe, sql);
  int v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
              ? atoi(PQgetvalue(r, 0, 0))
              : -1;
  PQclear(r);
  return v;
}

static int lock_waiters(void) {
  return scalar("SELECT count(*) FROM pg_stat_activity WHERE "
                "wait_event_type = 'Lock' AND datname = current_database()");
}

/* Waits (bounded) until every writer's put is in the store's hands and
 * each batch being run waits for the lock; returns the counts then. */
static mcp__pg_batch_counts wait_held(mcp_store_t *s) {
  mcp__pg_batch_counts c;
  for (int i = 0; i < 3000; i++) {
    assert_true(mcp__store_postgres_batch_stats(s, &c));
    if (c.queued + c.inflight == WRITERS && c.batches > 0 &&
        lock_waiters() == (int)c.batches)
      return c;
    usleep(10000);
  }
  fail_msg("the writes did not queue up behind the lock");
  return c;
}

static void start_writers(mcp_store_t *s, writer *w, const char *prefix,
                          int bad) {
  for (int i = 0; i < WRITERS; i++) {
    w[i].store = s;
    snprintf(w[i].id, sizeof w[i].id, "%s-%02d", prefix, i);
    w[i].bad = i == bad;
    assert_int_equal(pthread_create(&w[i].thread, NULL, write_one, &w[i]), 0);
  }
}

static void join_writers(writer *w) {
  for (int i = 0; i < WRITERS; i++)
    pthread_join(w[i].thread, NULL);
}

static bool stored(mcp_store_t *s, const char *id) {
  mcp_task_record r;
  mcp_status st = mcp_store_task_get(s, "batch", id, &r, NULL);
  if (st == MCP_OK)
    mcp_task_record_clear(&r);
  assert_true(st == MCP_OK || st == MCP_ERR_NOT_FOUND);
  return st == MCP_OK;
}

static mcp_store_t *open_store(void) {
  mcp_store_t *s = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_store_postgres_open(conninfo, 4, &s, &err), MCP_OK);
  return s;
}

static void test_concurrent_writes_share_transactions(void **state) {
  (void)state;
  mcp_store_t *s = open_store();
  mcp__pg_batch_counts before, after;
  assert_true(mcp__store_postgres_batch_stats(s, &before));
  PGconn *lock = lock_tasks();
  writer w[WRITERS];
  start_writers(s, w, "shared", -1);
  /* the committers wait for the lock with a batch each; the rest queue */
  wait_held(s);
  unlock_tasks(lock);
  join_writers(w);
  for (int i = 0; i < WRITERS; i++) {
    assert_int_equal(w[i].st, MCP_OK);
    assert_true(stored(s, w[i].id));
  }
  assert_true(mcp__store_postgres_batch_stats(s, &after));
  unsigned long long tx = after.transactions - before.transactions;
  unsigned long long writes = after.writes - before.writes;
  assert_int_equal(writes, WRITERS);
  assert_true(tx <= 3); /* the held batches, then the queue in one */
  mcp_store_free(s);
}

static void test_refused_write_fails_alone(void **state) {
  (void)state;
  mcp_store_t *s = open_store();
  PGconn *lock = lock_tasks();
  writer w[WRITERS];
  start_writers(s, w, "refused", WRITERS / 2);
  wait_held(s);
  unlock_tasks(lock);
  join_writers(w);
  int failed = 0;
  for (int i = 0; i < WRITERS; i++) {
    if (w[i].bad) {
      assert_int_equal(w[i].st, MCP_ERR_IO);
      assert_non_null(strstr(w[i].err.message, "postgres"));
      assert_false(stored(s, w[i].id));
      failed++;
    } else {
      assert_int_equal(w[i].st, MCP_OK);
      assert_true(stored(s, w[i].id));
    }
  }
  assert_int_equal(failed, 1);
  mcp_store_free(s);
}

static void test_lost_connection_fails_its_batch(void **state) {
  (void)state;
  mcp_store_t *s = open_store();
  PGconn *lock = lock_tasks();
  writer w[WRITERS];
  start_writers(s, w, "lost", -1);
  mcp__pg_batch_counts held = wait_held(s);
  /* kill the connections whose batches wait for the lock */
  assert_int_equal(scalar("SELECT count(pg_terminate_backend(pid)) FROM "
                          "pg_stat_activity WHERE wait_event_type = 'Lock' "
                          "AND datname = current_database()"),
                   (int)held.batches);
  unlock_tasks(lock);
  join_writers(w);
  int lost = 0;
  for (int i = 0; i < WRITERS; i++) {
    if (w[i].st == MCP_OK) {
      assert_true(stored(s, w[i].id));
    } else {
      assert_int_equal(w[i].st, MCP_ERR_IO);
      assert_non_null(strstr(w[i].err.message, "postgres"));
      assert_false(stored(s, w[i].id)); /* nothing half-written */
      lost++;
    }
  }
  /* exactly the writes of the killed batches; the queued ones went on new
   * connections */
  assert_int_equal(lost, (int)held.inflight);
  /* and the store writes again */
  writer again = {.store = s};
  snprintf(again.id, sizeof again.id, "after");
  write_one(&again);
  assert_int_equal(again.st, MCP_OK);
  assert_true(stored(s, "after"));
  mcp_store_free(s);
}

int main(void) {
  pg_test_fresh_db("mcp_batch", conninfo, sizeof conninfo);
  /* the schema exists before the first lock is taken */
  mcp_store_t *s = NULL;
  if (mcp_store_postgres_open(conninfo, 1, &s, NULL) != MCP_OK)
    return 1;
  mcp_store_free(s);
  probe = PQconnectdb(conninfo);
  if (PQstatus(probe) != CONNECTION_OK)
    return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_writes_share_transactions),
      cmocka_unit_test(test_refused_write_fails_alone),
      cmocka_unit_test(test_lost_connection_fails_its_batch),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  PQfinish(probe);
  pg_test_drop_db("mcp_batch");
  return rc;
}
