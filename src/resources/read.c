/* SPDX-License-Identifier: MIT */
/* read.c - resources/list, resources/templates/list and resources/read.
 *
 * resources/read looks the URI up among static resources first (exact
 * match), then tries the templates in registration order. A URI that
 * nothing serves, or whose handler reports MCP_ERR_RESOURCE_NOT_FOUND, gets
 * -32002 with data {uri} (spec: resources, error handling).
 */
#include <stdio.h>
#include <string.h>

#include "core/feature.h"
#include "resources/resource_internal.h"

static bool offers_resources(mcp_server_t *s) {
  mcp__resources_state *rs = mcp__resources_of(s);
  return mcp__catalog_count(&rs->resources) ||
         mcp__catalog_count(&rs->templates);
}

static mcp_status not_offered(mcp_call_t *call) {
  char msg[160];
  snprintf(msg, sizeof msg,
           "Method not found: %s (the server offers no "
           "resources)",
           mcp_call_method(call));
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, msg);
}

mcp_status mcp__handle_resources_list(mcp_call_t *call, json_t **result) {
  if (!offers_resources(mcp_call_server(call)))
    return not_offered(call);
  return mcp__list_catalog(
      call, &mcp__resources_of(mcp_call_server(call))->resources, "resources",
      "resources", MCP_CACHE_RESOURCES_LIST, result);
}

mcp_status mcp__handle_templates_list(mcp_call_t *call, json_t **result) {
  if (!offers_resources(mcp_call_server(call)))
    return not_offered(call);
  return mcp__list_catalog(
      call, &mcp__resources_of(mcp_call_server(call))->templates, "templates",
      "resourceTemplates", MCP_CACHE_TEMPLATES_LIST, result);
}

typedef struct match_ctx {
  const char *uri;
  json_t *vars;
} match_ctx;

static bool template_matches(mcp__entry *e, void *ctx) {
  match_ctx *m = ctx;
  return mcp__uritpl_match(((mcp_resource_template_t *)e)->tpl, m->uri,
                           &m->vars);
}

static mcp_status resource_not_found(mcp_call_t *call, const char *uri) {
  mcp_call_set_error(call, MCP_RPC_RESOURCE_NOT_FOUND, "Resource not found",
                     json_pack("{s:s}", "uri", uri));
  return MCP_ERR_RESOURCE_NOT_FOUND;
}

mcp_status mcp__handle_resources_read(mcp_call_t *call, json_t **result) {
  mcp_server_t *s = mcp_call_server(call);
  if (!offers_resources(s))
    return not_offered(call);
  json_t *juri = json_object_get(mcp_call_params(call), "uri");
  if (!json_is_string(juri) || json_string_length(juri) == 0)
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: uri must be a non-empty string");
  const char *uri = json_string_value(juri);
  if (strlen(uri) != json_string_length(juri))
    return resource_not_found(call, uri); /* embedded NUL: names nothing */

  mcp__handler h = {0};
  mcp__cache_hint cache = {0};
  json_t *vars = NULL;
  mcp__entry *e = mcp__catalog_find(&mcp__resources_of(s)->resources, uri);
  const mcp__entry *found_static = e;
  if (e) {
    h = ((mcp_resource_t *)e)->h;
    cache = ((mcp_resource_t *)e)->cache;
    vars = json_object();
  } else {
    match_ctx m = {uri, NULL};
    e = mcp__catalog_find_if(&mcp__resources_of(s)->templates,
                             template_matches, &m);
    if (e) {
      h = ((mcp_resource_template_t *)e)->h;
      cache = ((mcp_resource_template_t *)e)->cache;
    }
    vars = m.vars;
  }
  if (e == NULL) {
    json_decref(vars);
    return resource_not_found(call, uri);
  }
  mcp_read_result_t out = {uri, json_array(), false, cache};
  mcp_status st = MCP_ERR_NOMEM;
  if (out.contents && vars)
    st = h.fn(call, uri, vars, &out, h.user_data);
  if (st == MCP_OK && !out.failed && e == found_static &&
      ((mcp_resource_t *)e)->ui) /* apps.h: mimeType and _meta.ui */
    st = mcp__ui_res_complete((mcp_resource_t *)e, out.contents);
  json_decref(vars);
  mcp__entry_release(e);
  if (st == MCP_OK && out.failed)
    st = MCP_ERR_NOMEM;
  if (st == MCP_ERR_RESOURCE_NOT_FOUND && !mcp__call_has_error(call))
    st = resource_not_found(call, uri);
  if (st == MCP_OK &&
      (*result = json_pack("{s:o}", "contents", out.contents))) {
    st = mcp__call_add_cache_hint(call, *result, MCP_CACHE_RESOURCES_READ,
                                  &out.cache);
    if (st != MCP_OK) {
      json_decref(*result);
      *result = NULL;
    }
    return st;
  }
  if (st == MCP_OK)
    return MCP_ERR_NOMEM; /* json_pack stole contents */
  json_decref(out.contents);
  return st;
}
