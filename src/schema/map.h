/* SPDX-License-Identifier: MIT */
/* map.h - open-addressing hash maps used while compiling: string keys (URIs,
 * anchors) and pointer keys (json_t nodes). Keys are borrowed: string keys
 * must outlive the map (they live in the schema arena). */
#ifndef MCP_SCHEMA_MAP_H
#define MCP_SCHEMA_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hash.h" /* mcp__hash_bytes */

typedef struct mcp__map_slot {
  const void *key; /* NULL: empty */
  void *value;
  uint64_t hash;
} mcp__map_slot;

typedef struct mcp__map {
  mcp__map_slot *slots;
  size_t cap, count; /* cap is zero or a power of two */
  bool string_keys;
} mcp__map;

void mcp__map_init(mcp__map *m, bool string_keys);
void mcp__map_release(mcp__map *m);
/* Value for key, or NULL. */
void *mcp__map_get(const mcp__map *m, const void *key);
/* Inserts or replaces; false when out of memory. */
bool mcp__map_put(mcp__map *m, const void *key, void *value);

#endif
