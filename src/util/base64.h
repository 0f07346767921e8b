/* SPDX-License-Identifier: MIT */
/* base64.h - RFC 4648 base64 (standard alphabet, padded) for image, audio and
 * blob contents, and for opaque pagination cursors; base64url without
 * padding (RFC 7515 section 2) for JOSE and PKCE. */
#ifndef MCP_UTIL_BASE64_H
#define MCP_UTIL_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/* Returns a malloc'd NUL-terminated encoding, or NULL on allocation failure. */
char *mcp__base64_encode(const void *data, size_t len);
/* Decodes text (len bytes) into a malloc'd buffer (*out_len bytes, plus a NUL
 * for convenience). NULL when text is not valid padded base64. */
unsigned char *mcp__base64_decode(const char *text, size_t len,
                                  size_t *out_len);
/* True when text is valid padded base64. */
bool mcp__base64_is_valid(const char *text, size_t len);

/* base64url without padding: a malloc'd NUL-terminated encoding, or NULL on
 * allocation failure. */
char *mcp__base64url_encode(const void *data, size_t len);
/* Decodes len characters into a malloc'd buffer (*out_len bytes plus a
 * NUL). NULL for anything but the url-safe alphabet without padding
 * (including a length of 1 mod 4 and non-zero trailing bits) or on
 * allocation failure. */
unsigned char *mcp__base64url_decode(const char *text, size_t len,
                                     size_t *out_len);

#endif
