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

/* An MCP Apps view (apps.h, ui_resource.c): its HTML, how it is served,
 * its _meta.ui and what a setter refused. */
typedef struct mcp__ui_res {
  char *html; /* NULL until set (then the built-in handler serves it) */
  size_t len;
  bool blob;    /* serve as base64 "blob" */
  json_t *meta; /* the _meta.ui object (never NULL) */
  char fault[320];
} mcp__ui_res;

struct mcp_resource {
  mcp__entry entry; /* key: uri */
  mcp__res_meta m;
  bool has_size;
  uint64_t size;
  mcp__handler h;
  mcp__cache_hint cache; /* of its reads; .set false: the server's */
  mcp__ui_res *ui;       /* NULL unless made by mcp_ui_resource_new */
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

/* ---- ui_resource.c (apps.h) ---------------------------------------------- */
void mcp__ui_res_free(mcp__ui_res *ui);
/* The listing's _meta with _meta.ui merged in (returns new; NULL when there
 * is none). */
json_t *mcp__ui_res_listing_meta(const mcp_resource_t *r);
/* At mcp_server_add_resource: a kept fault, no HTML and no handler, a
 * ui:// URI of another MIME type, ... MCP_ERR_INVALID_ARG with err. */
mcp_status mcp__ui_res_check(const mcp_resource_t *r, mcp_error_t *err);
/* After a read of a UI resource: entries for its URI get the MIME type and
 * _meta.ui when they have none. */
mcp_status mcp__ui_res_complete(const mcp_resource_t *r, json_t *contents);

/* ---- read.c, attach.c: the methods (registered by mcp_server_new) ------- */
struct mcp_server;
mcp_status mcp__handle_resources_list(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_templates_list(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_resources_read(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_subscribe(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_unsubscribe(mcp_call_t *call, json_t **result);
/* The resources, templates, capability hook and state (its feature slot),
 * registered by mcp_server_new. */
mcp_status mcp__resources_register(struct mcp_server *s);
/* The resources module's state on a server (never NULL after
 * mcp_server_new). */
typedef struct mcp__resources_state {
  mcp__catalog resources, templates;
  bool subscribe;    /* mcp_server_set_resources_subscribe */
  bool list_changed; /* mcp_server_set_resources_list_changed */
} mcp__resources_state;
mcp__resources_state *mcp__resources_of(const struct mcp_server *s);

#endif
