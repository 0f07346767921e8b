/* SPDX-License-Identifier: MIT */
/* cache.h - caching hints of MCP 2026-07-28 (SEP-2549).
 *
 * 2026-07-28 clients may keep a list or read result for ttlMs milliseconds
 * (0: stale at once) and share it across users only when cacheScope is
 * "public". The library puts both fields on every server/discover,
 * tools/list, prompts/list, resources/list, resources/templates/list and
 * resources/read result of that era (never on 2025-11-25 results, never on
 * input_required results); every page of one listing gets the same values.
 *
 * A target without a setting of its own uses MCP_CACHE_ALL. Defaults: ALL
 * is {0 ms, public}; RESOURCES_READ is {0 ms, private}, because what a
 * resource holds is often per caller. A resource or template can override
 * its reads (mcp_resource_set_cache_hint), and a read handler the answer at
 * hand (mcp_read_result_set_cache_hint). Mark results that depend on who
 * asks "private": the scope is a hint to caches, not access control.
 *
 * Setters: mcp_server_set_cache_hint (server.h), mcp_resource_set_cache_hint,
 * mcp_resource_template_set_cache_hint, mcp_read_result_set_cache_hint
 * (resource.h).
 */
#ifndef MCP_CACHE_H
#define MCP_CACHE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcp_cache_scope {
  MCP_CACHE_PUBLIC = 0,
  MCP_CACHE_PRIVATE = 1
} mcp_cache_scope;

typedef enum mcp_cache_target {
  MCP_CACHE_ALL = 0,
  MCP_CACHE_DISCOVER,
  MCP_CACHE_TOOLS_LIST,
  MCP_CACHE_PROMPTS_LIST,
  MCP_CACHE_RESOURCES_LIST,
  MCP_CACHE_TEMPLATES_LIST,
  MCP_CACHE_RESOURCES_READ
} mcp_cache_target;

#ifdef __cplusplus
}
#endif

#endif
