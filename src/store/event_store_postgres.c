/* SPDX-License-Identifier: MIT */
/* event_store_postgres.c - SSE events in PostgreSQL, so that a client
 * resumes a stream with Last-Event-ID on any replica (mcp/event_store.h).
 * Event ids are "<stream>-<n>", n from the sequence mcp_event_seq (unique
 * across replicas). A session's events are not dropped when one replica
 * forgets the session (another may still serve it): they age out after
 * max_age_ms. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/session_store.h"
#include "store/pg_pool.h"

#define DEFAULT_MAX_AGE_MS 300000

static const mcp__pg_stmt append_stmt = {
    "mcp_event_append",
    "INSERT INTO mcp_events (session_id, stream_id, seq, data, created_ms)"
    " VALUES ($1, $2, nextval('mcp_event_seq'), $3, mcp_now_ms())"
    " RETURNING seq",
    3};
/* The event named by the client first, then the stream's later ones. */
static const mcp__pg_stmt replay_stmt = {
    "mcp_event_replay",
    "SELECT seq, data FROM mcp_events WHERE session_id = $1"
    " AND stream_id = $2 AND seq >= $3::bigint ORDER BY seq",
    3};
static const mcp__pg_stmt expire_stmt = {
    "mcp_event_expire",
    "DELETE FROM mcp_events WHERE created_ms < mcp_now_ms() - $1::bigint", 1};

typedef struct pgevents {
  mcp__pg_pool *pool; /* counted */
  char max_age[24];
  atomic_uint appends;
} pgevents;

static mcp_status pe_append(void *impl, const char *session_id,
                            const char *stream_id, const char *data, size_t len,
                            char event_id[MCP_EVENT_ID_MAX]) {
  pgevents *p = impl;
  char *text = strndup(data ? data : "", len);
  if (text == NULL)
    return MCP_ERR_NOMEM;
  const char *v[3] = {session_id, stream_id, text};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_exec(p->pool, &append_stmt, v, false, &r, NULL);
  free(text);
  if (st != MCP_OK)
    return st;
  int n = snprintf(event_id, MCP_EVENT_ID_MAX, "%s-%s", stream_id,
                   PQgetvalue(r, 0, 0));
  PQclear(r);
  if (n < 0 || n >= MCP_EVENT_ID_MAX)
    return MCP_ERR_TOO_LARGE;
  if (atomic_fetch_add(&p->appends, 1) % 1024 == 1023) {
    const char *e[1] = {p->max_age};
    if (mcp__pg_exec(p->pool, &expire_stmt, e, false, &r, NULL) == MCP_OK)
      PQclear(r);
  }
  return MCP_OK;
}

static mcp_status pe_replay(void *impl, const char *session_id,
                            const char *last_event_id, mcp_event_replay_fn fn,
                            void *ctx, char stream_id_out[MCP_EVENT_ID_MAX]) {
  pgevents *p = impl;
  const char *dash = strrchr(last_event_id, '-');
  if (dash == NULL || dash == last_event_id ||
      (size_t)(dash - last_event_id) >= MCP_EVENT_ID_MAX || dash[1] == '\0' ||
      strspn(dash + 1, "0123456789") != strlen(dash + 1) ||
      strlen(dash + 1) > 18)
    return MCP_ERR_NOT_FOUND;
  char stream[MCP_EVENT_ID_MAX];
  memcpy(stream, last_event_id, (size_t)(dash - last_event_id));
  stream[dash - last_event_id] = '\0';
  const char *v[3] = {session_id, stream, dash + 1};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_exec(p->pool, &replay_stmt, v, true, &r, NULL);
  if (st != MCP_OK)
    return st;
  int n = PQntuples(r);
  if (n == 0 || strcmp(PQgetvalue(r, 0, 0), dash + 1) != 0) {
    PQclear(r);
    return MCP_ERR_NOT_FOUND;
  }
  if (stream_id_out)
    snprintf(stream_id_out, MCP_EVENT_ID_MAX, "%s", stream);
  char id[MCP_EVENT_ID_MAX];
  for (int i = 1; i < n && st == MCP_OK; i++) {
    if (snprintf(id, sizeof id, "%s-%.20s", stream, PQgetvalue(r, i, 0)) >=
        (int)sizeof id)
      continue; /* cannot have been issued (append refuses it) */
    st = fn(ctx, id, PQgetvalue(r, i, 1), (size_t)PQgetlength(r, i, 1));
  }
  PQclear(r);
  return st;
}

static void pe_drop_session(void *impl, const char *session_id) {
  (void)impl;
  (void)session_id; /* another replica may still serve it: events age out */
}

static void pe_close(void *impl) {
  pgevents *p = impl;
  if (p == NULL)
    return;
  mcp__pg_pool_free(p->pool);
  free(p);
}

static const mcp_event_store_ops event_ops = {
    .version = 1,
    .name = "postgres",
    .append = pe_append,
    .replay_after = pe_replay,
    .drop_session = pe_drop_session,
    .close = pe_close,
};

mcp_status mcp_event_store_postgres_new(mcp_store_t *store, int64_t max_age_ms,
                                        mcp_event_store *out,
                                        mcp_error_t *err) {
  if (out) {
    out->ops = NULL;
    out->impl = NULL;
  }
  mcp__pg_pool *pool = mcp__store_postgres_pool(store);
  if (pool == NULL || out == NULL || max_age_ms < 0)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "the event store needs a postgres store");
  pgevents *p = calloc(1, sizeof *p);
  if (p == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  snprintf(p->max_age, sizeof p->max_age, "%lld",
           (long long)(max_age_ms ? max_age_ms : DEFAULT_MAX_AGE_MS));
  atomic_init(&p->appends, 0);
  p->pool = mcp__pg_pool_ref(pool);
  out->ops = &event_ops;
  out->impl = p;
  return MCP_OK;
}
