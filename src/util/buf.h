/* SPDX-License-Identifier: MIT */
/* buf.h - a growable byte buffer used for encoding and line I/O.
 *
 * Invariant: data[len] == '\0' whenever data != NULL, so a buffer can be
 * handed to string functions without copying. Growth doubles the capacity.
 */
#ifndef MCP_UTIL_BUF_H
#define MCP_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

typedef struct mcp__buf {
  char *data;
  size_t len;    /* bytes used, excluding the trailing NUL */
  size_t cap;    /* bytes allocated, including room for the NUL */
  bool borrowed; /* data is the caller's storage (mcp__buf_init_on) */
} mcp__buf;

void mcp__buf_init(mcp__buf *b);
/* Starts b on cap bytes of the caller's storage (a stack array, a member of
 * the owner's struct): nothing is allocated until the bytes outgrow it,
 * then they move to the heap. storage must outlive b's use;
 * mcp__buf_free is needed either way and frees only what was allocated. */
void mcp__buf_init_on(mcp__buf *b, char *storage, size_t cap);
void mcp__buf_free(mcp__buf *b);
/* Empties the buffer but keeps its memory for reuse. */
void mcp__buf_reset(mcp__buf *b);
/* Ensures room for extra more bytes; false on allocation failure. */
bool mcp__buf_reserve(mcp__buf *b, size_t extra);
/* Grows b, then appends (mcp__buf_append when the bytes do not fit). */
bool mcp__buf_append_grow(mcp__buf *b, const void *data, size_t len);
/* Inline: a response is a dozen appends of a few bytes each, most of them
 * literals whose length and bytes the compiler then knows; only growth
 * leaves the caller. */
static inline bool mcp__buf_append(mcp__buf *b, const void *data, size_t len) {
  if (b->cap - b->len <= len) /* the NUL too; cap 0 when data is NULL */
    return mcp__buf_append_grow(b, data, len);
  if (len)
    memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return true;
}
static inline bool mcp__buf_append_str(mcp__buf *b, const char *s) {
  return mcp__buf_append(b, s, strlen(s));
}
static inline bool mcp__buf_append_char(mcp__buf *b, char c) {
  return mcp__buf_append(b, &c, 1);
}
/* Appends the compact JSON text of value (jansson dump flags added). */
bool mcp__buf_append_json(mcp__buf *b, const json_t *value, size_t flags);
/* Appends s as a JSON string literal (with quotes, escaped). */
bool mcp__buf_append_json_string(mcp__buf *b, const char *s);
/* Appends len bytes of valid UTF-8 as a quoted JSON string literal, escaping
 * quotes, backslashes and control characters. No allocation beyond growth. */
bool mcp__buf_append_escaped(mcp__buf *b, const char *s, size_t len);
/* Scalars as jansson writes them, without building a jansson value for the
 * common cases. A string of len bytes: false with *invalid set when it is
 * not UTF-8 (nothing written). A real: false with *invalid set when it is
 * not finite. All: false (and *invalid false) when memory runs out. */
bool mcp__buf_append_json_stringn(mcp__buf *b, const char *s, size_t len,
                                  bool *invalid);
bool mcp__buf_append_json_int(mcp__buf *b, int64_t v);
bool mcp__buf_append_json_real(mcp__buf *b, double v, bool *invalid);
/* Hands the bytes to the caller (free with free()); the buffer becomes empty.
 */
char *mcp__buf_steal(mcp__buf *b, size_t *len);

#endif
