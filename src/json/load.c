/* SPDX-License-Identifier: MIT */
/* load.c - jansson values built from a tape (see load.h for why).
 *
 * The tape parser accepts what json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL)
 * accepts, with one exception: "\u0000" inside an object key, which jansson
 * refuses (its keys are C strings). Such documents, documents the tape
 * refuses, and allocation failures all go to json_loadb, so every failure
 * carries jansson's exact error. */
#include "json/load.h"

#include <stdbool.h>
#include <string.h>

#include "json/tape.h"

/* The value at *pn, advancing *pn past its subtree; NULL when a key holds
 * a NUL byte or memory runs out. Recursion depth is bounded by the tape's
 * MCP__TAPE_MAX_DEPTH. */
static json_t *build(const mcp__tnode **pn) {
  const mcp__tnode *n = *pn;
  *pn = n + n->skip;
  switch (n->type) {
  case MCP__J_NULL:
    return json_null();
  case MCP__J_TRUE:
    return json_true();
  case MCP__J_FALSE:
    return json_false();
  case MCP__J_INT:
    return json_integer(n->v.i);
  case MCP__J_REAL:
    return json_real(n->v.d);
  case MCP__J_STRING:
    return json_stringn_nocheck(n->n ? n->v.s : "", n->n);
  case MCP__J_ARRAY: {
    json_t *a = json_array();
    for (const mcp__tnode *c = n + 1, *end = n + n->skip; a && c < end;) {
      json_t *item = build(&c);
      if (item == NULL || json_array_append_new(a, item) != 0) {
        json_decref(a);
        a = NULL;
      }
    }
    return a;
  }
  default: { /* MCP__J_OBJECT: key, value, key, value, ... */
    json_t *o = json_object();
    for (const mcp__tnode *c = n + 1, *end = n + n->skip; o && c < end;) {
      const mcp__tnode *key = c++;
      json_t *value = build(&c);
      bool ok = value != NULL;
      if (ok && key->n != 0 && memchr(key->v.s, '\0', key->n) != NULL) {
        json_decref(value);
        ok = false;
      } else if (ok) {
        /* A duplicate key replaces the value in place, as jansson's parser
         * does. setn steals the value, also when it fails. */
        ok = json_object_setn_new_nocheck(o, key->n ? key->v.s : "", key->n,
                                          value) == 0;
      }
      if (!ok) {
        json_decref(o);
        o = NULL;
      }
    }
    return o;
  }
  }
}

json_t *mcp__json_load(const char *bytes, size_t len, json_error_t *err) {
  mcp__tape t;
  json_t *v = NULL;
  if (mcp__tape_parse(&t, bytes, len) == MCP_OK) {
    const mcp__tnode *n = t.nodes;
    v = build(&n);
  }
  mcp__tape_release(&t);
  if (v != NULL)
    return v;
  return json_loadb(bytes, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, err);
}
