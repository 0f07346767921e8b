/* SPDX-License-Identifier: MIT */
/* b64url.c - base64url without padding. */
#include "auth/b64url.h"

#include <stdint.h>
#include <stdlib.h>

static int value_of(unsigned char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '-')
    return 62;
  if (c == '_')
    return 63;
  return -1;
}

unsigned char *mcp__b64url_decode(const char *text, size_t len,
                                  size_t *out_len) {
  if (len % 4 == 1)
    return NULL;
  unsigned char *out = malloc(len / 4 * 3 + 3);
  if (out == NULL)
    return NULL;
  size_t n = 0;
  uint32_t acc = 0;
  unsigned bits = 0;
  for (size_t i = 0; i < len; i++) {
    int v = value_of((unsigned char)text[i]);
    if (v < 0) {
      free(out);
      return NULL;
    }
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (unsigned char)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  if (acc != 0) { /* non-canonical: leftover bits must be zero */
    free(out);
    return NULL;
  }
  out[n] = '\0';
  *out_len = n;
  return out;
}

char *mcp__b64url_encode(const void *data, size_t len) {
  static const char alpha[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const unsigned char *p = data;
  char *out = malloc((len + 2) / 3 * 4 + 1);
  if (out == NULL)
    return NULL;
  size_t n = 0, i = 0;
  for (; i + 2 < len; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    out[n++] = alpha[v >> 18];
    out[n++] = alpha[(v >> 12) & 63];
    out[n++] = alpha[(v >> 6) & 63];
    out[n++] = alpha[v & 63];
  }
  if (i < len) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < len)
      v |= (uint32_t)p[i + 1] << 8;
    out[n++] = alpha[v >> 18];
    out[n++] = alpha[(v >> 12) & 63];
    if (i + 1 < len)
      out[n++] = alpha[(v >> 6) & 63];
  }
  out[n] = '\0';
  return out;
}
