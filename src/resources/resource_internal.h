/* SPDX-License-Identifier: MIT */
/* resource_internal.h - the objects behind mcp_resource_t,
 * mcp_resource_template_t and mcp_read_result_t.
 *
 * Both resource kinds embed an mcp__entry first so the server keeps them in
 * catalogs (catalog/catalog.h); once added they are immutable and
 * reference-counted.
 */
#ifndef MCP_RESOURCE_INTERNAL_H
#define MCP_RESOURCE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "catalog/completer.h"
#include "core/cache_hint.h"
#include "mcp/resource.h"
#include "resources/uri_template.h"

/* Metadata common to resources and templates. */
typedef struct mcp__res_meta {
  char *name, *title, *description, *mime_type;
  json_t *annotations, *icons, *meta; /* objects/array or NULL */
  /* why setters refused their arguments, one per line (NULL: none);
   * mcp_server_add_resource(_template) logs them and refuses the entry */
  char *refusals;
} mcp__res_meta;

typedef struct mcp__handler {
  mcp_resource_read_fn fn;
  void *user_data;
  void (*free_user_data)(void *);
} mcp__handler;

struct mcp_resource {
  mcp__entry entry; /* key: uri */
  mcp__res_meta m;
  bool has_size;
  uint64_t size;
  mcp__handler h;
  mcp__cache_hint cache; /* of its reads; .set false: the server's */
};

struct mcp_resource_template {
  mcp__entry entry; /* key: uriTemplate */
  mcp__res_meta m;
  mcp__uritpl *tpl;
  mcp__handler h;
  mcp__completer *completers;
  size_t ncompleters;
  mcp__cache_hint cache; /* of its reads; .set false: the server's */
};

struct mcp_read_result {
  const char *uri;       /* the requested URI (borrowed) */
  json_t *contents;      /* array */
  bool failed;           /* an allocation failed: answer -32603 */
  mcp__cache_hint cache; /* set by the handler, or .set false */
};

/* Finds the completion handler for name, or NULL. */
const mcp__completer *mcp__template_completer(const mcp_resource_template_t *t,
                                              const char *name);

/* ---- read.c, attach.c: the methods (registered by mcp_server_new) ------- */
struct mcp_server;
mcp_status mcp__handle_resources_list(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_templates_list(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_resources_read(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_subscribe(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_unsubscribe(mcp_call_t *call, json_t **result);
mcp_status mcp__resources_register(struct mcp_server *s);

#endif
