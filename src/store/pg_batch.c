/* SPDX-License-Identifier: MIT */
/* pg_batch.c - group commit of task writes (see pg_batch.h).
 *
 * Each writer queues an item on its own stack and waits on its own
 * condition variable; a committer takes up to BATCH_MAX queued items, runs
 * them on its connection as one libpq pipeline
 *   BEGIN; stmt 1; ...; stmt n; COMMIT; Sync
 * (one round trip, one transaction, one WAL flush), then fills in each
 * item's result and wakes its writer. While one transaction commits, the
 * next batch gathers in the queue: no timer, no added latency for a lone
 * writer (a batch of one is one statement in its own transaction, as
 * before). Results are small (a row count, a status), so the pipeline
 * never fills the socket buffers of both sides at once.
 */
#include "store/pg_batch.h"
#include "util/thread.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_MAX          128
#define COMMITTERS_DEFAULT 2

typedef struct item {
  struct item *next;
  const mcp__pg_stmt *s;
  const char *const *values;
  PGresult *res;
  mcp_status st;
  mcp_error_t err;
  bool done;
  pthread_cond_t cv;
} item;

struct mcp__pg_batch {
  mcp__pg_pool *pool; /* one connection per committer */
  pthread_mutex_t lock;
  pthread_cond_t work;
  item *head, *tail;
  bool stopping;
  unsigned nthreads;
  pthread_t *threads;
  unsigned long long transactions, writes, alone;
  unsigned inflight, batches; /* being run by committers */
};

static void fail_all(item **v, size_t n, const mcp_error_t *e) {
  for (size_t i = 0; i < n; i++) {
    PQclear(v[i]->res);
    v[i]->res = NULL;
    v[i]->st = e->status;
    v[i]->err = *e;
  }
}

/* The next result of the pipeline: the query's result, with the NULL that
 * ends it consumed (a Sync has no NULL after it). NULL when the
 * connection has nothing more to say (lost). */
static PGresult *take_result(PGconn *pq) {
  PGresult *r = PQgetResult(pq);
  if (r != NULL && PQresultStatus(r) != PGRES_PIPELINE_SYNC) {
    PGresult *extra;
    while ((extra = PQgetResult(pq)) != NULL)
      PQclear(extra);
  }
  return r;
}

static void message_of(PGconn *pq, PGresult *r, char *out, size_t cap) {
  const char *m = r ? PQresultErrorMessage(r) : "";
  if (m == NULL || *m == '\0')
    m = PQerrorMessage(pq);
  snprintf(out, cap, "%s", m && *m ? m : "no answer from the server");
  size_t len = strlen(out);
  while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
    out[--len] = '\0';
}

/* Runs v[0..n) in one pipelined transaction. MCP_OK: committed, each
 * v[i]->res set. Otherwise nothing is committed; *statement_failed tells
 * a statement the database refused (the connection is fine) from a lost
 * connection or a failed COMMIT. */
static mcp_status pipeline(mcp__pg_conn *c, item **v, size_t n,
                           bool *statement_failed, mcp_error_t *err) {
  PGconn *pq = mcp__pg_conn_handle(c);
  *statement_failed = false;
  char why[200] = "";
  if (!PQenterPipelineMode(pq)) {
    message_of(pq, NULL, why, sizeof why);
    mcp__pg_conn_set_broken(c);
    return mcp_error_set(err, MCP_ERR_IO, "postgres: pipeline: %s", why);
  }
  bool sent = PQsendQueryParams(pq, "BEGIN", 0, NULL, NULL, NULL, NULL, 0);
  for (size_t i = 0; sent && i < n; i++)
    sent = PQsendQueryPrepared(pq, v[i]->s->name, v[i]->s->nparams,
                               v[i]->values, NULL, NULL, 0);
  sent = sent && PQsendQueryParams(pq, "COMMIT", 0, NULL, NULL, NULL, NULL, 0);
  sent = sent && PQpipelineSync(pq);
  if (!sent) {
    message_of(pq, NULL, why, sizeof why);
    mcp__pg_conn_set_broken(c);
    return mcp_error_set(err, MCP_ERR_IO,
                         "postgres: %zu changes not committed (sending: %s)", n,
                         why);
  }
  bool ok = true, lost = false;
  PGresult *r = take_result(pq); /* BEGIN */
  if (r == NULL || PQresultStatus(r) != PGRES_COMMAND_OK) {
    ok = false;
    message_of(pq, r, why, sizeof why);
  }
  lost |= r == NULL;
  PQclear(r);
  for (size_t i = 0; i < n && !lost; i++) {
    r = take_result(pq);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
      v[i]->res = r;
      continue;
    }
    if (ok) { /* the first error names the reason */
      message_of(pq, r, why, sizeof why);
      *statement_failed = s == PGRES_FATAL_ERROR;
    }
    ok = false;
    lost |= r == NULL;
    PQclear(r);
  }
  if (!lost) {
    r = take_result(pq); /* COMMIT */
    if (ok && (r == NULL || PQresultStatus(r) != PGRES_COMMAND_OK ||
               strcmp(PQcmdStatus(r), "COMMIT") != 0)) {
      ok = false;
      *statement_failed = false;
      message_of(pq, r, why, sizeof why);
    }
    lost |= r == NULL;
    PQclear(r);
  }
  if (!lost) {
    r = take_result(pq); /* Sync */
    lost |= r == NULL || PQresultStatus(r) != PGRES_PIPELINE_SYNC;
    PQclear(r);
  }
  if (lost || !PQexitPipelineMode(pq) || PQstatus(pq) != CONNECTION_OK) {
    if (ok || why[0] == '\0')
      message_of(pq, NULL, why, sizeof why);
    mcp__pg_conn_set_broken(c);
    *statement_failed = false;
    ok = false;
  }
  if (ok)
    return MCP_OK;
  if (*statement_failed) {
    PGresult *rb = PQexec(pq, "ROLLBACK");
    if (PQresultStatus(rb) != PGRES_COMMAND_OK) {
      mcp__pg_conn_set_broken(c);
      *statement_failed = false;
    }
    PQclear(rb);
  }
  return mcp_error_set(err, MCP_ERR_IO,
                       "postgres: %zu changes committed together were not "
                       "committed: %s",
                       n, why);
}

/* The row a write names: (values[0], values[1]), compared as the "C"
 * collation does (bytes); a NULL sorts first. */
static int cmp_text(const char *a, const char *b) {
  if (a == NULL || b == NULL)
    return (a != NULL) - (b != NULL);
  return strcmp(a, b);
}

static int cmp_row(const item *a, const item *b) {
  int c = cmp_text(a->values[0], b->values[0]);
  return c ? c : cmp_text(a->values[1], b->values[1]);
}

/* Stable insertion sort by row (n <= BATCH_MAX): the transaction locks
 * rows in the same order as every other multi-row statement of the store
 * (ORDER BY scope, task_id), so two of them never deadlock; writes to one
 * row keep their order of arrival. */
static void sort_by_row(item **v, size_t n) {
  for (size_t i = 1; i < n; i++) {
    item *x = v[i];
    size_t j = i;
    for (; j > 0 && cmp_row(v[j - 1], x) > 0; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

static void run(mcp__pg_batch *b, item **v, size_t n) {
  mcp_error_t err = {0};
  mcp__pg_conn *c = NULL;
  if (mcp__pg_acquire(b->pool, &c, &err) != MCP_OK) {
    fail_all(v, n, &err);
    return;
  }
  bool committed = false;
  if (n == 1) { /* nothing to share: one statement, its own transaction */
    v[0]->st =
        mcp__pg_conn_exec(c, v[0]->s, v[0]->values, &v[0]->res, &v[0]->err);
    committed = v[0]->st == MCP_OK;
  } else {
    mcp_status st = MCP_OK;
    sort_by_row(v, n);
    for (size_t i = 0; i < n && st == MCP_OK; i++)
      st = mcp__pg_conn_prepare(c, v[i]->s, &err);
    bool statement_failed = false;
    if (st == MCP_OK)
      st = pipeline(c, v, n, &statement_failed, &err);
    if (st == MCP_OK) {
      for (size_t i = 0; i < n; i++)
        v[i]->st = MCP_OK;
      committed = true;
    } else if (statement_failed) {
      /* One write the database refuses must not fail the others: each
       * runs again in its own transaction. */
      fail_all(v, n, &err);
      for (size_t i = 0; i < n; i++)
        v[i]->st =
            mcp__pg_conn_exec(c, v[i]->s, v[i]->values, &v[i]->res, &v[i]->err);
      pthread_mutex_lock(&b->lock);
      b->alone += n;
      pthread_mutex_unlock(&b->lock);
    } else {
      fail_all(v, n, &err);
    }
  }
  mcp__pg_release(b->pool, c);
  if (committed) {
    pthread_mutex_lock(&b->lock);
    b->transactions++;
    b->writes += n;
    pthread_mutex_unlock(&b->lock);
  }
}

static void *committer_main(void *arg) {
  mcp__pg_batch *b = arg;
  item *v[BATCH_MAX];
  pthread_mutex_lock(&b->lock);
  for (;;) {
    while (b->head == NULL && !b->stopping)
      pthread_cond_wait(&b->work, &b->lock);
    if (b->head == NULL)
      break; /* stopping, and everything queued is written */
    size_t n = 0;
    while (b->head && n < BATCH_MAX) {
      v[n++] = b->head;
      b->head = b->head->next;
    }
    if (b->head == NULL)
      b->tail = NULL;
    b->inflight += (unsigned)n;
    b->batches++;
    pthread_mutex_unlock(&b->lock);
    run(b, v, n);
    pthread_mutex_lock(&b->lock);
    b->inflight -= (unsigned)n;
    b->batches--;
    for (size_t i = 0; i < n; i++) {
      v[i]->done = true; /* the writer owns v[i] again once unlocked */
      pthread_cond_signal(&v[i]->cv);
    }
  }
  pthread_mutex_unlock(&b->lock);
  return NULL;
}

mcp_status mcp__pg_batch_exec(mcp__pg_batch *b, const mcp__pg_stmt *s,
                              const char *const *values, PGresult **out,
                              mcp_error_t *err) {
  *out = NULL;
  item it;
  memset(&it, 0, sizeof it);
  it.s = s;
  it.values = values;
  pthread_cond_init(&it.cv, NULL);
  pthread_mutex_lock(&b->lock);
  if (b->stopping) {
    pthread_mutex_unlock(&b->lock);
    pthread_cond_destroy(&it.cv);
    return mcp_error_set(err, MCP_ERR_CLOSED, "postgres: the store is closing");
  }
  if (b->tail)
    b->tail->next = &it;
  else
    b->head = &it;
  b->tail = &it;
  pthread_cond_signal(&b->work);
  while (!it.done)
    pthread_cond_wait(&it.cv, &b->lock);
  pthread_mutex_unlock(&b->lock);
  pthread_cond_destroy(&it.cv);
  if (it.st == MCP_OK)
    *out = it.res;
  else if (err)
    *err = it.err;
  return it.st;
}

void mcp__pg_batch_stats(mcp__pg_batch *b, mcp__pg_batch_counts *out) {
  pthread_mutex_lock(&b->lock);
  out->transactions = b->transactions;
  out->writes = b->writes;
  out->alone = b->alone;
  out->inflight = b->inflight;
  out->batches = b->batches;
  out->queued = 0;
  for (item *i = b->head; i; i = i->next)
    out->queued++;
  pthread_mutex_unlock(&b->lock);
}

mcp_status mcp__pg_batch_open(const char *conninfo, unsigned committers,
                              mcp__pg_batch **out, mcp_error_t *err) {
  *out = NULL;
  mcp__pg_batch *b = calloc(1, sizeof *b);
  if (b == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  unsigned n = committers ? committers : COMMITTERS_DEFAULT;
  pthread_mutex_init(&b->lock, NULL);
  pthread_cond_init(&b->work, NULL);
  mcp_status st = mcp__pg_pool_open(conninfo, n, &b->pool, err);
  if (st == MCP_OK && (b->threads = calloc(n, sizeof *b->threads)) == NULL)
    st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  for (; st == MCP_OK && b->nthreads < n; b->nthreads++)
    if (mcp__thread_start(&b->threads[b->nthreads], committer_main, b) != 0)
      break;
  if (st == MCP_OK && b->nthreads == 0)
    st = mcp_error_set(err, MCP_ERR_NOMEM, "cannot start a committer thread");
  if (st != MCP_OK) {
    mcp__pg_batch_free(b);
    return st;
  }
  *out = b;
  return MCP_OK;
}

void mcp__pg_batch_free(mcp__pg_batch *b) {
  if (b == NULL)
    return;
  pthread_mutex_lock(&b->lock);
  b->stopping = true;
  pthread_cond_broadcast(&b->work);
  pthread_mutex_unlock(&b->lock);
  for (unsigned i = 0; i < b->nthreads; i++)
    pthread_join(b->threads[i], NULL);
  free(b->threads);
  mcp__pg_pool_free(b->pool);
  pthread_cond_destroy(&b->work);
  pthread_mutex_destroy(&b->lock);
  free(b);
}
