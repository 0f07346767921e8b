/* SPDX-License-Identifier: MIT */
/* relay_postgres.c - notification fan-out between replicas over PostgreSQL
 * LISTEN/NOTIFY (mcp/relay.h).
 *
 * publish runs pg_notify on a pooled connection; the payload is
 * "<origin>\t<server name>\t<event JSON>", origin being this relay's random
 * id, so a replica never delivers its own events and servers of another
 * name sharing the database ignore them. One connection of the relay's own
 * LISTENs, in a thread that waits on its socket and on a wake-up pipe (for
 * close). When the connection drops it is reopened with backoff (100 ms
 * doubling to 5 s); events published meanwhile are lost, so on its return
 * the relay delivers a "resync" event locally: every list_changed the
 * server declares, and clients list again.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/relay.h"
#include "store/pg_pool.h"
#include "util/rand.h"

#define CHANNEL          "mcp_relay"
#define PAYLOAD_MAX      7999 /* PostgreSQL's limit is 8000 bytes */
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   5000

static const mcp__pg_stmt notify_stmt = {
    "mcp_relay_notify", "SELECT pg_notify('" CHANNEL "', $1)", 1};

typedef struct pgrelay {
  mcp__pg_pool *pool; /* counted */
  char origin[37];
  mcp_relay_deliver_fn deliver;
  void *ctx;
  char *scope; /* server name */
  int wake[2]; /* close writes to wake[1] */
  pthread_t thread;
  bool has_thread;
} pgrelay;

static void quiet(void *arg, const char *message) {
  (void)arg;
  (void)message;
}

/* Waits ms (or until close); true when closing. */
static bool wait_or_stop(pgrelay *r, int ms) {
  struct pollfd p = {r->wake[0], POLLIN, 0};
  return poll(&p, 1, ms) > 0;
}

static void deliver_payload(pgrelay *r, const char *payload) {
  size_t olen = strlen(r->origin), slen = strlen(r->scope);
  if (strncmp(payload, r->origin, olen) == 0 && payload[olen] == '\t')
    return; /* our own */
  const char *scope = strchr(payload, '\t');
  if (scope == NULL)
    return;
  scope++;
  if (strncmp(scope, r->scope, slen) != 0 || scope[slen] != '\t')
    return; /* another server's */
  const char *event = scope + slen + 1;
  r->deliver(r->ctx, event, strlen(event));
}

/* Listens on c until it drops (false) or the relay closes (true). */
static bool listen_on(pgrelay *r, PGconn *c) {
  for (;;) {
    struct pollfd p[2] = {{PQsocket(c), POLLIN, 0}, {r->wake[0], POLLIN, 0}};
    if (poll(p, 2, -1) < 0)
      continue;
    if (p[1].revents)
      return true;
    if (!PQconsumeInput(c) || PQstatus(c) != CONNECTION_OK)
      return false;
    PGnotify *n;
    while ((n = PQnotifies(c)) != NULL) {
      deliver_payload(r, n->extra);
      PQfreemem(n);
    }
  }
}

static void *listener_main(void *arg) {
  pgrelay *r = arg;
  int backoff = 0;
  bool first = true;
  for (;;) {
    PGconn *c = PQconnectdb(mcp__pg_pool_conninfo(r->pool));
    bool ok = c && PQstatus(c) == CONNECTION_OK;
    if (ok) {
      PQsetNoticeProcessor(c, quiet, NULL);
      PGresult *res = PQexec(c, "LISTEN " CHANNEL);
      ok = PQresultStatus(res) == PGRES_COMMAND_OK;
      PQclear(res);
    }
    if (!ok) {
      PQfinish(c);
      backoff = backoff ? backoff * 2 : BACKOFF_FIRST_MS;
      if (backoff > BACKOFF_MAX_MS)
        backoff = BACKOFF_MAX_MS;
      if (wait_or_stop(r, backoff))
        return NULL;
      continue;
    }
    backoff = 0;
    if (!first) { /* events published while we were away are lost */
      static const char resync[] = "{\"kind\":\"resync\"}";
      r->deliver(r->ctx, resync, sizeof resync - 1);
    }
    first = false;
    bool closing = listen_on(r, c);
    PQfinish(c);
    if (closing)
      return NULL;
  }
}

static mcp_status pr_start(void *impl, const char *scope,
                           mcp_relay_deliver_fn deliver, void *ctx) {
  pgrelay *r = impl;
  r->deliver = deliver;
  r->ctx = ctx;
  r->scope = strdup(scope ? scope : "");
  if (r->scope == NULL)
    return MCP_ERR_NOMEM;
  r->has_thread = pthread_create(&r->thread, NULL, listener_main, r) == 0;
  return r->has_thread ? MCP_OK : MCP_ERR_NOMEM;
}

static mcp_status pr_publish(void *impl, const char *event, size_t len) {
  pgrelay *r = impl;
  if (r->scope == NULL)
    return MCP_ERR_STATE;
  size_t need = strlen(r->origin) + strlen(r->scope) + len + 3;
  if (need > PAYLOAD_MAX)
    return MCP_ERR_TOO_LARGE;
  char *payload = malloc(need);
  if (payload == NULL)
    return MCP_ERR_NOMEM;
  snprintf(payload, need, "%s\t%s\t%.*s", r->origin, r->scope, (int)len, event);
  const char *v[1] = {payload};
  PGresult *res = NULL;
  mcp_status st = mcp__pg_exec(r->pool, &notify_stmt, v, false, &res, NULL);
  PQclear(res);
  free(payload);
  return st;
}

static void pr_close(void *impl) {
  pgrelay *r = impl;
  if (r == NULL)
    return;
  if (r->has_thread) {
    ssize_t w = write(r->wake[1], "x", 1);
    (void)w;
    pthread_join(r->thread, NULL);
  }
  close(r->wake[0]);
  close(r->wake[1]);
  mcp__pg_pool_free(r->pool);
  free(r->scope);
  free(r);
}

static const mcp_relay_ops relay_ops = {
    .version = 1,
    .name = "postgres",
    .start = pr_start,
    .publish = pr_publish,
    .close = pr_close,
};

mcp_status mcp_relay_postgres_new(mcp_store_t *store, mcp_relay *out,
                                  mcp_error_t *err) {
  if (out) {
    out->ops = NULL;
    out->impl = NULL;
  }
  mcp__pg_pool *pool = mcp__store_postgres_pool(store);
  if (pool == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "the relay needs a postgres store");
  pgrelay *r = calloc(1, sizeof *r);
  if (r == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  if (pipe(r->wake) != 0) {
    free(r);
    return mcp_error_set(err, MCP_ERR_IO, "cannot create a pipe");
  }
  if (mcp__random_uuid(r->origin) != MCP_OK) {
    close(r->wake[0]);
    close(r->wake[1]);
    free(r);
    return mcp_error_set(err, MCP_ERR_IO, "no random bytes");
  }
  r->pool = mcp__pg_pool_ref(pool);
  out->ops = &relay_ops;
  out->impl = r;
  return MCP_OK;
}
