/* SPDX-License-Identifier: MIT */
/* task_watch_postgres.h - a LISTEN connection counting the notifications of
 * task changes (task_changes.h, PostgreSQL). Thread-safe. */
#ifndef MCP_STORE_TASK_WATCH_POSTGRES_H
#define MCP_STORE_TASK_WATCH_POSTGRES_H

#include <stdbool.h>
#include <stdint.h>

#include "store/pq.h"

typedef struct mcp__pg_watch mcp__pg_watch;

/* conninfo copied; nothing is connected before the first token. NULL when
 * memory runs out. */
mcp__pg_watch *mcp__pg_watch_new(const char *conninfo);
void mcp__pg_watch_free(mcp__pg_watch *w);
/* The count of task change notifications so far (it also moves when the
 * connection was made again); false while there is no connection. */
bool mcp__pg_watch_token(mcp__pg_watch *w, uint64_t *token);

#endif
