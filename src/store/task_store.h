/* SPDX-License-Identifier: MIT */
/* task_store.h - what the task runner (src/tasks) asks of a store beyond
 * mcp/store.h: whether other processes share it, whether anything in it
 * outlives the process, and an update that returns the row it wrote. The
 * backends' own helpers stay in store_internal.h. */
#ifndef MCP_STORE_TASK_STORE_H
#define MCP_STORE_TASK_STORE_H

#include <stdbool.h>

#include "mcp/store.h"

/* True when other processes run tasks in s at the same time. */
static inline bool mcp__store_is_shared(const mcp_store_t *s) {
  return (mcp_store_flags(s) & MCP_STORE_SHARED) != 0;
}

/* True for the memory store: nothing in it outlives the process, so a
 * stopping server has nobody to hand its running tasks to
 * (store_memory.c). */
bool mcp__store_is_volatile(const mcp_store_t *s);

/* task_update (its status returned) and, on MCP_OK, the record as stored
 * after the change in *out (new strings; mcp_task_record_clear it), or
 * *out zeroed (task_id NULL) when it could not be read back: one statement
 * on PostgreSQL (store_postgres.c), an update then a get elsewhere. */
mcp_status mcp__store_task_update_get(mcp_store_t *s,
                                      const mcp_task_record *rec,
                                      mcp_task_status *current,
                                      mcp_task_record *out, mcp_error_t *err);

#endif
