/* SPDX-License-Identifier: MIT */
/* buf.c - growable byte buffer (see buf.h). */
#include "util/buf.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void mcp__buf_init(mcp__buf *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->borrowed = false;
}

void mcp__buf_init_on(mcp__buf *b, char *storage, size_t cap) {
  assert(storage != NULL && cap > 0); /* room for the NUL at least */
  b->data = storage;
  b->len = 0;
  b->cap = cap;
  b->borrowed = true;
  storage[0] = '\0';
}

void mcp__buf_free(mcp__buf *b) {
  if (!b->borrowed)
    free(b->data);
  mcp__buf_init(b);
}

void mcp__buf_reset(mcp__buf *b) {
  b->len = 0;
  if (b->data)
    b->data[0] = '\0';
}

/* Moves a borrowed buffer's bytes to cap bytes of heap (cap > len). */
static bool to_heap(mcp__buf *b, size_t cap) {
  assert(b->borrowed && cap > b->len);
  char *data = malloc(cap);
  if (data == NULL)
    return false;
  memcpy(data, b->data, b->len + 1);
  b->data = data;
  b->cap = cap;
  b->borrowed = false;
  return true;
}

bool mcp__buf_reserve(mcp__buf *b, size_t extra) {
  /* the invariant: no storage, or len bytes plus their NUL fit in cap */
  assert(b->data == NULL ? b->len == 0 && b->cap == 0 : b->len < b->cap);
  if (extra > (size_t)-1 / 2 - b->len)
    return false;
  size_t need = b->len + extra + 1;
  if (need <= b->cap)
    return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need)
    cap *= 2;
  if (b->borrowed) /* the caller's storage is full */
    return to_heap(b, cap);
  char *data = realloc(b->data, cap);
  if (data == NULL)
    return false;
  b->data = data;
  b->cap = cap;
  return true;
}

bool mcp__buf_append_grow(mcp__buf *b, const void *data, size_t len) {
  if (!mcp__buf_reserve(b, len))
    return false;
  if (len)
    memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return true;
}

static int dump_cb(const char *data, size_t size, void *ud) {
  return mcp__buf_append(ud, data, size) ? 0 : -1;
}

static bool dump_jansson(mcp__buf *b, const json_t *value, size_t flags) {
  return json_dump_callback(value, dump_cb, b,
                            flags | JSON_COMPACT | JSON_ENCODE_ANY) == 0;
}

/* ---- jansson's compact output, written straight into the buffer --------
 * json_dump_callback formats numbers with snprintf and hands its text over
 * in small pieces; answers are written on every request, so the common
 * cases are written here, byte for byte what jansson writes (compact, keys
 * in insertion order, \uXXXX in upper case). Whatever this does not handle
 * itself goes to jansson: reals, strings and keys with non-ASCII bytes
 * (jansson checks their UTF-8 and refuses invalid text), flags, and values
 * nested deeper than WRITE_DEPTH (jansson detects cycles). */
#define WRITE_DEPTH 32

/* len bytes of ASCII text as a JSON string; false when s has a byte
 * outside ASCII (nothing written then) or memory runs out. */
static bool put_ascii_string(mcp__buf *b, const char *s, size_t len,
                             bool *ascii) {
  static const char hex[] = "0123456789ABCDEF";
  *ascii = true;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)s[i] >= 0x80) {
      *ascii = false;
      return false;
    }
  if (!mcp__buf_reserve(b, len + 2))
    return false;
  char *d = b->data + b->len;
  *d++ = '"';
  size_t run = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    b->len = (size_t)(d - b->data);
    if (!mcp__buf_reserve(b, (i - run) + 6 + (len - i) + 1))
      return false;
    d = b->data + b->len;
    memcpy(d, s + run, i - run);
    d += i - run;
    *d++ = '\\';
    switch (c) {
    case '"':
    case '\\':
      *d++ = (char)c;
      break;
    case '\b':
      *d++ = 'b';
      break;
    case '\f':
      *d++ = 'f';
      break;
    case '\n':
      *d++ = 'n';
      break;
    case '\r':
      *d++ = 'r';
      break;
    case '\t':
      *d++ = 't';
      break;
    default:
      *d++ = 'u';
      *d++ = '0';
      *d++ = '0';
      *d++ = hex[c >> 4];
      *d++ = hex[c & 15];
    }
    run = i + 1;
  }
  memcpy(d, s + run, len - run);
  d += len - run;
  *d++ = '"';
  *d = '\0';
  b->len = (size_t)(d - b->data);
  return true;
}

static bool put_integer(mcp__buf *b, json_int_t v) {
  char tmp[24], *p = tmp + sizeof tmp;
  unsigned long long u =
      v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0)
    *--p = '-';
  return mcp__buf_append(b, p, (size_t)(tmp + sizeof tmp - p));
}

static bool put_value(mcp__buf *b, const json_t *v, int depth) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    if (depth >= WRITE_DEPTH)
      return dump_jansson(b, v, 0);
    size_t mark = b->len;
    if (!mcp__buf_append_char(b, '{'))
      return false;
    bool first = true;
    for (void *it = json_object_iter((json_t *)v); it;
         it = json_object_iter_next((json_t *)v, it)) {
      bool ascii = true;
      if ((!first && !mcp__buf_append_char(b, ',')) ||
          !put_ascii_string(b, json_object_iter_key(it),
                            json_object_iter_key_len(it), &ascii)) {
        if (ascii)
          return false;
        b->len = mark; /* a key jansson must check: all of it to jansson */
        return dump_jansson(b, v, 0);
      }
      first = false;
      if (!mcp__buf_append_char(b, ':') ||
          !put_value(b, json_object_iter_value(it), depth + 1))
        return false;
    }
    return mcp__buf_append_char(b, '}');
  }
  case JSON_ARRAY: {
    if (depth >= WRITE_DEPTH)
      return dump_jansson(b, v, 0);
    if (!mcp__buf_append_char(b, '['))
      return false;
    size_t n = json_array_size(v);
    for (size_t i = 0; i < n; i++)
      if ((i > 0 && !mcp__buf_append_char(b, ',')) ||
          !put_value(b, json_array_get(v, i), depth + 1))
        return false;
    return mcp__buf_append_char(b, ']');
  }
  case JSON_STRING: {
    bool ascii;
    if (put_ascii_string(b, json_string_value(v), json_string_length(v),
                         &ascii))
      return true;
    return !ascii && dump_jansson(b, v, 0);
  }
  case JSON_INTEGER:
    return put_integer(b, json_integer_value(v));
  case JSON_TRUE:
    return mcp__buf_append(b, "true", 4);
  case JSON_FALSE:
    return mcp__buf_append(b, "false", 5);
  case JSON_NULL:
    return mcp__buf_append(b, "null", 4);
  default: /* reals */
    return dump_jansson(b, v, 0);
  }
}

bool mcp__buf_append_json(mcp__buf *b, const json_t *value, size_t flags) {
  if (value == NULL)
    return false;
  if (flags != 0)
    return dump_jansson(b, value, flags);
  size_t mark = b->len;
  if (put_value(b, value, 0))
    return true;
  b->len = mark; /* nothing half-written stays */
  if (b->data)
    b->data[mark] = '\0';
  return false;
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

bool mcp__buf_append_json_stringn(mcp__buf *b, const char *s, size_t len,
                                  bool *invalid) {
  bool ascii;
  *invalid = false;
  if (put_ascii_string(b, s, len, &ascii))
    return true;
  if (ascii)
    return false;                     /* out of memory */
  json_t *str = json_stringn(s, len); /* checks the UTF-8 */
  if (str == NULL) {
    *invalid = true;
    return false;
  }
  bool ok = dump_jansson(b, str, 0);
  json_decref(str);
  return ok;
}

bool mcp__buf_append_json_int(mcp__buf *b, int64_t v) {
  return put_integer(b, (json_int_t)v);
}

bool mcp__buf_append_json_real(mcp__buf *b, double v, bool *invalid) {
  json_t *real = json_real(v); /* NULL for Infinity and NaN */
  *invalid = real == NULL;
  bool ok = real != NULL && dump_jansson(b, real, 0);
  json_decref(real);
  return ok;
}

char *mcp__buf_steal(mcp__buf *b, size_t *len) {
  if (b->data == NULL && !mcp__buf_reserve(b, 0))
    return NULL;
  if (b->borrowed && !to_heap(b, b->len + 1))
    return NULL;
  char *data = b->data;
  if (len)
    *len = b->len;
  mcp__buf_init(b);
  return data;
}

/* The escape of c (below 0x20, '"' or '\\') written at o; its length. */
static size_t put_escape(char *o, unsigned char c) {
  static const char hex[] = "0123456789abcdef";
  o[0] = '\\';
  switch (c) {
  case '"':
    o[1] = '"';
    return 2;
  case '\\':
    o[1] = '\\';
    return 2;
  case '\n':
    o[1] = 'n';
    return 2;
  case '\r':
    o[1] = 'r';
    return 2;
  case '\t':
    o[1] = 't';
    return 2;
  case '\b':
    o[1] = 'b';
    return 2;
  case '\f':
    o[1] = 'f';
    return 2;
  default:
    o[1] = 'u';
    o[2] = '0';
    o[3] = '0';
    o[4] = hex[c >> 4];
    o[5] = hex[c & 15];
    return 6;
  }
}

/* A short string's worst case (six bytes per byte) is reserved at once and
 * written in place; a longer one is copied in runs between escapes, so its
 * reservation stays near its length. */
#define ESCAPE_IN_PLACE_MAX 64

bool mcp__buf_append_escaped(mcp__buf *b, const char *s, size_t len) {
  if (len <= ESCAPE_IN_PLACE_MAX) {
    if (!mcp__buf_reserve(b, 6 * len + 2))
      return false;
    char *o = b->data + b->len;
    *o++ = '"';
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
      unsigned char c = (unsigned char)s[i];
      if (c >= 0x20 && c != '"' && c != '\\')
        continue;
      memcpy(o, s + run, i - run);
      o += i - run;
      o += put_escape(o, c);
      run = i + 1;
    }
    if (len > run) /* s may be NULL when len is 0 */
      memcpy(o, s + run, len - run);
    o += len - run;
    *o++ = '"';
    *o = '\0';
    b->len = (size_t)(o - b->data);
    return true;
  }
  if (!mcp__buf_reserve(b, len + 2))
    return false;
  b->data[b->len++] = '"';
  size_t run = 0; /* bytes copied verbatim in one go */
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    char esc[6];
    if (!mcp__buf_append(b, s + run, i - run) ||
        !mcp__buf_append(b, esc, put_escape(esc, c)))
      return false;
    run = i + 1;
  }
  return mcp__buf_append(b, s + run, len - run) && mcp__buf_append_char(b, '"');
}
