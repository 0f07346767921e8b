/* registry.c - ordered tool list + name hash (see registry.h).
 *
 * The hash is rebuilt on every add/remove: those are rare (registration,
 * occasional reconfiguration) while lookups happen on every tools/call.
 */
#include "tools/registry.h"

#include <stdlib.h>
#include <string.h>

#include "tools/tool_internal.h"

static uint64_t hash_name(const char *s) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 1099511628211ULL;
  }
  return h;
}

static bool rebuild_hash(mcp__registry *r, size_t for_count) {
  size_t n = 16;
  while (n <= for_count * 2)
    n *= 2;
  size_t *slots = calloc(n, sizeof *slots);
  if (slots == NULL)
    return false;
  for (size_t i = 0; i < r->count; i++) {
    size_t h = (size_t)hash_name(r->items[i]->name) & (n - 1);
    while (slots[h])
      h = (h + 1) & (n - 1);
    slots[h] = i + 1;
  }
  free(r->slots);
  r->slots = slots;
  r->nslots = n;
  return true;
}

/* Index of name in items, or -1. Caller holds a lock. */
static long find_index(const mcp__registry *r, const char *name) {
  if (r->nslots == 0)
    return -1;
  size_t h = (size_t)hash_name(name) & (r->nslots - 1);
  while (r->slots[h]) {
    size_t i = r->slots[h] - 1;
    if (strcmp(r->items[i]->name, name) == 0)
      return (long)i;
    h = (h + 1) & (r->nslots - 1);
  }
  return -1;
}

void mcp__registry_init(mcp__registry *r) {
  memset(r, 0, sizeof *r);
  pthread_rwlock_init(&r->lock, NULL);
  r->next_seq = 1;
}

void mcp__registry_destroy(mcp__registry *r) {
  for (size_t i = 0; i < r->count; i++)
    mcp__tool_release(r->items[i]);
  free(r->items);
  free(r->slots);
  pthread_rwlock_destroy(&r->lock);
  memset(r, 0, sizeof *r);
}

mcp_status mcp__registry_add(mcp__registry *r, mcp_tool_t *tool) {
  mcp_status st = MCP_OK;
  pthread_rwlock_wrlock(&r->lock);
  if (find_index(r, tool->name) >= 0) {
    st = MCP_ERR_EXISTS;
    goto out;
  }
  if (r->count == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 16;
    mcp_tool_t **items = realloc(r->items, cap * sizeof *items);
    if (items == NULL) {
      st = MCP_ERR_NOMEM;
      goto out;
    }
    r->items = items;
    r->cap = cap;
  }
  tool->seq = r->next_seq++;
  r->items[r->count++] = tool;
  if (!rebuild_hash(r, r->count)) {
    r->count--;
    st = MCP_ERR_NOMEM;
  }
out:
  pthread_rwlock_unlock(&r->lock);
  return st;
}

mcp_status mcp__registry_remove(mcp__registry *r, const char *name) {
  pthread_rwlock_wrlock(&r->lock);
  long i = name ? find_index(r, name) : -1;
  if (i < 0) {
    pthread_rwlock_unlock(&r->lock);
    return MCP_ERR_NOT_FOUND;
  }
  mcp_tool_t *tool = r->items[i];
  memmove(r->items + i, r->items + i + 1,
          (r->count - (size_t)i - 1) * sizeof *r->items);
  r->count--;
  if (!rebuild_hash(r, r->count)) {
    /* Keep lookups correct without a new table: clear and reinsert. */
    memset(r->slots, 0, r->nslots * sizeof *r->slots);
    for (size_t k = 0; k < r->count; k++) {
      size_t h = (size_t)hash_name(r->items[k]->name) & (r->nslots - 1);
      while (r->slots[h])
        h = (h + 1) & (r->nslots - 1);
      r->slots[h] = k + 1;
    }
  }
  pthread_rwlock_unlock(&r->lock);
  mcp__tool_release(tool);
  return MCP_OK;
}

mcp_tool_t *mcp__registry_find(mcp__registry *r, const char *name) {
  pthread_rwlock_rdlock(&r->lock);
  long i = find_index(r, name);
  mcp_tool_t *tool = NULL;
  if (i >= 0) {
    tool = r->items[i];
    mcp__tool_retain(tool);
  }
  pthread_rwlock_unlock(&r->lock);
  return tool;
}

size_t mcp__registry_count(mcp__registry *r) {
  pthread_rwlock_rdlock(&r->lock);
  size_t n = r->count;
  pthread_rwlock_unlock(&r->lock);
  return n;
}

mcp_status mcp__registry_page(mcp__registry *r, uint64_t from_seq, size_t limit,
                              json_t *array, uint64_t *next_seq) {
  mcp_status st = MCP_OK;
  *next_seq = 0;
  pthread_rwlock_rdlock(&r->lock);
  /* items are sorted by seq: binary search for the first seq >= from_seq */
  size_t lo = 0, hi = r->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->items[mid]->seq < from_seq)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t i = lo, added = 0;
  for (; i < r->count && added < limit; i++, added++) {
    if (json_array_append(array, r->items[i]->listing) != 0) {
      st = MCP_ERR_NOMEM;
      break;
    }
  }
  if (st == MCP_OK && i < r->count)
    *next_seq = r->items[i]->seq;
  pthread_rwlock_unlock(&r->lock);
  return st;
}
