/* SPDX-License-Identifier: MIT */
/* attach.c - resources and templates on a server: adding, removing,
 * settings, and who hears about updates (resources/subscribe,
 * resources/unsubscribe, notifications/resources/updated). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "core/listen.h"
#include "core/notify.h"
#include "core/relay.h"
#include "core/sessions.h"
#include "core/viewer.h"
#include "mcp/apps.h"
#include "resources/resource_internal.h"
#include "tools/tool_internal.h"

static void announce(mcp_server_t *s) {
  if (mcp__resources_of(s)->list_changed)
    mcp_server_broadcast(s, "notifications/resources/list_changed", NULL);
}

/* Adds e with its listing (computed by the caller only when there is a
 * handler, so NULL here means out of memory); e is released on failure. */
static mcp_status add_entry(mcp_server_t *s, mcp__catalog *c, mcp__entry *e,
                            const char *kind, const char *refusals,
                            bool has_handler, json_t *listing) {
  mcp_status st;
  if (refusals != NULL) { /* the setters' reasons (resource.c refuse) */
    mcp__log(s, MCP_LOG_ERROR, "%s '%s' not added:\n%s", kind, e->key,
             refusals);
    json_decref(listing);
    st = MCP_ERR_INVALID_ARG;
  } else if (!has_handler) {
    mcp__log(s, MCP_LOG_ERROR, "%s '%s' not added: it has no handler", kind,
             e->key);
    st = MCP_ERR_STATE;
  } else if ((e->listing = listing) == NULL) {
    st = MCP_ERR_NOMEM;
  } else if ((st = mcp__catalog_add(c, e)) != MCP_OK) {
    mcp__log(s, MCP_LOG_ERROR, "%s '%s' not added: %s", kind, e->key,
             st == MCP_ERR_EXISTS ? "it is there already" : mcp_strerror(st));
  }
  if (st != MCP_OK) {
    mcp__entry_release(e);
    return st;
  }
  announce(s);
  return MCP_OK;
}

mcp_status mcp_server_add_ui_resource(mcp_server_t *s, mcp_resource_t *r,
                                      mcp_error_t *err) {
  if (s == NULL || r == NULL) {
    mcp_resource_free(r);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "server and resource "
                                                   "required");
  }
  mcp_status st = mcp__ui_res_check(r, err);
  if (st != MCP_OK) {
    mcp__log(s, MCP_LOG_ERROR, "resource '%s' not added: %s", r->entry.key,
             err ? err->message : mcp_strerror(st));
    mcp_resource_free(r);
    return st;
  }
  char uri[200];
  snprintf(uri, sizeof uri, "%s", r->entry.key);
  char refused[512] = ""; /* the setters' reasons, for err */
  if (r->m.refusals != NULL)
    snprintf(refused, sizeof refused, "%s", r->m.refusals);
  st = add_entry(s, &mcp__resources_of(s)->resources, &r->entry, "resource",
                 r->m.refusals, r->h.fn != NULL,
                 r->h.fn ? mcp_resource_to_json(r) : NULL);
  if (st != MCP_OK && refused[0] != '\0')
    mcp_error_set(err, st, "resource '%s' not added: %s", uri, refused);
  else if (st != MCP_OK)
    mcp_error_set(err, st,
                  st == MCP_ERR_EXISTS ? "resource '%s' already exists"
                                       : "cannot add resource '%s'",
                  uri);
  return st;
}

mcp_status mcp_server_add_resource(mcp_server_t *s, mcp_resource_t *r) {
  if (s == NULL || r == NULL) {
    if (s != NULL) /* a constructor has nowhere to say why: say it here */
      mcp__log(s, MCP_LOG_ERROR,
               "mcp_server_add_resource: the resource is NULL (did "
               "mcp_resource_new refuse it? the URI must be absolute, "
               "scheme:..., without spaces or control characters, and the "
               "name not empty)");
    mcp_resource_free(r);
    return MCP_ERR_INVALID_ARG;
  }
  mcp_error_t err;
  mcp_status st = mcp__ui_res_check(r, &err); /* apps.h */
  if (st != MCP_OK) {
    mcp__log(s, MCP_LOG_ERROR, "resource '%s' not added: %s", r->entry.key,
             err.message);
    mcp_resource_free(r);
    return st;
  }
  return add_entry(s, &mcp__resources_of(s)->resources, &r->entry,
                   "resource", r->m.refusals, r->h.fn != NULL,
                   r->h.fn ? mcp_resource_to_json(r) : NULL);
}

mcp_status mcp_server_add_resource_template(mcp_server_t *s,
                                            mcp_resource_template_t *t) {
  if (s == NULL || t == NULL) {
    if (s != NULL)
      mcp__log(s, MCP_LOG_ERROR,
               "mcp_server_add_resource_template: the template is NULL (did "
               "mcp_resource_template_new refuse it? the URI template must "
               "be valid RFC 6570 and the name not empty)");
    mcp_resource_template_free(t);
    return MCP_ERR_INVALID_ARG;
  }
  return add_entry(s, &mcp__resources_of(s)->templates, &t->entry,
                   "resource template", t->m.refusals, t->h.fn != NULL,
                   t->h.fn ? mcp_resource_template_to_json(t) : NULL);
}

mcp_status mcp_server_remove_resource(mcp_server_t *s, const char *uri) {
  if (s == NULL || uri == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = mcp__catalog_remove(&mcp__resources_of(s)->resources, uri);
  if (st == MCP_OK)
    announce(s);
  return st;
}

mcp_status mcp_server_remove_resource_template(mcp_server_t *s,
                                               const char *uri_template) {
  if (s == NULL || uri_template == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st =
      mcp__catalog_remove(&mcp__resources_of(s)->templates, uri_template);
  if (st == MCP_OK)
    announce(s);
  return st;
}

size_t mcp_server_resource_count(const mcp_server_t *s) {
  return s ? mcp__catalog_count(&mcp__resources_of(s)->resources) : 0;
}

size_t mcp_server_resource_template_count(const mcp_server_t *s) {
  return s ? mcp__catalog_count(&mcp__resources_of(s)->templates) : 0;
}

mcp_status mcp_server_set_resources_subscribe(mcp_server_t *s, bool enabled) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp__resources_of(s)->subscribe = enabled;
  return MCP_OK;
}

mcp_status mcp_server_set_resources_list_changed(mcp_server_t *s,
                                                 bool declared) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp__resources_of(s)->list_changed = declared;
  return MCP_OK;
}

/* ---- subscriptions ------------------------------------------------------- */

static mcp_status subscription_request(mcp_call_t *call, json_t **result,
                                       bool subscribe) {
  mcp__resources_state *rs = mcp__resources_of(mcp_call_server(call));
  if (!rs->subscribe || (mcp__catalog_count(&rs->resources) == 0 &&
                         mcp__catalog_count(&rs->templates) == 0))
    return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND,
                          "Method not found: the server does not offer "
                          "resource subscriptions");
  json_t *uri = json_object_get(mcp_call_params(call), "uri");
  if (!json_is_string(uri) || json_string_length(uri) == 0)
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: uri must be a non-empty string");
  mcp_status st =
      mcp__session_set_update(mcp__call_session(call), MCP__SET_SUBSCRIPTIONS,
                              json_string_value(uri), subscribe);
  /* the updates it gets are those this caller may read */
  if (st == MCP_OK && subscribe)
    st = mcp__session_set_viewer(mcp__call_session(call), call);
  if (st != MCP_OK)
    return st;
  *result = json_object();
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp__handle_subscribe(mcp_call_t *call, json_t **result) {
  return subscription_request(call, result, true);
}

mcp_status mcp__handle_unsubscribe(mcp_call_t *call, json_t **result) {
  return subscription_request(call, result, false);
}

/* True when a subscription to sub covers uri: the same resource, or one
 * below it in the path hierarchy. */
static bool covers(const char *sub, const void *ud) {
  return mcp__uri_covers(sub, ud);
}

/* A session subscribed to uri (or above it) whose caller may read it. */
static bool session_wants(mcp_session_t *se, void *ud) {
  return mcp__session_set_match(se, MCP__SET_SUBSCRIPTIONS, true, covers, ud,
                                false) &&
         mcp__session_may_read(se, ud);
}

mcp_status mcp_server_notify_resource_updated(mcp_server_t *s,
                                              const char *uri) {
  if (s == NULL || uri == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp__relay_publish_resource_updated(s, uri);
  return mcp__server_resource_updated_local(s, uri);
}

mcp_status mcp__server_resource_updated_local(mcp_server_t *s,
                                              const char *uri) {
  if (s == NULL || uri == NULL)
    return MCP_ERR_INVALID_ARG;
  json_t *params = json_pack("{s:s}", "uri", uri);
  mcp__buf msg;
  mcp__buf_init(&msg);
  bool ok = params && mcp__jsonrpc_encode_notification(
                          &msg, "notifications/resources/updated", params);
  if (!ok) {
    json_decref(params);
    mcp__buf_free(&msg);
    return MCP_ERR_NOMEM;
  }
  mcp_status st = mcp__notify_sessions(s, session_wants, (void *)uri, &msg);
  mcp__listen_publish(s, MCP__LISTEN_RESOURCE, uri,
                      "notifications/resources/updated", params);
  json_decref(params);
  mcp__buf_free(&msg);
  return st;
}

static const mcp__method resource_methods[] = {
    {"resources/list", mcp__handle_resources_list,
     MCP__ERA_LEGACY | MCP__ERA_MODERN},
    {"resources/templates/list", mcp__handle_templates_list,
     MCP__ERA_LEGACY | MCP__ERA_MODERN},
    {"resources/read", mcp__handle_resources_read,
     MCP__ERA_LEGACY | MCP__ERA_MODERN},
    /* 2026-07-28 subscribes through subscriptions/listen instead. */
    {"resources/subscribe", mcp__handle_subscribe, MCP__ERA_LEGACY},
    {"resources/unsubscribe", mcp__handle_unsubscribe, MCP__ERA_LEGACY},
};

static void resources_state_free(void *state) {
  mcp__resources_state *rs = state;
  mcp__catalog_destroy(&rs->resources);
  mcp__catalog_destroy(&rs->templates);
  free(rs);
}
static const mcp__slot_key resources_slot = {"resources",
                                             resources_state_free};

mcp__resources_state *mcp__resources_of(const mcp_server_t *s) {
  return mcp__server_slot(s, &resources_slot);
}

static bool is_ui(mcp__entry *e, void *ctx) {
  (void)ctx;
  return mcp__listing_is_ui(e->listing);
}

/* What resources add to ServerCapabilities, in both eras, while something
 * backs it: MCP Apps (apps.h) extensions["io.modelcontextprotocol/ui"]
 * while a view is registered (the extension predates 2026-07-28 and is
 * declared in initialize as in server/discover), then resources. */
static void resources_capability(const mcp_server_t *s, json_t *caps,
                                 unsigned era) {
  (void)era;
  mcp__resources_state *rs = mcp__resources_of(s);
  mcp__entry *e = mcp__catalog_find_if(&rs->resources, is_ui, NULL);
  mcp__entry_release(e);
  if (e != NULL)
    mcp__capability_extension(
        caps, MCP_APPS_EXTENSION,
        json_pack("{s:[s]}", "mimeTypes", MCP_APP_MIME_TYPE));
  if (mcp__catalog_count(&rs->resources) ||
      mcp__catalog_count(&rs->templates)) {
    json_t *r = json_object();
    if (r && rs->subscribe)
      json_object_set_new(r, "subscribe", json_true());
    if (r && rs->list_changed)
      json_object_set_new(r, "listChanged", json_true());
    json_object_set_new(caps, "resources", r);
  }
}

static void resources_resync(mcp_server_t *s) {
  if (mcp__resources_of(s)->list_changed)
    mcp__server_broadcast_local(s, "notifications/resources/list_changed",
                                NULL);
}

/* For the tools module's UI links (tool_ui.c). */
static bool ui_resource(mcp_server_t *s, const char *uri, bool *exists) {
  mcp__entry *e = mcp__catalog_find(&mcp__resources_of(s)->resources, uri);
  bool ui = e && mcp__listing_is_ui(e->listing);
  *exists = e != NULL;
  mcp__entry_release(e);
  return ui;
}

mcp_status mcp__resources_register(mcp_server_t *s) {
  mcp__resources_state *rs = calloc(1, sizeof *rs);
  if (rs == NULL)
    return MCP_ERR_NOMEM;
  mcp__catalog_init(&rs->resources);
  mcp__catalog_init(&rs->templates);
  rs->list_changed = true;
  mcp_status st = mcp__server_set_slot(s, &resources_slot, rs);
  if (st != MCP_OK) {
    resources_state_free(rs);
    return st;
  }
  mcp__server_set_resource_updated(s, mcp__server_resource_updated_local);
  mcp__tools_set_ui_lookup(s, ui_resource);
  st = mcp__server_add_methods(s, resource_methods,
                               sizeof resource_methods /
                                   sizeof resource_methods[0]);
  if (st == MCP_OK)
    st = mcp__server_add_capability(s, resources_capability);
  if (st == MCP_OK)
    st = mcp__server_on_resync(s, resources_resync);
  return st;
}
