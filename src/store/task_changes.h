/* SPDX-License-Identifier: MIT */
/* task_changes.h - noticing that another process changed stored tasks,
 * cheaply enough to ask every few tens of milliseconds while somebody waits
 * for a task (a blocked tasks/result, a subscriptions/listen stream naming
 * tasks). The task runner compares tokens and re-reads the tasks it waits
 * for only when the token moved (and, as a fallback, now and then).
 *
 * SQLite: PRAGMA data_version on the store's connection, which moves when
 * another connection (another process) committed. PostgreSQL: a trigger
 * on mcp_tasks sends a notification on channel mcp_tasks for every change
 * of status or statusMessage; a connection of the store's own LISTENs, and
 * the token counts what arrived. */
#ifndef MCP_STORE_TASK_CHANGES_H
#define MCP_STORE_TASK_CHANGES_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/store.h"

/* Sets *token to a value that moves when another process has changed tasks
 * of s. False when s cannot tell (the memory store, stores of the
 * application, a PostgreSQL listener that is reconnecting): then only
 * re-reading the tasks tells. */
bool mcp__store_task_changes(mcp_store_t *s, uint64_t *token);

/* The backends' parts (false for a store of another backend). */
bool mcp__store_sqlite_task_changes(mcp_store_t *s, uint64_t *token);
bool mcp__store_postgres_task_changes(mcp_store_t *s, uint64_t *token);

#endif
