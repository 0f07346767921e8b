/* SPDX-License-Identifier: MIT */
/* catalog.c - see catalog.h.
 *
 * The hash is rebuilt on every add and remove: those are rare
 * (registration), lookups happen on every read or get.
 */
#include "catalog/catalog.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const char *s) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 1099511628211ULL;
  }
  return h;
}

void mcp__entry_retain(mcp__entry *e) {
  atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
}

void mcp__entry_release(mcp__entry *e) {
  if (e && atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
    e->destroy(e);
}

/* Fills slots for the current items; false when out of memory (the old
 * table, if any, is then rebuilt in place at its size, which stays valid
 * because removals only shrink the item count). */
static bool rebuild_hash(mcp__catalog *c) {
  size_t n = 16;
  while (n <= c->count * 2)
    n *= 2;
  size_t *slots = calloc(n, sizeof *slots);
  if (slots == NULL) {
    if (c->slots == NULL || c->nslots <= c->count * 2)
      return false;
    slots = c->slots;
    n = c->nslots;
    memset(slots, 0, n * sizeof *slots);
  } else {
    free(c->slots);
  }
  for (size_t i = 0; i < c->count; i++) {
    size_t h = (size_t)hash_key(c->items[i]->key) & (n - 1);
    while (slots[h])
      h = (h + 1) & (n - 1);
    slots[h] = i + 1;
  }
  c->slots = slots;
  c->nslots = n;
  return true;
}

static long find_index(const mcp__catalog *c, const char *key) {
  if (c->nslots == 0 || key == NULL)
    return -1;
  size_t h = (size_t)hash_key(key) & (c->nslots - 1);
  while (c->slots[h]) {
    size_t i = c->slots[h] - 1;
    if (strcmp(c->items[i]->key, key) == 0)
      return (long)i;
    h = (h + 1) & (c->nslots - 1);
  }
  return -1;
}

void mcp__catalog_init(mcp__catalog *c) {
  memset(c, 0, sizeof *c);
  pthread_rwlock_init(&c->lock, NULL);
  c->next_seq = 1;
}

void mcp__catalog_destroy(mcp__catalog *c) {
  for (size_t i = 0; i < c->count; i++)
    mcp__entry_release(c->items[i]);
  free(c->items);
  free(c->slots);
  pthread_rwlock_destroy(&c->lock);
  memset(c, 0, sizeof *c);
}

mcp_status mcp__catalog_add(mcp__catalog *c, mcp__entry *e) {
  mcp_status st = MCP_OK;
  pthread_rwlock_wrlock(&c->lock);
  if (find_index(c, e->key) >= 0) {
    st = MCP_ERR_EXISTS;
  } else if (c->count == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    mcp__entry **items = realloc(c->items, cap * sizeof *items);
    if (items == NULL)
      st = MCP_ERR_NOMEM;
    else {
      c->items = items;
      c->cap = cap;
    }
  }
  if (st == MCP_OK) {
    e->seq = c->next_seq++;
    c->items[c->count++] = e;
    if (!rebuild_hash(c)) {
      c->count--;
      st = MCP_ERR_NOMEM;
    }
  }
  pthread_rwlock_unlock(&c->lock);
  return st;
}

mcp_status mcp__catalog_remove(mcp__catalog *c, const char *key) {
  pthread_rwlock_wrlock(&c->lock);
  long i = find_index(c, key);
  if (i < 0) {
    pthread_rwlock_unlock(&c->lock);
    return MCP_ERR_NOT_FOUND;
  }
  mcp__entry *e = c->items[i];
  memmove(c->items + i, c->items + i + 1,
          (c->count - (size_t)i - 1) * sizeof *c->items);
  c->count--;
  rebuild_hash(c); /* cannot fail after a removal: see rebuild_hash */
  pthread_rwlock_unlock(&c->lock);
  mcp__entry_release(e);
  return MCP_OK;
}

mcp__entry *mcp__catalog_find(mcp__catalog *c, const char *key) {
  pthread_rwlock_rdlock(&c->lock);
  long i = find_index(c, key);
  mcp__entry *e = i >= 0 ? c->items[i] : NULL;
  if (e)
    mcp__entry_retain(e);
  pthread_rwlock_unlock(&c->lock);
  return e;
}

size_t mcp__catalog_count(mcp__catalog *c) {
  pthread_rwlock_rdlock(&c->lock);
  size_t n = c->count;
  pthread_rwlock_unlock(&c->lock);
  return n;
}

mcp_status mcp__catalog_page(mcp__catalog *c, uint64_t from_seq, size_t limit,
                             json_t *array, uint64_t *next_seq) {
  mcp_status st = MCP_OK;
  *next_seq = 0;
  pthread_rwlock_rdlock(&c->lock);
  size_t lo = 0, hi = c->count; /* first seq >= from_seq */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->items[mid]->seq < from_seq)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t i = lo;
  for (size_t added = 0; i < c->count && added < limit; i++, added++)
    if (json_array_append(array, c->items[i]->listing) != 0) {
      st = MCP_ERR_NOMEM;
      break;
    }
  if (st == MCP_OK && i < c->count)
    *next_seq = c->items[i]->seq;
  pthread_rwlock_unlock(&c->lock);
  return st;
}

mcp__entry *mcp__catalog_find_if(mcp__catalog *c,
                                 bool (*fn)(mcp__entry *e, void *ctx),
                                 void *ctx) {
  mcp__entry *found = NULL;
  pthread_rwlock_rdlock(&c->lock);
  for (size_t i = 0; i < c->count && found == NULL; i++)
    if (fn(c->items[i], ctx)) {
      found = c->items[i];
      mcp__entry_retain(found);
    }
  pthread_rwlock_unlock(&c->lock);
  return found;
}
