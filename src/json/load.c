/* SPDX-License-Identifier: MIT */
/* load.c - jansson values built from a tape (see load.h for why).
 *
 * The tape parser accepts what json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL)
 * accepts, with three exceptions: "\u0000" inside an object key, which
 * jansson refuses (its keys are C strings), a raw NUL byte after a number or
 * literal, which jansson skips and the tape refuses, and integers beyond
 * int64, which the tape reads as reals and jansson refuses. Such documents,
 * documents the tape refuses, and allocation failures all go to json_loadb,
 * so every failure carries jansson's exact error, except for raw NUL bytes,
 * refused here even when jansson accepts them. */
#include "json/load.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json/tape.h"

/* The value at *pn, advancing *pn past its subtree; NULL when a key holds
 * a NUL byte or memory runs out. Recursion depth is bounded by the tape's
 * MCP__TAPE_MAX_DEPTH. */
static json_t *build(const mcp__tnode **pn, bool *nul_key) {
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
      json_t *item = build(&c, nul_key);
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
      json_t *value = build(&c, nul_key);
      bool ok = value != NULL;
      if (ok && key->n != 0 && memchr(key->v.s, '\0', key->n) != NULL) {
        json_decref(value);
        *nul_key = true;
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

json_t *mcp__json_from_tnode(const mcp__tnode *n) {
  bool nul_key = false;
  return build(&n, &nul_key);
}

/* Fills err the way jansson does for an error of kind code at byte offset
 * pos. */
static void set_error(json_error_t *err, const char *bytes, size_t pos,
                      enum json_error_code code, const char *text) {
  if (err == NULL)
    return;
  memset(err, 0, sizeof *err);
  err->line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < pos; i++)
    if (bytes[i] == '\n')
      err->line++, line_start = i + 1;
  err->column = (int)(pos - line_start + 1);
  err->position = (int)pos;
  snprintf(err->source, sizeof err->source, "<buffer>");
  snprintf(err->text, sizeof err->text, "%s", text);
  /* jansson keeps the error code in the last byte of text, where
   * json_error_code() (an inline in jansson.h) reads it */
  err->text[JSON_ERROR_TEXT_LENGTH - 1] = (char)code;
}

json_t *mcp__json_load(const char *bytes, size_t len, json_error_t *err) {
  mcp__tape t;
  json_t *v = NULL;
  bool nul_key = false;
  if (mcp__tape_parse(&t, bytes, len) == MCP_OK) {
    const mcp__tnode *n = t.nodes;
    v = build(&n, &nul_key);
  }
  mcp__tape_release(&t);
  if (v != NULL)
    return v;
  v = json_loadb(bytes, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, err);
  if (v == NULL && nul_key && err != NULL &&
      json_error_code(err) != json_error_null_byte_in_key) {
    /* The tape read the whole document and only the key stopped it; jansson
     * stopped earlier at an integer beyond int64, which the tape takes. The
     * caller must learn about the key (JSON-RPC answers it differently). */
    set_error(err, bytes, 0, json_error_null_byte_in_key,
              "NUL byte in object key not supported");
  }
  /* A raw NUL byte is never valid JSON (RFC 8259: not whitespace, and a
   * control character inside strings), but jansson's lexer drops one that
   * directly follows a number or literal ("123\0", "[1\0]"). The tape
   * refuses it; so do we, so that every path agrees. */
  const char *nul = len ? memchr(bytes, '\0', len) : NULL;
  if (v != NULL && nul != NULL) {
    json_decref(v);
    v = NULL;
    set_error(err, bytes, (size_t)(nul - bytes), json_error_invalid_syntax,
              "NUL byte (U+0000) outside a string is not valid JSON");
  }
  return v;
}
