/* SPDX-License-Identifier: MIT */
/* store_internal.h - helpers shared by the store backends. */
#ifndef MCP_STORE_INTERNAL_H
#define MCP_STORE_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "mcp/store.h"
#include "store/task_store.h" /* what src/tasks uses too */

/* Deep copy; false (dst zeroed) on allocation failure. */
bool mcp__task_record_copy(mcp_task_record *dst, const mcp_task_record *src);

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
