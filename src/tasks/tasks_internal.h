/* SPDX-License-Identifier: MIT */
/* tasks_internal.h - shared by the files of src/tasks.
 *
 * mcp_tasks_t (tasks.c) is the store-backed task manager: every state change
 * goes through the store's compare-and-set, so terminal states stay final
 * whoever writes (a handler, another thread, another process). When the
 * manager belongs to a server's runner (runner.c), each change is also
 * reported to the runner, which wakes tasks/result waiters, sends
 * notifications/tasks/status and raises cancellation flags.
 */
#ifndef MCP_TASKS_INTERNAL_H
#define MCP_TASKS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/store.h"
#include "mcp/task.h"

#define MCP__RELATED_TASK "io.modelcontextprotocol/related-task"

struct mcp_task_options {
  unsigned threads;
  unsigned max_per_caller;
  unsigned max_running_per_caller; /* 0: max(1, threads / 2) */
  size_t max_stored_per_caller, max_stored_total;
  int64_t default_ttl_ms, max_ttl_ms;
  int64_t poll_interval_ms;
  bool list;
  int64_t retention_ms, stuck_ms, sweep_interval_ms;
  int64_t outcome_retry_ms; /* outcome.c: how long a refused end is kept */
  char *immediate_response;
  mcp_task_cancel_fn cancel_fn;
  void *cancel_ud;
  mcp_task_resume_fn resume_fn;
  void *resume_ud;
  bool fail_on_stop; /* a graceful stop fails running tasks (pre-#24) */
  /* why setters refused their arguments, one per line (NULL: none);
   * mcp_server_enable_tasks refuses such options with them in err and the
   * log. Not copied: a runner's copy is of accepted options only. */
  char *refusals;
};

typedef struct mcp__task_runner mcp__task_runner;
struct mcp_server;
/* The task runner of s (the tasks module's feature slot, core/feature.h),
 * or NULL: tasks are not enabled, or shut down. */
mcp__task_runner *mcp__tasks_runner(const struct mcp_server *s);
/* The store tasks run on (mcp_server_enable_tasks; borrowed), or NULL. */
mcp_store_t *mcp__tasks_store(const struct mcp_server *s);

struct mcp_tasks {
  mcp_store_t *store; /* borrowed */
  char *scope;
  mcp__task_runner *runner; /* NULL for a standalone manager */
};

/* options.c */
void mcp__task_options_defaults(mcp_task_options_t *o);
/* Deep copy into dst (zeroed first); false on allocation failure. */
bool mcp__task_options_copy(mcp_task_options_t *dst,
                            const mcp_task_options_t *src);
void mcp__task_options_clear(mcp_task_options_t *o);

/* tasks.c */
mcp_status mcp__tasks_init(mcp_tasks_t *t, mcp_store_t *store,
                           const char *scope);
void mcp__tasks_clear(mcp_tasks_t *t);
/* The Task object of a record (returns new). */
json_t *mcp__task_json(const mcp_task_record *rec);
/* Reads a live (not expired) task. */
/* An isError CallToolResult JSON text with one text block (malloc'd, or
 * NULL when memory runs out). */
char *mcp__tasks_error_result_text(const char *message);
mcp_status mcp__tasks_load(mcp_tasks_t *t, const char *id,
                           mcp_task_record *out);
/* Moves a task to status (CAS in the store) with optional message, result
 * text and error text (all borrowed), then reports the change. */
mcp_status mcp__tasks_transition(mcp_tasks_t *t, const char *id,
                                 mcp_task_status status, const char *message,
                                 const char *result, const char *error,
                                 mcp_task_status *current);
/* The same, with the store's error message in err (may be NULL). */
mcp_status mcp__tasks_transition_err(mcp_tasks_t *t, const char *id,
                                     mcp_task_status status,
                                     const char *message, const char *result,
                                     const char *error,
                                     mcp_task_status *current,
                                     mcp_error_t *err);
/* One page of tasks under filter f (cursor may be NULL): {"tasks",
 * "nextCursor"?}. MCP_ERR_INVALID_ARG for a malformed cursor. */
mcp_status mcp__tasks_page(mcp_tasks_t *t, mcp_task_filter *f,
                           const char *cursor, size_t limit, json_t **out);

/* runner.c: a state change made through the manager. */
void mcp__runner_changed(mcp__task_runner *e, const mcp_task_record *rec);
/* runner.c: raise the cancellation flag of a task running here. */
void mcp__runner_cancel_run(mcp__task_runner *e, const char *id);
/* task_relay.c: tell the other replicas (through the server's relay, if
 * any) that a task changed / was cancelled here. */
void mcp__runner_publish_status(mcp__task_runner *e,
                                const mcp_task_record *rec);
void mcp__runner_publish_cancel(mcp__task_runner *e, const char *id);
/* task_relay.c: the task hooks for events of other replicas
 * (core/methods.h). */
mcp_status mcp__tasks_remote_status(mcp_server_t *s, const json_t *event);
mcp_status mcp__tasks_remote_cancel(mcp_server_t *s, const json_t *event);
mcp_status mcp__tasks_remote_question(mcp_server_t *s, const char *kind,
                                      const json_t *event);
/* task_relay.c: questions of 2025-11-25 tasks across replicas. A question
 * (msg, a JSON-RPC request) of task_id that no stream here could carry is
 * published, for a tasks/result or standalone stream of the same requestor
 * on another replica; a stream opened here for task_id (or session: its
 * transport id) asks the other replicas for the questions they hold. */
void mcp__runner_publish_question(mcp__task_runner *e, const char *task_id,
                                  mcp_session_t *session, const char *subject,
                                  const char *msg, size_t len);
void mcp__runner_publish_want(mcp__task_runner *e, const char *task_id,
                              mcp_session_t *session);
/* A task left the store (sweep, delete): the stored-task count drops. */
void mcp__runner_stored_removed(mcp__task_runner *e);

#endif
