/* SPDX-License-Identifier: MIT */
/* catalog.h - an ordered, named, reference-counted collection for the
 * server's tools, resources, resource templates and prompts.
 *
 * Read-mostly, guarded by an rwlock, lookups by key through an open-addressing
 * hash, pagination by registration sequence number so a cursor survives
 * additions and removals elsewhere in the list. Entries embed mcp__entry as
 * their first member and supply a destroy function; a lookup returns a retained
 * entry so a concurrent removal cannot free it under a running request.
 */
#ifndef MCP_CATALOG_H
#define MCP_CATALOG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/status.h"

typedef struct mcp__entry mcp__entry;
struct mcp__entry {
  atomic_int refs;
  char *key;       /* uri, uriTemplate or prompt name (owned) */
  uint64_t seq;    /* registration order, set by mcp__catalog_add */
  json_t *listing; /* cached list item, set before adding */
  bool completes;  /* has a completion handler (capability completions) */
  void (*destroy)(mcp__entry *e);
};

typedef struct mcp__catalog {
  pthread_rwlock_t lock;
  mcp__entry **items; /* registration order */
  size_t count, cap;
  size_t *slots; /* index+1 into items, 0 = empty */
  size_t nslots;
  uint64_t next_seq;
} mcp__catalog;

void mcp__entry_retain(mcp__entry *e);
/* Drops a reference; the last one calls destroy. NULL is a no-op. */
void mcp__entry_release(mcp__entry *e);

void mcp__catalog_init(mcp__catalog *c);
void mcp__catalog_destroy(mcp__catalog *c);
/* Takes the caller's reference on success only. MCP_ERR_EXISTS when the key
 * is taken. */
mcp_status mcp__catalog_add(mcp__catalog *c, mcp__entry *e);
mcp_status mcp__catalog_remove(mcp__catalog *c, const char *key);
/* Returns a retained entry (release it) or NULL. */
mcp__entry *mcp__catalog_find(mcp__catalog *c, const char *key);
size_t mcp__catalog_count(mcp__catalog *c);
/* Appends up to limit listings of entries with seq >= from_seq to array.
 * *next_seq is where the next page starts, 0 at the end. */
mcp_status mcp__catalog_page(mcp__catalog *c, uint64_t from_seq, size_t limit,
                             json_t *array, uint64_t *next_seq);
/* Calls fn on each entry in order under the read lock until it returns
 * true; returns that entry retained, or NULL. fn must not call back into the
 * catalog. */
mcp__entry *mcp__catalog_find_if(mcp__catalog *c,
                                 bool (*fn)(mcp__entry *e, void *ctx),
                                 void *ctx);

#endif
