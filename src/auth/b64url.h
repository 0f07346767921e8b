/* SPDX-License-Identifier: MIT */
/* b64url.h - base64url without padding (RFC 7515 section 2), as JOSE uses. */
#ifndef MCP_AUTH_B64URL_H
#define MCP_AUTH_B64URL_H

#include <stdbool.h>
#include <stddef.h>

/* Decodes len characters into a malloc'd buffer (*out_len bytes plus a
 * NUL). NULL for anything but the url-safe alphabet without padding
 * (including a length of 1 mod 4 and non-zero trailing bits) or on
 * allocation failure. */
unsigned char *mcp__b64url_decode(const char *text, size_t len,
                                  size_t *out_len);
/* A malloc'd NUL-terminated encoding, or NULL on allocation failure. */
char *mcp__b64url_encode(const void *data, size_t len);

#endif
