/* SPDX-License-Identifier: MIT */
/* uri.h - RFC 3986 reference resolution for $id/$ref, and JSON Pointer
 * helpers. Nothing here touches the network. */
#ifndef MCP_SCHEMA_URI_H
#define MCP_SCHEMA_URI_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "schema/arena.h"

/* Resolves ref against base (either may be ""); returns new (malloc) or NULL
 * when out of memory. An empty base leaves ref as it is. */
char *mcp__uri_resolve(const char *base, const char *ref);
/* a and b are the same URI but for an empty fragment ("...schema#"). */
bool mcp__uri_same(const char *a, const char *b);
/* Length of uri without its "#fragment" part. */
size_t mcp__uri_strip_len(const char *uri);
/* Percent-decodes in place; false on a malformed escape. */
bool mcp__uri_percent_decode(char *s);

/* Follows a JSON Pointer ("" or "/a/0") from root; NULL when it leads
 * nowhere. The callback, when non-NULL, sees every value passed on the way
 * (root first) so callers can track the innermost known scope. */
json_t *mcp__pointer_get(json_t *root, const char *pointer,
                         void (*visit)(json_t *v, void *ud), void *ud);
/* base + "/" + token escaped (~0, ~1), allocated in a; NULL on OOM. */
char *mcp__pointer_join(mcp__arena *a, const char *base, const char *token);

#endif
