/* SPDX-License-Identifier: MIT */
/* arena.c - bump allocator; blocks grow geometrically, big requests get a
 * block of their own. */
#include "schema/arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct mcp__arena_block {
  mcp__arena_block *next;
  size_t used, cap;
  alignas(max_align_t) unsigned char data[];
};

void *mcp__arena_alloc(mcp__arena *a, size_t size) {
  const size_t align = alignof(max_align_t);
  size = (size + align - 1) & ~(align - 1);
  if (size == 0)
    size = align;
  mcp__arena_block *b = a->head;
  if (b == NULL || b->cap - b->used < size) {
    size_t cap = b ? b->cap * 2 : 4096;
    if (cap > 1u << 20)
      cap = 1u << 20;
    if (cap < size)
      cap = size;
    mcp__arena_block *nb = malloc(sizeof *nb + cap);
    if (nb == NULL)
      return NULL;
    nb->used = 0;
    nb->cap = cap;
    nb->next = a->head;
    a->head = nb;
    b = nb;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

char *mcp__arena_strndup(mcp__arena *a, const char *s, size_t len) {
  char *p = mcp__arena_alloc(a, len + 1);
  if (p != NULL) {
    memcpy(p, s, len);
    p[len] = '\0';
  }
  return p;
}

char *mcp__arena_strdup(mcp__arena *a, const char *s) {
  return mcp__arena_strndup(a, s, strlen(s));
}

void mcp__arena_release(mcp__arena *a) {
  mcp__arena_block *b = a->head;
  while (b != NULL) {
    mcp__arena_block *n = b->next;
    free(b);
    b = n;
  }
  a->head = NULL;
}
