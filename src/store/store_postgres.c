/* SPDX-License-Identifier: MIT */
/* store_postgres.c - the task store on PostgreSQL (libpq), shared by many
 * replicas of a server.
 *
 * A pool of connections (pg_pool.c) hands one connection to one thread at a
 * time; every statement is prepared once per connection. Every state change
 * is one statement, hence one transaction: the compare-and-set of
 * task_update is a single UPDATE whose WHERE clause keeps terminal states
 * final (PostgreSQL re-checks it against a concurrently committed row), and
 * the sweep is a single DELETE ... RETURNING. Nothing is ever half-written:
 * a connection lost in the middle rolls its statement back.
 *
 * The schema is versioned (mcp_schema_version) and migrated forward at open
 * inside one transaction holding an advisory lock, so replicas starting
 * together never migrate twice. Text columns use the "C" collation so that
 * task ids sort by bytes, as in the memory and SQLite backends.
 */
#include "store/pg_batch.h"
#include "store/pg_pool.h"
#include "store/store_internal.h"
#include "store/task_changes.h"
#include "store/task_rerun.h"
#include "store/task_watch_postgres.h"
#include "util/clock.h"
#include "util/hex.h"
#include "util/rand.h"
#include "util/thread.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TASK_COLS                                                              \
  "scope, task_id, owner, session, tool, status, status_message, created_ms,"  \
  " updated_ms, ttl_ms, poll_interval_ms, result, error"
/* A task's change, made only while it is not terminal ($1 scope, $2 id,
 * $3 status, $4 message, $5 time, $6 result, $7 error: NULL keeps). */
#define TASK_CAS                                                               \
  "UPDATE mcp_tasks SET status = $3, status_message = $4,"                     \
  " updated_ms = $5::bigint, result = COALESCE($6, result),"                   \
  " error = COALESCE($7, error) WHERE scope = $1 AND task_id = $2"             \
  " AND status IN ('working', 'input_required')"

enum {
  S_PUT,
  S_GET,
  S_UPDATE,
  S_STATUS,
  S_LIST,
  S_DELETE,
  S_SWEEP,
  S_RENEW,
  S_EXPIRE,
  S_SECRET,
  S_CLAIM,
  S_HAND_OVER,
  S_UPDATE_ROW,
  S_COUNT
};

/* The statusMessage of a lost task: $2, or $5 for a re-runnable one. */
#define MESSAGE "(CASE WHEN t.request IS NULL THEN $2::text ELSE $5::text END)"

static const mcp__pg_stmt stmts[S_COUNT] = {
    [S_PUT] = {"mcp_task_put",
               "INSERT INTO mcp_tasks (" TASK_COLS ", lease_holder,"
               " lease_until_ms, request) VALUES ($1,$2,$3,$4,$5,$6,$7,"
               "$8::bigint,$9::bigint,$10::bigint,$11::bigint,$12,$13,$14,"
               " mcp_now_ms() + $15::bigint, $16)"
               " ON CONFLICT DO NOTHING",
               16},
    [S_GET] = {"mcp_task_get",
               "SELECT " TASK_COLS " FROM mcp_tasks"
               " WHERE scope = $1 AND task_id = $2",
               2},
    /* The compare-and-set (TASK_CAS): the row changes only while it is not
     * terminal. The outer SELECT sees the row as it was before the
     * statement. */
    [S_UPDATE] = {"mcp_task_update",
                  "WITH u AS (" TASK_CAS " RETURNING 1)"
                  " SELECT (SELECT count(*) FROM u)",
                  7},
    /* The same, answering the row as it is after the change (no row:
     * nothing changed). */
    [S_UPDATE_ROW] = {"mcp_task_update_row", TASK_CAS " RETURNING " TASK_COLS,
                      7},
    [S_STATUS] = {"mcp_task_status",
                  "SELECT status FROM mcp_tasks"
                  " WHERE scope = $1 AND task_id = $2",
                  2},
    /* One statement for every filter: a NULL parameter disables its test;
     * LIMIT NULL is no limit. */
    [S_LIST] = {"mcp_task_list",
                "SELECT " TASK_COLS " FROM mcp_tasks WHERE scope = $1"
                " AND ($2::text IS NULL OR owner = $2::text)"
                " AND ($3::text IS NULL OR session = $3::text)"
                " AND (NOT $4::boolean"
                "      OR status IN ('working', 'input_required'))"
                " AND ($5::bigint <= 0 OR created_ms < $5::bigint)"
                " AND ($7::text IS NULL OR created_ms > $6::bigint"
                "      OR (created_ms = $6::bigint AND task_id > $7::text))"
                " ORDER BY created_ms, task_id LIMIT $8::bigint",
                8},
    [S_DELETE] = {"mcp_task_delete",
                  "DELETE FROM mcp_tasks WHERE scope = $1 AND task_id = $2", 2},
    /* Statements changing many rows lock them first in (scope, task_id)
     * order, the order of the group commit's batches (pg_batch.h): no two
     * writers ever wait for each other in a cycle (a deadlock, which
     * PostgreSQL breaks by failing one of them). */
    [S_SWEEP] = {"mcp_task_sweep",
                 "DELETE FROM mcp_tasks t USING (SELECT scope, task_id"
                 " FROM mcp_tasks WHERE scope = $1 AND ("
                 " (ttl_ms IS NOT NULL AND created_ms + ttl_ms <= $2::bigint)"
                 " OR (ttl_ms IS NULL AND $3::bigint >= 0"
                 "     AND updated_ms <= $2::bigint - $3::bigint"
                 "     AND status IN ('completed', 'failed', 'cancelled')))"
                 " ORDER BY scope, task_id FOR UPDATE) d"
                 " WHERE t.scope = d.scope AND t.task_id = d.task_id"
                 " RETURNING t.task_id, t.ttl_ms IS NOT NULL",
                 3},
    [S_RENEW] = {"mcp_task_renew",
                 "UPDATE mcp_tasks t SET lease_until_ms = mcp_now_ms() + "
                 "$2::bigint FROM (SELECT scope, task_id FROM mcp_tasks"
                 " WHERE lease_holder = $1"
                 " AND status IN ('working', 'input_required')"
                 " ORDER BY scope, task_id FOR UPDATE) r"
                 " WHERE t.scope = r.scope AND t.task_id = r.task_id",
                 2},
    /* Fails, with an isError result, the active tasks whose lease lapsed;
     * a re-runnable one (request stored) only once its runs are used up or
     * no replica claimed it for $4 ms more (task_rerun.h). */
    [S_EXPIRE] =
        {"mcp_task_expire",
         "UPDATE mcp_tasks t SET status = 'failed', status_message = " MESSAGE
         ", updated_ms = mcp_now_ms(), result = "
         "jsonb_build_object('content', jsonb_build_array("
         "jsonb_build_object('type', 'text', 'text', " MESSAGE
         ")), 'isError', true)::text"
         " FROM (SELECT scope, task_id FROM mcp_tasks"
         " WHERE status IN ('working', 'input_required')"
         " AND lease_until_ms < mcp_now_ms()"
         " AND lease_holder IS DISTINCT FROM $1"
         " AND (request IS NULL OR runs >= $3::integer"
         "      OR lease_until_ms < mcp_now_ms() - $4::bigint)"
         " ORDER BY scope, task_id FOR UPDATE) x"
         " WHERE t.scope = x.scope AND t.task_id = x.task_id"
         " RETURNING t.scope, t.task_id",
         5},
    /* The stored value wins over a concurrent first insert. */
    [S_SECRET] = {"mcp_secret",
                  "WITH i AS (INSERT INTO mcp_secrets VALUES ($1, $2)"
                  " ON CONFLICT DO NOTHING RETURNING value)"
                  " SELECT value FROM i UNION ALL"
                  " SELECT value FROM mcp_secrets WHERE name = $1",
                  2},
    /* Takes over re-runnable tasks of scope $3 whose lease lapsed: the
     * subquery locks each row it returns and skips rows another replica
     * holds; a row another replica claimed meanwhile is re-checked on its
     * new version (its lease no longer lapsed), so exactly one wins. */
    [S_CLAIM] =
        {"mcp_task_claim",
         "UPDATE mcp_tasks t SET lease_holder = $1,"
         " lease_until_ms = mcp_now_ms() + $2::bigint,"
         " runs = t.runs + 1, status = 'working',"
         " status_message = format('%s (run %s of %s)', $4::text,"
         " t.runs + 1, $5::integer), updated_ms = mcp_now_ms()"
         " FROM (SELECT scope, task_id FROM mcp_tasks"
         "  WHERE scope = $3 AND status IN ('working', 'input_required')"
         "  AND request IS NOT NULL AND runs < $5::integer"
         "  AND lease_until_ms < mcp_now_ms()"
         "  AND lease_holder IS DISTINCT FROM $1"
         "  ORDER BY scope, task_id LIMIT 16"
         "  FOR UPDATE SKIP LOCKED) c"
         " WHERE t.scope = c.scope AND t.task_id = c.task_id"
         " RETURNING t.task_id, t.request, t.runs",
         5},
    /* A stopping replica gives up the lease of a re-runnable task it
     * holds: lapsed from now (the grace before a lost task is failed
     * counts from here too) and held by nobody (its own keeper must not
     * renew it before it stops), so another replica's keeper claims it at
     * its next round instead of after a whole lease (task_rerun.h). */
    [S_HAND_OVER] = {"mcp_task_hand_over",
                     "UPDATE mcp_tasks SET lease_until_ms = mcp_now_ms(),"
                     " lease_holder = NULL,"
                     " status_message = $4, updated_ms = mcp_now_ms()"
                     " WHERE scope = $1 AND task_id = $2 AND lease_holder = $3"
                     " AND request IS NOT NULL AND runs < $5::integer"
                     " AND status IN ('working', 'input_required')"
                     " RETURNING task_id",
                     5},
};

#define LOST                                                                   \
  "Lost: the replica running this task stopped (its lease was not renewed "    \
  "in time)"
#define LOST_RERUN                                                             \
  "Lost: the replica running this task stopped (its lease was not renewed "    \
  "in time) and no replica could run it again"
#define RERUNNING                                                              \
  "Running again on another replica: the replica running this task stopped"
#define HANDED_OVER                                                            \
  "Interrupted by a server stop; will resume on another replica or at the "    \
  "next start"
#define LEASE_DEFAULT_MS 10000

typedef struct pgstore {
  mcp__pg_pool *pool;   /* reads, leases, secrets */
  mcp__pg_batch *batch; /* task writes: group commit (pg_batch.c) */
  char holder[64];      /* this process's name in lease_holder */
  pthread_mutex_t lock;
  pthread_cond_t wake; /* CLOCK_MONOTONIC */
  bool stopping;
  int64_t lease_ms;
  pthread_t keeper;
  bool has_keeper;
  /* task_rerun.h: who takes over re-runnable tasks (claim_lock held while
   * the keeper claims and calls fn) */
  pthread_mutex_t claim_lock;
  mcp__task_claim_fn claim_fn;
  void *claim_ud;
  char *claim_scope;
  /* task_changes.h: made on first use (watch_lock) */
  pthread_mutex_t watch_lock;
  mcp__pg_watch *watch;
} pgstore;

static char *dup_value(PGresult *r, int row, int col, bool *ok) {
  if (PQgetisnull(r, row, col))
    return NULL;
  char *copy = strdup(PQgetvalue(r, row, col));
  if (copy == NULL)
    *ok = false;
  return copy;
}

static int64_t int_value(PGresult *r, int row, int col, int64_t if_null) {
  if (PQgetisnull(r, row, col))
    return if_null;
  return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

/* Reads the 13 task columns of row. */
static bool read_row(PGresult *r, int row, mcp_task_record *t) {
  bool ok = true;
  memset(t, 0, sizeof *t);
  t->scope = dup_value(r, row, 0, &ok);
  t->task_id = dup_value(r, row, 1, &ok);
  t->owner = dup_value(r, row, 2, &ok);
  t->session = dup_value(r, row, 3, &ok);
  t->tool = dup_value(r, row, 4, &ok);
  if (PQgetisnull(r, row, 5) ||
      mcp_task_status_parse(PQgetvalue(r, row, 5), &t->status) != MCP_OK)
    t->status = MCP_TASK_FAILED; /* a foreign value: never resurrect it */
  t->status_message = dup_value(r, row, 6, &ok);
  t->created_ms = int_value(r, row, 7, 0);
  t->updated_ms = int_value(r, row, 8, 0);
  t->ttl_ms = int_value(r, row, 9, -1);
  t->poll_interval_ms = int_value(r, row, 10, -1);
  t->result = dup_value(r, row, 11, &ok);
  t->error = dup_value(r, row, 12, &ok);
  if (!ok || t->scope == NULL || t->task_id == NULL) {
    mcp_task_record_clear(t);
    return false;
  }
  return true;
}

/* Decimal text of v, or NULL (SQL NULL) when v < 0 and opt. */
static const char *ms_text(char *buf, int64_t v, bool opt) {
  if (opt && v < 0)
    return NULL;
  snprintf(buf, 24, "%" PRId64, v);
  return buf;
}

static mcp_status put_task(pgstore *q, const mcp_task_record *t,
                           const char *request, mcp_error_t *err) {
  char b[5][24];
  pthread_mutex_lock(&q->lock);
  int64_t lease = q->lease_ms;
  pthread_mutex_unlock(&q->lock);
  const char *v[16] = {t->scope,
                       t->task_id,
                       t->owner,
                       t->session,
                       t->tool,
                       mcp_task_status_name(t->status),
                       t->status_message,
                       ms_text(b[0], t->created_ms, false),
                       ms_text(b[1], t->updated_ms, false),
                       ms_text(b[2], t->ttl_ms, true),
                       ms_text(b[3], t->poll_interval_ms, true),
                       t->result,
                       t->error,
                       q->holder,
                       ms_text(b[4], lease, false),
                       request};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_batch_exec(q->batch, &stmts[S_PUT], v, &r, err);
  if (st != MCP_OK)
    return st;
  if (strcmp(PQcmdTuples(r), "0") == 0)
    st = mcp_error_set(err, MCP_ERR_EXISTS, "task id already exists");
  PQclear(r);
  return st;
}

static mcp_status pg_put(void *impl, const mcp_task_record *t,
                         mcp_error_t *err) {
  return put_task(impl, t, NULL, err);
}

static mcp_status pg_get(void *impl, const char *scope, const char *id,
                         mcp_task_record *out, mcp_error_t *err) {
  pgstore *q = impl;
  const char *v[2] = {scope, id};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_exec(q->pool, &stmts[S_GET], v, true, &r, err);
  if (st != MCP_OK)
    return st;
  if (PQntuples(r) == 0)
    st = mcp_error_set(err, MCP_ERR_NOT_FOUND, "task not found");
  else if (!read_row(r, 0, out))
    st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  PQclear(r);
  return st;
}

/* task_update; with row, the record after the change in *row (one
 * statement instead of an update and a read). */
static mcp_status update_task(pgstore *q, const mcp_task_record *t,
                              mcp_task_status *current, mcp_task_record *row,
                              mcp_error_t *err) {
  char b[24];
  const char *v[7] = {t->scope,
                      t->task_id,
                      mcp_task_status_name(t->status),
                      t->status_message,
                      ms_text(b, t->updated_ms, false),
                      t->result,
                      t->error};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_batch_exec(
      q->batch, &stmts[row ? S_UPDATE_ROW : S_UPDATE], v, &r, err);
  if (st != MCP_OK)
    return st;
  bool changed =
      row ? PQntuples(r) == 1
          : PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "1") == 0;
  if (changed && row && !read_row(r, 0, row))
    memset(row, 0, sizeof *row); /* changed, but no copy to show */
  PQclear(r);
  if (changed) {
    if (current)
      *current = t->status;
    return MCP_OK;
  }
  /* Tell "absent" from "terminal": terminal is final, so what this reads
   * is what made the update fail (or the task is gone). */
  st = mcp__pg_exec(q->pool, &stmts[S_STATUS], v, true, &r, err);
  if (st != MCP_OK)
    return st;
  if (PQntuples(r) == 0) {
    st = mcp_error_set(err, MCP_ERR_NOT_FOUND, "task not found");
  } else {
    mcp_task_status cur = MCP_TASK_FAILED;
    mcp_task_status_parse(PQgetvalue(r, 0, 0), &cur);
    if (current)
      *current = cur;
    st = mcp_error_set(err, MCP_ERR_STATE,
                       "task is already in a terminal status");
  }
  PQclear(r);
  return st;
}

static mcp_status pg_update(void *impl, const mcp_task_record *t,
                            mcp_task_status *current, mcp_error_t *err) {
  return update_task(impl, t, current, NULL, err);
}

static mcp_status pg_list(void *impl, const char *scope,
                          const mcp_task_filter *f, size_t limit,
                          mcp_task_visit_fn fn, void *ud, mcp_error_t *err) {
  pgstore *q = impl;
  char before[24], after[24], lim[24];
  const char *v[8] = {scope,
                      f->owner,
                      f->session,
                      f->active_only ? "t" : "f",
                      ms_text(before, f->created_before_ms, false),
                      ms_text(after, f->after_created_ms, false),
                      f->after_id,
                      limit > 0 ? ms_text(lim, (int64_t)limit, false) : NULL};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_exec(q->pool, &stmts[S_LIST], v, true, &r, err);
  if (st != MCP_OK)
    return st;
  /* The connection is back in the pool: a visitor may call the store. */
  int n = PQntuples(r);
  for (int i = 0; i < n; i++) {
    mcp_task_record t;
    if (!read_row(r, i, &t)) {
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
      break;
    }
    bool go = fn(&t, ud);
    mcp_task_record_clear(&t);
    if (!go)
      break;
  }
  PQclear(r);
  return st;
}

static mcp_status pg_delete(void *impl, const char *scope, const char *id,
                            mcp_error_t *err) {
  pgstore *q = impl;
  const char *v[2] = {scope, id};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_batch_exec(q->batch, &stmts[S_DELETE], v, &r, err);
  if (st != MCP_OK)
    return st;
  if (strcmp(PQcmdTuples(r), "0") == 0)
    st = mcp_error_set(err, MCP_ERR_NOT_FOUND, "task not found");
  PQclear(r);
  return st;
}

static mcp_status pg_sweep(void *impl, const char *scope, int64_t now_ms,
                           int64_t retention_ms, mcp_task_removed_fn fn,
                           void *ud, mcp_error_t *err) {
  pgstore *q = impl;
  char now[24], keep[24];
  const char *v[3] = {scope, ms_text(now, now_ms, false),
                      ms_text(keep, retention_ms, false)};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_exec(q->pool, &stmts[S_SWEEP], v, false, &r, err);
  if (st != MCP_OK)
    return st;
  int n = PQntuples(r);
  for (int i = 0; fn && i < n; i++)
    fn(PQgetvalue(r, i, 0),
       strcmp(PQgetvalue(r, i, 1), "t") == 0 ? "expired" : "retention", ud);
  PQclear(r);
  return MCP_OK;
}

/* Claims the lapsed re-runnable tasks of the registered scope and hands
 * each to the registered engine (task_rerun.h). */
static void claim(pgstore *q, int64_t lease) {
  pthread_mutex_lock(&q->claim_lock);
  if (q->claim_fn != NULL) {
    char ms[24], runs[24];
    const char *v[5] = {q->holder, ms_text(ms, lease, false), q->claim_scope,
                        RERUNNING, ms_text(runs, MCP__TASK_RUNS_MAX, false)};
    PGresult *r = NULL;
    if (mcp__pg_exec(q->pool, &stmts[S_CLAIM], v, false, &r, NULL) == MCP_OK) {
      for (int i = 0; i < PQntuples(r); i++)
        q->claim_fn(q->claim_ud, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1),
                    (int)int_value(r, i, 2, 2));
      PQclear(r);
    }
  }
  pthread_mutex_unlock(&q->claim_lock);
}

/* The lease keeper: renews this process's leases every lease / 3 and,
 * once its own renewals have worked for a whole lease period (so every live
 * replica has had its turn after a database outage), fails the active tasks
 * whose lease lapsed. */
static void *keeper_main(void *arg) {
  pgstore *q = arg;
  int64_t ok_since = mcp__monotonic_ms();
  pthread_mutex_lock(&q->lock);
  while (!q->stopping) {
    int64_t lease = q->lease_ms;
    struct timespec until;
    mcp__deadline_in(CLOCK_MONOTONIC, lease / 3, &until);
    pthread_cond_timedwait(&q->wake, &q->lock, &until);
    if (q->stopping)
      break;
    lease = q->lease_ms;
    pthread_mutex_unlock(&q->lock);
    char ms[24];
    const char *rv[2] = {q->holder, ms_text(ms, lease, false)};
    PGresult *r = NULL;
    if (mcp__pg_exec(q->pool, &stmts[S_RENEW], rv, false, &r, NULL) != MCP_OK) {
      ok_since = -1;
    } else {
      PQclear(r);
      int64_t now = mcp__monotonic_ms();
      if (ok_since < 0)
        ok_since = now;
      if (now - ok_since >= lease)
        claim(q, lease);
      char runs[24], grace[24];
      const char *ev[5] = {q->holder, LOST,
                           ms_text(runs, MCP__TASK_RUNS_MAX, false),
                           ms_text(grace, lease, false), LOST_RERUN};
      if (now - ok_since >= lease && mcp__pg_exec(q->pool, &stmts[S_EXPIRE], ev,
                                                  false, &r, NULL) == MCP_OK)
        PQclear(r);
    }
    pthread_mutex_lock(&q->lock);
  }
  pthread_mutex_unlock(&q->lock);
  return NULL;
}

static void pg_close(void *impl) {
  pgstore *q = impl;
  if (q == NULL)
    return;
  if (q->has_keeper) {
    pthread_mutex_lock(&q->lock);
    q->stopping = true;
    pthread_cond_broadcast(&q->wake);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->keeper, NULL);
  }
  mcp__pg_batch_free(q->batch);
  mcp__pg_watch_free(q->watch);
  pthread_mutex_destroy(&q->watch_lock);
  mcp__pg_pool_free(q->pool);
  free(q->claim_scope);
  pthread_mutex_destroy(&q->claim_lock);
  pthread_cond_destroy(&q->wake);
  pthread_mutex_destroy(&q->lock);
  free(q);
}

static const mcp_store_ops postgres_ops = {
    .version = 1,
    .name = "postgres",
    .task_put = pg_put,
    .task_get = pg_get,
    .task_update = pg_update,
    .task_list = pg_list,
    .task_delete = pg_delete,
    .task_sweep = pg_sweep,
    .close = pg_close,
};

mcp_status mcp_store_postgres_open(const char *conninfo, unsigned pool_size,
                                   mcp_store_t **out, mcp_error_t *err) {
  if (out)
    *out = NULL;
  if (conninfo == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no conninfo given");
  pgstore *q = calloc(1, sizeof *q);
  if (q == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  pthread_mutex_init(&q->lock, NULL);
  pthread_mutex_init(&q->claim_lock, NULL);
  pthread_mutex_init(&q->watch_lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&q->wake, &ca);
  pthread_condattr_destroy(&ca);
  q->lease_ms = LEASE_DEFAULT_MS;
  char host[32] = "", uuid[37] = "";
  gethostname(host, sizeof host - 1);
  mcp__random_uuid(uuid);
  snprintf(q->holder, sizeof q->holder, "%.24s:%d:%.8s", host, (int)getpid(),
           uuid);
  mcp_status st = mcp__pg_pool_open(conninfo, pool_size, &q->pool, err);
  if (st == MCP_OK)
    st = mcp__pg_batch_open(conninfo, 0, &q->batch, err);
  if (st != MCP_OK) {
    pg_close(q);
    return st;
  }
  q->has_keeper = mcp__thread_start(&q->keeper, keeper_main, q) == 0;
  if ((st = mcp_store_new(&postgres_ops, q, out)) == MCP_OK)
    mcp_store_set_flags(*out, MCP_STORE_SHARED);
  return st;
}

mcp_status mcp_store_postgres_set_lease(mcp_store_t *store, int64_t lease_ms) {
  if (store == NULL || mcp_store_get_ops(store) != &postgres_ops)
    return MCP_ERR_UNSUPPORTED;
  if (lease_ms < 100)
    return MCP_ERR_INVALID_ARG;
  pgstore *q = mcp_store_impl(store);
  pthread_mutex_lock(&q->lock);
  q->lease_ms = lease_ms;
  pthread_cond_broadcast(&q->wake);
  pthread_mutex_unlock(&q->lock);
  return MCP_OK;
}

bool mcp__store_postgres_task_changes(mcp_store_t *s, uint64_t *token) {
  if (mcp_store_get_ops(s) != &postgres_ops)
    return false;
  pgstore *q = mcp_store_impl(s);
  pthread_mutex_lock(&q->watch_lock);
  if (q->watch == NULL)
    q->watch = mcp__pg_watch_new(mcp__pg_pool_conninfo(q->pool));
  mcp__pg_watch *w = q->watch;
  pthread_mutex_unlock(&q->watch_lock);
  return w != NULL && mcp__pg_watch_token(w, token);
}

mcp__pg_pool *mcp__store_postgres_pool(mcp_store_t *store) {
  if (store == NULL || mcp_store_get_ops(store) != &postgres_ops)
    return NULL;
  return ((pgstore *)mcp_store_impl(store))->pool;
}

mcp_status mcp_store_postgres_shared_secret(mcp_store_t *store,
                                            const char *name,
                                            unsigned char *out, size_t len,
                                            mcp_error_t *err) {
  if (store == NULL || mcp_store_get_ops(store) != &postgres_ops)
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "shared secrets need the postgres store");
  if (name == NULL || out == NULL || len < 16 || len > 64)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "a secret has a name and 16 to 64 bytes");
  pgstore *q = mcp_store_impl(store);
  unsigned char fresh[64];
  char hex[129];
  if (mcp__random_bytes(fresh, len) != MCP_OK)
    return mcp_error_set(err, MCP_ERR_IO, "no random bytes");
  for (size_t i = 0; i < len; i++)
    snprintf(hex + 2 * i, 3, "%02x", fresh[i]);
  const char *v[2] = {name, hex};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_exec(q->pool, &stmts[S_SECRET], v, false, &r, err);
  if (st != MCP_OK)
    return st;
  const char *got = PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
  st = strlen(got) == 2 * len ? MCP_OK : MCP_ERR_STATE;
  for (size_t i = 0; st == MCP_OK && i < len; i++) {
    int hi = mcp__hex_digit((unsigned char)got[2 * i]),
        lo = mcp__hex_digit((unsigned char)got[2 * i + 1]);
    if (hi < 0 || lo < 0)
      st = MCP_ERR_STATE;
    else
      out[i] = (unsigned char)(hi << 4 | lo);
  }
  PQclear(r);
  if (st != MCP_OK)
    mcp_error_set(err, st,
                  "postgres: stored secret '%s' is not %zu bytes of hex", name,
                  len);
  return st;
}

mcp_status mcp__store_set_task_claim(mcp_store_t *s, const char *scope,
                                     mcp__task_claim_fn fn, void *ud) {
  if (s == NULL || mcp_store_get_ops(s) != &postgres_ops)
    return MCP_ERR_UNSUPPORTED;
  pgstore *q = mcp_store_impl(s);
  char *copy = fn && scope ? strdup(scope) : NULL;
  if (fn && copy == NULL)
    return MCP_ERR_NOMEM;
  pthread_mutex_lock(&q->claim_lock); /* waits for a claim in progress */
  free(q->claim_scope);
  q->claim_scope = copy;
  q->claim_fn = copy ? fn : NULL;
  q->claim_ud = copy ? ud : NULL;
  pthread_mutex_unlock(&q->claim_lock);
  return MCP_OK;
}

mcp_status mcp__store_task_put_rerunnable(mcp_store_t *s,
                                          const mcp_task_record *rec,
                                          const char *request,
                                          mcp_error_t *err) {
  if (s == NULL || mcp_store_get_ops(s) != &postgres_ops) {
    mcp_status st = mcp__store_sqlite_put_rerunnable(s, rec, request, err);
    return st == MCP_ERR_UNSUPPORTED ? mcp_store_task_put(s, rec, err) : st;
  }
  if (rec == NULL || rec->scope == NULL || rec->task_id == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "incomplete task record");
  return put_task(mcp_store_impl(s), rec, request, err);
}

mcp_status mcp__store_task_hand_over(mcp_store_t *s, const char *scope,
                                     const char *task_id, mcp_error_t *err) {
  if (s == NULL || mcp_store_get_ops(s) != &postgres_ops)
    return MCP_ERR_UNSUPPORTED;
  pgstore *q = mcp_store_impl(s);
  char runs[24];
  const char *v[5] = {scope, task_id, q->holder, HANDED_OVER,
                      ms_text(runs, MCP__TASK_RUNS_MAX, false)};
  PGresult *r = NULL;
  /* a task write like the others: through the group commit */
  mcp_status st = mcp__pg_batch_exec(q->batch, &stmts[S_HAND_OVER], v, &r, err);
  if (st != MCP_OK)
    return st;
  bool taken = PQntuples(r) == 1;
  PQclear(r);
  return taken ? MCP_OK
               : mcp_error_set(err, MCP_ERR_NOT_FOUND,
                               "task %s cannot be handed over", task_id);
}

bool mcp__store_postgres_batch_stats(mcp_store_t *store,
                                     mcp__pg_batch_counts *out) {
  if (store == NULL || mcp_store_get_ops(store) != &postgres_ops)
    return false;
  mcp__pg_batch_stats(((pgstore *)mcp_store_impl(store))->batch, out);
  return true;
}

mcp_status mcp__store_task_update_get(mcp_store_t *s,
                                      const mcp_task_record *rec,
                                      mcp_task_status *current,
                                      mcp_task_record *out, mcp_error_t *err) {
  if (s != NULL && mcp_store_get_ops(s) == &postgres_ops && rec != NULL &&
      rec->scope != NULL && rec->task_id != NULL &&
      mcp_task_status_name(rec->status) != NULL)
    return update_task(mcp_store_impl(s), rec, current, out, err);
  memset(out, 0, sizeof *out);
  mcp_status st = mcp_store_task_update(s, rec, current, err);
  if (st == MCP_OK &&
      mcp_store_task_get(s, rec->scope, rec->task_id, out, NULL) != MCP_OK)
    memset(out, 0, sizeof *out);
  return st;
}
