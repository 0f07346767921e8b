/* SPDX-License-Identifier: MIT */
/* resource.c - resources and resource templates: construction, metadata,
 * the JSON they are listed as. */
#include "resources/resource_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "mcp/result.h"
#include "util/str.h"

/* An absolute URI: scheme ":" rest, no whitespace or controls (RFC 3986
 * section 3.1 for the scheme). */
static bool uri_is_valid(const char *uri) {
  if (uri == NULL ||
      !((*uri >= 'a' && *uri <= 'z') || (*uri >= 'A' && *uri <= 'Z')))
    return false;
  const char *p = uri;
  while (*p && *p != ':') {
    char c = *p++;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))
      return false;
  }
  if (*p != ':')
    return false;
  for (; *p; p++)
    if ((unsigned char)*p <= 0x20 || *p == 0x7f)
      return false;
  return true;
}

static void meta_clear(mcp__res_meta *m) {
  free(m->name);
  free(m->title);
  free(m->description);
  free(m->mime_type);
  json_decref(m->annotations);
  json_decref(m->icons);
  json_decref(m->meta);
  free(m->refusals);
}

/* A setter refusing its argument keeps why, for mcp_server_add_resource
 * and mcp_server_add_resource_template to log when they refuse the entry:
 * the reason is reported even where the setter's status went unchecked. */
static mcp_status refuse(mcp__res_meta *m, const char *what, const char *why) {
  return mcp__str_add_line(&m->refusals, "%s: %s", what, why) == MCP_OK
             ? MCP_ERR_INVALID_ARG
             : MCP_ERR_NOMEM;
}

static mcp_status set_annotations(mcp__res_meta *m, const char *what,
                                  unsigned audience, double priority,
                                  const char *last_modified) {
  if (audience > (MCP_AUDIENCE_USER | MCP_AUDIENCE_ASSISTANT))
    return refuse(m, what,
                  "audience must be MCP_AUDIENCE_USER and/or "
                  "MCP_AUDIENCE_ASSISTANT");
  if (priority > 1)
    return refuse(m, what, "priority must be at most 1 (negative: unset)");
  json_t *a = json_object();
  if (a == NULL)
    return MCP_ERR_NOMEM;
  if (audience) {
    json_t *list = json_array();
    if (audience & MCP_AUDIENCE_USER)
      json_array_append_new(list, json_string("user"));
    if (audience & MCP_AUDIENCE_ASSISTANT)
      json_array_append_new(list, json_string("assistant"));
    json_object_set_new(a, "audience", list);
  }
  if (priority >= 0)
    json_object_set_new(a, "priority", json_real(priority));
  if (last_modified)
    json_object_set_new(a, "lastModified", json_string(last_modified));
  json_decref(m->annotations);
  m->annotations = json_object_size(a) ? a : NULL;
  if (m->annotations == NULL)
    json_decref(a);
  mcp__str_drop_lines(&m->refusals, what); /* the last call wins */
  return MCP_OK;
}

static mcp_status set_meta(mcp__res_meta *m, const char *what, json_t *meta) {
  if (meta != NULL && !json_is_object(meta)) {
    json_decref(meta);
    return refuse(m, what, "_meta must be an object");
  }
  json_decref(m->meta);
  m->meta = meta;
  mcp__str_drop_lines(&m->refusals, what);
  return MCP_OK;
}

static void meta_to_json(const mcp__res_meta *m, json_t *o) {
  json_object_set_new(o, "name", json_string(m->name));
  if (m->title)
    json_object_set_new(o, "title", json_string(m->title));
  if (m->description)
    json_object_set_new(o, "description", json_string(m->description));
  if (m->mime_type)
    json_object_set_new(o, "mimeType", json_string(m->mime_type));
  if (m->annotations)
    json_object_set(o, "annotations", m->annotations);
  if (m->icons)
    json_object_set(o, "icons", m->icons);
  if (m->meta)
    json_object_set(o, "_meta", m->meta);
}

static void handler_clear(mcp__handler *h) {
  if (h->free_user_data)
    h->free_user_data(h->user_data);
  memset(h, 0, sizeof *h);
}

/* ---- resources ----------------------------------------------------------- */

static void resource_destroy(mcp__entry *e) {
  mcp_resource_t *r = (mcp_resource_t *)e;
  free(e->key);
  json_decref(e->listing);
  meta_clear(&r->m);
  handler_clear(&r->h);
  mcp__ui_res_free(r->ui);
  free(r);
}

mcp_status mcp_resource_new(const char *uri, const char *name,
                            mcp_resource_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (!uri_is_valid(uri) || name == NULL || *name == '\0')
    return MCP_ERR_INVALID_ARG;
  mcp_resource_t *r = calloc(1, sizeof *r);
  if (r == NULL)
    return MCP_ERR_NOMEM;
  atomic_init(&r->entry.refs, 1);
  r->entry.destroy = resource_destroy;
  r->entry.key = strdup(uri);
  r->m.name = strdup(name);
  if (r->entry.key == NULL || r->m.name == NULL) {
    resource_destroy(&r->entry);
    return MCP_ERR_NOMEM;
  }
  *out = r;
  return MCP_OK;
}

void mcp_resource_free(mcp_resource_t *r) {
  if (r)
    mcp__entry_release(&r->entry);
}

const char *mcp_resource_uri(const mcp_resource_t *r) {
  return r ? r->entry.key : NULL;
}
mcp_status mcp_resource_set_title(mcp_resource_t *r, const char *v) {
  return r ? mcp__str_replace(&r->m.title, v) : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_set_description(mcp_resource_t *r, const char *v) {
  return r ? mcp__str_replace(&r->m.description, v) : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_set_mime_type(mcp_resource_t *r, const char *v) {
  return r ? mcp__str_replace(&r->m.mime_type, v) : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_set_size(mcp_resource_t *r, uint64_t bytes) {
  if (r == NULL)
    return MCP_ERR_INVALID_ARG;
  r->has_size = true;
  r->size = bytes;
  return MCP_OK;
}
static mcp_status set_cache(mcp__res_meta *m, const char *what,
                            mcp__cache_hint *h, int64_t ttl_ms,
                            mcp_cache_scope scope) {
  if (!mcp__cache_hint_valid(ttl_ms, scope))
    return refuse(m, what,
                  "ttl_ms must be 0 to 2^53 - 1 and scope a mcp_cache_scope");
  *h = (mcp__cache_hint){ttl_ms, scope, true};
  mcp__str_drop_lines(&m->refusals, what);
  return MCP_OK;
}
mcp_status mcp_resource_set_cache_hint(mcp_resource_t *r, int64_t ttl_ms,
                                       mcp_cache_scope scope) {
  return r ? set_cache(&r->m, "mcp_resource_set_cache_hint", &r->cache, ttl_ms,
                       scope)
           : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_template_set_cache_hint(mcp_resource_template_t *t,
                                                int64_t ttl_ms,
                                                mcp_cache_scope scope) {
  return t ? set_cache(&t->m, "mcp_resource_template_set_cache_hint",
                       &t->cache, ttl_ms, scope)
           : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_set_annotations(mcp_resource_t *r, unsigned audience,
                                        double priority,
                                        const char *last_modified) {
  return r ? set_annotations(&r->m, "mcp_resource_set_annotations", audience,
                             priority, last_modified)
           : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_add_icon(mcp_resource_t *r, const char *src,
                                 const char *mime_type, const char *sizes,
                                 const char *theme) {
  if (r == NULL)
    return MCP_ERR_INVALID_ARG;
  const char *problem = mcp__icon_problem(src, theme);
  if (problem != NULL)
    return refuse(&r->m, "mcp_resource_add_icon", problem);
  return mcp__icon_append(&r->m.icons, src, mime_type, sizes, theme)
             ? MCP_OK
             : MCP_ERR_NOMEM;
}
mcp_status mcp_resource_set_meta(mcp_resource_t *r, json_t *meta) {
  if (r == NULL) {
    json_decref(meta);
    return MCP_ERR_INVALID_ARG;
  }
  return set_meta(&r->m, "mcp_resource_set_meta", meta);
}
mcp_status mcp_resource_set_handler(mcp_resource_t *r, mcp_resource_read_fn fn,
                                    void *user_data,
                                    void (*free_user_data)(void *)) {
  if (r == NULL)
    return MCP_ERR_INVALID_ARG;
  if (fn == NULL)
    return refuse(&r->m, "mcp_resource_set_handler", "the handler is NULL");
  handler_clear(&r->h);
  r->h = (mcp__handler){fn, user_data, free_user_data};
  mcp__str_drop_lines(&r->m.refusals, "mcp_resource_set_handler");
  return MCP_OK;
}

json_t *mcp_resource_to_json(const mcp_resource_t *r) {
  if (r == NULL)
    return NULL;
  json_t *o = json_pack("{s:s}", "uri", r->entry.key);
  if (o == NULL)
    return NULL;
  meta_to_json(&r->m, o);
  if (r->ui) { /* apps.h: the listing carries _meta.ui too */
    json_t *meta = mcp__ui_res_listing_meta(r);
    if (meta == NULL || (json_object_size(meta) > 0
                             ? json_object_set_new(o, "_meta", meta)
                             : (json_decref(meta), 0)) != 0) {
      json_decref(o);
      return NULL;
    }
  }
  if (r->has_size)
    json_object_set_new(o, "size", json_integer((json_int_t)r->size));
  return o;
}

/* ---- templates ----------------------------------------------------------- */

static void template_destroy(mcp__entry *e) {
  mcp_resource_template_t *t = (mcp_resource_template_t *)e;
  free(e->key);
  json_decref(e->listing);
  meta_clear(&t->m);
  handler_clear(&t->h);
  mcp__uritpl_free(t->tpl);
  mcp__completers_free(t->completers, t->ncompleters);
  free(t);
}

mcp_status mcp_resource_template_new(const char *uri_template, const char *name,
                                     mcp_resource_template_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (uri_template == NULL || name == NULL || *name == '\0')
    return MCP_ERR_INVALID_ARG;
  mcp_resource_template_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return MCP_ERR_NOMEM;
  atomic_init(&t->entry.refs, 1);
  t->entry.destroy = template_destroy;
  mcp_status st = mcp__uritpl_parse(uri_template, &t->tpl, NULL, 0);
  if (st == MCP_OK) {
    t->entry.key = strdup(uri_template);
    t->m.name = strdup(name);
    if (t->entry.key == NULL || t->m.name == NULL)
      st = MCP_ERR_NOMEM;
  }
  if (st != MCP_OK) {
    template_destroy(&t->entry);
    return st;
  }
  *out = t;
  return MCP_OK;
}

void mcp_resource_template_free(mcp_resource_template_t *t) {
  if (t)
    mcp__entry_release(&t->entry);
}

const char *
mcp_resource_template_uri_template(const mcp_resource_template_t *t) {
  return t ? t->entry.key : NULL;
}
mcp_status mcp_resource_template_set_title(mcp_resource_template_t *t,
                                           const char *v) {
  return t ? mcp__str_replace(&t->m.title, v) : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_template_set_description(mcp_resource_template_t *t,
                                                 const char *v) {
  return t ? mcp__str_replace(&t->m.description, v) : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_template_set_mime_type(mcp_resource_template_t *t,
                                               const char *v) {
  return t ? mcp__str_replace(&t->m.mime_type, v) : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_template_set_annotations(mcp_resource_template_t *t,
                                                 unsigned audience,
                                                 double priority,
                                                 const char *last_modified) {
  return t ? set_annotations(&t->m, "mcp_resource_template_set_annotations",
                             audience, priority, last_modified)
           : MCP_ERR_INVALID_ARG;
}
mcp_status mcp_resource_template_add_icon(mcp_resource_template_t *t,
                                          const char *src,
                                          const char *mime_type,
                                          const char *sizes,
                                          const char *theme) {
  if (t == NULL)
    return MCP_ERR_INVALID_ARG;
  const char *problem = mcp__icon_problem(src, theme);
  if (problem != NULL)
    return refuse(&t->m, "mcp_resource_template_add_icon", problem);
  return mcp__icon_append(&t->m.icons, src, mime_type, sizes, theme)
             ? MCP_OK
             : MCP_ERR_NOMEM;
}
mcp_status mcp_resource_template_set_meta(mcp_resource_template_t *t,
                                          json_t *meta) {
  if (t == NULL) {
    json_decref(meta);
    return MCP_ERR_INVALID_ARG;
  }
  return set_meta(&t->m, "mcp_resource_template_set_meta", meta);
}
mcp_status mcp_resource_template_set_handler(mcp_resource_template_t *t,
                                             mcp_resource_read_fn fn,
                                             void *user_data,
                                             void (*free_user_data)(void *)) {
  if (t == NULL)
    return MCP_ERR_INVALID_ARG;
  if (fn == NULL)
    return refuse(&t->m, "mcp_resource_template_set_handler",
                  "the handler is NULL");
  handler_clear(&t->h);
  t->h = (mcp__handler){fn, user_data, free_user_data};
  mcp__str_drop_lines(&t->m.refusals, "mcp_resource_template_set_handler");
  return MCP_OK;
}

const mcp__completer *mcp__template_completer(const mcp_resource_template_t *t,
                                              const char *name) {
  for (size_t i = 0; t && name && i < t->ncompleters; i++)
    if (strcmp(t->completers[i].name, name) == 0)
      return &t->completers[i];
  return NULL;
}

mcp_status mcp_resource_template_set_completion(
    mcp_resource_template_t *t, const char *variable, mcp_complete_fn fn,
    void *user_data, void (*free_user_data)(void *)) {
  if (t == NULL)
    return MCP_ERR_INVALID_ARG;
  if (variable == NULL || fn == NULL)
    return refuse(&t->m, "mcp_resource_template_set_completion",
                  variable == NULL ? "the variable is NULL"
                                   : "the handler is NULL");
  if (!mcp__uritpl_has_var(t->tpl, variable))
    return MCP_ERR_NOT_FOUND;
  if (mcp__template_completer(t, variable))
    return MCP_ERR_EXISTS;
  mcp__completer *c = realloc(t->completers, (t->ncompleters + 1) * sizeof *c);
  if (c == NULL)
    return MCP_ERR_NOMEM;
  t->completers = c;
  char *name = strdup(variable);
  if (name == NULL)
    return MCP_ERR_NOMEM;
  c[t->ncompleters++] = (mcp__completer){name, fn, user_data, free_user_data};
  t->entry.completes = true;
  return MCP_OK;
}

bool mcp_resource_template_match(const mcp_resource_template_t *t,
                                 const char *uri, json_t **vars) {
  json_t *v = NULL;
  bool ok = t && mcp__uritpl_match(t->tpl, uri, &v);
  if (vars)
    *vars = v;
  else
    json_decref(v);
  return ok;
}

json_t *mcp_resource_template_to_json(const mcp_resource_template_t *t) {
  if (t == NULL)
    return NULL;
  json_t *o = json_pack("{s:s}", "uriTemplate", t->entry.key);
  if (o)
    meta_to_json(&t->m, o);
  return o;
}
