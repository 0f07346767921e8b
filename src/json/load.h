/* SPDX-License-Identifier: MIT */
/* load.h - JSON text to jansson values, fast.
 *
 * jansson's own parser costs about 2 us for a 130-byte tools/call message
 * (a character-at-a-time lexer with a growing buffer per token); parsing
 * into a tape first and building the values from it does the same in about
 * a third of that, which is most of a request's user-space time. */
#ifndef MCP_JSON_LOAD_H
#define MCP_JSON_LOAD_H

#include <stddef.h>

#include <jansson.h>

/* json_loadb(bytes, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, err): the same
 * documents accepted, the same values (integers vs reals, key order, the
 * last of duplicate keys), and on failure jansson's own error text, line
 * and column (anything the tape path refuses is handed to json_loadb).
 * Two differences: a raw NUL byte anywhere is refused (invalid syntax, error
 * at the byte), where jansson accepts one right after a number or literal
 * ("123\0"); an integer literal beyond int64, which jansson refuses ("too
 * big integer"), is a real holding the nearest double (strtod of the
 * literal), refused only when it overflows a double. Every path that reads
 * JSON for the library (requests, schema text, mcp_schema_validate_text,
 * mcpc) follows these rules. Returns a new reference or NULL. */
json_t *mcp__json_load(const char *bytes, size_t len, json_error_t *err);

/* The jansson value of a tape's subtree (tape.h): a new reference, or NULL
 * when memory runs out or an object key holds a NUL byte (jansson's keys
 * are C strings; see mcp__tape_has_decoded_nul). */
struct mcp__tnode;
json_t *mcp__json_from_tnode(const struct mcp__tnode *n);

#endif
