/* SPDX-License-Identifier: MIT */
/* runner.c - a server's task runner: its state, the task channel, the
 * executor threads that run tasks, recovery, the TTL sweeper and shutdown.
 *
 * runner_internal.h describes how a task travels through the runner; this
 * file owns the runner object and its threads, and the channel through which
 * a running task's messages reach the client. The methods clients call live
 * in task_call.c, task_methods.c and task_result.c.
 */
#include "tasks/runner_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/request_span.h"
#include "tools/tool_internal.h"
#include "util/clock.h"
#include "util/thread.h"
#include "util/str.h"

/* At most this many notifications wait in a task's queue; more are
 * dropped (requests are always kept: the handler waits for their answer). */
#define PENDING_MAX_NOTES 256

/* ---- small helpers ------------------------------------------------------- */
unsigned mcp__runner_bucket_of(const char *id) {
  unsigned h = 5381;
  for (const char *p = id; *p; p++)
    h = h * 33 + (unsigned char)*p;
  return h % RUN_BUCKETS;
}

task_run *mcp__runner_find_run(mcp__task_runner *e, const char *id) {
  assert(mcp__mutex_held(&e->lock));
  for (task_run *r = e->runs[mcp__runner_bucket_of(id)]; r; r = r->next)
    if (strcmp(r->id, id) == 0)
      return r;
  return NULL;
}

static void cond_init_monotonic(pthread_cond_t *c) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(c, &a);
  pthread_condattr_destroy(&a);
}

void mcp__runner_wait_ms(pthread_cond_t *c, pthread_mutex_t *m, int64_t ms) {
  struct timespec ts;
  mcp__deadline_in(CLOCK_MONOTONIC, ms, &ts);
  pthread_cond_timedwait(c, m, &ts);
}

static void wake_session(mcp_session_t *se) {
  if (se != NULL)
    mcp__session_wake(se);
}

/* A listen stream naming tasks opened: the watcher starts asking the store
 * for changes made by other processes (task_result.c). */
static void task_stream_opened(void *ud) {
  mcp__task_runner *e = ud;
  pthread_mutex_lock(&e->lock);
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
}

/* ---- change reporting ---------------------------------------------------- */
void mcp__runner_changed(mcp__task_runner *e, const mcp_task_record *rec) {
  mcp__runner_publish_status(e, rec); /* to the other replicas */
  mcp_session_t *se = NULL;
  pthread_mutex_lock(&e->lock);
  task_run *r = mcp__runner_find_run(e, rec->task_id);
  if (r && r->call && mcp__call_session(r->call)) {
    se = mcp__call_session(r->call);
    mcp__session_retain(se);
  }
  pthread_mutex_unlock(&e->lock);
  /* notifications/tasks/status on the creator's standalone stream; the spec
   * says requestors must not rely on it, so a closed stream just drops it.
   * It goes out before waiters (tasks/result) are woken, so a client sees
   * the status change before the result it announces. */
  if (se != NULL) {
    json_t *params = mcp__task_json(rec);
    mcp__buf msg;
    mcp__buf_init(&msg);
    if (params && mcp__jsonrpc_encode_notification(
                      &msg, "notifications/tasks/status", params))
      mcp__session_notify(se, msg.data, msg.len);
    mcp__buf_free(&msg);
    json_decref(params);
    mcp__session_release(se);
  }
  /* 2026-07-28: the DetailedTask to the listen streams naming the task */
  mcp__ext_tasks_publish(e, rec);
  pthread_mutex_lock(&e->lock);
  e->change_seq++;
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
}

void mcp__runner_cancel_run(mcp__task_runner *e, const char *id) {
  mcp_session_t *se = NULL;
  pthread_mutex_lock(&e->lock);
  task_run *r = mcp__runner_find_run(e, id);
  if (r && r->call && !r->started) {
    /* Its CreateTaskResult is not out yet, and a cancelled call sends
     * nothing: the client would never hear of the task. It ends when it
     * would start (a ttl of 1 ms can end before the answer is sent). */
    r->cancel_early = true;
  } else if (r && r->call) {
    mcp__call_cancel(r->call);
    if ((se = mcp__call_session(r->call)) != NULL)
      mcp__session_retain(se);
  }
  pthread_mutex_unlock(&e->lock);
  /* Wake the handler if it waits for a client answer. */
  wake_session(se);
  if (se)
    mcp__session_release(se);
}

/* ---- the task channel ---------------------------------------------------- */
/* Whether a tasks/result call comes from the task's own requestor: the
 * session that created it, or the same authenticated subject. Another
 * client that knows the id may read the outcome, but must not take the
 * task's questions (issue #16 item 5). */
static bool same_requestor(const mcp_call_t *w, const mcp_call_t *task) {
  if (task == NULL)
    return false;
  if (mcp__call_session(task) &&
      mcp__call_session(w) == mcp__call_session(task))
    return true;
  const char *a = mcp_call_subject(w);
  const char *b = mcp_call_subject(task);
  return a && b && strcmp(a, b) == 0;
}

/* Hands one message to a stream: a waiting tasks/result call of the task,
 * else the creator's standalone stream if a client is connected to it.
 * e->lock held (it keeps waiters and their calls alive). */
static mcp_status deliver(mcp__task_runner *e, task_run *r, const char *msg,
                          size_t len, unsigned flags) {
  assert(mcp__mutex_held(&e->lock));
  for (waiter *w = e->waiters; w; w = w->next)
    if (strcmp(w->id, r->id) == 0 && !mcp_call_is_cancelled(w->call) &&
        same_requestor(w->call, r->call) &&
        mcp__call_send_raw(w->call, msg, len, flags) == MCP_OK)
      return MCP_OK;
  if (r->call && mcp__call_session(r->call))
    return mcp__session_notify_live(mcp__call_session(r->call), msg, len,
                                    flags);
  return MCP_ERR_CLOSED;
}

/* Delivers queued messages while a stream takes them. e->lock held. */
void mcp__runner_flush_pending(mcp__task_runner *e, task_run *r) {
  assert(mcp__mutex_held(&e->lock));
  while (r->phead) {
    pending_msg *p = r->phead;
    if (deliver(e, r, p->data, p->len, p->flags) != MCP_OK)
      return;
    r->phead = p->next;
    if (r->phead == NULL)
      r->ptail = NULL;
    if (!(p->flags & MCP__SEND_REQUEST)) {
      assert(r->pnotes > 0); /* counts the queued notifications */
      r->pnotes--;
    }
    free(p);
  }
}

static void free_pending(task_run *r) {
  for (pending_msg *p = r->phead, *next; p; p = next) {
    next = p->next;
    free(p);
  }
  r->phead = r->ptail = NULL;
  r->pnotes = 0;
}

static mcp_status task_send(void *ctx, const char *msg, size_t len,
                            unsigned flags) {
  task_run *r = ctx;
  mcp__task_runner *e = r->e;
  mcp_status st = MCP_ERR_CLOSED;
  /* 2026-07-28: a task has no stream; progress and log notifications are
   * not delivered for tasks (SEP-2663), questions go to inputRequests. */
  if (r->call && mcp_call_is_stateless(r->call))
    return (flags & MCP__SEND_REQUEST) ? MCP_ERR_CLOSED : MCP_OK;
  pthread_mutex_lock(&e->lock);
  /* Queued messages go first: nothing may overtake them. */
  if (r->phead == NULL)
    st = deliver(e, r, msg, len, flags);
  bool note = !(flags & MCP__SEND_REQUEST);
  /* a question no stream here takes: maybe one on another replica does */
  bool elsewhere = st != MCP_OK && !note;
  if (st != MCP_OK && (!note || r->pnotes < PENDING_MAX_NOTES)) {
    pending_msg *p = malloc(sizeof *p + len);
    if (p == NULL) {
      st = MCP_ERR_NOMEM;
    } else {
      p->next = NULL;
      p->flags = flags & ~(unsigned)MCP__SEND_LIVE;
      p->len = len;
      memcpy(p->data, msg, len);
      if (r->ptail)
        r->ptail->next = p;
      else
        r->phead = p;
      r->ptail = p;
      if (note)
        r->pnotes++;
      st = MCP_OK;
    }
  } else if (st != MCP_OK) {
    st = MCP_OK; /* a dropped notification: requestors must not rely on them */
  }
  pthread_mutex_unlock(&e->lock);
  if (elsewhere && st == MCP_OK && r->call)
    mcp__runner_publish_question(e, r->id, mcp__call_session(r->call),
                                 r->subject, msg, len);
  return st;
}

void mcp__runner_task_input(mcp_call_t *call, bool waiting) {
  task_run *r = mcp__call_handoff_ctx(call);
  mcp__task_runner *e = r->e;
  pthread_mutex_lock(&e->lock);
  bool change = waiting ? r->input_waits++ == 0 : --r->input_waits == 0;
  pthread_mutex_unlock(&e->lock);
  if (change) /* a cancelled task stays cancelled: the CAS refuses */
    mcp__tasks_transition(
        &e->tasks, r->id, waiting ? MCP_TASK_INPUT_REQUIRED : MCP_TASK_WORKING,
        waiting ? "Waiting for input from the client" : NULL, NULL, NULL, NULL);
}

/* ---- running ------------------------------------------------------------- */
/* The task's OpenTelemetry span (core/request_span.h) ends with its run,
 * with the status the store has now; error.type: "cancelled", a failed
 * task's JSON-RPC error code, "tool_error" for an isError result (a
 * failed 2025-11-25 task, a completed 2026-07-28 one), else "failed". */
static void end_task_span(task_run *r) {
  if (r->call == NULL || !mcp__span_task_active(r->call))
    return; /* tracing off, or not sampled: the store is not read */
  mcp_task_record rec = {0};
  const char *status = "unknown", *error = NULL;
  char code[16];
  if (mcp__tasks_load(&r->e->tasks, r->id, &rec) == MCP_OK) {
    status = mcp_task_status_name(rec.status);
    json_t *err = rec.error ? json_loads(rec.error, 0, NULL) : NULL;
    json_t *res = rec.result ? json_loads(rec.result, 0, NULL) : NULL;
    bool is_error = json_is_true(json_object_get(res, "isError"));
    if (rec.status == MCP_TASK_CANCELLED) {
      error = "cancelled";
    } else if (rec.status == MCP_TASK_FAILED &&
               json_is_integer(json_object_get(err, "code"))) {
      snprintf(code, sizeof code, "%lld",
               (long long)json_integer_value(json_object_get(err, "code")));
      error = code;
    } else if (is_error && (rec.status == MCP_TASK_FAILED ||
                            rec.status == MCP_TASK_COMPLETED)) {
      error = "tool_error";
    } else if (rec.status == MCP_TASK_FAILED) {
      error = "failed";
    }
    json_decref(err);
    json_decref(res);
  }
  mcp__span_task_end(r->call, status, error);
  mcp_task_record_clear(&rec);
}

void mcp__runner_finish_run(task_run *r) {
  mcp__task_runner *e = r->e;
  end_task_span(r);
  pthread_mutex_lock(&e->lock);
  for (task_run **pp = &e->runs[mcp__runner_bucket_of(r->id)]; *pp;
       pp = &(*pp)->next)
    if (*pp == r) {
      *pp = r->next;
      break;
    }
  if (r->running)
    mcp__runner_running(e, r->caller, -1);
  mcp__runner_drop_slot(e, r->caller);
  free_pending(r);
  e->change_seq++;
  pthread_cond_broadcast(&e->changed);
  pthread_cond_broadcast(&e->work); /* a caller may run another task */
  pthread_mutex_unlock(&e->lock);
  mcp__call_release(r->call);
  mcp__tool_release(r->tool);
  json_decref(r->input_requests);
  free(r->subject);
  free(r->caller);
  free(r);
}

#define INTERRUPTED "Interrupted: the server stopped while the task was running"

/* A run the shutdown ended before its outcome: left for the next start or
 * another replica (mcp__runner_hand_over), else failed as interrupted.
 * Once per run: the stop may have done it already for a handler that did
 * not return in time (stop_threads). */
static void interrupted(task_run *r) {
  mcp__task_runner *e = r->e;
  pthread_mutex_lock(&e->lock);
  bool done = r->handed;
  r->handed = true;
  pthread_mutex_unlock(&e->lock);
  if (!done && !mcp__runner_hand_over(e, r->id, r->tool))
    mcp_task_fail(&e->tasks, r->id, INTERRUPTED);
}

/* 2026-07-28: the handler asked questions (MCP_ERR_INPUT_REQUIRED): the run
 * waits, parked, for tasks/update. false when it must end instead. */
static bool park(task_run *r) {
  mcp__task_runner *e = r->e;
  mcp_call_t *call = r->call;
  pthread_mutex_lock(&e->lock);
  bool ok = !e->stopping && !mcp_call_is_cancelled(call);
  if (ok) {
    json_decref(r->input_requests);
    r->input_requests = mcp__call_take_asked(call);
    r->parked = true;
    if (r->running) { /* parked is not running: its caller may run another */
      mcp__runner_running(e, r->caller, -1);
      r->running = false;
      pthread_cond_broadcast(&e->work);
    }
  }
  pthread_mutex_unlock(&e->lock);
  if (ok)
    mcp__tasks_transition(&e->tasks, r->id, MCP_TASK_INPUT_REQUIRED,
                          "Waiting for input from the client", NULL, NULL,
                          NULL);
  return ok;
}

/* Runs a task's handler once. true when the run is parked (2026-07-28
 * input_required) and must not be finished. */
static bool execute(task_run *r) {
  mcp__task_runner *e = r->e;
  mcp_call_t *call = r->call;
  pthread_mutex_lock(&e->lock);
  bool stopping = e->stopping;
  pthread_mutex_unlock(&e->lock);
  if (stopping) {
    interrupted(r);
    return false;
  }
  if (mcp_call_is_cancelled(call))
    return false; /* cancelled while queued: already marked */
  if (mcp_call_is_stateless(
          call)) { /* every round runs the handler from the top */
    mcp__call_reset_round(call);
  }
  mcp__buf out;
  mcp__buf_init(&out);
  bool is_error = false;
  mcp_status st = mcp__tool_execute(call, r->tool, r->args, &out, &is_error);
  pthread_mutex_lock(&e->lock);
  stopping = e->stopping;
  bool deferred = r->deferred;
  pthread_mutex_unlock(&e->lock);
  if (stopping) {
    /* The handler saw the shutdown as a cancellation: whatever it returned
     * is partial work. */
    interrupted(r);
  } else if (st == MCP_OK && deferred) {
    /* the application completes it later */
  } else if (st == MCP_OK && mcp_call_is_stateless(call)) {
    /* 2026-07-28: a tool error is a completed task with an isError result;
     * failed is for protocol errors (SEP-2663). */
    mcp__runner_store_outcome(e, r->id, MCP_TASK_COMPLETED, NULL, out.data,
                              NULL);
  } else if (st == MCP_OK) {
    mcp__runner_store_outcome(
        e, r->id, is_error ? MCP_TASK_FAILED : MCP_TASK_COMPLETED,
        is_error ? "The tool reported an error (isError result)" : NULL,
        out.data, NULL);
  } else if (st == MCP_ERR_INPUT_REQUIRED && mcp_call_is_stateless(call) &&
             mcp__call_asked(call) && park(r)) {
    mcp__buf_free(&out);
    return true;
  } else {
    /* The original request would have got a JSON-RPC error: keep it, so
     * tasks/result can replay exactly that. */
    int code;
    const char *message;
    json_t *data;
    mcp__call_error_for_status(call, st, &code, &message, &data);
    json_t *err = json_pack("{s:i,s:s}", "code", code, "message", message);
    if (err && data)
      json_object_set(err, "data", data);
    char *text = err ? json_dumps(err, JSON_COMPACT) : NULL;
    json_decref(err);
    mcp__runner_store_outcome(e, r->id, MCP_TASK_FAILED, message, NULL, text);
    free(text);
  }
  mcp__buf_free(&out);
  return false;
}

/* The first queued run whose caller is below its running cap (every run
 * when stopping: they only get failed), unlinked. e->lock held. */
static task_run *take_eligible(mcp__task_runner *e) {
  assert(mcp__mutex_held(&e->lock));
  task_run *prev = NULL;
  for (task_run *r = e->qhead; r; prev = r, r = r->qnext) {
    if (!e->stopping && mcp__runner_running(e, r->caller, 0) >= e->running_cap)
      continue;
    if (prev)
      prev->qnext = r->qnext;
    else
      e->qhead = r->qnext;
    if (e->qtail == r)
      e->qtail = prev;
    if (!e->stopping) {
      mcp__runner_running(e, r->caller, 1);
      r->running = true;
    }
    return r;
  }
  return NULL;
}

static void *executor_main(void *arg) {
  mcp__task_runner *e = arg;
  pthread_mutex_lock(&e->lock);
  for (;;) {
    task_run *r;
    while ((r = take_eligible(e)) == NULL && !e->stopping)
      pthread_cond_wait(&e->work, &e->lock);
    if (r == NULL)
      break;
    pthread_mutex_unlock(&e->lock);
    if (!execute(r))
      mcp__runner_finish_run(r);
    pthread_mutex_lock(&e->lock);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

/* The dispatcher's handoff: the CreateTaskResult has been sent. */
void mcp__runner_start_run(mcp_call_t *call, void *ctx) {
  task_run *r = ctx;
  mcp__task_runner *e = r->e;
  /* From now on notifications/cancelled for the tools/call id no longer
   * applies (tasks are cancelled with tasks/cancel), and closing the
   * session does not cancel the task. */
  /* The transport's strings were lent for the request only: the task keeps
   * the caller's subject in its own copy. */
  mcp__call_rebind(call, (mcp__channel){task_send, NULL, r, NULL, false},
                   r->subject);
  pthread_mutex_lock(&e->lock);
  assert(!r->started); /* the dispatcher hands a call off once */
  r->started = true;
  bool early = r->cancel_early;
  pthread_mutex_unlock(&e->lock);
  if (early) {
    mcp__call_cancel(call);
    mcp__runner_finish_run(r);
    return;
  }
  if (mcp_call_is_cancelled(call)) {
    /* Cancelled before the client saw the task: it never starts. */
    mcp__tasks_transition(&e->tasks, r->id, MCP_TASK_CANCELLED,
                          "The request was cancelled before the task started",
                          NULL, NULL, NULL);
    mcp__runner_finish_run(r);
    return;
  }
  mcp__runner_enqueue(e, r);
}

void mcp__runner_enqueue(mcp__task_runner *e, task_run *r) {
  pthread_mutex_lock(&e->lock);
  r->qnext = NULL;
  if (e->qtail)
    e->qtail->qnext = r;
  else
    e->qhead = r;
  e->qtail = r;
  pthread_cond_signal(&e->work);
  if (r->expires_ms)
    mcp__runner_expiry_changed(e); /* its expiry now counts */
  pthread_mutex_unlock(&e->lock);
}

/* ---- session streams ----------------------------------------------------- */
void mcp__tasks_session_event(mcp_server_t *s, mcp_session_t *se, bool opened) {
  mcp__task_runner *e = s ? mcp__tasks_runner(s) : NULL;
  if (e == NULL)
    return;
  if (opened) /* questions of its tasks waiting on other replicas */
    mcp__runner_publish_want(e, NULL, se);
  pthread_mutex_lock(&e->lock);
  if (opened) {
    for (unsigned b = 0; b < RUN_BUCKETS; b++)
      for (task_run *r = e->runs[b]; r; r = r->next)
        if (r->phead && r->call && mcp__call_session(r->call) == se)
          mcp__runner_flush_pending(e, r);
  } else {
    /* Suspended calls of the session end now. Only wake the watcher when
     * the session has one: stateless HTTP closes a session per request. */
    for (waiter *w = e->waiters; w; w = w->next)
      if (w->async && w->call && mcp__call_session(w->call) == se) {
        e->change_seq++;
        pthread_cond_broadcast(&e->changed);
        break;
      }
  }
  pthread_mutex_unlock(&e->lock);
}

/* ---- capabilities, accessors --------------------------------------------- */
/* The task runner is the tasks module's feature slot (core/feature.h): set
 * by mcp_server_enable_tasks, cleared by the shutdown hook, which frees it
 * (so the slot destroys nothing). */
static const mcp__slot_key tasks_slot = {"tasks", NULL};

mcp__task_runner *mcp__tasks_runner(const mcp_server_t *s) {
  return mcp__server_slot(s, &tasks_slot);
}

mcp_store_t *mcp__tasks_store(const mcp_server_t *s) {
  mcp__task_runner *e = s ? mcp__tasks_runner(s) : NULL;
  return e ? e->tasks.store : NULL;
}

/* The tasks capability: "tasks" in 2025-11-25 and older, the
 * io.modelcontextprotocol/tasks extension in 2026-07-28 (ext_tasks.c). */
static void tasks_capability(const mcp_server_t *s, json_t *caps,
                             unsigned era) {
  mcp__task_runner *e = mcp__tasks_runner(s);
  if (e == NULL)
    return;
  if (era == MCP__ERA_MODERN) {
    mcp__ext_tasks_capabilities(s, caps);
    return;
  }
  json_t *tasks =
      json_pack("{s:{},s:{s:{s:{}}}}", "cancel", "requests", "tools", "call");
  if (tasks && e->opts.list)
    json_object_set_new(tasks, "list", json_object());
  json_object_set_new(caps, "tasks", tasks);
}

mcp_tasks_t *mcp_server_tasks(mcp_server_t *s) {
  mcp__task_runner *e = s ? mcp__tasks_runner(s) : NULL;
  return e ? &e->tasks : NULL;
}

mcp_status mcp_call_task_defer(mcp_call_t *call) {
  if (call == NULL || mcp_call_task_id(call) == NULL)
    return MCP_ERR_STATE;
  task_run *r = mcp__call_handoff_ctx(call);
  pthread_mutex_lock(&r->e->lock);
  r->deferred = true;
  pthread_mutex_unlock(&r->e->lock);
  return MCP_OK;
}

/* ---- enable, recovery, sweeper, shutdown --------------------------------- */
/* ms until the next sweep: the interval, or sooner when a live run's ttl
 * ends first, so that an expired task stops running (and frees its thread)
 * when it expires, not at the next periodic sweep (issue #16 item 6).
 * e->lock held. */
static int64_t next_expiry_ms(mcp__task_runner *e) {
  assert(mcp__mutex_held(&e->lock));
  int64_t wait = INT64_MAX, now = mcp__wall_ms();
  for (unsigned b = 0; b < RUN_BUCKETS; b++)
    for (task_run *r = e->runs[b]; r; r = r->next)
      if (r->expires_ms > 0 && r->call && r->started &&
          !mcp_call_is_cancelled(r->call) && r->expires_ms - now < wait)
        wait = r->expires_ms - now;
  return wait < 0 ? 0 : wait;
}

/* Sweeps triggered by an expiry are at least this far apart (a store that
 * fails its sweeps must not make the sweeper spin). */
#define EXPIRY_SWEEP_GAP_MS 50

void mcp__runner_expiry_changed(mcp__task_runner *e) {
  pthread_cond_broadcast(&e->sweep_wake);
}

/* Parked 2026-07-28 runs whose task ended elsewhere (cancelled, failed by
 * another process, expired or removed) are freed; at shutdown every parked
 * run is handed over or failed as interrupted, and freed. */
static void sweep_parked(mcp__task_runner *e, bool stopping) {
  char(*ids)[40] = NULL;
  size_t n = 0, cap = 0;
  pthread_mutex_lock(&e->lock);
  for (unsigned b = 0; b < RUN_BUCKETS; b++)
    for (task_run *r = e->runs[b]; r; r = r->next)
      if (r->parked) {
        if (n == cap) {
          size_t ncap = cap ? cap * 2 : 16;
          char(*grown)[40] = realloc(ids, ncap * sizeof *ids);
          if (grown == NULL)
            goto collected;
          ids = grown;
          cap = ncap;
        }
        memcpy(ids[n++], r->id, sizeof r->id);
      }
collected:
  pthread_mutex_unlock(&e->lock);
  for (size_t i = 0; i < n; i++) {
    if (stopping) { /* the executors are gone: nobody else ends runs */
      pthread_mutex_lock(&e->lock);
      task_run *r = mcp__runner_find_run(e, ids[i]);
      pthread_mutex_unlock(&e->lock);
      if (r != NULL)
        interrupted(r);
    } else {
      mcp_task_record rec;
      mcp_status st = mcp__tasks_load(&e->tasks, ids[i], &rec);
      bool live = st != MCP_ERR_NOT_FOUND &&
                  (st != MCP_OK || !mcp_task_status_is_terminal(rec.status));
      if (st == MCP_OK)
        mcp_task_record_clear(&rec);
      if (live)
        continue;
    }
    pthread_mutex_lock(&e->lock);
    task_run *r = mcp__runner_find_run(e, ids[i]);
    bool take = r && r->parked;
    if (take)
      r->parked = false;
    pthread_mutex_unlock(&e->lock);
    if (take)
      mcp__runner_finish_run(r);
  }
  free(ids);
}

static void *sweeper_main(void *arg) {
  mcp__task_runner *e = arg;
  int64_t interval = e->opts.sweep_interval_ms;
  int64_t periodic = mcp__monotonic_ms() + interval, last = 0;
  pthread_mutex_lock(&e->lock);
  while (!e->stopping) {
    int64_t now = mcp__monotonic_ms(), due = periodic;
    int64_t exp = next_expiry_ms(e);
    if (exp != INT64_MAX) {
      int64_t at = now + exp;
      if (at < last + EXPIRY_SWEEP_GAP_MS)
        at = last + EXPIRY_SWEEP_GAP_MS;
      if (at < due)
        due = at;
    }
    if (due > now) { /* woken early (a new ttl, stop): look again */
      mcp__runner_wait_ms(&e->sweep_wake, &e->lock, due - now);
      continue;
    }
    pthread_mutex_unlock(&e->lock);
    mcp_task_delete_outdated(&e->tasks, &e->opts, NULL, NULL, NULL);
    last = mcp__monotonic_ms();
    if (last >= periodic)
      periodic = last + interval;
    sweep_parked(e, false);
    mcp__runner_retry_lost(e); /* ends the store refused before */
    pthread_mutex_lock(&e->lock);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

static void runner_free(mcp__task_runner *e) {
  mcp__runner_lost_clear(e);
  mcp__runner_stored_callers_free(e);
  json_decref(e->published);
  mcp__tasks_clear(&e->tasks);
  mcp__task_options_clear(&e->opts);
  pthread_mutex_destroy(&e->lock);
  pthread_cond_destroy(&e->changed);
  pthread_cond_destroy(&e->work);
  pthread_cond_destroy(&e->sweep_wake);
  pthread_cond_destroy(&e->outcome_wake);
  mcp__pool_stop(&e->executors, NULL, NULL, NULL); /* joined: frees */
  free(e);
}

/* How long a stop waits for cancelled handlers before it hands their tasks
 * over anyway (docker stop sends SIGKILL 10 s after SIGTERM). */
#define STOP_GRACE_MS 5000

/* Waits, up to STOP_GRACE_MS, for the handlers the stop cancelled to
 * return; the tasks of those still running then are handed over (or
 * failed) now, so that a supervisor's SIGKILL during the join that follows
 * leaves them right in the store. The join still waits for the handlers:
 * their memory cannot go before they return. */
static void wait_for_handlers(mcp__task_runner *e) {
  int64_t until = mcp__monotonic_ms() + STOP_GRACE_MS;
  char(*ids)[40] = NULL;
  size_t n = 0, cap = 0;
  pthread_mutex_lock(&e->lock);
  for (;;) {
    bool busy = false;
    for (unsigned b = 0; b < RUN_BUCKETS && !busy; b++)
      for (task_run *r = e->runs[b]; r && !busy; r = r->next)
        busy = r->running && !r->handed;
    int64_t left = until - mcp__monotonic_ms();
    if (!busy || left <= 0)
      break;
    mcp__runner_wait_ms(&e->changed, &e->lock, left);
  }
  for (unsigned b = 0; b < RUN_BUCKETS; b++)
    for (task_run *r = e->runs[b]; r; r = r->next)
      if (r->running && !r->handed) {
        if (n == cap) {
          size_t ncap = cap ? cap * 2 : 16;
          char(*grown)[40] = realloc(ids, ncap * sizeof *ids);
          if (grown == NULL)
            break;
          ids = grown;
          cap = ncap;
        }
        r->handed = true; /* its executor must not do it again */
        memcpy(ids[n++], r->id, sizeof r->id);
      }
  pthread_mutex_unlock(&e->lock);
  for (size_t i = 0; i < n; i++) {
    /* the run may end meanwhile: its tool is looked up again */
    mcp_task_record rec;
    mcp_tool_t *tool = NULL;
    if (mcp__tasks_load(&e->tasks, ids[i], &rec) == MCP_OK) {
      if (rec.tool)
        tool = (mcp_tool_t *)mcp__catalog_find(
            mcp__tools_catalog(e->server), rec.tool);
      mcp_task_record_clear(&rec);
    }
    mcp__log(e->server, MCP_LOG_WARNING,
             "tasks: the handler of task %s did not return within %d ms of "
             "the stop",
             ids[i], STOP_GRACE_MS);
    if (!mcp__runner_hand_over(e, ids[i], tool))
      mcp_task_fail(&e->tasks, ids[i], INTERRUPTED);
    if (tool)
      mcp__tool_release(tool);
  }
  free(ids);
}

static void stop_threads(mcp__task_runner *e) {
  /* Every session with a task call is woken, so handlers blocked on a
   * client answer see the cancellation now, not at their timeout. Out of
   * memory, the first 64 are (best effort). */
  mcp_session_t *fallback[64], **sessions = fallback;
  size_t ns = 0, cap = 64, calls = 0;
  mcp__runner_rerun_enable(e, false); /* no task taken over from now on */
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  for (unsigned b = 0; b < RUN_BUCKETS; b++)
    for (task_run *r = e->runs[b]; r; r = r->next)
      calls += r->call != NULL;
  if (calls > cap) {
    mcp_session_t **big = malloc(calls * sizeof *big);
    if (big != NULL) {
      sessions = big;
      cap = calls;
    }
  }
  for (unsigned b = 0; b < RUN_BUCKETS; b++)
    for (task_run *r = e->runs[b]; r; r = r->next)
      if (r->call) {
        mcp__call_cancel(r->call);
        if (mcp__call_session(r->call) && ns < cap) {
          mcp__session_retain(mcp__call_session(r->call));
          sessions[ns++] = mcp__call_session(r->call);
        }
      }
  pthread_cond_broadcast(&e->work);
  pthread_cond_broadcast(&e->changed);
  pthread_cond_broadcast(&e->sweep_wake);
  pthread_mutex_unlock(&e->lock);
  for (size_t i = 0; i < ns; i++) {
    wake_session(sessions[i]);
    mcp__session_release(sessions[i]);
  }
  if (sessions != fallback)
    free(sessions);
  wait_for_handlers(e);
  mcp__pool_stop(&e->executors, NULL, NULL, NULL); /* told above */
  if (e->has_sweeper)
    pthread_join(e->sweeper, NULL);
  if (e->has_watcher) /* answers the suspended tasks/result calls first */
    pthread_join(e->watcher, NULL);
  mcp__runner_outcomes_stop(e); /* no executor can keep one any more */
  sweep_parked(e, true);
}

static const mcp__task_hooks task_hooks = {
    .tool_call = mcp__tasks_tools_call,
    .session_event = mcp__tasks_session_event,
    .shutdown = mcp__tasks_shutdown,
    .call_started = mcp__tasks_call_started,
    .remote_status = mcp__tasks_remote_status,
    .remote_cancel = mcp__tasks_remote_cancel,
    .remote_question = mcp__tasks_remote_question,
};

mcp_status mcp_server_enable_tasks(mcp_server_t *s, mcp_store_t *store,
                                   const mcp_task_options_t *options,
                                   mcp_error_t *err) {
  if (s == NULL || store == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "server and store required");
  if (mcp__tasks_runner(s))
    return mcp_error_set(err, MCP_ERR_EXISTS, "tasks are already enabled");
  if (options != NULL && options->refusals != NULL) { /* options.c refuse */
    mcp__log(s, MCP_LOG_ERROR, "tasks not enabled: options refused:\n%s",
             options->refusals);
    char list[512];
    mcp__str_one_line(options->refusals, list, sizeof list);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "tasks not enabled: options refused: %s", list);
  }
  mcp__task_runner *e = calloc(1, sizeof *e);
  if (e == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  mcp_task_options_t defaults;
  mcp__task_options_defaults(&defaults);
  if (!mcp__task_options_copy(&e->opts, options ? options : &defaults) ||
      mcp__tasks_init(&e->tasks, store, mcp__server_name(s)) != MCP_OK) {
    mcp__task_options_clear(&e->opts);
    mcp__tasks_clear(&e->tasks);
    free(e);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  e->server = s;
  e->tasks.runner = e;
  e->published = json_object(); /* NULL: nothing republished */
  pthread_mutex_init(&e->lock, NULL);
  cond_init_monotonic(&e->changed);
  cond_init_monotonic(&e->sweep_wake);
  cond_init_monotonic(&e->outcome_wake);
  pthread_cond_init(&e->work, NULL);
  e->running_cap = e->opts.max_running_per_caller;
  if (e->running_cap == 0)
    e->running_cap = e->opts.threads / 2 ? e->opts.threads / 2 : 1;
  mcp__runner_count_stored(e);
  if (mcp__pool_start(&e->executors, e->opts.threads, executor_main, e) == 0) {
    runner_free(e);
    return mcp_error_set(err, MCP_ERR_NOMEM, "cannot start task threads");
  }
  if (e->opts.sweep_interval_ms > 0)
    e->has_sweeper = mcp__thread_start(&e->sweeper, sweeper_main, e) == 0;
  e->has_watcher =
      mcp__thread_start(&e->watcher, mcp__runner_watcher_main, e) == 0;
  mcp__runner_rerun_enable(e, true);
  mcp_status st =
      mcp__server_add_methods(s, mcp__task_methods, mcp__task_methods_count);
  /* 2026-07-28: the io.modelcontextprotocol/tasks extension */
  if (st == MCP_OK)
    st = mcp__server_add_methods(s, mcp__ext_task_methods,
                                 mcp__ext_task_methods_count);
  if (st == MCP_OK)
    st = mcp__server_add_capability(s, tasks_capability);
  if (st == MCP_OK)
    st = mcp__server_set_slot(s, &tasks_slot, e);
  if (st != MCP_OK) { /* only with too many modules' rows or hooks */
    stop_threads(e);
    runner_free(e);
    return mcp_error_set(err, st, "tasks not enabled: %s",
                         mcp_strerror(st));
  }
  mcp__server_set_task_hooks(s, &task_hooks);
  /* listen filters may name tasks; the watcher follows them in the store */
  mcp__listen_set_task_hook(s, task_stream_opened, e);
  mcp__listen_enable_task_ids(s, true);
  /* Tasks a previous process left: resumed, run again or failed. Last, so
   * that a task run again finds the runner complete. */
  mcp__runner_recover(e);
  return MCP_OK;
}

void mcp__tasks_shutdown(mcp_server_t *s) {
  mcp__task_runner *e = mcp__tasks_runner(s);
  if (e == NULL)
    return;
  stop_threads(e);
  mcp__listen_enable_task_ids(s, false);
  mcp__listen_set_task_hook(s, NULL, NULL);
  mcp__server_set_slot(s, &tasks_slot, NULL);
  runner_free(e);
}
