/* SPDX-License-Identifier: MIT */
/* session_store_postgres.c - 2025-11-25 HTTP sessions in PostgreSQL, shared
 * by the replicas of a server (mcp/session_store.h). One row per session:
 * its state as JSON text, when it was last saved or loaded, and how many
 * replicas loaded it (each load gets its own range of stream ids). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/session_store.h"
#include "store/pg_pool.h"

#define DEFAULT_IDLE_MS (24 * 3600 * 1000LL)
#define STREAM_RANGE    100000u /* stream ids per load */

static const mcp__pg_stmt save_stmt = {
    "mcp_session_save",
    "INSERT INTO mcp_sessions (id, state, touched_ms)"
    " VALUES ($1, $2, mcp_now_ms()) ON CONFLICT (id) DO UPDATE"
    " SET state = EXCLUDED.state, touched_ms = EXCLUDED.touched_ms",
    2};
static const mcp__pg_stmt load_stmt = {
    "mcp_session_load",
    "UPDATE mcp_sessions SET loads = loads + 1, touched_ms = mcp_now_ms()"
    " WHERE id = $1 AND touched_ms > mcp_now_ms() - $2::bigint"
    " RETURNING state, loads",
    2};
static const mcp__pg_stmt drop_stmt = {
    "mcp_session_drop", "DELETE FROM mcp_sessions WHERE id = $1", 1};
static const mcp__pg_stmt expire_stmt = {
    "mcp_session_expire",
    "DELETE FROM mcp_sessions WHERE touched_ms < mcp_now_ms() - $1::bigint", 1};

typedef struct pgsessions {
  mcp__pg_pool *pool; /* counted */
  char idle[24];
  atomic_uint saves;
} pgsessions;

static mcp_status ps_save(void *impl, const char *id, const char *state) {
  pgsessions *p = impl;
  const char *v[2] = {id, state};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_exec(p->pool, &save_stmt, v, false, &r, NULL);
  PQclear(r);
  /* now and then, forget the sessions nobody used for idle */
  if (st == MCP_OK && atomic_fetch_add(&p->saves, 1) % 256 == 255) {
    const char *e[1] = {p->idle};
    if (mcp__pg_exec(p->pool, &expire_stmt, e, false, &r, NULL) == MCP_OK)
      PQclear(r);
  }
  return st;
}

static mcp_status ps_load(void *impl, const char *id, char **state,
                          uint32_t *stream_base) {
  pgsessions *p = impl;
  *state = NULL;
  const char *v[2] = {id, p->idle};
  PGresult *r = NULL;
  mcp_status st = mcp__pg_exec(p->pool, &load_stmt, v, false, &r, NULL);
  if (st != MCP_OK)
    return st;
  if (PQntuples(r) != 1) {
    PQclear(r);
    return MCP_ERR_NOT_FOUND;
  }
  *state = strdup(PQgetvalue(r, 0, 0));
  unsigned long long loads = strtoull(PQgetvalue(r, 0, 1), NULL, 10);
  /* the creator numbers from 1; load n from n * STREAM_RANGE + 1 */
  *stream_base =
      1 + (uint32_t)(loads % (UINT32_MAX / STREAM_RANGE - 1) * STREAM_RANGE);
  PQclear(r);
  return *state ? MCP_OK : MCP_ERR_NOMEM;
}

static void ps_drop(void *impl, const char *id) {
  pgsessions *p = impl;
  const char *v[1] = {id};
  PGresult *r = NULL;
  if (mcp__pg_exec(p->pool, &drop_stmt, v, false, &r, NULL) == MCP_OK)
    PQclear(r);
}

static void ps_close(void *impl) {
  pgsessions *p = impl;
  if (p == NULL)
    return;
  mcp__pg_pool_free(p->pool);
  free(p);
}

static const mcp_session_store_ops session_ops = {
    .version = 1,
    .name = "postgres",
    .save = ps_save,
    .load = ps_load,
    .drop = ps_drop,
    .close = ps_close,
};

mcp_status mcp_session_store_postgres_new(mcp_store_t *store, int64_t idle_ms,
                                          mcp_session_store *out,
                                          mcp_error_t *err) {
  if (out) {
    out->ops = NULL;
    out->impl = NULL;
  }
  mcp__pg_pool *pool = mcp__store_postgres_pool(store);
  if (pool == NULL || out == NULL || idle_ms < 0)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "the session store needs a postgres store");
  pgsessions *p = calloc(1, sizeof *p);
  if (p == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  snprintf(p->idle, sizeof p->idle, "%lld",
           (long long)(idle_ms ? idle_ms : DEFAULT_IDLE_MS));
  atomic_init(&p->saves, 0);
  p->pool = mcp__pg_pool_ref(pool);
  out->ops = &session_ops;
  out->impl = p;
  return MCP_OK;
}
