/* SPDX-License-Identifier: MIT */
/* list.c - the paginated listing every catalog method shares (tools,
 * resources, templates, prompts): cursor, page, caching hints. */
#include "core/call_internal.h"
#include "core/cursor.h"

mcp_status mcp__list_catalog(mcp_call_t *call, mcp__catalog *c,
                             const char *list, const char *field,
                             mcp_cache_target target, json_t **result) {
  uint64_t from;
  if (!mcp__cursor_decode(list, mcp__call_param(call, "cursor"), &from))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: unknown or malformed cursor");
  json_t *items = json_array();
  json_t *res = json_object();
  if (items == NULL || res == NULL || json_object_set(res, field, items) != 0) {
    json_decref(items);
    json_decref(res);
    return MCP_ERR_NOMEM;
  }
  uint64_t next = 0;
  mcp_status st =
      mcp__catalog_page(c, from, call->server->page_size, items, &next);
  json_decref(items);
  if (st == MCP_OK && next != 0) {
    json_t *cursor = mcp__cursor_encode(list, next);
    if (cursor == NULL || json_object_set_new(res, "nextCursor", cursor) != 0)
      st = MCP_ERR_NOMEM;
  }
  if (st == MCP_OK)
    st = mcp__call_add_cache_hint(call, res, target, NULL);
  if (st != MCP_OK) {
    json_decref(res);
    return st;
  }
  *result = res;
  return MCP_OK;
}
