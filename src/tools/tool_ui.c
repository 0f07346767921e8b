/* SPDX-License-Identifier: MIT */
/* tool_ui.c - tools linked to an MCP Apps view (apps.h): _meta.ui
 * resourceUri and visibility, their checks, and who may see an app-only
 * tool.
 *
 * The link is checked on the tool's listing, whichever way it got there
 * (mcp_tool_set_ui, mcp_tool_set_meta, a declaration): a tool is listed
 * exactly as it was checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "mcp/apps.h"
#include "tools/tool_internal.h"
#include "util/buf.h"

#define UI_SCHEME "ui://"

static bool is_ui_uri(const char *uri) {
  return uri && strncmp(uri, UI_SCHEME, strlen(UI_SCHEME)) == 0 &&
         uri[strlen(UI_SCHEME)] != '\0' && strpbrk(uri, " \t\r\n") == NULL;
}

mcp_status mcp_tool_set_ui(mcp_tool_t *tool, const char *resource_uri,
                           unsigned visibility) {
  if (tool == NULL)
    return MCP_ERR_INVALID_ARG;
  if (resource_uri && !is_ui_uri(resource_uri)) {
    snprintf(tool->ui_fault, sizeof tool->ui_fault,
             "_meta.ui.resourceUri '%.200s' is not a ui:// URI", resource_uri);
    return MCP_ERR_INVALID_ARG;
  }
  if (visibility & ~(unsigned)(MCP_APP_VISIBLE_MODEL | MCP_APP_VISIBLE_APP)) {
    snprintf(tool->ui_fault, sizeof tool->ui_fault,
             "_meta.ui.visibility bits 0x%x are neither "
             "MCP_APP_VISIBLE_MODEL nor MCP_APP_VISIBLE_APP",
             visibility &
                 ~(unsigned)(MCP_APP_VISIBLE_MODEL | MCP_APP_VISIBLE_APP));
    return MCP_ERR_INVALID_ARG;
  }
  char *copy = resource_uri ? strdup(resource_uri) : NULL;
  if (resource_uri && copy == NULL)
    return MCP_ERR_NOMEM;
  free(tool->ui_resource_uri);
  tool->ui_resource_uri = copy;
  tool->ui_visibility = visibility;
  tool->ui_fault[0] = '\0';
  return MCP_OK;
}

json_t *mcp__tool_ui_meta(const mcp_tool_t *t, bool *failed) {
  *failed = false;
  if (t->ui_resource_uri == NULL && t->ui_visibility == 0)
    return t->meta ? json_incref(t->meta) : NULL;
  json_t *meta = t->meta ? json_copy(t->meta) : json_object();
  json_t *ui = json_object_get(meta, "ui");
  ui = json_is_object(ui) ? json_copy(ui) : json_object();
  if (meta == NULL || ui == NULL || json_object_set_new(meta, "ui", ui) != 0)
    goto fail;
  if (t->ui_resource_uri &&
      json_object_set_new(ui, "resourceUri",
                          json_string(t->ui_resource_uri)) != 0)
    goto fail;
  if (t->ui_visibility) {
    json_t *v = json_array();
    if (v == NULL || json_object_set_new(ui, "visibility", v) != 0)
      goto fail;
    if (t->ui_visibility & MCP_APP_VISIBLE_MODEL)
      json_array_append_new(v, json_string("model"));
    if (t->ui_visibility & MCP_APP_VISIBLE_APP)
      json_array_append_new(v, json_string("app"));
  }
  return meta;
fail:
  json_decref(meta);
  *failed = true;
  return NULL;
}

bool mcp__listing_is_ui(const json_t *listing) {
  const char *mime = json_string_value(json_object_get(listing, "mimeType"));
  const char *uri = json_string_value(json_object_get(listing, "uri"));
  return mime && uri && strcmp(mime, MCP_APP_MIME_TYPE) == 0 && is_ui_uri(uri);
}

/* MCP_OK when uri names a registered UI resource of s. */
static mcp_status linked_resource(mcp_server_t *s, const char *tool,
                                  const char *uri, mcp_error_t *err) {
  bool exists = false;
  mcp__tools_state *ts = mcp__tools_of(s);
  if (ts->ui_resource && ts->ui_resource(s, uri, &exists))
    return MCP_OK;
  return mcp_error_set(
      err, MCP_ERR_NOT_FOUND,
      "tool '%.128s': _meta.ui.resourceUri '%.200s' names no registered UI "
      "resource%s (mcp_ui_resource_new + mcp_server_add_ui_resource)",
      tool, uri,
      exists ? " (a resource of another MIME type has that URI)" : "");
}

mcp_status mcp__tool_ui_check(mcp_server_t *s, mcp_tool_t *tool,
                              mcp_error_t *err) {
  tool->ui_visible = MCP_APP_VISIBLE_MODEL | MCP_APP_VISIBLE_APP;
  tool->ui_linked = NULL;
  if (tool->ui_fault[0] != '\0')
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "tool '%.128s': %s",
                         tool->entry.key, tool->ui_fault);
  json_t *ui = json_object_get(json_object_get(tool->entry.listing, "_meta"),
                               "ui");
  if (ui == NULL)
    return MCP_OK;
  if (!json_is_object(ui))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "tool '%.128s': _meta.ui must be an object",
                         tool->entry.key);
  json_t *uri = json_object_get(ui, "resourceUri");
  if (uri && !is_ui_uri(json_string_value(uri))) {
    char *text = json_dumps(uri, JSON_ENCODE_ANY | JSON_COMPACT);
    mcp_error_set(err, MCP_ERR_INVALID_ARG,
                  "tool '%.128s': _meta.ui.resourceUri %.200s is not a ui:// "
                  "URI",
                  tool->entry.key, text ? text : "?");
    free(text);
    return MCP_ERR_INVALID_ARG;
  }
  json_t *vis = json_object_get(ui, "visibility");
  if (vis) {
    unsigned bits = 0;
    size_t i;
    json_t *v;
    if (!json_is_array(vis) || json_array_size(vis) == 0)
      return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                           "tool '%.128s': _meta.ui.visibility must be a "
                           "non-empty array of \"model\" and \"app\"",
                           tool->entry.key);
    json_array_foreach(vis, i, v) {
      const char *name = json_string_value(v);
      unsigned bit = name && strcmp(name, "model") == 0 ? MCP_APP_VISIBLE_MODEL
                     : name && strcmp(name, "app") == 0 ? MCP_APP_VISIBLE_APP
                                                        : 0;
      if (bit == 0 || (bits & bit)) {
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        mcp_error_set(err, MCP_ERR_INVALID_ARG,
                      "tool '%.128s': _meta.ui.visibility[%zu] %.100s is %s",
                      tool->entry.key, i, text ? text : "?",
                      bit ? "a duplicate" : "neither \"model\" nor \"app\"");
        free(text);
        return MCP_ERR_INVALID_ARG;
      }
      bits |= bit;
    }
    tool->ui_visible = bits;
  }
  if (uri) {
    tool->ui_linked = json_string_value(uri);
    /* before serving the resource may still come: checked at start */
    if (mcp__server_is_serving(s))
      return linked_resource(s, tool->entry.key, tool->ui_linked, err);
  }
  return MCP_OK;
}

typedef struct link_walk {
  mcp_server_t *s;
  mcp__buf list;
  size_t count;
} link_walk;

static bool collect_broken_link(mcp__entry *e, void *ctx) {
  link_walk *w = ctx;
  const mcp_tool_t *t = (const mcp_tool_t *)e;
  if (t->ui_linked == NULL)
    return false;
  bool exists;
  mcp__tools_state *ts = mcp__tools_of(w->s);
  bool ok = ts->ui_resource && ts->ui_resource(w->s, t->ui_linked, &exists);
  if (!ok) {
    char item[400];
    snprintf(item, sizeof item, "%s'%.128s' -> %.200s", w->count ? ", " : "",
             e->key, t->ui_linked);
    mcp__buf_append_str(&w->list, item);
    w->count++;
  }
  return false;
}

mcp_status mcp__tools_check_ui_links(mcp_server_t *s, mcp_error_t *err) {
  link_walk w = {.s = s, .count = 0};
  mcp__buf_init(&w.list);
  /* fn must not call back into the same catalog: resources are another */
  mcp__catalog_find_if(mcp__tools_catalog(s), collect_broken_link, &w);
  if (w.count == 0) {
    mcp__buf_free(&w.list);
    return MCP_OK;
  }
  const char *list = w.list.data ? w.list.data : "(out of memory)";
  if (err == NULL)
    mcp__log(s, MCP_LOG_ERROR,
             "not serving: %zu tool%s link%s to no registered UI resource "
             "(_meta.ui.resourceUri): %s",
             w.count, w.count == 1 ? "" : "s", w.count == 1 ? "s" : "", list);
  mcp_error_set(err, MCP_ERR_NOT_FOUND,
                "%zu tool%s link%s to no registered UI resource "
                "(_meta.ui.resourceUri): %s",
                w.count, w.count == 1 ? "" : "s", w.count == 1 ? "s" : "",
                list);
  mcp__buf_free(&w.list);
  return MCP_ERR_NOT_FOUND;
}

bool mcp_call_supports_apps(const mcp_call_t *call) {
  json_t *caps = call ? mcp_call_client_capabilities(call) : NULL;
  json_t *ext = json_object_get(json_object_get(caps, "extensions"),
                                MCP_APPS_EXTENSION);
  json_t *types = json_object_get(ext, "mimeTypes");
  size_t i;
  json_t *v;
  json_array_foreach(types, i, v) {
    const char *t = json_string_value(v);
    if (t && strcmp(t, MCP_APP_MIME_TYPE) == 0)
      return true;
  }
  return false;
}

bool mcp__tool_visible_to(const mcp_tool_t *tool, const mcp_call_t *call) {
  return (tool->ui_visible & MCP_APP_VISIBLE_MODEL) ||
         mcp_call_supports_apps(call);
}
