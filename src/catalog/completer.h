/* SPDX-License-Identifier: MIT */
/* completer.h - a completion handler as stored on a prompt argument or a
 * resource template variable (the completion module runs them). */
#ifndef MCP_CATALOG_COMPLETER_H
#define MCP_CATALOG_COMPLETER_H

#include <stddef.h>

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

#endif
