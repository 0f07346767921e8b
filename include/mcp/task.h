/* SPDX-License-Identifier: MIT */
/* task.h - MCP tasks (long-running, task-augmented tools/call).
 *
 * Tasks are experimental in MCP 2025-11-25 (and an extension in 2026-07-28),
 * so the engine is off unless mcp_server_enable_tasks() is called. Once on,
 * the server declares the tasks capability, enforces each tool's
 * execution.taskSupport, answers a task-augmented tools/call at once with a
 * CreateTaskResult and runs the handler on a bounded executor; tasks/get,
 * tasks/result, tasks/list and tasks/cancel are served from a store
 * (store.h), so results survive restarts when the store is durable.
 *
 * The second half of this header is the application's task API: an
 * mcp_tasks_t bound to a store and a scope (the server
 * name) creates, reads, completes, fails and cancels tasks. It works without
 * a running server, so a separate process that only knows a task id and the
 * store can complete the task.
 *
 * Access model (see docs/tasks.md): with authentication each task is bound
 * to the caller's subject and other subjects see "not found"; without it the
 * unguessable task id is the capability, and tasks/list shows only the
 * tasks created in the calling session.
 *
 * Thread safety: every function here may be called from any thread.
 */
#ifndef MCP_TASK_H
#define MCP_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/result.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_store mcp_store_t; /* store.h */
typedef struct mcp_tasks mcp_tasks_t;
typedef struct mcp_task_options mcp_task_options_t;

/* TaskStatus. Legal transitions: working -> input_required | completed |
 * failed | cancelled; input_required -> working | completed | failed |
 * cancelled. The last three are terminal and final. */
typedef enum mcp_task_status {
  MCP_TASK_WORKING = 0,
  MCP_TASK_INPUT_REQUIRED,
  MCP_TASK_COMPLETED,
  MCP_TASK_FAILED,
  MCP_TASK_CANCELLED
} mcp_task_status;

/* Longest task id including the NUL (ids are UUIDv4 text, 36 characters). */
#define MCP_TASK_ID_SIZE 64

/* "working", ... ; NULL when out of range. */
MCP_API const char *mcp_task_status_name(mcp_task_status status);
/* MCP_ERR_INVALID_ARG for an unknown name. */
MCP_API mcp_status mcp_task_status_parse(const char *name,
                                         mcp_task_status *out);
MCP_API bool mcp_task_status_is_terminal(mcp_task_status status);

/* ---- options ------------------------------------------------------------- */
/* Returns new, with the defaults named below; free with
 * mcp_task_options_free. */
MCP_API mcp_status mcp_task_options_new(mcp_task_options_t **out);
MCP_API void mcp_task_options_free(mcp_task_options_t *o);
/* Executor threads that run task handlers (default 4, 1..1024). */
MCP_API mcp_status mcp_task_options_set_threads(mcp_task_options_t *o,
                                                unsigned threads);
/* Tasks one caller (subject, or session without authentication) may have
 * running at once in this process (default 16). Above it a task-augmented
 * tools/call is refused with -32603 and data {"limit": n}. */
MCP_API mcp_status mcp_task_options_set_max_per_caller(mcp_task_options_t *o,
                                                       unsigned tasks);
/* Tasks of one caller that run at once on the executor threads (default 0:
 * half the threads, at least 1); its other tasks wait while other callers'
 * tasks run, so one caller cannot take every thread. */
MCP_API mcp_status mcp_task_options_set_max_running_per_caller(
    mcp_task_options_t *o, unsigned tasks);
/* Stored tasks (any status, until their ttl or retention ends) per caller
 * (default 1000) and in the store in total (default 50000; counted by this
 * process). A task-augmented tools/call beyond either is refused with
 * -32603 and data {"limit": n, "stored": "caller"|"total"}. */
MCP_API mcp_status mcp_task_options_set_max_stored(mcp_task_options_t *o,
                                                   size_t per_caller,
                                                   size_t total);
/* ttl given to tasks whose request names none (default 3600000 ms; < 0 means
 * unlimited, sent as null) and the largest ttl granted (default 86400000 ms;
 * < 0: no maximum). Requested ttls are clamped to the maximum. */
MCP_API mcp_status mcp_task_options_set_ttl(mcp_task_options_t *o,
                                            int64_t default_ms, int64_t max_ms);
/* pollInterval suggested to clients (default 1000 ms; < 0: not sent). */
MCP_API mcp_status mcp_task_options_set_poll_interval(mcp_task_options_t *o,
                                                      int64_t ms);
/* Declare tasks.list. Only do so when callers can be told apart: with
 * authentication, or when each session is one caller (stdio). Default
 * false: tasks/list then answers -32601. */
MCP_API mcp_status mcp_task_options_set_list(mcp_task_options_t *o,
                                             bool declared);
/* Cleanup: terminal tasks without ttl are removed retention_ms after their
 * last update (default 7 days); tasks still working stuck_ms after creation
 * are failed as stuck (default 24 h); the background sweeper runs every
 * interval_ms (default 60000; 0 disables it). */
MCP_API mcp_status mcp_task_options_set_cleanup(mcp_task_options_t *o,
                                                int64_t retention_ms,
                                                int64_t stuck_ms,
                                                int64_t interval_ms);
/* A task's outcome (result or error) that the store cannot take when the
 * handler returns (the database is away, the disk is full) is kept in
 * memory and stored when the store takes writes again, retried on a short
 * backoff (100 ms doubling to 1 s) for at most keep_ms (default 120000;
 * 0..86400000). The task stays "working" meanwhile; once stored, every
 * replica sees the real outcome. Only after keep_ms (or when too many
 * outcomes wait already: 1024, or 64 MiB) is the task failed instead
 * ("could not be stored"). 0: fail it at once. */
MCP_API mcp_status mcp_task_options_set_outcome_retry(mcp_task_options_t *o,
                                                      int64_t keep_ms);
/* Text placed in CreateTaskResult._meta
 * ["io.modelcontextprotocol/model-immediate-response"]; "%s" (at most once)
 * is replaced by the tool name. NULL (default): not sent. Copied. */
MCP_API mcp_status mcp_task_options_set_immediate_response(
    mcp_task_options_t *o, const char *text);

/* Called by tasks/cancel for a task that is not terminal yet, before it is
 * marked cancelled: signal work running
 * outside the handler to stop. The handler's own cancellation flag is raised
 * either way. task_id is borrowed for the call. */
typedef void (*mcp_task_cancel_fn)(mcp_tasks_t *tasks, const char *task_id,
                                   void *user_data);
MCP_API mcp_status mcp_task_options_set_cancel_hook(mcp_task_options_t *o,
                                                    mcp_task_cancel_fn fn,
                                                    void *user_data);
/* Called for each task of this server that a restart interrupted (a crash
 * or a graceful stop; see mcp_task_options_set_fail_on_stop): at
 * mcp_server_enable_tasks for the tasks still working (or input_required)
 * in a durable single-process store (SQLite), and on a shared store
 * (PostgreSQL) on the replica that takes over the task of one that stopped
 * or died. task is the Task object (borrowed) plus, when its request was
 * stored, "params": the tools/call params it was created by (name,
 * arguments). The request is stored, on SQLite and PostgreSQL, for tasks
 * of idempotent tools and for every task while a resume hook is set.
 * Return true when the application resumes it (and will complete it
 * through this API); false lets the library run it again when its tool is
 * idempotent (MCP_HINT_IDEMPOTENT, at most 3 runs in all), else mark it
 * failed with statusMessage "Interrupted: the server stopped while the
 * task was running" (without a hook, the same minus the offer). */
typedef bool (*mcp_task_resume_fn)(mcp_tasks_t *tasks, const json_t *task,
                                   void *user_data);
MCP_API mcp_status mcp_task_options_set_resume_hook(mcp_task_options_t *o,
                                                    mcp_task_resume_fn fn,
                                                    void *user_data);

/* What a graceful stop (mcp_server_free) does to the tasks still running.
 * Default (false): on a durable store (SQLite, PostgreSQL, a store of your
 * own) they are handed over: their handlers are cancelled and waited for
 * (up to 5 s; then handed over regardless), and the tasks stay working
 * with statusMessage "Interrupted by a server stop; will resume at the
 * next start" (PostgreSQL: "... on another replica or at the next start")
 * for the next start or another replica to resume (resume hook), run again
 * (idempotent tools) or fail. true: they are failed as "Interrupted: the
 * server stopped while the task was running" at once, as before, except
 * that a shared store still hands tasks of idempotent tools to another
 * replica. The memory store keeps nothing across a restart: its tasks are
 * failed at a stop either way. */
MCP_API mcp_status mcp_task_options_set_fail_on_stop(mcp_task_options_t *o,
                                                     bool fail);

/* ---- the server's engine ------------------------------------------------- */
/* Turns tasks on. store is borrowed and must outlive the server; options
 * (may be NULL for the defaults) are copied. Recovers interrupted tasks (see
 * the resume hook) and starts the executor and the sweeper. Call before
 * serving. MCP_ERR_EXISTS when already enabled; store errors with err
 * filled. */
MCP_API mcp_status mcp_server_enable_tasks(mcp_server_t *server,
                                           mcp_store_t *store,
                                           const mcp_task_options_t *options,
                                           mcp_error_t *err);
/* The server's task manager (borrowed, valid while the server lives), or
 * NULL when tasks are not enabled. */
MCP_API mcp_tasks_t *mcp_server_tasks(mcp_server_t *server);

/* Inside a handler: the id of the task this call runs as (borrowed, valid
 * while the call is), or NULL for an ordinary request. */
MCP_API const char *mcp_call_task_id(const mcp_call_t *call);
/* Inside a handler running as a task: the task is not completed when the
 * handler returns MCP_OK; the application completes it later through
 * mcp_task_complete / mcp_task_fail (from any thread or process). The call
 * context stops being usable when the handler returns.
 * MCP_ERR_STATE when the call is not a task. */
MCP_API mcp_status mcp_call_task_defer(mcp_call_t *call);
/* Inside the handler of a tool set with mcp_tool_set_task_start_in_handler:
 * in a 2026-07-28 request whose client declared the tasks extension, creates
 * the task and returns MCP_ERR_TASK_STARTED, which the handler returns at
 * once; the client gets the CreateTaskResult, and the handler runs again
 * from the top as the task, with the answers of the questions it asked
 * before (they are answered at once), where this function returns MCP_OK.
 * Everywhere else (2025-11-25, already a task, client without the
 * extension) MCP_OK: go on synchronously. */
MCP_API mcp_status mcp_call_continue_as_task(mcp_call_t *call);

/* ---- the application's task API ------------------------------------------ */
/* Returns new: a task manager on store (borrowed, must outlive it) for the
 * tasks of scope (the server name, copied). Free with mcp_tasks_free. */
MCP_API mcp_status mcp_tasks_open(mcp_store_t *store, const char *scope,
                                  mcp_tasks_t **out);
/* NULL is a no-op. Must not be called on mcp_server_tasks()'s manager. */
MCP_API void mcp_tasks_free(mcp_tasks_t *tasks);

/* Creates a working task not bound to any caller (anyone presenting the id
 * may read it). tool_name may be NULL; ttl_ms < 0 is unlimited;
 * poll_interval_ms < 0 is not sent. Writes the id into id_out. */
MCP_API mcp_status mcp_task_create(mcp_tasks_t *tasks, const char *tool_name,
                                   int64_t ttl_ms, int64_t poll_interval_ms,
                                   char id_out[MCP_TASK_ID_SIZE]);
/* The Task object (returns new). MCP_ERR_NOT_FOUND when unknown or expired. */
MCP_API mcp_status mcp_task_get(mcp_tasks_t *tasks, const char *task_id,
                                json_t **task_out);
MCP_API mcp_status mcp_task_get_status(mcp_tasks_t *tasks, const char *task_id,
                                       mcp_task_status *out);
/* A page of every task of the scope, oldest first: {"tasks": [...],
 * "nextCursor"?} (returns new). cursor: NULL or a previous nextCursor;
 * MCP_ERR_INVALID_ARG when malformed. limit 0 means 50. */
MCP_API mcp_status mcp_task_list(mcp_tasks_t *tasks, const char *cursor,
                                 size_t limit, json_t **out);
/* Stores result (borrowed; it is encoded now) and marks the task completed,
 * or failed when the result is an isError result. MCP_ERR_STATE when the
 * task is already terminal (it keeps its state), MCP_ERR_NOT_FOUND. */
MCP_API mcp_status mcp_task_complete(mcp_tasks_t *tasks, const char *task_id,
                                     const mcp_result_t *result);
/* Same with a CallToolResult object (steals, even on failure). */
MCP_API mcp_status mcp_task_complete_json(mcp_tasks_t *tasks,
                                          const char *task_id,
                                          json_t *call_tool_result);
/* Marks the task failed with message (copied) as statusMessage; tasks/result
 * then returns an isError CallToolResult carrying the message. */
MCP_API mcp_status mcp_task_fail(mcp_tasks_t *tasks, const char *task_id,
                                 const char *message);
/* Marks the task cancelled and, when it runs in this process, raises its
 * handler's cancellation flag. MCP_ERR_STATE when already terminal. */
MCP_API mcp_status mcp_task_cancel(mcp_tasks_t *tasks, const char *task_id);
/* Any legal transition; message (copied, may be NULL) becomes statusMessage.
 * MCP_ERR_STATE for an illegal one (terminal tasks are final). Moving to
 * completed or failed this way stores no result unless one was set with
 * mcp_task_set_payload. */
MCP_API mcp_status mcp_task_update_status(mcp_tasks_t *tasks,
                                          const char *task_id,
                                          mcp_task_status status,
                                          const char *message);
/* Stores a CallToolResult object (steals, even on failure) as the task's
 * payload without changing its status. MCP_ERR_STATE when terminal. */
MCP_API mcp_status mcp_task_set_payload(mcp_tasks_t *tasks, const char *task_id,
                                        json_t *payload);
/* Deletes a task outright. */
MCP_API mcp_status mcp_task_delete(mcp_tasks_t *tasks, const char *task_id);

/* What a cleanup run did. */
typedef struct mcp_task_cleanup_report {
  size_t expired;  /* removed because their ttl (from creation) elapsed */
  size_t retained; /* terminal, no ttl, removed after the retention period */
  size_t stuck;    /* working longer than the stuck limit, marked failed */
} mcp_task_cleanup_report;
/* Called once per task a cleanup run removes or fails; reason is "expired",
 * "retention" or "stuck". Arguments are borrowed for the call. */
typedef void (*mcp_task_cleanup_fn)(const char *task_id, const char *reason,
                                    void *user_data);
/* Runs cleanup once (expired tasks, stuck ones) with the
 * retention and stuck limits of options (NULL: defaults). fn may be NULL;
 * report may be NULL. */
MCP_API mcp_status mcp_task_delete_outdated(mcp_tasks_t *tasks,
                                            const mcp_task_options_t *options,
                                            mcp_task_cleanup_fn fn,
                                            void *user_data,
                                            mcp_task_cleanup_report *report);

#ifdef __cplusplus
}
#endif
#endif
