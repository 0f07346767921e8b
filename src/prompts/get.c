/* SPDX-License-Identifier: MIT */
/* get.c - prompts on a server: adding and removing, prompts/list and
 * prompts/get.
 *
 * prompts/get checks everything the spec lets the server reject before the
 * handler runs: unknown prompt, arguments that are not a string-to-string
 * map, a missing required argument: all -32602.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "core/notify.h"
#include "prompts/prompt_internal.h"
#include "util/similar.h"

static void announce(mcp_server_t *s) {
  if (mcp__prompts_of(s)->list_changed)
    mcp_server_broadcast(s, "notifications/prompts/list_changed", NULL);
}

mcp_status mcp_server_add_prompt(mcp_server_t *s, mcp_prompt_t *p) {
  if (s == NULL || p == NULL) {
    if (s != NULL) /* a constructor has nowhere to say why: say it here */
      mcp__log(s, MCP_LOG_ERROR,
               "mcp_server_add_prompt: the prompt is NULL (did mcp_prompt_new "
               "refuse its name? 1-128 characters without control "
               "characters)");
    mcp_prompt_free(p);
    return MCP_ERR_INVALID_ARG;
  }
  mcp_status st = MCP_OK;
  if (p->refusals) {
    mcp__log(s, MCP_LOG_ERROR, "prompt '%s' not added:\n%s", p->entry.key,
             p->refusals);
    st = MCP_ERR_INVALID_ARG;
  } else if (p->fn == NULL) {
    mcp__log(s, MCP_LOG_ERROR, "prompt '%s' not added: it has no handler",
             p->entry.key);
    st = MCP_ERR_STATE;
  } else if ((p->entry.listing = mcp_prompt_to_json(p)) == NULL) {
    st = MCP_ERR_NOMEM;
  } else if ((st = mcp__catalog_add(&mcp__prompts_of(s)->prompts,
                                    &p->entry)) != MCP_OK) {
    mcp__log(s, MCP_LOG_ERROR, "prompt '%s' not added: %s", p->entry.key,
             st == MCP_ERR_EXISTS ? "the name is taken" : mcp_strerror(st));
  }
  if (st != MCP_OK) {
    mcp_prompt_free(p);
    return st;
  }
  announce(s);
  return MCP_OK;
}

mcp_status mcp_server_remove_prompt(mcp_server_t *s, const char *name) {
  if (s == NULL || name == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = mcp__catalog_remove(&mcp__prompts_of(s)->prompts, name);
  if (st == MCP_OK)
    announce(s);
  return st;
}

size_t mcp_server_prompt_count(const mcp_server_t *s) {
  return s ? mcp__catalog_count(&mcp__prompts_of(s)->prompts) : 0;
}

mcp_status mcp_server_set_prompts_list_changed(mcp_server_t *s, bool declared) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp__prompts_of(s)->list_changed = declared;
  return MCP_OK;
}

static mcp_status not_offered(mcp_call_t *call) {
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND,
                        "Method not found: the server offers no prompts");
}

mcp_status mcp__handle_prompts_list(mcp_call_t *call, json_t **result) {
  if (mcp__catalog_count(&mcp__prompts_of(mcp_call_server(call))->prompts) == 0)
    return not_offered(call);
  return mcp__list_catalog(call,
                           &mcp__prompts_of(mcp_call_server(call))->prompts,
                           "prompts", "prompts", MCP_CACHE_PROMPTS_LIST,
                           result);
}

static mcp_status invalid(mcp_call_t *call, const char *fmt, const char *arg) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, arg);
  return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
}

/* Checks args against the prompt's declared arguments. */
static mcp_status check_args(mcp_call_t *call, const mcp_prompt_t *p,
                             json_t *args) {
  const char *key;
  json_t *v;
  json_object_foreach(args, key, v) {
    if (!json_is_string(v))
      return invalid(call, "Invalid params: argument '%.100s' must be a string",
                     key);
  }
  for (size_t i = 0; i < p->nargs; i++)
    if (p->args[i].required && !json_object_get(args, p->args[i].name))
      return invalid(call, "Invalid params: missing required argument '%.100s'",
                     p->args[i].name);
  return MCP_OK;
}

static json_t *result_json(mcp_prompt_result_t *r, const mcp_prompt_t *p) {
  json_t *messages = json_array();
  json_t *res = json_pack("{s:o}", "messages", messages);
  if (res == NULL)
    return NULL;
  size_t n = json_array_size(r->blocks.content);
  for (size_t i = 0; i < n; i++)
    if (json_array_append_new(
            messages,
            json_pack("{s:O,s:O}", "role", json_array_get(r->roles, i),
                      "content", json_array_get(r->blocks.content, i))) != 0) {
      json_decref(res);
      return NULL;
    }
  const char *d = r->description ? r->description : p->description;
  if (d && json_object_set_new(res, "description", json_string(d)) != 0) {
    json_decref(res);
    return NULL;
  }
  return res;
}

/* A catalog visitor offering each prompt's name to a mcp__similar. */
static bool offer_name(mcp__entry *e, void *near) {
  return mcp__similar_offer(near, e->key);
}

mcp_status mcp__handle_prompts_get(mcp_call_t *call, json_t **result) {
  mcp_server_t *s = mcp_call_server(call);
  if (mcp__catalog_count(&mcp__prompts_of(s)->prompts) == 0)
    return not_offered(call);
  json_t *name = json_object_get(mcp_call_params(call), "name");
  if (!json_is_string(name))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: name must be a string");
  json_t *args = json_object_get(mcp_call_params(call), "arguments");
  if (args != NULL && !json_is_null(args) && !json_is_object(args))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: arguments must be an object of "
                          "strings");
  mcp__entry *e = mcp__catalog_find(&mcp__prompts_of(s)->prompts,
                                    json_string_value(name));
  if (e == NULL) {
    char msg[700], hint[500];
    mcp__similar near;
    mcp__similar_init(&near, json_string_value(name), json_string_length(name));
    mcp__catalog_find_if(&mcp__prompts_of(s)->prompts, offer_name, &near);
    mcp__similar_text(&near, hint, sizeof hint);
    snprintf(msg, sizeof msg, "Invalid params: unknown prompt '%.100s'%s",
             json_string_value(name), hint);
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
  }
  mcp_prompt_t *p = (mcp_prompt_t *)e;
  json_t *owned = json_is_object(args) ? json_incref(args) : json_object();
  mcp_status st = owned ? check_args(call, p, owned) : MCP_ERR_NOMEM;
  mcp_prompt_result_t r = {0};
  if (st == MCP_OK) {
    r.roles = json_array();
    if (!mcp__result_init(&r.blocks) || r.roles == NULL)
      st = MCP_ERR_NOMEM;
  }
  if (st == MCP_OK)
    st = p->fn(call, owned, &r, p->user_data);
  if (st == MCP_OK && r.blocks.failed)
    st = MCP_ERR_NOMEM;
  if (st == MCP_OK && (*result = result_json(&r, p)) == NULL)
    st = MCP_ERR_NOMEM;
  mcp__result_clear(&r.blocks);
  json_decref(r.roles);
  free(r.description);
  json_decref(owned);
  mcp__entry_release(e);
  return st;
}

static const mcp__method prompt_methods[] = {
    {"prompts/list", mcp__handle_prompts_list,
     MCP__ERA_LEGACY | MCP__ERA_MODERN},
    {"prompts/get", mcp__handle_prompts_get, MCP__ERA_LEGACY | MCP__ERA_MODERN},
};

static void prompts_state_free(void *state) {
  mcp__prompts_state *ps = state;
  mcp__catalog_destroy(&ps->prompts);
  free(ps);
}
static const mcp__slot_key prompts_slot = {"prompts", prompts_state_free};

mcp__prompts_state *mcp__prompts_of(const mcp_server_t *s) {
  return mcp__server_slot(s, &prompts_slot);
}

/* prompts, in both eras, while a prompt is registered */
static void prompts_capability(const mcp_server_t *s, json_t *caps,
                               unsigned era) {
  (void)era;
  mcp__prompts_state *ps = mcp__prompts_of(s);
  if (mcp__catalog_count(&ps->prompts)) {
    json_t *p = json_object();
    if (p && ps->list_changed)
      json_object_set_new(p, "listChanged", json_true());
    json_object_set_new(caps, "prompts", p);
  }
}

static void prompts_resync(mcp_server_t *s) {
  if (mcp__prompts_of(s)->list_changed)
    mcp__server_broadcast_local(s, "notifications/prompts/list_changed",
                                NULL);
}

mcp_status mcp__prompts_register(mcp_server_t *s) {
  mcp__prompts_state *ps = calloc(1, sizeof *ps);
  if (ps == NULL)
    return MCP_ERR_NOMEM;
  mcp__catalog_init(&ps->prompts);
  ps->list_changed = true;
  mcp_status st = mcp__server_set_slot(s, &prompts_slot, ps);
  if (st != MCP_OK) {
    prompts_state_free(ps);
    return st;
  }
  st = mcp__server_add_methods(
      s, prompt_methods, sizeof prompt_methods / sizeof prompt_methods[0]);
  if (st == MCP_OK)
    st = mcp__server_add_capability(s, prompts_capability);
  if (st == MCP_OK)
    st = mcp__server_on_resync(s, prompts_resync);
  return st;
}
