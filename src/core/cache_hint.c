/* SPDX-License-Identifier: MIT */
/* cache_hint.c - caching hints on 2026-07-28 results (SEP-2549).
 *
 * Resolution is a fixed chain (read answer, resource, target, server-wide)
 * so that every page of one listing resolves to the same values: nothing in
 * the chain depends on the page.
 */
#include "core/cache_hint.h"

#include "core/call_internal.h"

#define MAX_SAFE_INTEGER 9007199254740991LL /* 2^53 - 1: exact in JSON */

bool mcp__cache_hint_valid(int64_t ttl_ms, mcp_cache_scope scope) {
  return ttl_ms >= 0 && ttl_ms <= MAX_SAFE_INTEGER &&
         (scope == MCP_CACHE_PUBLIC || scope == MCP_CACHE_PRIVATE);
}

void mcp__cache_hints_init(mcp__cache_hint hints[MCP__CACHE_TARGETS]) {
  for (int i = 0; i < MCP__CACHE_TARGETS; i++)
    hints[i] = (mcp__cache_hint){0, MCP_CACHE_PUBLIC, false};
  hints[MCP_CACHE_ALL].set = true;
  /* What a resource holds is often the caller's own data. */
  hints[MCP_CACHE_RESOURCES_READ] =
      (mcp__cache_hint){0, MCP_CACHE_PRIVATE, true};
}

mcp_status mcp_server_set_cache_hint(mcp_server_t *s, mcp_cache_target target,
                                     int64_t ttl_ms, mcp_cache_scope scope) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if ((unsigned)target >= MCP__CACHE_TARGETS)
    return mcp__refuse(s, "mcp_server_set_cache_hint: target %d is not a "
                          "mcp_cache_target",
                       (int)target);
  if (!mcp__cache_hint_valid(ttl_ms, scope))
    return mcp__refuse(s,
                       "mcp_server_set_cache_hint: ttl_ms %lld (0 to 2^53 - "
                       "1) or scope %d (a mcp_cache_scope) out of range",
                       (long long)ttl_ms, (int)scope);
  pthread_mutex_lock(&s->lock);
  s->cache_hints[target] = (mcp__cache_hint){ttl_ms, scope, true};
  pthread_mutex_unlock(&s->lock);
  return MCP_OK;
}

mcp_status mcp__call_add_cache_hint(mcp_call_t *call, json_t *result,
                                    mcp_cache_target target,
                                    const mcp__cache_hint *override) {
  if (!call->stateless)
    return MCP_OK;
  mcp__cache_hint h;
  if (override && override->set) {
    h = *override;
  } else {
    mcp_server_t *s = call->server;
    pthread_mutex_lock(&s->lock);
    h = s->cache_hints[target].set ? s->cache_hints[target]
                                   : s->cache_hints[MCP_CACHE_ALL];
    pthread_mutex_unlock(&s->lock);
  }
  const char *scope = h.scope == MCP_CACHE_PRIVATE ? "private" : "public";
  if (json_object_set_new(result, "ttlMs", json_integer(h.ttl_ms)) != 0 ||
      json_object_set_new(result, "cacheScope", json_string(scope)) != 0)
    return MCP_ERR_NOMEM;
  return MCP_OK;
}
