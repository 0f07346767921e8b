/* SPDX-License-Identifier: MIT */
/* rerun.c - a task of an idempotent tool runs again on this replica when
 * the replica running it died (issue #14 item 2; store/task_rerun.h).
 *
 * At creation, a task of a tool whose annotations say idempotentHint: true
 * is stored with its request (the tools/call params, the era and the
 * caller's subject) when the store is durable. When its lease
 * lapses, the store's lease keeper on one live replica claims it (the
 * database lets exactly one win) and calls claimed() here, which rebuilds
 * the call from the stored request and queues it on this runner's
 * executors like any task; its outcome is stored as the original run's
 * would have been, in the task's own era, and every replica answers
 * tasks/get and tasks/result from the store. A re-run has no client
 * stream: progress and log messages go nowhere, a question to the client
 * fails (2025-11-25) or parks the task here (2026-07-28).
 *
 * A replica that stops gracefully hands such tasks over instead of failing
 * them as interrupted: their lease lapses at once and a live replica claims
 * them at its next round.
 *
 * The same rule holds on one process with a durable store (issue #24 item
 * 5): SQLite keeps the request too, a graceful stop leaves the running
 * tasks working for the next start (mcp__runner_hand_over), and the next
 * start (mcp__runner_recover) offers each to the resume hook, runs it again
 * when its tool is idempotent, and fails only the rest. While a resume hook
 * is set every task keeps its request, so the hook sees its arguments (on
 * PostgreSQL the claiming replica offers it to its hook first).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/call_replay.h"
#include "store/task_rerun.h"
#include "store/task_store.h"
#include "tasks/runner_internal.h"
#include "tools/tool_internal.h"
#include "util/clock.h"

#define CANNOT                                                                 \
  "Lost: the replica running this task stopped and it cannot run again "       \
  "here: "

static bool rerunnable(const mcp_tool_t *tool) {
  return tool->hints[MCP_HINT_IDEMPOTENT] == 1;
}

char *mcp__runner_rerun_request(mcp_call_t *call, mcp_tool_t *tool) {
  mcp__task_runner *e = mcp__tasks_runner(mcp_call_server(call));
  /* kept where a later run could use it: a durable store, and a tool that
   * may run again or a resume hook that may want the arguments */
  if (e == NULL || mcp__store_is_volatile(e->tasks.store) ||
      (!rerunnable(tool) && e->opts.resume_fn == NULL))
    return NULL;
  json_t *req =
      json_pack("{s:i,s:b,s:s,s:O,s:s?}", "v", 1, "stateless",
                mcp_call_is_stateless(call), "protocolVersion",
                mcp_call_protocol_version(call), "params",
                mcp_call_params(call), "subject", mcp_call_subject(call));
  char *text = req ? json_dumps(req, JSON_COMPACT) : NULL;
  json_decref(req);
  return text;
}

/* Offers an interrupted task to the application's resume hook: task (its
 * Task object, borrowed) gets the stored params of req (may be NULL).
 * true when the application took it. */
static bool offer_to_hook(mcp__task_runner *e, json_t *task,
                          const json_t *req) {
  if (e->opts.resume_fn == NULL || task == NULL)
    return false;
  json_t *params = json_object_get(req, "params");
  if (json_is_object(params))
    json_object_set(task, "params", params);
  bool taken = e->opts.resume_fn(&e->tasks, task, e->opts.resume_ud);
  json_object_del(task, "params");
  if (taken)
    mcp__log(e->server, MCP_LOG_NOTICE,
             "tasks: task %s resumed by the application's resume hook",
             json_string_value(json_object_get(task, "taskId")));
  return taken;
}

static void cannot_run(mcp__task_runner *e, const char *id, const char *why) {
  char msg[256];
  snprintf(msg, sizeof msg, CANNOT "%s", why);
  mcp__log(e->server, MCP_LOG_WARNING, "tasks: task %s: %s", id, msg);
  mcp_task_fail(&e->tasks, id, msg);
}

/* The claim made this replica the task's lease holder, and its keeper renews
 * that lease for as long as the task is active: a claimed task this replica
 * does not run must be given back, or it stays "working" forever. Handed
 * over, its lease lapses at once and the next claim round (here or on
 * another replica) tries again, within the runs a task has in all; where
 * that is refused (its last run, or the store refuses this write too) the
 * task is failed, through the runner's outcome path, which retries and at
 * worst keeps the failure in memory until the store takes it. */
static void give_back(mcp__task_runner *e, const char *id, mcp_status why) {
  mcp_error_t err = {0};
  mcp_status st =
      mcp__store_task_hand_over(e->tasks.store, e->tasks.scope, id, &err);
  if (st == MCP_OK) {
    mcp__log(e->server, MCP_LOG_WARNING,
             "tasks: task %s: its stored record could not be read (%s); "
             "handed back so that it runs again in a later claim round",
             id, mcp_strerror(why));
    return;
  }
  char msg[256];
  snprintf(msg, sizeof msg, CANNOT "its stored record could not be read (%s)",
           mcp_strerror(why));
  mcp__log(e->server, MCP_LOG_WARNING, "tasks: task %s: %s (hand-over: %s)", id,
           msg, err.message[0] ? err.message : mcp_strerror(st));
  char *text = mcp__tasks_error_result_text(msg);
  mcp__runner_store_outcome(e, id, MCP_TASK_FAILED, msg, text, NULL);
  free(text);
}

/* Runs task id again from its stored request req (borrowed) with tool (a
 * reference, stolen); rec is its record (its ttl bounds the run). */
static void run_again(mcp__task_runner *e, const char *id, const json_t *req,
                      mcp_tool_t *tool, const mcp_task_record *rec, int run,
                      const char *why) {
  const json_t *params = json_object_get(req, "params");
  bool stateless = json_is_true(json_object_get(req, "stateless"));
  const char *version =
      json_string_value(json_object_get(req, "protocolVersion"));
  const char *subject = json_string_value(json_object_get(req, "subject"));
  char rid[96];
  snprintf(rid, sizeof rid, "%s:run-%d", id, run);
  mcp_call_t *call = mcp__call_replay(e->server, rid, json_deep_copy(params),
                                      stateless, version);
  task_run *r = call ? calloc(1, sizeof *r) : NULL;
  if (r && ((subject && (r->subject = strdup(subject)) == NULL) ||
            (r->caller = mcp__runner_rerun_caller(e, subject)) == NULL)) {
    free(r->subject);
    free(r);
    r = NULL;
  }
  if (r == NULL) {
    mcp__call_release(call);
    mcp__tool_release(tool);
    cannot_run(e, id, "out of memory");
    return;
  }
  mcp__log(e->server, MCP_LOG_NOTICE,
           "tasks: running task %s (%s) again, run %d: %s", id,
           tool->entry.key, run, why);
  snprintf(r->id, sizeof r->id, "%s", id);
  r->e = e;
  r->call = call;
  r->tool = tool; /* the reference the caller took */
  r->args = json_object_get(mcp_call_params(call), "arguments");
  r->expires_ms =
      rec->ttl_ms >= 0 ? rec->created_ms + (rec->ttl_ms > 0 ? rec->ttl_ms : 1)
                       : 0;
  /* no handoff: no response to send first; the run starts below */
  mcp__call_set_task(call, r->id, mcp__runner_task_input, NULL, r);
  pthread_mutex_lock(&e->lock);
  bool clash = e->stopping || mcp__runner_find_run(e, r->id) != NULL;
  if (!clash) {
    unsigned b = mcp__runner_bucket_of(r->id);
    r->next = e->runs[b];
    e->runs[b] = r;
  }
  pthread_mutex_unlock(&e->lock);
  if (clash) { /* stopping: the lease lapses again and another replica
                  claims it */
    mcp__call_release(call);
    mcp__tool_release(tool);
    pthread_mutex_lock(&e->lock);
    mcp__runner_drop_slot(e, r->caller); /* the one rerun_caller took */
    pthread_mutex_unlock(&e->lock);
    free(r->caller);
    free(r->subject);
    free(r);
    return;
  }
  mcp__runner_start_run(call, r); /* queued for an executor */
}

void mcp__runner_claimed(void *ud, const char *id, const char *request,
                         int run) {
  mcp__task_runner *e = ud;
  json_t *req = json_loads(request, 0, NULL);
  json_t *params = json_object_get(req, "params");
  const char *name = json_string_value(json_object_get(params, "name"));
  mcp_tool_t *tool =
      name ? (mcp_tool_t *)mcp__catalog_find(mcp__tools_catalog(e->server),
                                             name)
           : NULL;
  mcp_task_record rec;
  mcp_status loaded = mcp__tasks_load(&e->tasks, id, &rec);
  json_t *task = loaded == MCP_OK ? mcp__task_json(&rec) : NULL;
  if (loaded != MCP_OK && loaded != MCP_ERR_NOT_FOUND)
    give_back(e, id, loaded);
  else if (loaded != MCP_OK)
    ; /* gone or expired: nothing to do */
  else if (offer_to_hook(e, task, req))
    ; /* the application completes it */
  else if (!json_is_object(params) || name == NULL)
    cannot_run(e, id, "its stored request is unreadable");
  else if (tool == NULL)
    cannot_run(e, id, "this server has no such tool");
  else if (!rerunnable(tool))
    cannot_run(e, id,
               "the tool does not declare itself idempotent and the resume "
               "hook did not take it");
  else {
    run_again(e, id, req, tool, &rec, run,
              "the replica running it stopped");
    tool = NULL; /* run_again took the reference */
  }
  if (tool)
    mcp__tool_release(tool);
  if (loaded == MCP_OK)
    mcp_task_record_clear(&rec);
  json_decref(task);
  json_decref(req);
}

#define INTERRUPTED "Interrupted: the server stopped while the task was running"
#define RESTARTED "Running again: the server restarted while it was running"

/* One task found active at start in a durable single-process store: the
 * previous process crashed or stopped while it ran. task: its Task object
 * (borrowed). */
static void recover_one(mcp__task_runner *e, json_t *task) {
  const char *id = json_string_value(json_object_get(task, "taskId"));
  if (id == NULL)
    return;
  char *text = NULL;
  mcp__store_task_request(e->tasks.store, e->tasks.scope, id, &text, NULL);
  json_t *req = text ? json_loads(text, 0, NULL) : NULL;
  free(text);
  if (offer_to_hook(e, task, req)) {
    json_decref(req);
    return;
  }
  const char *name = json_string_value(
      json_object_get(json_object_get(req, "params"), "name"));
  mcp_tool_t *tool =
      name ? (mcp_tool_t *)mcp__catalog_find(mcp__tools_catalog(e->server),
                                             name)
           : NULL;
  char *again = NULL;
  int run = 0;
  mcp_task_record rec;
  if (tool && rerunnable(tool) &&
      mcp__store_task_rerun_at_start(e->tasks.store, e->tasks.scope, id,
                                     RESTARTED, mcp__wall_ms(), &again, &run,
                                     NULL) == MCP_OK &&
      mcp__tasks_load(&e->tasks, id, &rec) == MCP_OK) {
    json_t *claimed = json_loads(again, 0, NULL);
    run_again(e, id, claimed ? claimed : req, tool, &rec, run,
              "the server restarted while it ran");
    tool = NULL;
    json_decref(claimed);
    mcp_task_record_clear(&rec);
  } else {
    mcp_task_fail(&e->tasks, id, INTERRUPTED);
  }
  free(again);
  if (tool)
    mcp__tool_release(tool);
  json_decref(req);
}

static bool collect_task(const mcp_task_record *rec, void *ud) {
  json_array_append_new((json_t *)ud, mcp__task_json(rec));
  return true;
}

void mcp__runner_recover(mcp__task_runner *e) {
  if (mcp__store_is_shared(e->tasks.store))
    return;
  json_t *list = json_array();
  mcp_task_filter f = {0};
  f.active_only = true;
  if (list == NULL || mcp_store_task_list(e->tasks.store, e->tasks.scope, &f, 0,
                                          collect_task, list, NULL) != MCP_OK) {
    json_decref(list);
    return;
  }
  size_t i;
  json_t *task;
  json_array_foreach(list, i, task) recover_one(e, task);
  json_decref(list);
}

#define STOPPED "Interrupted by a server stop; will resume at the next start"

bool mcp__runner_hand_over(mcp__task_runner *e, const char *id,
                           const mcp_tool_t *tool) {
  mcp_store_t *store = e->tasks.store;
  if (mcp__store_is_volatile(store))
    return false; /* nothing outlives the process */
  bool shared = mcp__store_is_shared(store);
  if (e->opts.fail_on_stop && (!shared || tool == NULL || !rerunnable(tool)))
    return false;
  if (!shared) {
    /* the next start takes it: resume hook, run again or fail */
    mcp_status st = mcp__tasks_transition(&e->tasks, id, MCP_TASK_WORKING,
                                          STOPPED, NULL, NULL, NULL);
    if (st == MCP_OK)
      mcp__log(e->server, MCP_LOG_NOTICE,
               "tasks: task %s interrupted by the stop: the next start "
               "resumes it",
               id);
    else if (st != MCP_ERR_STATE && st != MCP_ERR_NOT_FOUND)
      mcp__log(e->server, MCP_LOG_WARNING,
               "tasks: task %s could not be left for the next start: %s", id,
               mcp_strerror(st));
    return st == MCP_OK;
  }
  mcp_error_t err;
  mcp_status st = mcp__store_task_hand_over(store, e->tasks.scope, id, &err);
  if (st == MCP_OK)
    mcp__log(e->server, MCP_LOG_NOTICE,
             "tasks: task %s handed over: another replica or the next start "
             "resumes it",
             id);
  else if (st != MCP_ERR_NOT_FOUND)
    mcp__log(e->server, MCP_LOG_WARNING,
             "tasks: task %s could not be handed over: %s", id, err.message);
  return st == MCP_OK;
}

void mcp__runner_rerun_enable(mcp__task_runner *e, bool on) {
  if (mcp__store_is_shared(e->tasks.store))
    mcp__store_set_task_claim(e->tasks.store, e->tasks.scope,
                              on ? mcp__runner_claimed : NULL, e);
}
