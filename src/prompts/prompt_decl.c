/* SPDX-License-Identifier: MIT */
/* prompt_decl.c - a prompt from a declaration (decl.h): checked whole,
 * registered through prompt.h, answered by a handler that writes text. */
#include "core/text_request.h"

#include <stdlib.h>

#include "mcp/decl.h"
#include "mcp/prompt.h"

static mcp_status get_declared(mcp_call_t *call, json_t *args,
                               mcp_prompt_result_t *out, void *user_data) {
  const mcp_prompt_decl *d = user_data;
  mcp_text_request_t req;
  mcp__text_request_init(&req, call, NULL, args, d->user_data);
  mcp_status st = d->fn(&req);
  for (size_t i = 0; st == MCP_OK && i < req.n_messages; i++)
    if (mcp_prompt_add_text(out, req.messages[i].role,
                            req.messages[i].text.data) == NULL)
      st = MCP_ERR_NOMEM; /* role and text were checked: memory ran out */
  mcp__text_request_free(&req);
  return st;
}

static mcp_status declare(mcp_prompt_t *p, const mcp_prompt_decl *d,
                          const char **culprit) {
  mcp_status st = MCP_OK;
  if (d->title != NULL)
    st = mcp_prompt_set_title(p, d->title);
  if (st == MCP_OK && d->description != NULL)
    st = mcp_prompt_set_description(p, d->description);
  for (const mcp_prompt_arg_decl *a = d->arguments;
       st == MCP_OK && a != NULL && a->name != NULL; a++) {
    *culprit = a->name;
    if (a->name[0] == '\0' || !mcp__decl_reserved_zero(a->reserved, 2))
      return MCP_ERR_INVALID_ARG;
    st = mcp_prompt_add_argument(p, a->name, a->title, a->description,
                                 a->required);
  }
  if (st != MCP_OK)
    return st;
  *culprit = NULL;
  /* the declaration was read now (it may be a compound literal): the
   * handler keeps a copy of it, .fn and .user_data being all it uses */
  mcp_prompt_decl *copy = malloc(sizeof *copy);
  if (copy == NULL)
    return MCP_ERR_NOMEM;
  *copy = *d;
  copy->arguments = NULL; /* copied by mcp_prompt_add_argument */
  st = mcp_prompt_set_handler(p, get_declared, copy, free);
  if (st != MCP_OK)
    free(copy);
  return st;
}

mcp_status mcp_server_add_prompt_decl(mcp_server_t *server,
                                      const mcp_prompt_decl *decl,
                                      mcp_error_t *err) {
  if (server == NULL || decl == NULL)
    return mcp__decl_refuse(server, err, MCP_ERR_INVALID_ARG,
                            "mcp_server_add_prompt_decl: the %s is NULL",
                            server == NULL ? "server" : "declaration");
  const mcp_prompt_decl *d = decl;
  const char *label = d->name ? d->name : "(unnamed)";
  if (d->fn == NULL)
    return mcp__decl_refuse(server, err, MCP_ERR_INVALID_ARG,
                            "prompt '%.200s': .fn is required", label);
  if (!mcp__decl_reserved_zero(d->reserved, 4))
    return mcp__decl_refuse(server, err, MCP_ERR_INVALID_ARG,
                            "prompt '%.200s': .reserved must be zero", label);
  mcp_prompt_t *p = NULL;
  mcp_status st = mcp_prompt_new(d->name, &p);
  if (st == MCP_ERR_INVALID_ARG)
    return mcp__decl_refuse(server, err, st,
                            "prompt '%.200s': a name is 1-128 characters "
                            "without control characters",
                            label);
  const char *culprit = NULL;
  if (st == MCP_OK)
    st = declare(p, d, &culprit);
  if (st != MCP_OK) {
    mcp_prompt_free(p);
    if (culprit != NULL)
      return mcp__decl_refuse(
          server, err, st == MCP_ERR_EXISTS ? MCP_ERR_INVALID_ARG : st,
          "prompt '%.200s', argument '%.100s': %s", label, culprit,
          st == MCP_ERR_EXISTS ? "declared twice"
          : st == MCP_ERR_INVALID_ARG
              ? "an empty name or a non-zero .reserved"
              : mcp_strerror(st));
    return mcp__decl_refuse(server, err, st, "prompt '%.200s': %s", label,
                            mcp_strerror(st));
  }
  st = mcp_server_add_prompt(server, p);
  if (st == MCP_ERR_EXISTS)
    return mcp__decl_refuse(server, err, st,
                            "prompt '%.200s': already registered", label);
  if (st != MCP_OK)
    return mcp__decl_refuse(server, err, st, "prompt '%.200s': %s", label,
                            mcp_strerror(st));
  return MCP_OK;
}
