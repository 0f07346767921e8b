/* SPDX-License-Identifier: MIT */
/* core.c - the core vocabulary's keywords: $ref and $dynamicRef compile to
 * references to other nodes; $id, $schema, $anchor, $dynamicAnchor, $defs,
 * $comment and $vocabulary were consumed by indexing (compile.c) and compile
 * to nothing. Evaluation: core_eval.inc. */
#include <string.h>

#include "schema/compiler.h"

static mcp__kwres compile_ref(mcp__cctx *c, mcp__kwlist *l,
                              const mcp__kwsite *site) {
  json_t *v = site->value;
  if (!json_is_string(v)) {
    mcp__compile_fail(c, site->kp, "\"$ref\" must be a string");
    return MCP__KW_FAILED;
  }
  json_t *t = mcp__compile_ref(c, site->inf->base, json_string_value(v),
                               site->kp, NULL);
  if (t == NULL)
    return MCP__KW_FAILED;
  mcp__kw *k = mcp__compile_add(c, l, MCP__OP_REF, MCP__T_ANY, "$ref");
  if (k == NULL)
    return MCP__KW_FAILED;
  k->u.ref.target = mcp__compile_node(c, t, site->kp);
  if (k->u.ref.target == NULL)
    return MCP__KW_FAILED;
  /* draft-07: a $ref makes its siblings ignored */
  return site->d7 ? MCP__KW_LAST : MCP__KW_NEXT;
}

static mcp__kwres compile_dynamic_ref(mcp__cctx *c, mcp__kwlist *l,
                                      const mcp__kwsite *site) {
  json_t *v = site->value;
  if (!json_is_string(v)) {
    mcp__compile_fail(c, site->kp, "\"$dynamicRef\" must be a string");
    return MCP__KW_FAILED;
  }
  const char *frag = NULL;
  json_t *t = mcp__compile_ref(c, site->inf->base, json_string_value(v),
                               site->kp, &frag);
  if (t == NULL)
    return MCP__KW_FAILED;
  mcp__kw *k =
      mcp__compile_add(c, l, MCP__OP_DYNREF, MCP__T_ANY, "$dynamicRef");
  if (k == NULL)
    return MCP__KW_FAILED;
  json_t *da = json_is_object(t) ? json_object_get(t, "$dynamicAnchor") : NULL;
  /* dynamic only when it names a $dynamicAnchor of its target; otherwise a
   * plain $ref */
  if (frag != NULL && frag[0] != '/' && json_is_string(da) &&
      strcmp(json_string_value(da), frag) == 0) {
    k->u.ref.dynamic = true;
    k->u.ref.name = mcp__compile_strdup(c, frag);
    c->s->has_dynamic = true;
  }
  k->u.ref.target = mcp__compile_node(c, t, site->kp);
  return k->u.ref.target != NULL ? MCP__KW_NEXT : MCP__KW_FAILED;
}

static const mcp__keyword keywords[] = {
    {"$ref", compile_ref, 0, NULL, MCP__OP_REF},
    {"$dynamicRef", compile_dynamic_ref, MCP__KWF_NOT_D7, NULL, MCP__OP_DYNREF},
    {"$id", NULL, 0, NULL, 0},
    {"$schema", NULL, 0, NULL, 0},
    {"$anchor", NULL, 0, NULL, 0},
    {"$dynamicAnchor", NULL, 0, NULL, 0},
    {"$defs", NULL, 0, NULL, 0},
    {"$comment", NULL, 0, NULL, 0},
    {"$vocabulary", NULL, 0, NULL, 0},
};

const mcp__vocabulary mcp__vocab_core = {"core", MCP__V_CORE, MCP__V_CORE,
                                         keywords,
                                         sizeof keywords / sizeof keywords[0]};
