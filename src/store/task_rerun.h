/* SPDX-License-Identifier: MIT */
/* task_rerun.h - running a task again on another replica after the one
 * running it died (PostgreSQL store; issue #14 item 2), or at the next
 * start after a restart (SQLite store; issue #24 item 5).
 *
 * A task of a tool that declared itself idempotent (annotations
 * idempotentHint: true) is stored with its request. When the lease of such
 * a task lapses, the lease keeper of a live replica claims it in one
 * UPDATE (the database picks exactly one replica: the row is locked and
 * its lapsed lease re-checked), makes that replica its lease holder, counts
 * the run and hands the task to the replica's task runner, which runs the
 * stored request again. A task is run at most MCP__TASK_RUNS_MAX times in
 * all; after that, or when no replica claims it within one more lease
 * period, it is failed as a lost task like any other.
 *
 * On SQLite (one process) the request is kept the same way, and the task
 * engine takes such a task again when it starts
 * (mcp__store_task_rerun_at_start), within the same number of runs. */
#ifndef MCP_STORE_TASK_RERUN_H
#define MCP_STORE_TASK_RERUN_H

#include "mcp/store.h"

#define MCP__TASK_RUNS_MAX 3

/* A claimed task: its id, the stored request (JSON text, borrowed) and
 * which run this is (2 for the first re-run). Called on the store's lease
 * thread: hand the work over and return. */
typedef void (*mcp__task_claim_fn)(void *ud, const char *task_id,
                                   const char *request, int run);

/* Makes this store claim lapsed re-runnable tasks of scope (borrowed until
 * unregistered) for fn; fn NULL unregisters, after which fn is no longer
 * running nor called. One registration per store. MCP_ERR_UNSUPPORTED for
 * stores other than PostgreSQL. */
mcp_status mcp__store_set_task_claim(mcp_store_t *s, const char *scope,
                                     mcp__task_claim_fn fn, void *ud);

/* task_put, with request (JSON text, borrowed) stored to run the task again
 * elsewhere or later: the PostgreSQL and SQLite stores keep it; other
 * stores do a plain put. */
mcp_status mcp__store_task_put_rerunnable(mcp_store_t *s,
                                          const mcp_task_record *rec,
                                          const char *request,
                                          mcp_error_t *err);

/* A stopping replica hands over a re-runnable task it holds (its lease
 * lapses at once; its statusMessage says it waits for another replica) so
 * that a live replica runs it again. MCP_ERR_NOT_FOUND when the task is
 * not this replica's, not re-runnable, out of runs or already ended;
 * MCP_ERR_UNSUPPORTED for stores other than PostgreSQL. */
mcp_status mcp__store_task_hand_over(mcp_store_t *s, const char *scope,
                                     const char *task_id, mcp_error_t *err);

/* The SQLite half of mcp__store_task_put_rerunnable (store_sqlite.c);
 * MCP_ERR_UNSUPPORTED for other stores. */
mcp_status mcp__store_sqlite_put_rerunnable(mcp_store_t *s,
                                            const mcp_task_record *rec,
                                            const char *request,
                                            mcp_error_t *err);

/* The stored request of a task (*request malloc'd, NULL when none was
 * stored). MCP_ERR_NOT_FOUND for an unknown task; MCP_ERR_UNSUPPORTED for
 * stores other than SQLite. */
mcp_status mcp__store_task_request(mcp_store_t *s, const char *scope,
                                   const char *task_id, char **request,
                                   mcp_error_t *err);

/* At start, takes an active task with a stored request and runs left to run
 * it again: counts the run, makes it "working" with statusMessage
 * "<message> (run N of MCP__TASK_RUNS_MAX)", and gives its request
 * (malloc'd) and run number. MCP_ERR_NOT_FOUND when the task has no
 * request, no runs left or ended; MCP_ERR_UNSUPPORTED for stores other
 * than SQLite (a shared store's replicas claim tasks instead). */
mcp_status mcp__store_task_rerun_at_start(mcp_store_t *s, const char *scope,
                                          const char *task_id,
                                          const char *message, int64_t now_ms,
                                          char **request, int *run,
                                          mcp_error_t *err);

#endif
