/* SPDX-License-Identifier: MIT */
/* prompt_internal.h - the objects behind mcp_prompt_t and
 * mcp_prompt_result_t. A prompt embeds an mcp__entry (catalog/catalog.h);
 * once added to a server it is immutable and reference-counted. */
#ifndef MCP_PROMPT_INTERNAL_H
#define MCP_PROMPT_INTERNAL_H

#include <stdbool.h>

#include "catalog/catalog.h"
#include "catalog/completer.h"
#include "mcp/prompt.h"
#include "tools/result_internal.h"

typedef struct mcp__prompt_arg {
  char *name, *title, *description;
  bool required;
  mcp__completer comp; /* comp.fn NULL: no completion handler */
} mcp__prompt_arg;

struct mcp_prompt {
  mcp__entry entry; /* key: name */
  char *title, *description;
  mcp__prompt_arg *args;
  size_t nargs;
  json_t *icons, *meta;
  mcp_prompt_fn fn;
  void *user_data;
  void (*free_user_data)(void *);
  /* why setters refused their arguments, one per line (NULL: none);
   * mcp_server_add_prompt logs them and refuses the prompt */
  char *refusals;
};

struct mcp_prompt_result {
  mcp_result_t blocks; /* one content block per message, in order */
  json_t *roles;       /* array of "user" / "assistant", parallel */
  char *description;
};

/* The argument named name, or NULL. */
const mcp__prompt_arg *mcp__prompt_arg_find(const mcp_prompt_t *p,
                                            const char *name);

/* ---- get.c: the methods (registered by mcp_server_new) ------------------- */
struct mcp_server;
mcp_status mcp__handle_prompts_list(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_prompts_get(mcp_call_t *call, json_t **result);
mcp_status mcp__prompts_register(struct mcp_server *s);
/* The prompts module's state on a server (its feature slot; never NULL
 * after mcp_server_new). */
typedef struct mcp__prompts_state {
  mcp__catalog prompts;
  bool list_changed; /* mcp_server_set_prompts_list_changed */
} mcp__prompts_state;
mcp__prompts_state *mcp__prompts_of(const struct mcp_server *s);

#endif
