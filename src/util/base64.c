/* SPDX-License-Identifier: MIT */
/* base64.c - RFC 4648 base64 with strict decoding (padding required). */
#include "util/base64.h"

#include <stdlib.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *mcp__base64_encode(const void *data, size_t len) {
  const unsigned char *in = data;
  if (len > ((size_t)-1 - 1) / 4 * 3 - 3)
    return NULL;
  size_t out_len = (len + 2) / 3 * 4;
  char *out = malloc(out_len + 1);
  if (out == NULL)
    return NULL;
  size_t o = 0, i = 0;
  for (; i + 2 < len; i += 3) {
    unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
    out[o++] = alphabet[v >> 18 & 63];
    out[o++] = alphabet[v >> 12 & 63];
    out[o++] = alphabet[v >> 6 & 63];
    out[o++] = alphabet[v & 63];
  }
  if (i < len) {
    unsigned v = (unsigned)in[i] << 16;
    if (i + 1 < len)
      v |= (unsigned)in[i + 1] << 8;
    out[o++] = alphabet[v >> 18 & 63];
    out[o++] = alphabet[v >> 12 & 63];
    out[o++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
    out[o++] = '=';
  }
  out[o] = '\0';
  return out;
}

static int value_of(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

unsigned char *mcp__base64_decode(const char *text, size_t len,
                                  size_t *out_len) {
  if (len % 4 != 0)
    return NULL;
  unsigned char *out = malloc(len / 4 * 3 + 1);
  if (out == NULL)
    return NULL;
  size_t o = 0;
  for (size_t i = 0; i < len; i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; k++) {
      char c = text[i + k];
      if (c == '=' && i + 4 == len && k >= 2) {
        v[k] = 0;
        pad++;
        continue;
      }
      if (pad) /* data after padding */
        goto fail;
      v[k] = value_of(c);
      if (v[k] < 0)
        goto fail;
    }
    unsigned n = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 |
                 (unsigned)v[2] << 6 | (unsigned)v[3];
    out[o++] = (unsigned char)(n >> 16);
    if (pad < 2)
      out[o++] = (unsigned char)(n >> 8);
    if (pad < 1)
      out[o++] = (unsigned char)n;
  }
  out[o] = '\0';
  if (out_len)
    *out_len = o;
  return out;
fail:
  free(out);
  return NULL;
}

bool mcp__base64_is_valid(const char *text, size_t len) {
  size_t n;
  unsigned char *d = mcp__base64_decode(text, len, &n);
  free(d);
  return d != NULL;
}
