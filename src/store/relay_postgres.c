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
 *
 * An event too big for a notification (PostgreSQL's limit is 8000 bytes:
 * a task's question with a large schema, sampling with images) is stored
 * in mcp_relay_events and the notification carries "@<row id>" in its
 * place, in the same transaction; listeners read the row. Rows older than
 * a minute are removed by later big publishes; a listener that finds its
 * row gone (it lagged that long) delivers a resync instead.
 *
 * Answers to server-to-client requests (ops version 2): the replica that
 * asks records (session, request id, itself) in mcp_pending_requests; a
 * replica that receives the answer stores it in that row and, in the same
 * statement, sends pg_notify('mcp_answer', "<replica>\t<session>\t<id>");
 * the asking replica's listener (which also LISTENs on mcp_answer) takes
 * the answer out of the row and delivers it locally. Whether the asking
 * replica still runs is whether its listening connection is there: it sets
 * application_name to "mcp-relay:<origin>" once it listens, and PostgreSQL
 * drops the connection of a process that died. Rows of replicas that died
 * are removed now and then.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "mcp/relay.h"
#include "store/pg_pool.h"
#include "util/rand.h"
#include "util/thread.h"

#define CHANNEL          "mcp_relay"
#define ANSWERS          "mcp_answer"
#define APP_PREFIX       "mcp-relay:"
#define PAYLOAD_MAX      7999 /* PostgreSQL's limit is 8000 bytes */
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   5000

static const mcp__pg_stmt notify_stmt = {
    "mcp_relay_notify", "SELECT pg_notify('" CHANNEL "', $1)", 1};
static const mcp__pg_stmt notify_big_stmt = {
    "mcp_relay_notify_big",
    "WITH e AS (INSERT INTO mcp_relay_events (created_ms, event)"
    " VALUES (mcp_now_ms(), $2) RETURNING id)"
    " SELECT pg_notify('" CHANNEL "', $1 || '@' || e.id) FROM e",
    2};
static const mcp__pg_stmt big_event_stmt = {
    "mcp_relay_big_event",
    "SELECT event FROM mcp_relay_events WHERE id = $1::bigint", 1};
static const mcp__pg_stmt old_big_events_stmt = {
    "mcp_relay_old_big_events",
    "DELETE FROM mcp_relay_events WHERE created_ms < mcp_now_ms() - 60000", 0};
static const mcp__pg_stmt await_stmt = {
    "mcp_relay_await",
    "INSERT INTO mcp_pending_requests (session_id, request_id, replica,"
    " created_ms) VALUES ($1, $2::bigint, $3, mcp_now_ms())"
    " ON CONFLICT (session_id, request_id) DO UPDATE SET"
    " replica = EXCLUDED.replica, created_ms = EXCLUDED.created_ms,"
    " answer = NULL",
    3};
static const mcp__pg_stmt done_stmt = {
    "mcp_relay_answer_done",
    "DELETE FROM mcp_pending_requests WHERE session_id = $1"
    " AND request_id = $2::bigint AND replica = $3",
    3};
/* The answer into the row of whoever waits, whether that replica still
 * listens, and the notification to it (sent at commit). */
static const mcp__pg_stmt forward_stmt = {
    "mcp_relay_forward_answer",
    "WITH u AS (UPDATE mcp_pending_requests SET answer = $3"
    " WHERE session_id = $1 AND request_id = $2::bigint AND answer IS NULL"
    " RETURNING replica)"
    " SELECT u.replica, EXISTS (SELECT 1 FROM pg_stat_activity a"
    " WHERE a.application_name = '" APP_PREFIX "' || u.replica),"
    " pg_notify('" ANSWERS "', u.replica || E'\\t' || $1 || E'\\t' || $2)"
    " FROM u",
    3};
static const mcp__pg_stmt take_stmt = {
    "mcp_relay_take_answer",
    "DELETE FROM mcp_pending_requests WHERE session_id = $1"
    " AND request_id = $2::bigint AND replica = $3 AND answer IS NOT NULL"
    " RETURNING answer",
    3};
/* Rows of replicas no longer listening, older than a minute (a replica
 * reconnecting after a database restart keeps its younger rows). */
static const mcp__pg_stmt orphans_stmt = {
    "mcp_relay_orphans",
    "DELETE FROM mcp_pending_requests p WHERE created_ms < mcp_now_ms() -"
    " 60000 AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a"
    " WHERE a.application_name = '" APP_PREFIX "' || p.replica)",
    0};

typedef struct pgrelay {
  mcp__pg_pool *pool; /* counted */
  char origin[37];
  mcp_relay_deliver_fn deliver;
  void *ctx;
  char *scope; /* server name */
  int wake[2]; /* close writes to wake[1] */
  pthread_t thread;
  bool has_thread;
  atomic_uint awaits; /* now and then, remove the rows of dead replicas */
  atomic_uint bigs;   /* now and then, remove old big events */
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
  if (event[0] != '@') {
    r->deliver(r->ctx, event, strlen(event));
    return;
  }
  /* a big event: its row */
  const char *v[1] = {event + 1};
  PGresult *res = NULL;
  if (mcp__pg_exec(r->pool, &big_event_stmt, v, true, &res, NULL) == MCP_OK &&
      PQntuples(res) == 1) {
    r->deliver(r->ctx, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0));
  } else { /* gone or unreadable: lost, as during an outage */
    static const char resync[] = "{\"kind\":\"resync\"}";
    r->deliver(r->ctx, resync, sizeof resync - 1);
  }
  PQclear(res);
}

/* "<replica>\t<session>\t<id>" on mcp_answer: when it names this
 * replica, the answer is taken out of its row and delivered here. */
static void take_answer(pgrelay *r, const char *payload) {
  size_t olen = strlen(r->origin);
  if (strncmp(payload, r->origin, olen) != 0 || payload[olen] != '\t')
    return; /* another replica's */
  const char *session = payload + olen + 1;
  const char *tab = strchr(session, '\t');
  if (tab == NULL || tab - session > 128)
    return;
  char sid[129], id[24];
  snprintf(sid, sizeof sid, "%.*s", (int)(tab - session), session);
  snprintf(id, sizeof id, "%s", tab + 1);
  const char *v[3] = {sid, id, r->origin};
  PGresult *res = NULL;
  if (mcp__pg_exec(r->pool, &take_stmt, v, false, &res, NULL) != MCP_OK)
    return;
  json_t *message =
      PQntuples(res) == 1 ? json_loads(PQgetvalue(res, 0, 0), 0, NULL) : NULL;
  PQclear(res);
  json_t *ev = message ? json_pack("{s:s,s:s,s:o}", "kind", "answer", "session",
                                   sid, "message", message)
                       : NULL;
  char *text = ev ? json_dumps(ev, JSON_COMPACT) : NULL;
  json_decref(ev);
  if (text)
    r->deliver(r->ctx, text, strlen(text));
  free(text);
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
      if (strcmp(n->relname, ANSWERS) == 0)
        take_answer(r, n->extra);
      else
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
      PGresult *res = PQexec(c, "LISTEN " CHANNEL "; LISTEN " ANSWERS);
      ok = PQresultStatus(res) == PGRES_COMMAND_OK;
      PQclear(res);
      /* this connection is how other replicas see that this one runs (and
       * listens: the name is set once the LISTENs are in place) */
      char sql[120];
      snprintf(sql, sizeof sql, "SET application_name = '" APP_PREFIX "%s'",
               r->origin);
      res = ok ? PQexec(c, sql) : NULL;
      ok = ok && PQresultStatus(res) == PGRES_COMMAND_OK;
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
  r->has_thread = mcp__thread_start(&r->thread, listener_main, r) == 0;
  return r->has_thread ? MCP_OK : MCP_ERR_NOMEM;
}

/* A big event into mcp_relay_events, its row id notified. */
static mcp_status publish_big(pgrelay *r, const char *event, size_t len) {
  if (atomic_fetch_add(&r->bigs, 1) % 64 == 0) {
    PGresult *res = NULL;
    if (mcp__pg_exec(r->pool, &old_big_events_stmt, NULL, false, &res, NULL) ==
        MCP_OK)
      PQclear(res);
  }
  size_t need = strlen(r->origin) + strlen(r->scope) + 3;
  char *prefix = malloc(need);
  char *text = strndup(event, len);
  mcp_status st = MCP_ERR_NOMEM;
  if (prefix != NULL && text != NULL) {
    snprintf(prefix, need, "%s\t%s\t", r->origin, r->scope);
    const char *v[2] = {prefix, text};
    PGresult *res = NULL;
    st = mcp__pg_exec(r->pool, &notify_big_stmt, v, false, &res, NULL);
    PQclear(res);
  }
  free(prefix);
  free(text);
  return st;
}

static mcp_status pr_publish(void *impl, const char *event, size_t len) {
  pgrelay *r = impl;
  if (r->scope == NULL)
    return MCP_ERR_STATE;
  size_t need = strlen(r->origin) + strlen(r->scope) + len + 3;
  if (need > PAYLOAD_MAX)
    return publish_big(r, event, len);
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

static void remove_orphans(pgrelay *r) {
  PGresult *res = NULL;
  if (mcp__pg_exec(r->pool, &orphans_stmt, NULL, false, &res, NULL) == MCP_OK)
    PQclear(res);
}

static mcp_status pr_await_answer(void *impl, const char *session, int64_t id) {
  pgrelay *r = impl;
  if (atomic_fetch_add(&r->awaits, 1) % 256 == 0)
    remove_orphans(r);
  char idtext[24];
  snprintf(idtext, sizeof idtext, "%lld", (long long)id);
  const char *v[3] = {session, idtext, r->origin};
  PGresult *res = NULL;
  mcp_status st = mcp__pg_exec(r->pool, &await_stmt, v, false, &res, NULL);
  PQclear(res);
  return st;
}

static void pr_answer_done(void *impl, const char *session, int64_t id) {
  pgrelay *r = impl;
  char idtext[24];
  snprintf(idtext, sizeof idtext, "%lld", (long long)id);
  const char *v[3] = {session, idtext, r->origin};
  PGresult *res = NULL;
  if (mcp__pg_exec(r->pool, &done_stmt, v, false, &res, NULL) == MCP_OK)
    PQclear(res);
}

static mcp_status pr_forward_answer(void *impl, const char *session, int64_t id,
                                    const char *message, size_t len) {
  pgrelay *r = impl;
  char idtext[24];
  snprintf(idtext, sizeof idtext, "%lld", (long long)id);
  char *text = strndup(message, len);
  if (text == NULL)
    return MCP_ERR_NOMEM;
  const char *v[3] = {session, idtext, text};
  PGresult *res = NULL;
  mcp_status st = mcp__pg_exec(r->pool, &forward_stmt, v, false, &res, NULL);
  free(text);
  if (st != MCP_OK)
    return st;
  bool found = PQntuples(res) == 1;
  bool alive = found && strcmp(PQgetvalue(res, 0, 1), "t") == 0;
  char replica[64] = "";
  if (found)
    snprintf(replica, sizeof replica, "%s", PQgetvalue(res, 0, 0));
  PQclear(res);
  if (!found)
    return MCP_ERR_NOT_FOUND;
  if (alive)
    return MCP_OK;
  /* the replica that asked is gone: its row goes too */
  const char *d[3] = {session, idtext, replica};
  if (mcp__pg_exec(r->pool, &done_stmt, d, false, &res, NULL) == MCP_OK)
    PQclear(res);
  return MCP_ERR_CLOSED;
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
    .version = 2,
    .name = "postgres",
    .start = pr_start,
    .publish = pr_publish,
    .close = pr_close,
    .await_answer = pr_await_answer,
    .answer_done = pr_answer_done,
    .forward_answer = pr_forward_answer,
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
  atomic_init(&r->awaits, 0);
  r->pool = mcp__pg_pool_ref(pool);
  out->ops = &relay_ops;
  out->impl = r;
  return MCP_OK;
}
