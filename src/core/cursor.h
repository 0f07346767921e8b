/* SPDX-License-Identifier: MIT */
/* cursor.h - opaque pagination cursors.
 *
 * A cursor is base64("<list>:<sequence>"): clients must treat it as opaque,
 * the server can tell a cursor of another list or a forged one from a real
 * one and answer -32602.
 */
#ifndef MCP_SERVER_CURSOR_H
#define MCP_SERVER_CURSOR_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

/* Returns a new JSON string, or NULL on allocation failure. */
json_t *mcp__cursor_encode(const char *list, uint64_t seq);
/* Decodes cursor (may be NULL: first page, *seq = 0). false when invalid. */
bool mcp__cursor_decode(const char *list, const json_t *cursor, uint64_t *seq);

#endif
