/* SPDX-License-Identifier: MIT */
/* cache_hint.h - ttlMs/cacheScope of 2026-07-28 results (SEP-2549).
 *
 * The server keeps one hint per target (mcp/cache.h); resources, templates
 * and single reads may carry an override. Only 2026-07-28 (stateless)
 * results get the fields: 2025-11-25 output stays as it was.
 */
#ifndef MCP_SERVER_CACHE_HINT_H
#define MCP_SERVER_CACHE_HINT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/cache.h"
#include "mcp/call.h"
#include "mcp/status.h"

#define MCP__CACHE_TARGETS 7 /* MCP_CACHE_ALL .. MCP_CACHE_RESOURCES_READ */

typedef struct mcp__cache_hint {
  int64_t ttl_ms;
  mcp_cache_scope scope;
  bool set; /* false: fall back to the next level */
} mcp__cache_hint;

/* ttl in [0, 2^53 - 1] and a known scope. */
bool mcp__cache_hint_valid(int64_t ttl_ms, mcp_cache_scope scope);

/* The server's starting hints (see mcp/cache.h for the defaults). */
void mcp__cache_hints_init(mcp__cache_hint hints[MCP__CACHE_TARGETS]);

/* Adds ttlMs and cacheScope to result when call is a 2026-07-28 request:
 * override when set, else the server's setting for target, else its
 * MCP_CACHE_ALL. MCP_ERR_NOMEM when the fields could not be added. */
mcp_status mcp__call_add_cache_hint(mcp_call_t *call, json_t *result,
                                    mcp_cache_target target,
                                    const mcp__cache_hint *override);

#endif
