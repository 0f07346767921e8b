/* SPDX-License-Identifier: MIT */
/* tool_internal.h - the tool object behind mcp_tool_t.
 *
 * Once added to a server a tool is immutable and reference-counted: a call
 * that looked it up keeps it alive even if it is removed meanwhile. A tool
 * is a catalog entry (catalog/catalog.h): the server keeps its tools in the
 * same ordered, hashed, paginated collection as resources and prompts.
 */
#ifndef MCP_TOOL_INTERNAL_H
#define MCP_TOOL_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "mcp/schema.h"
#include "mcp/tool.h"

struct mcp_tool {
  mcp__entry entry; /* first: key is the name; refs, seq, listing */
  char *title, *description, *annotation_title;
  signed char hints[4]; /* -1 unset, else 0/1; indexed by mcp_tool_hint */
  json_t *input_schema, *output_schema, *icons, *meta;
  mcp_task_support task_support;
  mcp_tool_fn fn;
  void *user_data;
  void (*free_user_data)(void *);
  /* filled when added to a server */
  mcp_schema_t *input_compiled, *output_compiled;
};

static inline void mcp__tool_retain(mcp_tool_t *tool) {
  mcp__entry_retain(&tool->entry);
}
/* The last reference frees the tool (and calls free_user_data). */
static inline void mcp__tool_release(mcp_tool_t *tool) {
  mcp__entry_release(&tool->entry);
}

#endif
