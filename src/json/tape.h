/* SPDX-License-Identifier: MIT */
/* tape.h - JSON text parsed into one flat array of nodes (a "tape"): the
 * instance representation of mcp_schema_validate_text, and the fast first
 * step of turning request text into jansson values (json/load.c).
 *
 * Values appear in document order; a container is followed by its children
 * (an object by key, value, key, value, ...) and records how many nodes its
 * subtree spans, so a validator skips a member or item in O(1) and never
 * calls into another library to look at a value.
 *
 * Acceptance is that of jansson's json_loadb with JSON_DECODE_ANY |
 * JSON_ALLOW_NUL (what the JSON-RPC layer uses): RFC 8259 strictly, strict
 * UTF-8 (no overlong forms, no encoded or escaped lone surrogates), "\u0000"
 * allowed, reals that overflow a double rejected, at most
 * MCP__TAPE_MAX_DEPTH nested containers. Deliberate differences: jansson
 * refuses "\u0000" inside object keys because its keys are C strings; keys
 * here carry a length, so RFC-valid JSON is accepted. jansson refuses an
 * integer literal outside int64 ("too big integer"); here it becomes a real,
 * the double nearest to it (strtod of the literal, as for any real), and is
 * refused only when it overflows a double, like a real literal. A raw NUL
 * byte is refused anywhere (jansson skips one after a number or literal).
 *
 * Duplicate keys: jansson keeps the last value. The tape keeps every member
 * and marks each key that reappears later in the same object "dead"; every
 * reader skips dead members, so an object behaves as if only the last
 * occurrence existed, and "n" counts distinct keys. */
#ifndef MCP_JSON_TAPE_H
#define MCP_JSON_TAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/status.h"

/* Same bound as jansson's parser, so both accept the same documents. */
#define MCP__TAPE_MAX_DEPTH 2048u

typedef enum mcp__ttype {
  MCP__J_NULL,
  MCP__J_FALSE,
  MCP__J_TRUE,
  MCP__J_INT,
  MCP__J_REAL,
  MCP__J_STRING,
  MCP__J_ARRAY,
  MCP__J_OBJECT,
} mcp__ttype;

typedef struct mcp__tnode {
  uint8_t type; /* mcp__ttype */
  uint8_t dead; /* object key whose name appears again later */
  uint16_t reserved;
  uint32_t n;    /* string: bytes; array: items; object: distinct keys;
                    number: length of its literal */
  uint32_t skip; /* nodes of the subtree, this one included */
  uint32_t lit;  /* number: offset of its literal in the text, so an exact
                    decimal reading stays possible */
  union {
    const char *s; /* string bytes (into the text, or the decoded copy) */
    int64_t i;
    double d;
  } v;
} mcp__tnode;

/* Nodes held without allocating: enough for typical tool arguments. */
#define MCP__TAPE_INLINE_NODES 128
#define MCP__TAPE_INLINE_TEXT  256

typedef struct mcp__tape {
  mcp__tnode *nodes; /* the root is nodes[0] */
  size_t count, cap;
  char *text; /* decoded strings that had escapes; never moves once set */
  size_t text_used;
  size_t depth;     /* deepest nesting of arrays and objects seen */
  bool decoded_nul; /* some string has "\u0000" (see has_decoded_nul) */
  mcp__tnode inl[MCP__TAPE_INLINE_NODES];
  char inl_text[MCP__TAPE_INLINE_TEXT];
} mcp__tape;

/* Parses len bytes of json into t (caller-provided storage, typically on the
 * stack; strings may point into json, which must outlive t's use).
 * MCP_OK; MCP_ERR_PARSE when the text is not exactly one JSON value;
 * MCP_ERR_TOO_DEEP past MCP__TAPE_MAX_DEPTH; MCP_ERR_TOO_LARGE past 2^32-2
 * bytes; MCP_ERR_NOMEM. Call mcp__tape_release whatever the result. */
mcp_status mcp__tape_parse(mcp__tape *t, const char *json, size_t len);
void mcp__tape_release(mcp__tape *t);

/* A subtree kept after its text and tape are gone: its nodes, with every
 * string's bytes copied behind them, in one allocation (free it with
 * free()). A number's literal offset (lit) is 0 in the copy. */
typedef struct mcp__kept_tape {
  size_t count;
  mcp__tnode nodes[]; /* nodes[0] is the subtree's root */
} mcp__kept_tape;
mcp__kept_tape *mcp__tape_keep(const mcp__tnode *root);

/* A whole tape carried elsewhere with a copy of its text (a message queued
 * for another thread, which then decodes without parsing again).
 * mcp__tape_moved_size is the storage it needs (8-byte aligned) beyond the
 * copy of the text; mcp__tape_move copies t's nodes into it, the strings
 * decoded from escapes behind them, and points every string into json_copy
 * (a copy of the len bytes of json that t was parsed from) or into those
 * decoded bytes. mcp__tape_view makes a tape over moved nodes for readers
 * that take an mcp__tape (only nodes, count and depth are set: never
 * release or grow it). */
size_t mcp__tape_moved_size(const mcp__tape *t);
void mcp__tape_move(const mcp__tape *t, const char *json, size_t len,
                    const char *json_copy, mcp__tnode *storage);
void mcp__tape_view(mcp__tape *view, mcp__tnode *nodes, size_t count,
                    size_t depth, bool decoded_nul);

/* The value of obj's member key (the last of duplicates), or NULL when obj
 * is NULL, not an object, or has no such member. */
const mcp__tnode *mcp__tnode_member(const mcp__tnode *obj, const char *key,
                                    size_t len);

/* Whether a string of the subtree at root, parsed from json (len bytes),
 * holds a NUL byte. Only strings written with escapes can ("\u0000"; the
 * parser refuses raw NULs), and those are the only ones looked into. A
 * tape whose decoded_nul is false has none anywhere: no need to look. */
bool mcp__tape_has_decoded_nul(const mcp__tnode *root, const char *json,
                               size_t len);

#endif
