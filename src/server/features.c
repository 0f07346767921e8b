/* SPDX-License-Identifier: MIT */
/* features.c - what resources, prompts and completions add to the
 * server's capabilities.
 *
 * A capability is declared only while something backs it, so a client never
 * sees resources, prompts or completions a server cannot serve.
 */
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
