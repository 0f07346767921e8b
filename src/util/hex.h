/* SPDX-License-Identifier: MIT */
/* hex.h - the value of one hexadecimal digit, for every parser that reads
 * them (%XX in URIs and headers, \uXXXX in JSON, \x{...} in patterns).
 * Inline: the JSON reader calls it per escaped character. */
#ifndef MCP_UTIL_HEX_H
#define MCP_UTIL_HEX_H

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

#endif
