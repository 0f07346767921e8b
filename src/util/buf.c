/* SPDX-License-Identifier: MIT */
/* buf.c - growable byte buffer (see buf.h). */
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

void mcp__buf_init(mcp__buf *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

void mcp__buf_free(mcp__buf *b) {
  free(b->data);
  mcp__buf_init(b);
}

void mcp__buf_reset(mcp__buf *b) {
  b->len = 0;
  if (b->data)
    b->data[0] = '\0';
}

bool mcp__buf_reserve(mcp__buf *b, size_t extra) {
  if (extra > (size_t)-1 / 2 - b->len)
    return false;
  size_t need = b->len + extra + 1;
  if (need <= b->cap)
    return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need)
    cap *= 2;
  char *data = realloc(b->data, cap);
  if (data == NULL)
    return false;
  b->data = data;
  b->cap = cap;
  return true;
}

bool mcp__buf_append(mcp__buf *b, const void *data, size_t len) {
  if (!mcp__buf_reserve(b, len))
    return false;
  if (len)
    memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return true;
}

bool mcp__buf_append_str(mcp__buf *b, const char *s) {
  return mcp__buf_append(b, s, strlen(s));
}

bool mcp__buf_append_char(mcp__buf *b, char c) {
  return mcp__buf_append(b, &c, 1);
}

static int dump_cb(const char *data, size_t size, void *ud) {
  return mcp__buf_append(ud, data, size) ? 0 : -1;
}

bool mcp__buf_append_json(mcp__buf *b, const json_t *value, size_t flags) {
  return json_dump_callback(value, dump_cb, b,
                            flags | JSON_COMPACT | JSON_ENCODE_ANY) == 0;
}

/* Copies s replacing every byte that is not printable ASCII by '?'. Used
 * only when s is not valid UTF-8 (e.g. a parser error quoting the broken
 * input), so the reply itself stays valid JSON. */
static char *ascii_only(const char *s) {
  char *copy = strdup(s);
  for (char *p = copy; p && *p; p++)
    if ((unsigned char)*p >= 0x80)
      *p = '?';
  return copy;
}

bool mcp__buf_append_json_string(mcp__buf *b, const char *s) {
  json_t *str = json_string(s);
  if (str == NULL) {
    char *clean = ascii_only(s);
    str = clean ? json_string(clean) : NULL;
    free(clean);
  }
  if (str == NULL)
    return false;
  bool ok = mcp__buf_append_json(b, str, 0);
  json_decref(str);
  return ok;
}

char *mcp__buf_steal(mcp__buf *b, size_t *len) {
  if (b->data == NULL && !mcp__buf_reserve(b, 0))
    return NULL;
  char *data = b->data;
  if (len)
    *len = b->len;
  mcp__buf_init(b);
  return data;
}

bool mcp__buf_append_escaped(mcp__buf *b, const char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  if (!mcp__buf_reserve(b, len + 2))
    return false;
  b->data[b->len++] = '"';
  size_t run = 0; /* bytes copied verbatim in one go */
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    if (!mcp__buf_append(b, s + run, i - run))
      return false;
    char esc[6] = {'\\', 0, 0, 0, 0, 0};
    size_t n = 2;
    switch (c) {
    case '"':
      esc[1] = '"';
      break;
    case '\\':
      esc[1] = '\\';
      break;
    case '\n':
      esc[1] = 'n';
      break;
    case '\r':
      esc[1] = 'r';
      break;
    case '\t':
      esc[1] = 't';
      break;
    case '\b':
      esc[1] = 'b';
      break;
    case '\f':
      esc[1] = 'f';
      break;
    default:
      esc[1] = 'u';
      esc[2] = '0';
      esc[3] = '0';
      esc[4] = hex[c >> 4];
      esc[5] = hex[c & 15];
      n = 6;
    }
    if (!mcp__buf_append(b, esc, n))
      return false;
    run = i + 1;
  }
  return mcp__buf_append(b, s + run, len - run) && mcp__buf_append_char(b, '"');
}
