/* SPDX-License-Identifier: MIT */
/* resource_decl.c - a resource or resource template from a declaration
 * (decl.h): checked whole, registered through resource.h, read by a
 * handler that writes text. */
#include "core/text_request.h"

#include <stdlib.h>
#include <string.h>

#include "mcp/decl.h"
#include "mcp/resource.h"

static const char *mime_of(const mcp_resource_decl *d) {
  return d->mime_type ? d->mime_type : "text/plain";
}

static mcp_status read_declared(mcp_call_t *call, const char *uri,
                                json_t *vars, mcp_read_result_t *out,
                                void *user_data) {
  const mcp_resource_decl *d = user_data;
  if (d->text != NULL)
    return mcp_read_result_add_text(out, NULL, d->text, mime_of(d));
  mcp_text_request_t req;
  mcp__text_request_init(&req, call, uri, vars, d->user_data);
  mcp_status st = d->fn(&req);
  if (st == MCP_OK && req.n_messages == 0) /* wrote nothing: empty text */
    st = mcp_read_result_add_text(out, NULL, "", mime_of(d));
  for (size_t i = 0; st == MCP_OK && i < req.n_messages; i++)
    st = mcp_read_result_add_text(out, NULL, req.messages[i].text.data,
                                  mime_of(d));
  mcp__text_request_free(&req);
  return st;
}

/* The setters shared by resources and templates, applied to either. */
typedef struct decl_setters {
  mcp_status (*title)(void *, const char *);
  mcp_status (*description)(void *, const char *);
  mcp_status (*mime_type)(void *, const char *);
  mcp_status (*handler)(void *, mcp_resource_read_fn, void *,
                        void (*)(void *));
} decl_setters;

static mcp_status r_title(void *r, const char *v) {
  return mcp_resource_set_title(r, v);
}
static mcp_status r_description(void *r, const char *v) {
  return mcp_resource_set_description(r, v);
}
static mcp_status r_mime(void *r, const char *v) {
  return mcp_resource_set_mime_type(r, v);
}
static mcp_status r_handler(void *r, mcp_resource_read_fn fn, void *ud,
                            void (*free_ud)(void *)) {
  return mcp_resource_set_handler(r, fn, ud, free_ud);
}
static mcp_status t_title(void *t, const char *v) {
  return mcp_resource_template_set_title(t, v);
}
static mcp_status t_description(void *t, const char *v) {
  return mcp_resource_template_set_description(t, v);
}
static mcp_status t_mime(void *t, const char *v) {
  return mcp_resource_template_set_mime_type(t, v);
}
static mcp_status t_handler(void *t, mcp_resource_read_fn fn, void *ud,
                            void (*free_ud)(void *)) {
  return mcp_resource_template_set_handler(t, fn, ud, free_ud);
}

static const decl_setters resource_setters = {r_title, r_description, r_mime,
                                              r_handler};
static const decl_setters template_setters = {t_title, t_description, t_mime,
                                              t_handler};

static mcp_status apply(const decl_setters *set, void *x,
                        const mcp_resource_decl *d) {
  mcp_status st = MCP_OK;
  if (d->title != NULL)
    st = set->title(x, d->title);
  if (st == MCP_OK && d->description != NULL)
    st = set->description(x, d->description);
  if (st == MCP_OK)
    st = set->mime_type(x, mime_of(d));
  if (st != MCP_OK)
    return st;
  /* the declaration was read now (it may be a compound literal): the
   * handler keeps a copy, whose .text and .user_data are the caller's */
  mcp_resource_decl *copy = malloc(sizeof *copy);
  if (copy == NULL)
    return MCP_ERR_NOMEM;
  *copy = *d;
  st = set->handler(x, read_declared, copy, free);
  if (st != MCP_OK)
    free(copy);
  return st;
}

mcp_status mcp_server_add_resource_decl(mcp_server_t *server,
                                        const mcp_resource_decl *decl,
                                        mcp_error_t *err) {
  if (server == NULL || decl == NULL)
    return mcp__decl_refuse(server, err, MCP_ERR_INVALID_ARG,
                            "mcp_server_add_resource_decl: the %s is NULL",
                            server == NULL ? "server" : "declaration");
  const mcp_resource_decl *d = decl;
  const char *which = d->uri ? d->uri : d->uri_template;
  const char *label = which ? which : d->name ? d->name : "(unnamed)";
  if ((d->uri == NULL) == (d->uri_template == NULL))
    return mcp__decl_refuse(server, err, MCP_ERR_INVALID_ARG,
                            "resource '%.200s': give exactly one of .uri and "
                            ".uri_template (%s)",
                            label, d->uri ? "both are set" : "neither is set");
  if (d->name == NULL || d->name[0] == '\0')
    return mcp__decl_refuse(server, err, MCP_ERR_INVALID_ARG,
                            "resource '%.200s': .name is required", label);
  if ((d->text == NULL) == (d->fn == NULL))
    return mcp__decl_refuse(
        server, err, MCP_ERR_INVALID_ARG,
        "resource '%.200s': give exactly one of .text and .fn (%s)", label,
        d->text ? "both are set" : "neither is set");
  if (!mcp__decl_reserved_zero(d->reserved, 4))
    return mcp__decl_refuse(server, err, MCP_ERR_INVALID_ARG,
                            "resource '%.200s': .reserved must be zero",
                            label);
  if (d->uri != NULL && strchr(d->uri, '{') != NULL)
    return mcp__decl_refuse(server, err, MCP_ERR_INVALID_ARG,
                            "resource '%.200s': a URI with '{' is a "
                            "template: declare it as .uri_template",
                            label);
  mcp_status st;
  if (d->uri != NULL) {
    mcp_resource_t *r = NULL;
    st = mcp_resource_new(d->uri, d->name, &r);
    if (st == MCP_ERR_INVALID_ARG)
      return mcp__decl_refuse(server, err, st,
                              "resource '%.200s': not an absolute URI "
                              "(scheme \":\" ..., no spaces)",
                              label);
    if (st == MCP_OK)
      st = apply(&resource_setters, r, d);
    if (st != MCP_OK) {
      mcp_resource_free(r);
      return mcp__decl_refuse(server, err, st, "resource '%.200s': %s",
                              label, mcp_strerror(st));
    }
    st = mcp_server_add_resource(server, r);
  } else {
    mcp_resource_template_t *t = NULL;
    st = mcp_resource_template_new(d->uri_template, d->name, &t);
    if (st == MCP_ERR_INVALID_ARG)
      return mcp__decl_refuse(server, err, st,
                              "resource template '%.200s': not an RFC 6570 "
                              "URI template",
                              label);
    if (st == MCP_OK)
      st = apply(&template_setters, t, d);
    if (st != MCP_OK) {
      mcp_resource_template_free(t);
      return mcp__decl_refuse(server, err, st,
                              "resource template '%.200s': %s", label,
                              mcp_strerror(st));
    }
    st = mcp_server_add_resource_template(server, t);
  }
  if (st == MCP_ERR_EXISTS)
    return mcp__decl_refuse(server, err, st,
                            "resource%s '%.200s': already registered",
                            d->uri ? "" : " template", label);
  if (st != MCP_OK)
    return mcp__decl_refuse(server, err, st, "resource%s '%.200s': %s",
                            d->uri ? "" : " template", label,
                            mcp_strerror(st));
  return MCP_OK;
}
