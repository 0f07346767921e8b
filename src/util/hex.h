/* SPDX-License-Identifier: MIT */
/* hex.h - hexadecimal digits: the value of one, for every parser that
 * reads them (%XX in URIs and headers, \uXXXX in JSON, \x{...} in
 * patterns, trace ids), and bytes written as lowercase hex (trace and span
 * ids). Inline: the JSON reader calls it per escaped character. */
#ifndef MCP_UTIL_HEX_H
#define MCP_UTIL_HEX_H

#include <stddef.h>

/* 0-15 for '0'-'9', 'a'-'f', 'A'-'F'; -1 for anything else (also EOF). */
static inline int mcp__hex_digit(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* n bytes at p as 2n lowercase hex digits at out (no NUL added). */
static inline void mcp__hex_lower(char *out, const unsigned char *p,
                                  size_t n) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
}

#endif
