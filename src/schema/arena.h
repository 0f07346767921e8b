/* SPDX-License-Identifier: MIT */
/* arena.h - bump allocator owning every piece of a compiled schema.
 *
 * A compiled schema is immutable and freed as a whole, so its nodes, keyword
 * tables and strings live in one arena: no per-object frees, no leaks when
 * compile fails half-way. */
#ifndef MCP_SCHEMA_ARENA_H
#define MCP_SCHEMA_ARENA_H

#include <stddef.h>

typedef struct mcp__arena_block mcp__arena_block;

typedef struct mcp__arena {
  mcp__arena_block *head; /* newest block first */
} mcp__arena;

/* Zeroed memory, aligned for any type; NULL when out of memory. */
void *mcp__arena_alloc(mcp__arena *a, size_t size);
/* Copies len bytes and a NUL. */
char *mcp__arena_strndup(mcp__arena *a, const char *s, size_t len);
char *mcp__arena_strdup(mcp__arena *a, const char *s);
void mcp__arena_release(mcp__arena *a);

#endif
