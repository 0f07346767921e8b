/* SPDX-License-Identifier: MIT */
/* dpop_jti_postgres.c - DPoP replay keys in table mcp_dpop_jti: see
 * dpop_jti.h. One INSERT ... ON CONFLICT DO NOTHING per accepted proof; a
 * row not inserted is a replay. Expired rows are swept by the insert of
 * one key in 256 (keys are SHA-256 outputs, so that is a rate without
 * keeping any state). */
#include "store/dpop_jti.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/pg_pool.h"
#include "util/clock.h"

static const mcp__pg_stmt insert_stmt = {
    "mcp_dpop_jti_insert",
    "INSERT INTO mcp_dpop_jti (jti, expires_ms) VALUES ($1, $2::bigint)"
    " ON CONFLICT DO NOTHING",
    2};
static const mcp__pg_stmt sweep_stmt = {
    "mcp_dpop_jti_sweep",
    "DELETE FROM mcp_dpop_jti WHERE expires_ms < $1::bigint", 1};

bool mcp__dpop_jti_store_usable(mcp_store_t *store) {
  return mcp__store_postgres_pool(store) != NULL;
}

mcp_status mcp__dpop_jti_record(void *ctx, const unsigned char key[32],
                                int64_t expires_ms, int64_t now_ms,
                                int64_t timeout_ms, mcp_error_t *err) {
  mcp__pg_pool *pool = mcp__store_postgres_pool(ctx);
  if (pool == NULL)
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "shared DPoP replay keys need the postgres store");
  char hex[65], until[24], now[24];
  for (int i = 0; i < 32; i++)
    snprintf(hex + 2 * i, 3, "%02x", key[i]);
  snprintf(until, sizeof until, "%" PRId64, expires_ms);
  const char *v[2] = {hex, until};
  PGresult *r = NULL;
  int64_t deadline = mcp__monotonic_ms() + timeout_ms;
  mcp_status st =
      mcp__pg_exec_within(pool, &insert_stmt, v, false, timeout_ms, &r, err);
  if (st != MCP_OK)
    return st;
  const char *rows = PQcmdTuples(r);
  bool inserted = rows != NULL && rows[0] == '1';
  PQclear(r);
  int64_t left = deadline - mcp__monotonic_ms();
  if (inserted && key[0] == 0 && left > 0) { /* best effort: a failed
                                                 sweep waits */
    snprintf(now, sizeof now, "%" PRId64, now_ms);
    const char *w[1] = {now};
    if (mcp__pg_exec_within(pool, &sweep_stmt, w, false, left, &r, NULL) ==
        MCP_OK)
      PQclear(r);
  }
  return inserted ? MCP_OK : MCP_ERR_EXISTS;
}
