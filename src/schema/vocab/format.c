/* SPDX-License-Identifier: MIT */
/* format.c - the format-annotation and format-assertion vocabularies: one
 * keyword, "format". It is read whatever the dialect's vocabularies say (as
 * it always was here); it asserts (formats.c) when the dialect has
 * format-assertion or the options ask for assert_formats, and is an
 * annotation (compiled to nothing) otherwise, as is a format this library
 * does not know. Evaluation: format_eval.inc. */
#include "schema/compiler.h"
#include "schema/formats.h"

static mcp__kwres compile_format(mcp__cctx *c, mcp__kwlist *l,
                                 const mcp__kwsite *site) {
  json_t *v = site->value;
  bool assert_fmt = (c->opt && c->opt->assert_formats) ||
                    (site->inf->d.vocab & MCP__V_FORMAT_ASSERTION);
  if (!json_is_string(v)) {
    mcp__compile_fail(c, site->kp, "\"format\" must be a string");
    return MCP__KW_FAILED;
  }
  mcp__format_fn fn = mcp__format_lookup(json_string_value(v));
  if (assert_fmt && fn != NULL) {
    mcp__kw *k =
        mcp__compile_add(c, l, MCP__OP_FORMAT, MCP__T_STRING, "format");
    if (k == NULL)
      return MCP__KW_FAILED;
    k->u.format.fn = fn;
    k->u.format.name = mcp__compile_strdup(c, json_string_value(v));
  }
  return MCP__KW_NEXT;
}

static const mcp__keyword keywords[] = {
    {"format", compile_format, 0, NULL, MCP__OP_FORMAT},
};

/* gate 0: "format" is compiled in every dialect (see above) */
const mcp__vocabulary mcp__vocab_format_annotation = {
    "format-annotation", MCP__V_FORMAT_ANNOTATION, 0, keywords,
    sizeof keywords / sizeof keywords[0]};

/* No keywords of its own: its bit makes "format" assert. */
const mcp__vocabulary mcp__vocab_format_assertion = {
    "format-assertion", MCP__V_FORMAT_ASSERTION, MCP__V_FORMAT_ASSERTION, NULL,
    0};
