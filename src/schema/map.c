/* SPDX-License-Identifier: MIT */
/* map.c - linear-probing hash map with FNV-1a for strings and a mixer for
 * pointers. Load factor stays under 1/2. */
#include "schema/map.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

static uint64_t key_hash(const mcp__map *m, const void *key) {
  if (m->string_keys)
    return mcp__hash_bytes(key, strlen(key));
  uint64_t x = (uint64_t)(uintptr_t)key;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

static bool key_eq(const mcp__map *m, const void *a, const void *b) {
  return m->string_keys ? strcmp(a, b) == 0 : a == b;
}

void mcp__map_init(mcp__map *m, bool string_keys) {
  memset(m, 0, sizeof *m);
  m->string_keys = string_keys;
}

void mcp__map_release(mcp__map *m) {
  free(m->slots);
  m->slots = NULL;
  m->cap = m->count = 0;
}

void *mcp__map_get(const mcp__map *m, const void *key) {
  if (m->cap == 0)
    return NULL;
  uint64_t h = key_hash(m, key);
  for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    const mcp__map_slot *s = &m->slots[i];
    if (s->key == NULL)
      return NULL;
    if (s->hash == h && key_eq(m, s->key, key))
      return s->value;
  }
}

static void insert_slot(mcp__map_slot *slots, size_t cap, mcp__map_slot in) {
  for (size_t i = in.hash & (cap - 1);; i = (i + 1) & (cap - 1)) {
    if (slots[i].key == NULL) {
      slots[i] = in;
      return;
    }
  }
}

bool mcp__map_put(mcp__map *m, const void *key, void *value) {
  uint64_t h = key_hash(m, key);
  if (m->cap != 0) {
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
      mcp__map_slot *s = &m->slots[i];
      if (s->key == NULL)
        break;
      if (s->hash == h && key_eq(m, s->key, key)) {
        s->value = value;
        return true;
      }
    }
  }
  if ((m->count + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 16;
    mcp__map_slot *ns = calloc(ncap, sizeof *ns);
    if (ns == NULL)
      return false;
    for (size_t i = 0; i < m->cap; i++)
      if (m->slots[i].key != NULL)
        insert_slot(ns, ncap, m->slots[i]);
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
  }
  insert_slot(m->slots, m->cap, (mcp__map_slot){key, value, h});
  m->count++;
  return true;
}
