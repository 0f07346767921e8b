/* SPDX-License-Identifier: MIT */
/* scan.h - cheap looks at JSON text before it is parsed: a nesting depth
 * bound (so hostile input is refused before a parser allocates for it) and
 * whether a message is a batch. Shared by the JSON-RPC layer and the HTTP
 * transport, which answers both with its own status codes. */
#ifndef MCP_JSON_SCAN_H
#define MCP_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* True when the JSON text nests arrays/objects deeper than max_depth
 * (strings are skipped, escapes honoured). Malformed text is not judged
 * here: the parser reports it. */
bool mcp__json_too_deep(const char *text, size_t len, size_t max_depth);
/* True when the first non-blank byte is '[' (a JSON-RPC batch). */
bool mcp__json_is_array(const char *text, size_t len);

#endif
