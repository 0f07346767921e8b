/* SPDX-License-Identifier: MIT */
/* task_watch_postgres.c - the PostgreSQL side of task_changes.h: one
 * connection of the store's own LISTENs on channel mcp_tasks, where the
 * trigger of schema migration 8 (pg_schema.c) notifies every change of a
 * task's status or statusMessage, whoever made it. Asking for the token
 * reads what arrived without waiting (the socket is only read, no round
 * trip). The connection is made on first use; when it drops, the token is
 * unknown until it is back (reconnection backs off from 100 ms doubling to
 * 5 s), and a new connection moves the token (changes may have been
 * missed meanwhile). */
#include "store/task_watch_postgres.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   5000

struct mcp__pg_watch {
  pthread_mutex_t lock;
  char *conninfo;
  PGconn *conn;       /* listening, or NULL */
  uint64_t received;  /* notifications (and reconnections) so far */
  int64_t retry_at;   /* monotonic ms: no connection attempt before */
  int64_t backoff_ms; /* the next pause after a failed attempt */
};

mcp__pg_watch *mcp__pg_watch_new(const char *conninfo) {
  mcp__pg_watch *w = calloc(1, sizeof *w);
  if (w == NULL || (w->conninfo = strdup(conninfo)) == NULL) {
    free(w);
    return NULL;
  }
  pthread_mutex_init(&w->lock, NULL);
  w->backoff_ms = BACKOFF_FIRST_MS;
  return w;
}

void mcp__pg_watch_free(mcp__pg_watch *w) {
  if (w == NULL)
    return;
  if (w->conn != NULL)
    PQfinish(w->conn);
  pthread_mutex_destroy(&w->lock);
  free(w->conninfo);
  free(w);
}

static void drop(mcp__pg_watch *w) {
  if (w->conn != NULL)
    PQfinish(w->conn);
  w->conn = NULL;
  w->retry_at = mcp__monotonic_ms() + w->backoff_ms;
  w->backoff_ms =
      w->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : w->backoff_ms * 2;
}

/* Connects and LISTENs; false (a retry scheduled) on failure. */
static bool connect_listening(mcp__pg_watch *w) {
  if (mcp__monotonic_ms() < w->retry_at)
    return false;
  w->conn = PQconnectdb(w->conninfo);
  if (w->conn == NULL || PQstatus(w->conn) != CONNECTION_OK) {
    drop(w);
    return false;
  }
  PGresult *r = PQexec(w->conn, "LISTEN mcp_tasks");
  bool ok = r != NULL && PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  if (!ok) {
    drop(w);
    return false;
  }
  w->backoff_ms = BACKOFF_FIRST_MS;
  w->received++; /* whatever happened before counts as a change */
  return true;
}

bool mcp__pg_watch_token(mcp__pg_watch *w, uint64_t *token) {
  pthread_mutex_lock(&w->lock);
  bool ok = w->conn != NULL || connect_listening(w);
  if (ok && PQconsumeInput(w->conn) == 0) {
    drop(w); /* the connection is gone: unknown until it is back */
    ok = false;
  }
  if (ok) {
    PGnotify *n;
    while ((n = PQnotifies(w->conn)) != NULL) {
      w->received++;
      PQfreemem(n);
    }
    *token = w->received;
  }
  pthread_mutex_unlock(&w->lock);
  return ok;
}
