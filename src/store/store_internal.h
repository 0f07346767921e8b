/* SPDX-License-Identifier: MIT */
/* store_internal.h - helpers shared by the store backends. */
#ifndef MCP_STORE_INTERNAL_H
#define MCP_STORE_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "mcp/store.h"

/* Deep copy; false (dst zeroed) on allocation failure. */
bool mcp__task_record_copy(mcp_task_record *dst, const mcp_task_record *src);

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

/* True when rec matches filter (the keyset cursor included). */
static inline bool mcp__task_filter_match(const mcp_task_filter *f,
                                          const mcp_task_record *r) {
  if (f->owner && (r->owner == NULL || strcmp(f->owner, r->owner) != 0))
    return false;
  if (f->session && (r->session == NULL || strcmp(f->session, r->session) != 0))
    return false;
  if (f->active_only && mcp_task_status_is_terminal(r->status))
    return false;
  if (f->created_before_ms > 0 && r->created_ms >= f->created_before_ms)
    return false;
  if (f->after_id) {
    if (r->created_ms < f->after_created_ms)
      return false;
    if (r->created_ms == f->after_created_ms &&
        strcmp(r->task_id, f->after_id) <= 0)
      return false;
  }
  return true;
}

#endif
