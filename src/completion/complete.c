/* SPDX-License-Identifier: MIT */
/* complete.c - completion/complete and the CompleteResult builder.
 *
 * The reference picks the handler: ref/prompt by prompt name and argument,
 * ref/resource by the template's exact uriTemplate text and variable. An
 * unknown prompt or template, or an argument it does not declare, is -32602;
 * a declared argument without a handler completes to nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "completion/completion_internal.h"
#include "core/feature.h"
#include "prompts/prompt_internal.h"
#include "resources/resource_internal.h"

mcp_status mcp_completion_add(mcp_completion_t *c, const char *value) {
  if (c == NULL || value == NULL)
    return MCP_ERR_INVALID_ARG;
  c->offered++;
  if (json_array_size(c->values) >= MCP_COMPLETION_MAX_VALUES)
    return MCP_OK; /* counted for total/hasMore, not sent */
  json_t *v = json_string(value);
  if (v == NULL)
    return MCP_ERR_INVALID_ARG; /* not UTF-8 */
  if (json_array_append_new(c->values, v) != 0) {
    c->failed = true;
    return MCP_ERR_NOMEM;
  }
  return MCP_OK;
}

mcp_status mcp_completion_set_total(mcp_completion_t *c, uint64_t total) {
  if (c == NULL)
    return MCP_ERR_INVALID_ARG;
  c->has_total = true;
  c->total = total;
  return MCP_OK;
}

mcp_status mcp_completion_set_has_more(mcp_completion_t *c, bool has_more) {
  if (c == NULL)
    return MCP_ERR_INVALID_ARG;
  c->has_more = has_more;
  return MCP_OK;
}

static bool completes(mcp__entry *e, void *ctx) {
  (void)ctx;
  return e->completes;
}

static bool offers_completion(const mcp_server_t *s) {
  mcp__entry *e =
      mcp__catalog_find_if(&mcp__prompts_of(s)->prompts, completes, NULL);
  if (e == NULL)
    e = mcp__catalog_find_if(&mcp__resources_of(s)->templates, completes,
                             NULL);
  mcp__entry_release(e);
  return e != NULL;
}

static mcp_status invalid(mcp_call_t *call, const char *fmt, const char *a) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, a);
  return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
}

static json_t *result_json(mcp_completion_t *c) {
  json_t *comp = json_pack("{s:O}", "values", c->values);
  bool truncated = c->offered > json_array_size(c->values);
  if (comp && (c->has_total || truncated))
    json_object_set_new(
        comp, "total",
        json_integer((json_int_t)(c->has_total ? c->total : c->offered)));
  if (comp && (c->has_more || truncated))
    json_object_set_new(comp, "hasMore", json_true());
  return comp ? json_pack("{s:o}", "completion", comp) : NULL;
}

mcp_status mcp__handle_complete(mcp_call_t *call, json_t **result) {
  mcp_server_t *s = mcp_call_server(call);
  if (!offers_completion(s))
    return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND,
                          "Method not found: the server offers no completions");
  json_t *ref = json_object_get(mcp_call_params(call), "ref");
  json_t *arg = json_object_get(mcp_call_params(call), "argument");
  json_t *ctx = json_object_get(mcp_call_params(call), "context");
  json_t *ctx_args = json_object_get(ctx, "arguments");
  const char *type = json_string_value(json_object_get(ref, "type"));
  const char *arg_name = json_string_value(json_object_get(arg, "name"));
  const char *value = json_string_value(json_object_get(arg, "value"));
  if (!json_is_object(ref) || type == NULL)
    return invalid(call, "Invalid params: %s",
                   "ref must be an object with a "
                   "type");
  if (!json_is_object(arg) || arg_name == NULL || value == NULL)
    return invalid(call, "Invalid params: %s",
                   "argument must be {name: string, value: string}");
  if ((ctx && !json_is_object(ctx)) || (ctx_args && !json_is_object(ctx_args)))
    return invalid(call, "Invalid params: %s",
                   "context.arguments must be an object of strings");
  const char *key;
  json_t *v;
  json_object_foreach(ctx_args, key, v) if (!json_is_string(v)) return invalid(
      call, "Invalid params: context argument '%.100s' must be a string", key);

  mcp__entry *e = NULL;
  const mcp__completer *comp = NULL;
  if (strcmp(type, "ref/prompt") == 0) {
    const char *name = json_string_value(json_object_get(ref, "name"));
    if (name == NULL)
      return invalid(call, "Invalid params: %s", "ref/prompt needs a name");
    if ((e = mcp__catalog_find(&mcp__prompts_of(s)->prompts, name)) == NULL)
      return invalid(call, "Invalid params: unknown prompt '%.100s'", name);
    const mcp__prompt_arg *a =
        mcp__prompt_arg_find((mcp_prompt_t *)e, arg_name);
    if (a == NULL) {
      mcp__entry_release(e);
      return invalid(call,
                     "Invalid params: the prompt has no argument '%.100s'",
                     arg_name);
    }
    comp = a->comp.fn ? &a->comp : NULL;
  } else if (strcmp(type, "ref/resource") == 0) {
    const char *uri = json_string_value(json_object_get(ref, "uri"));
    if (uri == NULL)
      return invalid(call, "Invalid params: %s", "ref/resource needs a uri");
    if ((e = mcp__catalog_find(&mcp__resources_of(s)->templates, uri)) == NULL)
      return invalid(call, "Invalid params: unknown resource template '%.100s'",
                     uri);
    mcp_resource_template_t *t = (mcp_resource_template_t *)e;
    if (!mcp__uritpl_has_var(t->tpl, arg_name)) {
      mcp__entry_release(e);
      return invalid(call,
                     "Invalid params: the template has no variable '%.100s'",
                     arg_name);
    }
    comp = mcp__template_completer(t, arg_name);
  } else {
    return invalid(call, "Invalid params: unknown ref type '%.40s'", type);
  }

  mcp_completion_t c = {0};
  json_t *context = ctx_args ? json_incref(ctx_args) : json_object();
  c.values = json_array();
  mcp_status st = c.values && context ? MCP_OK : MCP_ERR_NOMEM;
  if (st == MCP_OK && comp)
    st = comp->fn(call, arg_name, value, context, &c, comp->user_data);
  if (st == MCP_OK && c.failed)
    st = MCP_ERR_NOMEM;
  if (st == MCP_OK && (*result = result_json(&c)) == NULL)
    st = MCP_ERR_NOMEM;
  json_decref(c.values);
  json_decref(context);
  mcp__entry_release(e);
  return st;
}

static const mcp__method completion_methods[] = {
    {"completion/complete", mcp__handle_complete,
     MCP__ERA_LEGACY | MCP__ERA_MODERN},
};

/* completions, in both eras, while a prompt or a template completes */
static void completion_capability(const mcp_server_t *s, json_t *caps,
                                  unsigned era) {
  (void)era;
  if (offers_completion(s))
    json_object_set_new(caps, "completions", json_object());
}

mcp_status mcp__completion_register(mcp_server_t *s) {
  mcp_status st = mcp__server_add_methods(s, completion_methods, 1);
  return st == MCP_OK ? mcp__server_add_capability(s, completion_capability)
                      : st;
}
