/* registry.h - the server's tools in registration order, found by name.
 *
 * A read-mostly structure: lookups and listings take the read lock, add and
 * remove the write lock. Entries are reference-counted tools; a lookup
 * returns a retained tool so a concurrent removal cannot free it under a
 * running call. Pagination uses each tool's registration sequence number, so
 * a cursor stays valid when tools before or after it come and go.
 */
#ifndef MCP_TOOLS_REGISTRY_H
#define MCP_TOOLS_REGISTRY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/status.h"
#include "mcp/tool.h"

typedef struct mcp__registry {
  pthread_rwlock_t lock;
  mcp_tool_t **items; /* registration order */
  size_t count, cap;
  size_t *slots; /* open-addressing hash: index+1 into items, 0 = empty */
  size_t nslots; /* power of two, > 2 * count */
  uint64_t next_seq;
} mcp__registry;

void mcp__registry_init(mcp__registry *r);
void mcp__registry_destroy(mcp__registry *r);
/* Steals tool on success only. MCP_ERR_EXISTS for a duplicate name. */
mcp_status mcp__registry_add(mcp__registry *r, mcp_tool_t *tool);
mcp_status mcp__registry_remove(mcp__registry *r, const char *name);
/* Returns a retained tool (release with mcp__tool_release) or NULL. */
mcp_tool_t *mcp__registry_find(mcp__registry *r, const char *name);
size_t mcp__registry_count(mcp__registry *r);
/* Appends up to limit listings (cached Tool objects, increfed) of tools with
 * seq >= from_seq to array. *next_seq is the seq to continue from, or 0 when
 * the page reached the end. */
mcp_status mcp__registry_page(mcp__registry *r, uint64_t from_seq, size_t limit,
                              json_t *array, uint64_t *next_seq);

#endif
