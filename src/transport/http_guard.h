/* SPDX-License-Identifier: MIT */
/* http_guard.h - request checks of the HTTP transport that need no state:
 * Accept negotiation, Origin/Host allow-lists. Kept pure
 * so unit tests can cover every edge without a socket. */
#ifndef MCP_TRANSPORT_HTTP_GUARD_H
#define MCP_TRANSPORT_HTTP_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <strings.h>

/* True when the Accept header value admits media type (e.g.
 * "application/json"), by exact type, "type/ *" or "* / *" (without spaces);
 * parameters and q-values are ignored except q=0, which excludes. NULL
 * accept admits nothing. */
bool mcp__http_accepts(const char *accept, const char *type);
/* mcp__http_accepts for each of types[0..n) in one pass over accept: bit i
 * of the result is set when types[i] is admitted (n <= 8). */
#define MCP__HTTP_ACCEPT_MAX 8
unsigned mcp__http_accepts_each(const char *accept, const char *const *types,
                                unsigned n);
/* True when value equals one entry of list (ASCII case-insensitive), or the
 * list holds "*". */
bool mcp__http_list_has(char *const *list, size_t count, const char *value);
/* True when a Content-Type value names exactly the media type type (ASCII
 * case-insensitive), optionally followed by parameters ("; charset=utf-8");
 * "application/jsonx" or "application/json-seq" are other types. NULL is
 * false. */
bool mcp__http_media_type_is(const char *content_type, const char *type);
/* True when a Content-Encoding value names no coding but "identity" (a
 * list of "identity" and empty elements, ASCII case-insensitive). */
bool mcp__http_coding_is_identity(const char *content_encoding);
/* The next element of a comma-separated field value (RFC 9110 5.6.1) at
 * *p, without the whitespace around it, into *item and *len, *p moved past
 * it; empty elements are skipped. false at the end of the value. */
bool mcp__http_list_next(const char **p, const char **item, size_t *len);
/* Whether the header name name (len its strlen) is the literal lit,
 * ASCII case-insensitive. Lookups run over every field of every request:
 * the lengths are compared first. */
#define MCP__HTTP_NAME_IS(name, len, lit)                                      \
  ((len) == sizeof(lit) - 1 && strcasecmp((name), (lit)) == 0)
#endif
