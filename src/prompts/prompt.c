/* SPDX-License-Identifier: MIT */
/* prompt.c - prompts: construction, arguments, metadata, listing JSON. */
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "prompts/prompt_internal.h"
#include "util/str.h"

static void prompt_destroy(mcp__entry *e) {
  mcp_prompt_t *p = (mcp_prompt_t *)e;
  free(e->key);
  json_decref(e->listing);
  free(p->title);
  free(p->description);
  for (size_t i = 0; i < p->nargs; i++) {
    mcp__prompt_arg *a = &p->args[i];
    free(a->name);
    free(a->title);
    free(a->description);
    if (a->comp.free_user_data)
      a->comp.free_user_data(a->comp.user_data);
  }
  free(p->args);
  json_decref(p->icons);
  json_decref(p->meta);
  if (p->free_user_data)
    p->free_user_data(p->user_data);
  free(p->refusals);
  free(p);
}

/* A setter refusing its argument keeps why in the prompt, for
 * mcp_server_add_prompt to log when it refuses the prompt: the reason is
 * reported even where the setter's status went unchecked. */
static mcp_status refuse(mcp_prompt_t *p, const char *what, const char *why) {
  return mcp__str_add_line(&p->refusals, "%s: %s", what, why) == MCP_OK
             ? MCP_ERR_INVALID_ARG
             : MCP_ERR_NOMEM;
}

/* 1-128 characters, no control characters. */
static bool name_is_valid(const char *name) {
  size_t n = name ? strlen(name) : 0;
  if (n == 0 || n > 128)
    return false;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
      return false;
  return true;
}

mcp_status mcp_prompt_new(const char *name, mcp_prompt_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (!name_is_valid(name))
    return MCP_ERR_INVALID_ARG;
  mcp_prompt_t *p = calloc(1, sizeof *p);
  if (p == NULL)
    return MCP_ERR_NOMEM;
  atomic_init(&p->entry.refs, 1);
  p->entry.destroy = prompt_destroy;
  if ((p->entry.key = strdup(name)) == NULL) {
    free(p);
    return MCP_ERR_NOMEM;
  }
  *out = p;
  return MCP_OK;
}

void mcp_prompt_free(mcp_prompt_t *p) {
  if (p)
    mcp__entry_release(&p->entry);
}

const char *mcp_prompt_name(const mcp_prompt_t *p) {
  return p ? p->entry.key : NULL;
}

mcp_status mcp_prompt_set_title(mcp_prompt_t *p, const char *title) {
  return p ? mcp__str_replace(&p->title, title) : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_prompt_set_description(mcp_prompt_t *p, const char *d) {
  return p ? mcp__str_replace(&p->description, d) : MCP_ERR_INVALID_ARG;
}

const mcp__prompt_arg *mcp__prompt_arg_find(const mcp_prompt_t *p,
                                            const char *name) {
  for (size_t i = 0; p && name && i < p->nargs; i++)
    if (strcmp(p->args[i].name, name) == 0)
      return &p->args[i];
  return NULL;
}

mcp_status mcp_prompt_add_argument(mcp_prompt_t *p, const char *name,
                                   const char *title, const char *description,
                                   bool required) {
  if (p == NULL)
    return MCP_ERR_INVALID_ARG;
  if (!name_is_valid(name))
    return refuse(p, "mcp_prompt_add_argument",
                  "an argument name must be 1-128 characters without control "
                  "characters");
  if (mcp__prompt_arg_find(p, name))
    return MCP_ERR_EXISTS;
  mcp__prompt_arg *args = realloc(p->args, (p->nargs + 1) * sizeof *args);
  if (args == NULL)
    return MCP_ERR_NOMEM;
  p->args = args;
  mcp__prompt_arg a = {0};
  a.required = required;
  if ((a.name = strdup(name)) == NULL ||
      mcp__str_replace(&a.title, title) != MCP_OK ||
      mcp__str_replace(&a.description, description) != MCP_OK) {
    free(a.name);
    free(a.title);
    free(a.description);
    return MCP_ERR_NOMEM;
  }
  p->args[p->nargs++] = a;
  return MCP_OK;
}

mcp_status mcp_prompt_set_completion(mcp_prompt_t *p, const char *argument,
                                     mcp_complete_fn fn, void *user_data,
                                     void (*free_user_data)(void *)) {
  if (p == NULL)
    return MCP_ERR_INVALID_ARG;
  if (fn == NULL)
    return refuse(p, "mcp_prompt_set_completion", "the handler is NULL");
  mcp__prompt_arg *a = (mcp__prompt_arg *)mcp__prompt_arg_find(p, argument);
  if (a == NULL)
    return MCP_ERR_NOT_FOUND;
  if (a->comp.fn)
    return MCP_ERR_EXISTS;
  a->comp = (mcp__completer){a->name, fn, user_data, free_user_data};
  p->entry.completes = true;
  return MCP_OK;
}

mcp_status mcp_prompt_add_icon(mcp_prompt_t *p, const char *src,
                               const char *mime_type, const char *sizes,
                               const char *theme) {
  if (p == NULL)
    return MCP_ERR_INVALID_ARG;
  const char *problem = mcp__icon_problem(src, theme);
  if (problem != NULL)
    return refuse(p, "mcp_prompt_add_icon", problem);
  return mcp__icon_append(&p->icons, src, mime_type, sizes, theme)
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

mcp_status mcp_prompt_set_meta(mcp_prompt_t *p, json_t *meta) {
  if (p == NULL || (meta && !json_is_object(meta))) {
    json_decref(meta);
    return p == NULL ? MCP_ERR_INVALID_ARG
                     : refuse(p, "mcp_prompt_set_meta",
                              "_meta must be an object");
  }
  json_decref(p->meta);
  p->meta = meta;
  mcp__str_drop_lines(&p->refusals, "mcp_prompt_set_meta");
  return MCP_OK;
}

mcp_status mcp_prompt_set_handler(mcp_prompt_t *p, mcp_prompt_fn fn,
                                  void *user_data,
                                  void (*free_user_data)(void *)) {
  if (p == NULL)
    return MCP_ERR_INVALID_ARG;
  if (fn == NULL)
    return refuse(p, "mcp_prompt_set_handler", "the handler is NULL");
  if (p->free_user_data)
    p->free_user_data(p->user_data);
  p->fn = fn;
  p->user_data = user_data;
  p->free_user_data = free_user_data;
  mcp__str_drop_lines(&p->refusals, "mcp_prompt_set_handler");
  return MCP_OK;
}

json_t *mcp_prompt_to_json(const mcp_prompt_t *p) {
  if (p == NULL)
    return NULL;
  json_t *o = json_pack("{s:s}", "name", p->entry.key);
  if (o == NULL)
    return NULL;
  if (p->title)
    json_object_set_new(o, "title", json_string(p->title));
  if (p->description)
    json_object_set_new(o, "description", json_string(p->description));
  if (p->nargs) {
    json_t *args = json_array();
    for (size_t i = 0; args && i < p->nargs; i++) {
      const mcp__prompt_arg *a = &p->args[i];
      json_t *ao = json_pack("{s:s}", "name", a->name);
      if (ao && a->title)
        json_object_set_new(ao, "title", json_string(a->title));
      if (ao && a->description)
        json_object_set_new(ao, "description", json_string(a->description));
      if (ao && a->required)
        json_object_set_new(ao, "required", json_true());
      json_array_append_new(args, ao);
    }
    json_object_set_new(o, "arguments", args);
  }
  if (p->icons)
    json_object_set(o, "icons", p->icons);
  if (p->meta)
    json_object_set(o, "_meta", p->meta);
  return o;
}
