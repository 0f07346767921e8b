/* SPDX-License-Identifier: MIT */
/* fault_store.h - a task store that fails chosen operations on purpose, for
 * testing every store call site's failure path (issue #16 item 9): it wraps
 * a real store and, while armed, answers the chosen operations with a
 * status and message such as a full disk ("database or disk is full",
 * SQLITE_FULL / ENOSPC), a locked database (SQLITE_BUSY) or an I/O error,
 * without calling the inner store. Thread-safe. */
#ifndef MCP_TEST_FAULT_STORE_H
#define MCP_TEST_FAULT_STORE_H

#include "mcp/store.h"

enum {
  FS_PUT = 1u << 0,
  FS_GET = 1u << 1,
  FS_UPDATE = 1u << 2,
  FS_LIST = 1u << 3,
  FS_DELETE = 1u << 4,
  FS_SWEEP = 1u << 5,
  FS_ALL = 0x3f
};

/* Named failures: status and message of each kind. */
typedef enum fs_kind { FS_ENOSPC, FS_BUSY, FS_EIO } fs_kind;

typedef struct fault_store fault_store;

/* A store over inner (owned: freed with the returned store); *ctl controls
 * it while the store lives. */
mcp_store_t *fault_store_new(mcp_store_t *inner, fault_store **ctl);
/* Fails the next count calls (-1: every call) of the operations in ops with
 * kind; count 0 disarms. Calls of other operations pass. */
void fault_store_fail(fault_store *f, unsigned ops, fs_kind kind, int count);
/* Failures injected so far. */
unsigned fault_store_failures(fault_store *f);

#endif
