/* SPDX-License-Identifier: MIT */
/* unevaluated.c - the unevaluated vocabulary (2020-12 only):
 * unevaluatedItems and unevaluatedProperties. A node with either collects
 * the annotations of its other keywords (mcp__node.uneval). Evaluation:
 * unevaluated_eval.inc. */
#include "schema/compiler.h"

static mcp__kwres compile_unevaluated(mcp__cctx *c, mcp__kwlist *l,
                                      const mcp__kwsite *site) {
  const char *name = site->row->name;
  mcp__op op = (mcp__op)site->row->op;
  mcp__node *un = mcp__compile_child(c, site->value, site->where, name);
  if (un == NULL)
    return MCP__KW_FAILED;
  mcp__kw *k = mcp__compile_add(
      c, l, op, op == MCP__OP_UNEVAL_ITEMS ? MCP__T_ARRAY : MCP__T_OBJECT,
      name);
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.one.node = un;
  site->node->uneval = true;
  if (op == MCP__OP_UNEVAL_PROPS)
    site->node->uneval_props = true;
  return MCP__KW_NEXT;
}

static const mcp__keyword keywords[] = {
    {"unevaluatedItems", compile_unevaluated, MCP__KWF_NOT_D7, NULL,
     MCP__OP_UNEVAL_ITEMS},
    {"unevaluatedProperties", compile_unevaluated, MCP__KWF_NOT_D7, NULL,
     MCP__OP_UNEVAL_PROPS},
};

const mcp__vocabulary mcp__vocab_unevaluated = {
    "unevaluated", MCP__V_UNEVALUATED, MCP__V_UNEVALUATED, keywords,
    sizeof keywords / sizeof keywords[0]};
