/* SPDX-License-Identifier: MIT */
/* pg_pool.c - the connection pool of the PostgreSQL backends: one
 * connection per thread at a time, statements prepared on first use per
 * connection, dead connections replaced before use, reconnection with
 * backoff while the database is away (callers then get MCP_ERR_IO at once,
 * never a hang or a crash), and a deadline for callers that ask for one: the
 * statements then go out with libpq's asynchronous calls and the pool polls
 * the socket until the deadline. */
#include "store/pg_pool.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
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
  /* the server said FATAL while the connection was idle: it is going away
   * (a restart's "terminating connection due to administrator command")
   * although libpq may not have read the end of the stream yet */
  bool server_ended;
  unsigned nprepared;
  const mcp__pg_stmt *prepared[MAX_PREPARED];
  /* while acquired with a deadline (monotonic ms, 0: none): every
   * statement on the connection ends by then, budget_ms is what the caller
   * gave (for the message) */
  int64_t deadline_ms;
  int64_t budget_ms;
};

struct mcp__pg_pool {
  pthread_mutex_t lock;
  pthread_cond_t freed; /* CLOCK_MONOTONIC: waits with a deadline */
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
 * of the server says otherwise. After a restart the server's termination
 * notice and the end of the stream arrive together, but one read may take
 * only the notice (libpq then passes it to on_notice and still reports
 * CONNECTION_OK): hence the flag, checked after the input is parsed. */
static bool healthy(mcp__pg_conn *slot) {
  PGconn *c = slot->conn;
  return c && !slot->server_ended && PQstatus(c) == CONNECTION_OK &&
         PQconsumeInput(c) && PQstatus(c) == CONNECTION_OK &&
         PQtransactionStatus(c) == PQTRANS_IDLE && !PQisBusy(c) &&
         !slot->server_ended;
}

/* Notices are not shown ("already exists, skipping"); a FATAL or PANIC
 * one reaching an idle connection marks it for replacement. */
static void on_notice(void *arg, const PGresult *r) {
  mcp__pg_conn *c = arg;
  const char *severity = PQresultErrorField(r, PG_DIAG_SEVERITY_NONLOCALIZED);
  if (severity != NULL &&
      (strcmp(severity, "FATAL") == 0 || strcmp(severity, "PANIC") == 0))
    c->server_ended = true;
}

/* Waits until fd is ready for events or the deadline (monotonic ms)
 * passes: 1 ready, 0 deadline passed, -1 poll failed. */
static int wait_socket(int fd, short events, int64_t deadline_ms) {
  for (;;) {
    int64_t left = deadline_ms - mcp__monotonic_ms();
    if (left <= 0)
      return 0;
    struct pollfd pfd = {.fd = fd, .events = events};
    int n = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
    if (n > 0)
      return 1;
    if (n < 0 && errno != EINTR)
      return -1;
  }
}

/* PQconnectdb, but given up at deadline_ms (0: none). A server that
 * accepts the connection and then says nothing (paused, or behind a
 * network black hole) would hold PQconnectdb for ever; libpq's
 * connect_timeout is at least 2 s per address and the caller's budget
 * may be shorter. *timed_out tells why a NULL came back. */
static PGconn *connect_until(const char *conninfo, int64_t deadline_ms,
                             bool *timed_out) {
  *timed_out = false;
  if (deadline_ms == 0)
    return PQconnectdb(conninfo);
  PGconn *c = PQconnectStart(conninfo);
  if (c == NULL || PQstatus(c) == CONNECTION_BAD)
    return c;
  PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
  while (ps != PGRES_POLLING_OK && ps != PGRES_POLLING_FAILED) {
    int w = wait_socket(PQsocket(c),
                        ps == PGRES_POLLING_READING ? POLLIN : POLLOUT,
                        deadline_ms);
    if (w <= 0) {
      *timed_out = w == 0;
      break;
    }
    ps = PQconnectPoll(c);
  }
  return c;
}

static PGconn *connect_db(mcp__pg_pool *p, mcp__pg_conn *slot,
                          mcp_error_t *err) {
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
  bool timed_out;
  PGconn *c = connect_until(p->conninfo, slot->deadline_ms, &timed_out);
  if (c && !timed_out && PQstatus(c) == CONNECTION_OK) {
    PQsetNoticeReceiver(c, on_notice, slot);
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
  char why[256];
  if (timed_out)
    snprintf(why, sizeof why, "no answer within %lld ms",
             (long long)slot->budget_ms);
  else
    trimmed(why, sizeof why, c ? PQerrorMessage(c) : "out of memory");
  memcpy(p->why, why, sizeof why);
  pthread_mutex_unlock(&p->lock);
  mcp_error_set(err, timed_out ? MCP_ERR_TIMEOUT : MCP_ERR_IO,
                "postgres: cannot connect: %s", why);
  PQfinish(c);
  return NULL;
}

/* Closes c's connection without waiting for the server: the goodbye goes
 * out only if the socket takes it at once. */
static void close_conn(mcp__pg_conn *c) {
  if (c->conn)
    PQsetnonblocking(c->conn, 1);
  PQfinish(c->conn);
  c->conn = NULL;
  c->nprepared = 0;
}

/* Takes a free connection, waiting until deadline_ms (0: for ever). */
static mcp_status acquire_until(mcp__pg_pool *p, int64_t deadline_ms,
                                int64_t budget_ms, mcp__pg_conn **out,
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
    if (deadline_ms == 0) {
      pthread_cond_wait(&p->freed, &p->lock);
      continue;
    }
    int64_t left = deadline_ms - mcp__monotonic_ms();
    if (left <= 0) {
      unsigned n = p->n;
      pthread_mutex_unlock(&p->lock);
      return mcp_error_set(err, MCP_ERR_TIMEOUT,
                           "postgres: no free connection within %lld ms (all "
                           "%u in use)",
                           (long long)budget_ms, n);
    }
    struct timespec until;
    mcp__deadline_in(CLOCK_MONOTONIC, left, &until);
    pthread_cond_timedwait(&p->freed, &p->lock, &until);
  }
  c->busy = true;
  c->broken = false;
  c->deadline_ms = deadline_ms;
  c->budget_ms = budget_ms;
  pthread_mutex_unlock(&p->lock);
  if (!healthy(c)) {
    close_conn(c);
    c->server_ended = false;
    if ((c->conn = connect_db(p, c, err)) == NULL) {
      mcp__pg_release(p, c);
      return err->status;
    }
  }
  /* with a deadline nothing may wait for the socket inside libpq, not even
   * a send (a server that stopped reading fills the buffer) */
  if (deadline_ms != 0 && PQsetnonblocking(c->conn, 1) != 0) {
    mcp_status st = conn_error(err, "nonblocking mode",
                               PQerrorMessage(c->conn));
    c->broken = true;
    mcp__pg_release(p, c);
    return st;
  }
  *out = c;
  return MCP_OK;
}

mcp_status mcp__pg_acquire(mcp__pg_pool *p, mcp__pg_conn **out,
                           mcp_error_t *err) {
  return acquire_until(p, 0, 0, out, err);
}

/* The monotonic deadline timeout_ms from now (0 or less: none). */
static int64_t deadline_after(int64_t timeout_ms) {
  return timeout_ms > 0 ? mcp__monotonic_ms() + timeout_ms : 0;
}

void mcp__pg_release(mcp__pg_pool *p, mcp__pg_conn *c) {
  if (c == NULL)
    return;
  if (c->conn && !c->broken && PQstatus(c->conn) == CONNECTION_OK &&
      PQtransactionStatus(c->conn) != PQTRANS_IDLE)
    mcp__pg_conn_simple(c, "ROLLBACK", NULL); /* by c's deadline if any */
  if (c->conn && (c->broken || PQstatus(c->conn) != CONNECTION_OK ||
                  PQtransactionStatus(c->conn) != PQTRANS_IDLE))
    close_conn(c); /* a timed-out one too: never reused half-read */
  else if (c->conn && c->deadline_ms != 0 &&
           PQsetnonblocking(c->conn, 0) != 0)
    close_conn(c);
  c->deadline_ms = 0;
  c->budget_ms = 0;
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

/* c's deadline passed with a statement under way: the connection is
 * closed at release, never reused with an answer half read. No
 * cancellation is sent: PQcancel connects to the server and waits for it
 * without a bound of its own (libpq before 17), so it could hold the
 * caller as long as the statement did. The server ends the session when
 * it finds the connection gone; a statement it was running may have taken
 * effect by then, as after any answer lost on the way. */
static mcp_status timed_out(mcp__pg_conn *c, const char *what,
                            mcp_error_t *err) {
  c->broken = true;
  return mcp_error_set(err, MCP_ERR_TIMEOUT,
                       "postgres: %s: no answer within %lld ms (connection "
                       "closed)",
                       what, (long long)c->budget_ms);
}

/* The result of a statement sent with PQsend* (sent: its return) by c's
 * deadline, as PQexec would give it: the last result, or the first error.
 * On MCP_OK *out is for check(). */
static mcp_status bounded_result(mcp__pg_conn *c, int sent, const char *what,
                                 PGresult **out, mcp_error_t *err) {
  *out = NULL;
  if (!sent)
    return check(c, NULL, what, err);
  int flushed;
  while ((flushed = PQflush(c->conn)) != 0) {
    int w = flushed < 0 ? -1
                        : wait_socket(PQsocket(c->conn), POLLIN | POLLOUT,
                                      c->deadline_ms);
    if (w == 0)
      return timed_out(c, what, err);
    if (w < 0 || !PQconsumeInput(c->conn)) {
      c->broken = true;
      return check(c, NULL, what, err);
    }
  }
  PGresult *kept = NULL;
  for (;;) {
    while (PQisBusy(c->conn)) {
      int w = wait_socket(PQsocket(c->conn), POLLIN, c->deadline_ms);
      if (w == 0 || w < 0 || !PQconsumeInput(c->conn)) {
        PQclear(kept);
        if (w == 0)
          return timed_out(c, what, err);
        c->broken = true;
        return check(c, NULL, what, err);
      }
    }
    PGresult *r = PQgetResult(c->conn);
    if (r == NULL)
      break;
    if (kept && PQresultStatus(kept) == PGRES_FATAL_ERROR) {
      PQclear(r);
    } else {
      PQclear(kept);
      kept = r;
    }
  }
  *out = kept;
  return MCP_OK;
}

mcp_status mcp__pg_conn_prepare(mcp__pg_conn *c, const mcp__pg_stmt *s,
                                mcp_error_t *err) {
  for (unsigned i = 0; i < c->nprepared; i++)
    if (c->prepared[i] == s)
      return MCP_OK;
  PGresult *r = NULL;
  if (c->deadline_ms == 0) {
    r = PQprepare(c->conn, s->name, s->sql, s->nparams, NULL);
  } else {
    mcp_status sent = bounded_result(
        c, PQsendPrepare(c->conn, s->name, s->sql, s->nparams, NULL), s->name,
        &r, err);
    if (sent != MCP_OK)
      return sent;
  }
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
  PGresult *r = NULL;
  if (c->deadline_ms == 0) {
    r = PQexecPrepared(c->conn, s->name, s->nparams, values, NULL, NULL, 0);
  } else {
    mcp_status sent = bounded_result(
        c,
        PQsendQueryPrepared(c->conn, s->name, s->nparams, values, NULL, NULL,
                            0),
        s->name, &r, err);
    if (sent != MCP_OK)
      return sent;
  }
  mcp_status st = check(c, r, s->name, err);
  if (st == MCP_OK)
    *out = r;
  return st;
}

mcp_status mcp__pg_conn_simple(mcp__pg_conn *c, const char *sql,
                               mcp_error_t *err) {
  PGresult *r = NULL;
  if (c->deadline_ms == 0) {
    r = PQexec(c->conn, sql);
  } else {
    mcp_status sent =
        bounded_result(c, PQsendQuery(c->conn, sql), sql, &r, err);
    if (sent != MCP_OK)
      return sent;
  }
  mcp_status st = check(c, r, sql, err);
  if (st == MCP_OK)
    PQclear(r);
  return st;
}

static mcp_status exec_until(mcp__pg_pool *p, const mcp__pg_stmt *s,
                             const char *const *values, bool retry,
                             int64_t deadline_ms, int64_t budget_ms,
                             PGresult **out, mcp_error_t *err) {
  *out = NULL;
  for (int attempt = 0;; attempt++) {
    mcp__pg_conn *c = NULL;
    mcp_status st = acquire_until(p, deadline_ms, budget_ms, &c, err);
    if (st != MCP_OK)
      return st;
    st = mcp__pg_conn_exec(c, s, values, out, err);
    bool broken = c->broken;
    mcp__pg_release(p, c);
    if (st == MCP_OK || st == MCP_ERR_TIMEOUT || !broken || !retry ||
        attempt > 0)
      return st;
  }
}

mcp_status mcp__pg_exec(mcp__pg_pool *p, const mcp__pg_stmt *s,
                        const char *const *values, bool retry, PGresult **out,
                        mcp_error_t *err) {
  return exec_until(p, s, values, retry, 0, 0, out, err);
}

mcp_status mcp__pg_exec_within(mcp__pg_pool *p, const mcp__pg_stmt *s,
                               const char *const *values, bool retry,
                               int64_t timeout_ms, PGresult **out,
                               mcp_error_t *err) {
  return exec_until(p, s, values, retry, deadline_after(timeout_ms),
                    timeout_ms, out, err);
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
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&p->freed, &ca);
  pthread_condattr_destroy(&ca);
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
    close_conn(&p->conns[i]);
  free(p->conns);
  free(p->conninfo);
  pthread_cond_destroy(&p->freed);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

const char *mcp__pg_pool_conninfo(const mcp__pg_pool *p) {
  return p->conninfo;
}
