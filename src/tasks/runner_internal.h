/* SPDX-License-Identifier: MIT */
/* runner_internal.h - shared by the files of a server's task runner.
 *
 * A task-augmented tools/call (task_call.c) creates the task in the store,
 * answers with CreateTaskResult and hands the mcp_call_t over to the runner
 * (the dispatcher's handoff): the call stays valid until the task ends, so
 * the handler keeps its progress token, log, cancellation flag and
 * mcp_call_request. The runner (runner.c) runs it on its executor threads.
 * After the handoff the call's messages go to a task channel (runner.c): to
 * the stream of a client blocked in tasks/result for this task when there is
 * one, else to the session's standalone stream when a client is connected to
 * it, else into the task's queue, delivered (in order, each message once)
 * when a tasks/result or standalone stream opens.
 *
 * tasks/get, tasks/list and tasks/cancel (task_methods.c) read and change
 * the store; tasks/result (task_result.c) waits for the end of a task and
 * replays its outcome. On a transport that can suspend calls (HTTP) it does
 * not hold a thread while it waits: its waiter is parked and the watcher
 * thread answers it when the task ends (woken by every change, and every
 * RESULT_POLL_MS for changes made by other processes). Only the watcher
 * unlinks such waiters, so it may use them outside the lock.
 *
 * Locking: runner->lock guards the run table, waiters, per-caller counts and
 * the executor queue. Order: a call's send_lock, then runner->lock, then a
 * session lock; store calls are made without runner->lock.
 */
#ifndef MCP_TASKS_RUNNER_INTERNAL_H
#define MCP_TASKS_RUNNER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "core/call_life.h"
#include "core/feature.h"
#include "core/listen.h"
#include "core/notify.h"
#include "core/relay.h"
#include "core/sessions.h"
#include "tasks/tasks_internal.h"
#include "util/pool.h"

#define RUN_BUCKETS 256

typedef struct waiter {
  struct waiter *next;
  mcp_call_t *call; /* a tasks/result call waiting for this task */
  char id[40];      /* the task */
  bool async;       /* suspended call: answered by the watcher */
  bool armed;       /* async: its handler returned, the watcher may end it */
} waiter;

/* A task message no stream could carry yet. */
typedef struct pending_msg {
  struct pending_msg *next;
  unsigned flags;
  size_t len;
  char data[];
} pending_msg;

typedef struct task_run {
  struct task_run *next;  /* bucket chain */
  struct task_run *qnext; /* executor queue */
  char id[40];
  mcp__task_runner *e;
  mcp_call_t *call; /* owned once handed off */
  mcp_tool_t *tool; /* retained */
  json_t *args;     /* borrowed from the call's params */
  char *caller;
  int64_t expires_ms; /* wall clock; 0: no ttl */
  bool running;       /* counted in its caller's running */
  bool started;       /* handed off: the client has its CreateTaskResult */
  bool cancel_early;  /* cancelled (expired, deleted) before it started */
  pending_msg *phead, *ptail; /* queued messages, oldest first */
  unsigned pnotes;            /* notifications among them */
  int input_waits;            /* server-to-client requests outstanding */
  bool deferred;
  bool handed; /* a stop handed it over (or failed it) already */
  /* 2026-07-28 (ext_tasks.c): a run whose handler returned
   * MCP_ERR_INPUT_REQUIRED is parked (not queued, not running) until
   * tasks/update has answered every key of input_requests (owned); it then
   * runs again from the top with the answers in call->answers. */
  bool parked;
  json_t *input_requests;
  char *
      subject; /* copy of the caller's subject: mcp__call_peer(call)->subject */
} task_run;

/* Stored tasks of one caller (task_call.c). */
typedef struct stored_caller {
  struct stored_caller *next;
  size_t n;           /* created here, set right by a store scan */
  int64_t scanned_ms; /* monotonic time of the last scan */
  char key[];
} stored_caller;
#define STORED_BUCKETS 64

typedef struct caller_count {
  struct caller_count *next;
  char *key;
  unsigned n;       /* tasks not finished (queued or running) */
  unsigned running; /* of them on an executor thread, plus inline calls */
} caller_count;

struct mcp__task_runner {
  mcp_server_t *server;
  mcp_tasks_t tasks;
  mcp_task_options_t opts;
  pthread_mutex_t lock;
  pthread_cond_t changed; /* CLOCK_MONOTONIC; any task changed */
  uint64_t change_seq;
  task_run *runs[RUN_BUCKETS];
  waiter *waiters; /* tasks/result calls, blocked or suspended */
  caller_count *callers;
  pthread_cond_t work;
  task_run *qhead, *qtail;
  mcp__pool executors; /* run executor_main (runner.c) */
  bool stopping;
  pthread_t sweeper;
  bool has_sweeper;
  pthread_t watcher;
  bool has_watcher;
  pthread_cond_t sweep_wake; /* CLOCK_MONOTONIC */
  /* ends of tasks the store refused (outcome.c): outcomes kept for the
   * outcome thread to store, and failed ends kept in memory */
  struct kept_end *kept;
  size_t nkept, kept_bytes;
  pthread_t outcome_thread; /* started at the first kept end */
  bool has_outcome_thread;
  pthread_cond_t outcome_wake; /* CLOCK_MONOTONIC */
  unsigned running_cap; /* resolved max_running_per_caller */
  size_t stored;        /* tasks in the store (this process's count) */
  /* 2026-07-28 listen streams: per task id, the newest state published
   * (mcp__ext_task_rank), so the watcher republishes a change made by
   * another process once, and never an older state after a newer one */
  json_t *published;
  stored_caller *stored_callers[STORED_BUCKETS];
  size_t nstored_callers;
};

/* ---- runner.c ------------------------------------------------------------ */
unsigned mcp__runner_bucket_of(const char *id);
/* The run of task id on this server, or NULL. e->lock held. */
task_run *mcp__runner_find_run(mcp__task_runner *e, const char *id);
/* Waits on c (a CLOCK_MONOTONIC condition) for at most ms. */
void mcp__runner_wait_ms(pthread_cond_t *c, pthread_mutex_t *m, int64_t ms);
/* Delivers queued messages while a stream takes them. e->lock held. */
void mcp__runner_flush_pending(mcp__task_runner *e, task_run *r);
/* call->task_input of a task's call: input_required while it waits for
 * the client. */
void mcp__runner_task_input(mcp_call_t *call, bool waiting);
/* call->handoff of a task's call: the CreateTaskResult has been sent. */
void mcp__runner_start_run(mcp_call_t *call, void *ctx);
/* Puts a run (back) on the executor queue. */
void mcp__runner_enqueue(mcp__task_runner *e, task_run *r);
/* Unlinks a run that is neither queued nor running and frees it. */
void mcp__runner_finish_run(task_run *r);

/* Wakes the sweeper: a run with a ttl was added. */
void mcp__runner_expiry_changed(mcp__task_runner *e);

/* ---- outcome.c ----------------------------------------------------------- */
/* Stores the final state of task id (as mcp__tasks_transition), retrying
 * store failures; when the store still refuses it, keeps it in memory and
 * stores it later (the outcome thread, for at most the options' outcome
 * retry time); only then falls back to a plain failed state, then
 * remembers the loss for tasks/result. Logs every failure. */
mcp_status mcp__runner_store_outcome(mcp__task_runner *e, const char *id,
                                     mcp_task_status status,
                                     const char *message, const char *result,
                                     const char *error);
/* When the store refused task rec's final state and rec (just loaded) still
 * shows it active: makes rec the end the runner keeps in memory, failed
 * with a statusMessage and a JSON-RPC error saying the outcome could not be
 * stored. */
void mcp__runner_overlay_lost(mcp__task_runner *e, mcp_task_record *rec);
/* Whether task id ended in memory only (its end could not be stored): then
 * msg (200 bytes) and *at_ms say how and when. */
bool mcp__runner_lost_end(mcp__task_runner *e, const char *id, char msg[200],
                          int64_t *at_ms);
/* Tries again, now, to store every kept end: kept outcomes and the failed
 * state of remembered losses (the sweeper, tests); forgets those stored, or
 * whose task ended or went meanwhile. */
void mcp__runner_retry_lost(mcp__task_runner *e);
/* At shutdown (e->stopping set): stops the outcome thread and makes a last
 * attempt at every kept outcome (logged when it fails). */
void mcp__runner_outcomes_stop(mcp__task_runner *e);
/* Frees the remembered losses (runner teardown). */
void mcp__runner_lost_clear(mcp__task_runner *e);

/* ---- task_call.c --------------------------------------------------------- */
/* The caller key of a task run again for subject (NULL: the session it
 * came from is gone), holding a slot like a task the caller started here
 * (whatever its concurrent-task budget: the task exists already), so that
 * the run counts against the caller's running cap. Returns a new string,
 * or NULL when memory runs out. */
char *mcp__runner_rerun_caller(mcp__task_runner *e, const char *subject);
/* Gives back a slot of the caller's concurrent-task budget. e->lock held. */
void mcp__runner_drop_slot(mcp__task_runner *e, const char *key);
/* Adds delta to the running count of caller key (which holds a slot) and
 * returns the new count (0 for an unknown key). e->lock held. */
unsigned mcp__runner_running(mcp__task_runner *e, const char *key, int delta);
/* Counts the tasks in the store (at enable). */
void mcp__runner_count_stored(mcp__task_runner *e);
/* Frees the per-caller stored counts (runner teardown). */
void mcp__runner_stored_callers_free(mcp__task_runner *e);

/* Creates the task of call in the store (ttl_ms < 0: unlimited), registers
 * its run and prepares the handoff; *result is the CreateTaskResult of the
 * call's era (2025-11-25 {"task": Task}, 2026-07-28 flat with
 * resultType "task"). MCP_ERR_LIMIT (error set) over the per-caller cap. */
mcp_status mcp__runner_create_task(mcp_call_t *call, mcp_tool_t *tool,
                                   json_t *args, int64_t ttl_ms,
                                   json_t **result);

/* ---- rerun.c (a task run again after its replica died) ------------------ */
/* The request to store with a new task of tool so that another replica can
 * run it again (malloc'd JSON text), or NULL: not a shared store, or the
 * tool does not declare itself idempotent. */
char *mcp__runner_rerun_request(mcp_call_t *call, mcp_tool_t *tool);
/* Starts (on) or stops taking over the re-runnable tasks whose replica
 * died (shared stores only; a no-op otherwise). */
void mcp__runner_rerun_enable(mcp__task_runner *e, bool on);
/* At enable, on a store that is not shared: each task a previous process
 * left active (it crashed or stopped) is offered to the resume hook, run
 * again when its tool is idempotent and its request was stored (SQLite),
 * else failed as interrupted. */
void mcp__runner_recover(mcp__task_runner *e);
/* The store's claim hook (mcp__task_claim_fn, store/task_rerun.h; ud is the
 * runner): runs a claimed task again, or gives it back or fails it when it
 * cannot. On the store's lease thread; tests call it directly to drive a
 * claim without PostgreSQL. */
void mcp__runner_claimed(void *ud, const char *task_id, const char *request,
                         int run);
/* At shutdown: leaves task id for whoever resumes it (true): on a shared
 * store another replica or the next start (its request stored: an
 * idempotent tool, or a resume hook), on another durable store the next
 * start (statusMessage "Interrupted by a server stop; will resume at the
 * next start"). false (the caller then fails it as interrupted) on the
 * memory store, when the store refuses, or with fail_on_stop (except for
 * an idempotent tool on a shared store, handed over as before). */
bool mcp__runner_hand_over(mcp__task_runner *e, const char *id,
                           const mcp_tool_t *tool);

/* ---- ext_tasks.c (2026-07-28, io.modelcontextprotocol/tasks) -------------
 */
#define MCP__TASKS_EXT "io.modelcontextprotocol/tasks"
/* The 2026-07-28 side of mcp__tasks_tools_call. */
mcp_status mcp__ext_tasks_tools_call(mcp_call_t *call, mcp_tool_t *tool,
                                     json_t **result, bool *handled);
/* The Task object of a record in 2026-07-28 form (ttlMs, pollIntervalMs). */
json_t *mcp__ext_task_json(const mcp_task_record *rec);
/* The DetailedTask of tasks/get and notifications/tasks: the Task plus
 * result, error or inputRequests by status (returns new). */
json_t *mcp__ext_detailed_task(mcp__task_runner *e, const mcp_task_record *rec);
/* notifications/tasks to the subscriptions/listen streams that named the
 * task in taskIds (listen.h); remembers the state in e->published. */
void mcp__ext_tasks_publish(mcp__task_runner *e, const mcp_task_record *rec);
/* Orders the states of a task: later updates rank higher, and at the same
 * millisecond an end above a running state. */
json_int_t mcp__ext_task_rank(const mcp_task_record *rec);
/* The task hook call_started (methods.h). */
mcp_status mcp__tasks_call_started(mcp_call_t *call, json_t **result);
/* server/discover: extensions["io.modelcontextprotocol/tasks"] instead of
 * capabilities.tasks (runner.c's capability hook, methods.h). */
void mcp__ext_tasks_capabilities(const mcp_server_t *s, json_t *caps);
mcp_status mcp__handle_ext_tasks_get(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_ext_tasks_update(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_ext_tasks_cancel(mcp_call_t *call, json_t **result);

/* ---- task_methods.c ------------------------------------------------------ */
/* The session's tasks key (made on first use), or NULL. */
const char *mcp__runner_session_key(mcp_session_t *se);
/* Loads task id as call's caller may see it: MCP_ERR_NOT_FOUND otherwise. */
mcp_status mcp__runner_load_visible(mcp__task_runner *e, mcp_call_t *call,
                                    const char *id, mcp_task_record *rec);
/* Sets call's "task store unavailable" error (a store call failed with
 * MCP_ERR_IO: the database is away); returns MCP_ERR_IO. */
mcp_status mcp__runner_store_unavailable(mcp_call_t *call);
/* Sets call's "task not found or expired" error. */
mcp_status mcp__runner_not_found(mcp_call_t *call, const char *id);
/* The common start of tasks/get, tasks/result and tasks/cancel: the runner,
 * params.taskId, and the task as this caller may see it. On any failure the
 * call's error is set and the status returned; on MCP_OK *e, *id (borrowed
 * from params) and *rec (clear it) are filled. */
mcp_status mcp__runner_load_param_task(mcp_call_t *call, mcp__task_runner **e,
                                       const char **id, mcp_task_record *rec);

/* ---- task_result.c ------------------------------------------------------- */
/* The watcher thread: answers the suspended tasks/result calls. */
void *mcp__runner_watcher_main(void *arg);

/* ---- what the tasks module adds to the server ------------------------------
 * Installed by mcp_server_enable_tasks: the method rows (task_methods.c) and
 * the hooks of core/methods.h. */
mcp_status mcp__handle_tasks_get(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_tasks_result(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_tasks_list(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_tasks_cancel(mcp_call_t *call, json_t **result);
extern const mcp__method mcp__task_methods[];
extern const size_t mcp__task_methods_count;
/* ext_tasks.c: tasks/get, tasks/update, tasks/cancel of 2026-07-28 */
extern const mcp__method mcp__ext_task_methods[];
extern const size_t mcp__ext_task_methods_count;
mcp_status mcp__tasks_tools_call(mcp_call_t *call, mcp_tool_t *tool,
                                 json_t **result, bool *handled);
void mcp__tasks_shutdown(mcp_server_t *s);
void mcp__tasks_session_event(mcp_server_t *s, mcp_session_t *se, bool opened);

#endif
