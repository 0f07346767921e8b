/* SPDX-License-Identifier: MIT */
/* result_internal.h - the CallToolResult under construction. */
#ifndef MCP_RESULT_INTERNAL_H
#define MCP_RESULT_INTERNAL_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp/result.h"
#include "util/buf.h"

struct mcp_result {
  json_t *content;    /* array of content block objects, or NULL: none */
  json_t *structured; /* object or NULL */
  /* structuredContent as JSON text (a declared tool's output struct,
   * written without jansson values), used when structured is NULL */
  mcp__buf structured_text;
  /* structured_text was written by a declared tool from its output struct
   * with every required member present and of its type (decl.c) */
  bool structured_declared;
  json_t *meta; /* object or NULL */
  bool is_error;
  bool has_text; /* a text block was added by the handler */
  bool failed;   /* an allocation failed somewhere: answer -32603 */
  /* The member ("structuredContent", "content", "_meta") whose value the
   * handler passed as NULL: its constructor failed, almost always on a value
   * JSON cannot hold (jansson refuses Infinity and NaN, and strings that are
   * not UTF-8). The call answers with an isError result saying so. */
  const char *lost;
};

/* Initializes a result embedded in a call (no separate allocation). */
bool mcp__result_init(mcp_result_t *r);
void mcp__result_clear(mcp_result_t *r);
/* Writes the CallToolResult JSON text to out, adding the structuredContent
 * text mirror on the fly when the handler added no text block. */
bool mcp__result_encode(const mcp_result_t *r, mcp__buf *out);
/* Whether the handler produced a structuredContent (object or text). */
bool mcp__result_has_structured(const mcp_result_t *r);
/* Turns structured_text into structured (for a reader wanting jansson
 * values); false when memory runs out. */
bool mcp__result_structured_as_json(mcp_result_t *r);
/* Replaces everything with a single isError text block. */
void mcp__result_reset_to_error(mcp_result_t *r, const char *text);

#endif
