/* SPDX-License-Identifier: MIT */
/* completion_internal.h - completion handlers as stored on prompts and
 * templates, and the CompleteResult under construction. */
#ifndef MCP_COMPLETION_INTERNAL_H
#define MCP_COMPLETION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/completion.h"

/* One completion handler, for a prompt argument or a template variable. */
typedef struct mcp__completer {
  char *name; /* argument or variable name */
  mcp_complete_fn fn;
  void *user_data;
  void (*free_user_data)(void *);
} mcp__completer;

/* Frees n completers and calls their free_user_data. */
void mcp__completers_free(mcp__completer *c, size_t n);

struct mcp_completion {
  json_t *values;   /* array, at most MCP_COMPLETION_MAX_VALUES */
  uint64_t offered; /* values offered by the handler, sent or not */
  bool has_total, has_more, failed;
  uint64_t total;
};

#endif
