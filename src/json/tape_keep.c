/* SPDX-License-Identifier: MIT */
/* tape_keep.c - a parsed subtree kept after its text is gone, a whole tape
 * moved with a copy of its text, and member lookup on tapes (see tape.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "json/tape.h"

/* n bytes from src to dst: most kept strings are keys and short values,
 * where two overlapping loads cost less than a memcpy call (no byte
 * outside either stretch is read or written). */
static inline void copy_short(char *dst, const char *src, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t a, b;
    memcpy(&a, src, 8);
    memcpy(&b, src + n - 8, 8);
    memcpy(dst, &a, 8);
    memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t a, b;
    memcpy(&a, src, 4);
    memcpy(&b, src + n - 4, 4);
    memcpy(dst, &a, 4);
    memcpy(dst + n - 4, &b, 4);
  } else if (n < 4) {
    if (n > 0) { /* bytes 0, n/2 and n-1 are all of them */
      dst[0] = src[0];
      dst[n / 2] = src[n / 2];
      dst[n - 1] = src[n - 1];
    }
  } else {
    memcpy(dst, src, n);
  }
}

mcp__kept_tape *mcp__tape_keep(const mcp__tnode *root) {
  size_t count = root->skip, bytes = 0;
  for (size_t i = 0; i < count; i++)
    if (root[i].type == MCP__J_STRING)
      bytes += root[i].n;
  mcp__kept_tape *k =
      malloc(sizeof *k + count * sizeof(mcp__tnode) + (bytes ? bytes : 1));
  if (k == NULL)
    return NULL;
  k->count = count;
  memcpy(k->nodes, root, count * sizeof(mcp__tnode));
  char *text = (char *)(k->nodes + count);
  for (size_t i = 0; i < count; i++) {
    mcp__tnode *n = &k->nodes[i];
    n->lit = 0;                     /* an offset into the text that is gone */
    if (n->type == MCP__J_STRING) { /* empty ones too: no pointer left
                                       into the text that is gone */
      copy_short(text, n->v.s, n->n);
      n->v.s = text;
      text += n->n;
    }
  }
  return k;
}

size_t mcp__tape_moved_size(const mcp__tape *t) {
  size_t text = (t->text_used + 7) & ~(size_t)7;
  return t->count * sizeof(mcp__tnode) + text;
}

void mcp__tape_move(const mcp__tape *t, const char *json, size_t len,
                    const char *json_copy, mcp__tnode *storage) {
  memcpy(storage, t->nodes, t->count * sizeof(mcp__tnode));
  char *decoded = (char *)(storage + t->count);
  if (t->text_used > 0)
    memcpy(decoded, t->text, t->text_used);
  for (size_t i = 0; i < t->count; i++) {
    mcp__tnode *n = &storage[i];
    if (n->type != MCP__J_STRING)
      continue;
    /* <= len: an empty string at the very end still points into the copy */
    if (n->v.s >= json && n->v.s <= json + len)
      n->v.s = json_copy + (n->v.s - json);
    else
      n->v.s = decoded + (n->v.s - t->text);
  }
}

void mcp__tape_view(mcp__tape *view, mcp__tnode *nodes, size_t count,
                    size_t depth, bool decoded_nul) {
  view->nodes = nodes;
  view->count = count;
  view->cap = count;
  view->text = NULL;
  view->text_used = 0;
  view->depth = depth;
  view->decoded_nul = decoded_nul;
}

const mcp__tnode *mcp__tnode_member(const mcp__tnode *obj, const char *key,
                                    size_t len) {
  if (obj == NULL || obj->type != MCP__J_OBJECT)
    return NULL;
  for (const mcp__tnode *k = obj + 1, *e = obj + obj->skip; k != e;
       k += 1 + k[1].skip)
    if (k->n == len && !k->dead && mcp__bytes_eq(k->v.s, key, len))
      return k + 1;
  return NULL;
}

bool mcp__tape_has_decoded_nul(const mcp__tnode *root, const char *json,
                               size_t len) {
  for (const mcp__tnode *n = root, *e = root + root->skip; n != e; n++)
    if (n->type == MCP__J_STRING && n->n &&
        (n->v.s < json || n->v.s >= json + len) &&
        memchr(n->v.s, '\0', n->n) != NULL)
      return true;
  return false;
}
