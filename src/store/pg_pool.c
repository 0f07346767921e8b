/* SPDX-License-Identifier: MIT */
/* pg_pool.c - the connection pool of the PostgreSQL backends: one
 * connection per thread at a time, statements prepared on first use per
 * connection, dead connections replaced before use, reconnection with
 * backoff while the database is away (callers then get MCP_ERR_IO at once,
 * never a hang or a crash). */
#include "store/pg_pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

#define MAX_PREPARED     64
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   5000

struct mcp__pg_conn {
  PGconn *conn;
  bool busy;
  bool broken; /* found dead while in use: closed at release */
  unsigned nprepared;
  const mcp__pg_stmt *prepared[MAX_PREPARED];
};

struct mcp__pg_pool {
  pthread_mutex_t lock;
  pthread_cond_t freed;
  unsigned refs;
  char *conninfo;
  unsigned n;
  mcp__pg_conn *conns;
  int64_t retry_at_ms; /* no new connection before this (backoff) */
  int64_t backoff_ms;
  char why[256]; /* the last connection failure */
};

/* Copies PQ's message without its trailing newline. */
static void trimmed(char *dst, size_t cap, const char *msg) {
  snprintf(dst, cap, "%s", msg ? msg : "unknown error");
  size_t n = strlen(dst);
  while (n > 0 && (dst[n - 1] == '\n' || dst[n - 1] == ' '))
    dst[--n] = '\0';
}

static mcp_status conn_error(mcp_error_t *err, const char *what,
                             const char *msg) {
  char m[256];
  trimmed(m, sizeof m, msg);
  return mcp_error_set(err, MCP_ERR_IO, "postgres: %s: %s", what, m);
}

/* True when c can take a statement now: connected, idle, and no message
 * of the server (a termination notice after a restart) says otherwise. */
static bool healthy(PGconn *c) {
  return c && PQstatus(c) == CONNECTION_OK && PQconsumeInput(c) &&
         PQstatus(c) == CONNECTION_OK &&
         PQtransactionStatus(c) == PQTRANS_IDLE && !PQisBusy(c);
}

static void quiet(void *arg, const char *message) {
  (void)arg;
  (void)message;
}

static PGconn *connect_db(mcp__pg_pool *p, mcp_error_t *err) {
  int64_t now = mcp__monotonic_ms();
  pthread_mutex_lock(&p->lock);
  if (now < p->retry_at_ms) {
    char why[256];
    memcpy(why, p->why, sizeof why);
    int64_t wait = p->retry_at_ms - now;
    pthread_mutex_unlock(&p->lock);
    mcp_error_set(err, MCP_ERR_IO,
                  "postgres: database unavailable (%s); next attempt in %lld "
                  "ms",
                  why, (long long)wait);
    return NULL;
  }
  pthread_mutex_unlock(&p->lock);
  PGconn *c = PQconnectdb(p->conninfo);
  if (c && PQstatus(c) == CONNECTION_OK) {
    PQsetNoticeProcessor(c, quiet, NULL); /* "already exists, skipping" */
    pthread_mutex_lock(&p->lock);
    p->backoff_ms = 0;
    p->retry_at_ms = 0;
    pthread_mutex_unlock(&p->lock);
    return c;
  }
  pthread_mutex_lock(&p->lock);
  p->backoff_ms = p->backoff_ms ? p->backoff_ms * 2 : BACKOFF_FIRST_MS;
  if (p->backoff_ms > BACKOFF_MAX_MS)
    p->backoff_ms = BACKOFF_MAX_MS;
  p->retry_at_ms = mcp__monotonic_ms() + p->backoff_ms;
  trimmed(p->why, sizeof p->why, c ? PQerrorMessage(c) : "out of memory");
  pthread_mutex_unlock(&p->lock);
  conn_error(err, "cannot connect", c ? PQerrorMessage(c) : "out of memory");
  PQfinish(c);
  return NULL;
}

mcp_status mcp__pg_acquire(mcp__pg_pool *p, mcp__pg_conn **out,
                           mcp_error_t *err) {
  mcp_error_t local;
  if (err == NULL)
    err = &local;
  *out = NULL;
  pthread_mutex_lock(&p->lock);
  mcp__pg_conn *c = NULL;
  for (;;) {
    for (unsigned i = 0; i < p->n && c == NULL; i++)
      if (!p->conns[i].busy)
        c = &p->conns[i];
    if (c)
      break;
    pthread_cond_wait(&p->freed, &p->lock);
  }
  c->busy = true;
  c->broken = false;
  pthread_mutex_unlock(&p->lock);
  if (!healthy(c->conn)) {
    PQfinish(c->conn);
    c->conn = NULL;
    c->nprepared = 0;
    if ((c->conn = connect_db(p, err)) == NULL) {
      mcp__pg_release(p, c);
      return err->status;
    }
  }
  *out = c;
  return MCP_OK;
}

void mcp__pg_release(mcp__pg_pool *p, mcp__pg_conn *c) {
  if (c == NULL)
    return;
  if (c->conn && !c->broken && PQstatus(c->conn) == CONNECTION_OK &&
      PQtransactionStatus(c->conn) != PQTRANS_IDLE) {
    PGresult *r = PQexec(c->conn, "ROLLBACK");
    PQclear(r);
  }
  if (c->conn && (c->broken || PQstatus(c->conn) != CONNECTION_OK ||
                  PQtransactionStatus(c->conn) != PQTRANS_IDLE)) {
    PQfinish(c->conn);
    c->conn = NULL;
    c->nprepared = 0;
  }
  pthread_mutex_lock(&p->lock);
  c->busy = false;
  pthread_cond_signal(&p->freed);
  pthread_mutex_unlock(&p->lock);
}

/* Takes r: MCP_OK when it succeeded, else the error (and r is cleared). */
static mcp_status check(mcp__pg_conn *c, PGresult *r, const char *what,
                        mcp_error_t *err) {
  ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
    return MCP_OK;
  if (PQstatus(c->conn) != CONNECTION_OK)
    c->broken = true;
  mcp_status st = conn_error(
      err, what, r ? PQresultErrorMessage(r) : PQerrorMessage(c->conn));
  PQclear(r);
  return st;
}

mcp_status mcp__pg_conn_prepare(mcp__pg_conn *c, const mcp__pg_stmt *s,
                                mcp_error_t *err) {
  for (unsigned i = 0; i < c->nprepared; i++)
    if (c->prepared[i] == s)
      return MCP_OK;
  PGresult *r = PQprepare(c->conn, s->name, s->sql, s->nparams, NULL);
  mcp_status st = check(c, r, s->name, err);
  if (st != MCP_OK)
    return st;
  PQclear(r);
  if (c->nprepared < MAX_PREPARED)
    c->prepared[c->nprepared++] = s;
  return MCP_OK;
}

PGconn *mcp__pg_conn_handle(mcp__pg_conn *c) {
  return c->conn;
}

void mcp__pg_conn_set_broken(mcp__pg_conn *c) {
  c->broken = true;
}

mcp_status mcp__pg_conn_exec(mcp__pg_conn *c, const mcp__pg_stmt *s,
                             const char *const *values, PGresult **out,
                             mcp_error_t *err) {
  *out = NULL;
  mcp_status pst = mcp__pg_conn_prepare(c, s, err);
  if (pst != MCP_OK)
    return pst;
  PGresult *r =
      PQexecPrepared(c->conn, s->name, s->nparams, values, NULL, NULL, 0);
  mcp_status st = check(c, r, s->name, err);
  if (st == MCP_OK)
    *out = r;
  return st;
}

mcp_status mcp__pg_conn_simple(mcp__pg_conn *c, const char *sql,
                               mcp_error_t *err) {
  PGresult *r = PQexec(c->conn, sql);
  mcp_status st = check(c, r, sql, err);
  if (st == MCP_OK)
    PQclear(r);
  return st;
}

mcp_status mcp__pg_exec(mcp__pg_pool *p, const mcp__pg_stmt *s,
                        const char *const *values, bool retry, PGresult **out,
                        mcp_error_t *err) {
  *out = NULL;
  for (int attempt = 0;; attempt++) {
    mcp__pg_conn *c = NULL;
    mcp_status st = mcp__pg_acquire(p, &c, err);
    if (st != MCP_OK)
      return st;
    st = mcp__pg_conn_exec(c, s, values, out, err);
    bool broken = c->broken;
    mcp__pg_release(p, c);
    if (st == MCP_OK || !broken || !retry || attempt > 0)
      return st;
  }
}

mcp_status mcp__pg_pool_open(const char *conninfo, unsigned size,
                             mcp__pg_pool **out, mcp_error_t *err) {
  *out = NULL;
  mcp_status loaded = mcp__pq_require(err); /* libpq is loaded now */
  if (loaded != MCP_OK)
    return loaded;
  mcp__pg_pool *p = calloc(1, sizeof *p);
  if (p == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  p->n = size ? size : 4;
  p->refs = 1;
  p->conninfo = strdup(conninfo);
  p->conns = calloc(p->n, sizeof *p->conns);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->freed, NULL);
  if (p->conninfo == NULL || p->conns == NULL) {
    mcp__pg_pool_free(p);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  mcp__pg_conn *c = NULL;
  mcp_status st = mcp__pg_acquire(p, &c, err);
  if (st == MCP_OK) {
    st = mcp__pg_migrate(c->conn, err);
    mcp__pg_release(p, c);
  }
  if (st != MCP_OK) {
    mcp__pg_pool_free(p);
    return st;
  }
  *out = p;
  return MCP_OK;
}

mcp__pg_pool *mcp__pg_pool_ref(mcp__pg_pool *p) {
  pthread_mutex_lock(&p->lock);
  p->refs++;
  pthread_mutex_unlock(&p->lock);
  return p;
}

void mcp__pg_pool_free(mcp__pg_pool *p) {
  if (p == NULL)
    return;
  pthread_mutex_lock(&p->lock);
  unsigned left = --p->refs;
  pthread_mutex_unlock(&p->lock);
  if (left > 0)
    return;
  for (unsigned i = 0; p->conns && i < p->n; i++)
    PQfinish(p->conns[i].conn);
  free(p->conns);
  free(p->conninfo);
  pthread_cond_destroy(&p->freed);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

const char *mcp__pg_pool_conninfo(const mcp__pg_pool *p) {
  return p->conninfo;
}
