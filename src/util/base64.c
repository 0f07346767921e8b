/* SPDX-License-Identifier: MIT */
/* base64.c - RFC 4648 base64 with strict decoding (padding required), and
 * base64url without padding (strict too: canonical trailing bits). */
#include "util/base64.h"

#include <stdint.h>
#include <stdlib.h>

static const char std_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Both encodings: the alphabet, and whether the last group is padded. */
static char *encode(const char *alphabet, bool pad, const void *data,
                    size_t len) {
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
    if (i + 1 < len)
      out[o++] = alphabet[v >> 6 & 63];
    else if (pad)
      out[o++] = '=';
    if (pad)
      out[o++] = '=';
  }
  out[o] = '\0';
  return out;
}

char *mcp__base64_encode(const void *data, size_t len) {
  return encode(std_alphabet, true, data, len);
}

char *mcp__base64url_encode(const void *data, size_t len) {
  return encode(url_alphabet, false, data, len);
}

/* The value of c in an alphabet whose last two characters are c62, c63. */
static int value_of(char c, char c62, char c63) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == c62)
    return 62;
  if (c == c63)
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
      v[k] = value_of(c, '+', '/');
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

unsigned char *mcp__base64url_decode(const char *text, size_t len,
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
    int v = value_of(text[i], '-', '_');
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
