/* SPDX-License-Identifier: MIT */
/* features.c - what resources, prompts and completions add to the
 * server's capabilities, and the paginated listing they share.
 *
 * A capability is declared only while something backs it, so a client never
 * sees resources, prompts or completions a server cannot serve.
 */
#include "server/cursor.h"
#include "server/internal.h"

static bool completes(mcp__entry *e, void *ctx) {
  (void)ctx;
  return e->completes;
}

static bool any_completion(mcp__catalog *c) {
  mcp__entry *e = mcp__catalog_find_if(c, completes, NULL);
  mcp__entry_release(e);
  return e != NULL;
}

void mcp__features_capabilities(mcp_server_t *s, json_t *caps) {
  if (mcp__catalog_count(&s->resources) || mcp__catalog_count(&s->templates)) {
    json_t *r = json_object();
    if (r && s->resources_subscribe)
      json_object_set_new(r, "subscribe", json_true());
    if (r && s->resources_list_changed)
      json_object_set_new(r, "listChanged", json_true());
    json_object_set_new(caps, "resources", r);
  }
  if (mcp__catalog_count(&s->prompts)) {
    json_t *p = json_object();
    if (p && s->prompts_list_changed)
      json_object_set_new(p, "listChanged", json_true());
    json_object_set_new(caps, "prompts", p);
  }
  if (any_completion(&s->prompts) || any_completion(&s->templates))
    json_object_set_new(caps, "completions", json_object());
}

mcp_status mcp__list_catalog(mcp_call_t *call, mcp__catalog *c,
                             const char *list, const char *field,
                             mcp_cache_target target, json_t **result) {
  uint64_t from;
  if (!mcp__cursor_decode(list, json_object_get(call->params, "cursor"), &from))
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
