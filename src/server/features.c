/* SPDX-License-Identifier: MIT */
/* features.c - what resources, prompts and completions add to the
 * server's capabilities.
 *
 * A capability is declared only while something backs it, so a client never
 * sees resources, prompts or completions a server cannot serve.
 */
#include "completion/completion_internal.h"
#include "prompts/prompt_internal.h"
#include "resources/resource_internal.h"
#include "server/internal.h"

#include "mcp/apps.h"
#include "tools/tool_internal.h"

static bool completes(mcp__entry *e, void *ctx) {
  (void)ctx;
  return e->completes;
}

static bool any_completion(mcp__catalog *c) {
  mcp__entry *e = mcp__catalog_find_if(c, completes, NULL);
  mcp__entry_release(e);
  return e != NULL;
}

static bool is_ui(mcp__entry *e, void *ctx) {
  (void)ctx;
  return mcp__listing_is_ui(e->listing);
}

/* MCP Apps (apps.h): extensions["io.modelcontextprotocol/ui"] while a view
 * is registered, in both eras (the extension predates 2026-07-28 and is
 * declared in initialize as in server/discover). */
static void apps_capability(mcp_server_t *s, json_t *caps) {
  mcp__entry *e = mcp__catalog_find_if(&mcp__resources_of(s)->resources, is_ui, NULL);
  mcp__entry_release(e);
  if (e == NULL)
    return;
  json_t *ext = json_object_get(caps, "extensions");
  if (!json_is_object(ext)) {
    ext = json_object();
    if (ext == NULL || json_object_set_new(caps, "extensions", ext) != 0)
      return;
  }
  json_object_set_new(ext, MCP_APPS_EXTENSION,
                      json_pack("{s:[s]}", "mimeTypes", MCP_APP_MIME_TYPE));
}

void mcp__features_capabilities(mcp_server_t *s, json_t *caps) {
  apps_capability(s, caps);
  mcp__resources_state *rs = mcp__resources_of(s);
  mcp__prompts_state *ps = mcp__prompts_of(s);
  if (mcp__catalog_count(&rs->resources) ||
      mcp__catalog_count(&rs->templates)) {
    json_t *r = json_object();
    if (r && rs->subscribe)
      json_object_set_new(r, "subscribe", json_true());
    if (r && rs->list_changed)
      json_object_set_new(r, "listChanged", json_true());
    json_object_set_new(caps, "resources", r);
  }
  if (mcp__catalog_count(&ps->prompts)) {
    json_t *p = json_object();
    if (p && ps->list_changed)
      json_object_set_new(p, "listChanged", json_true());
    json_object_set_new(caps, "prompts", p);
  }
  if (any_completion(&ps->prompts) || any_completion(&rs->templates))
    json_object_set_new(caps, "completions", json_object());
}
