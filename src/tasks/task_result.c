/* SPDX-License-Identifier: MIT */
/* task_result.c - tasks/result: waits for the end of a task, carrying its
 * messages meanwhile, and replays its stored outcome. A blocked call waits
 * on the runner's change condition; a suspended one (HTTP) is parked as a
 * waiter and answered by the watcher thread (see runner_internal.h).
 */
#include "tasks/runner_internal.h"

#include <assert.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/thread.h"

#include "core/listen.h"
#include "store/task_changes.h"
#include "util/clock.h"

/* How often a blocked tasks/result re-reads the store: changes made by
 * another process are only seen this way. */
#define RESULT_POLL_MS 200
/* How often the store is asked whether another process changed tasks
 * while somebody waits (task_changes.h: a cheap question). */
#define WATCH_MS 40

/* ---- tasks/result -------------------------------------------------------- */
/* Registers w and hands it the task's queued messages. e->lock held. */
static void link_waiter(mcp__task_runner *e, waiter *w) {
  assert(mcp__mutex_held(&e->lock));
  w->next = e->waiters;
  e->waiters = w;
  task_run *r = mcp__runner_find_run(e, w->id);
  if (r)
    mcp__runner_flush_pending(e, r);
}

static void unlink_waiter(mcp__task_runner *e, waiter *w) {
  for (waiter **pp = &e->waiters; *pp; pp = &(*pp)->next)
    if (*pp == w) {
      *pp = w->next;
      break;
    }
}

static void add_waiter(mcp__task_runner *e, waiter *w) {
  pthread_mutex_lock(&e->lock);
  link_waiter(e, w);
  pthread_mutex_unlock(&e->lock);
}

static void remove_waiter(mcp__task_runner *e, waiter *w) {
  pthread_mutex_lock(&e->lock);
  unlink_waiter(e, w);
  pthread_mutex_unlock(&e->lock);
}

static bool session_closed(mcp_session_t *se) {
  return mcp__session_is_closed(se);
}

/* The stored outcome, replayed exactly (plus the related-task _meta). */
static mcp_status replay(mcp_call_t *call, const mcp_task_record *rec,
                         json_t **result) {
  if (rec->status == MCP_TASK_CANCELLED) {
    /* SERVER-REQUIREMENTS 20.2: a cancelled task has no result; we answer
     * -32602 with data saying so, always the same way. */
    char msg[160];
    snprintf(msg, sizeof msg,
             "Invalid params: task %.64s was cancelled and has no result",
             rec->task_id);
    mcp_call_set_error(
        call, MCP_RPC_INVALID_PARAMS, msg,
        json_pack("{s:s,s:s}", "taskId", rec->task_id, "status", "cancelled"));
    return MCP_ERR_INVALID_PARAMS;
  }
  if (rec->error) {
    json_t *err = json_loads(rec->error, 0, NULL);
    const char *message = json_string_value(json_object_get(err, "message"));
    json_t *code = json_object_get(err, "code");
    mcp_call_set_error(call,
                       json_is_integer(code) ? (int)json_integer_value(code)
                                             : MCP_RPC_INTERNAL_ERROR,
                       message ? message : "Internal error",
                       json_incref(json_object_get(err, "data")));
    json_decref(err);
    return MCP_ERR_INTERNAL;
  }
  json_t *res = NULL;
  if (rec->result)
    res = json_loads(rec->result, 0, NULL);
  else if (rec->status == MCP_TASK_FAILED)
    res = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text",
                    rec->status_message ? rec->status_message : "failed",
                    "isError", 1);
  else
    res = json_pack("{s:[]}", "content");
  if (!json_is_object(res)) {
    json_decref(res);
    return MCP_ERR_INTERNAL;
  }
  json_t *meta = json_object_get(res, "_meta");
  if (!json_is_object(meta)) {
    meta = json_object();
    json_object_set_new(res, "_meta", meta);
  }
  json_object_set_new(meta, MCP__RELATED_TASK,
                      json_pack("{s:s}", "taskId", rec->task_id));
  *result = res;
  return MCP_OK;
}

/* The suspended call's handler has returned: the watcher may answer it. */
static void arm_waiter(mcp_call_t *call, void *ctx) {
  waiter *w = ctx;
  mcp__task_runner *e = mcp__tasks_runner(mcp_call_server(call));
  pthread_mutex_lock(&e->lock);
  w->armed = true;
  e->change_seq++; /* the task may have ended meanwhile: look now */
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
}

static mcp_status shutting_down(mcp_call_t *call) {
  return mcp__call_fail(call, MCP_RPC_INTERNAL_ERROR,
                        "Internal error: the server is shutting down");
}

/* Whether the tasks/result call waiting for task id is over, and its
 * answer; used by the blocked call itself and by the watcher. */
static bool waiter_outcome(mcp__task_runner *e, mcp_call_t *call,
                           const char *id, bool stopping, mcp_status *st,
                           json_t **result) {
  *result = NULL;
  if (stopping) {
    *st = shutting_down(call);
    return true;
  }
  if (mcp_call_is_cancelled(call) ||
      (mcp__call_session(call) && session_closed(mcp__call_session(call)))) {
    *st = MCP_ERR_CANCELLED; /* no answer at all */
    return true;
  }
  mcp_task_record rec;
  mcp_status s = mcp__runner_load_visible(e, call, id, &rec);
  if (s == MCP_ERR_NOT_FOUND) {
    *st = mcp__runner_not_found(call, id);
    return true;
  }
  if (s != MCP_OK) {
    *st = s;
    return true;
  }
  bool over = mcp_task_status_is_terminal(rec.status);
  if (over)
    *st = replay(call, &rec, result);
  mcp_task_record_clear(&rec);
  return over;
}

/* What the watcher knows of the store between looks. */
typedef struct store_watch {
  bool known;     /* token holds the store's last change token */
  uint64_t token; /* task_changes.h */
} store_watch;

/* Whether another process changed tasks since the last look (the first
 * look counts as one). *can_tell false: the store cannot say. */
static bool store_moved(mcp__task_runner *e, store_watch *w, bool *can_tell) {
  uint64_t token;
  *can_tell = mcp__store_task_changes(e->tasks.store, &token);
  if (!*can_tell) {
    w->known = false;
    return false;
  }
  bool moved = !w->known || token != w->token;
  w->known = true;
  w->token = token;
  return moved;
}

/* notifications/tasks for the tasks the listen streams name whose state is
 * newer than what was published (a change made by another process reaches
 * no stream otherwise). A task seen for the first time is published only
 * when it has ended: its stream may have opened after the client's last
 * look. e->published forgets the tasks no stream names any more. */
static void publish_listened(mcp__task_runner *e) {
  json_t *ids = mcp__listen_task_ids(e->server);
  json_t *kept = json_object();
  size_t i;
  json_t *v;
  json_array_foreach(ids, i, v) {
    const char *id = json_string_value(v);
    mcp_task_record rec;
    if (mcp_store_task_get(e->tasks.store, e->tasks.scope, id, &rec, NULL) !=
        MCP_OK)
      continue;
    json_int_t rank = mcp__ext_task_rank(&rec);
    pthread_mutex_lock(&e->lock);
    json_t *before = json_object_get(e->published, id);
    bool publish = before != NULL ? json_integer_value(before) < rank
                                  : mcp_task_status_is_terminal(rec.status);
    json_int_t newest =
        before != NULL && json_integer_value(before) > rank
            ? json_integer_value(before)
            : rank;
    json_object_set_new(kept, id, json_integer(newest));
    pthread_mutex_unlock(&e->lock);
    if (publish)
      mcp__ext_tasks_publish(e, &rec);
    mcp_task_record_clear(&rec);
  }
  json_decref(ids);
  pthread_mutex_lock(&e->lock);
  /* what was published meanwhile stays */
  const char *id;
  json_object_foreach(kept, id, v) {
    json_t *now = json_object_get(e->published, id);
    if (now != NULL && json_integer_value(now) > json_integer_value(v))
      json_integer_set(v, json_integer_value(now));
  }
  if (kept != NULL) {
    json_decref(e->published);
    e->published = kept;
  }
  pthread_mutex_unlock(&e->lock);
}

/* Answers the armed suspended waiters whose task is over. e->lock held on
 * entry and on return. */
static void answer_waiters(mcp__task_runner *e, size_t armed, bool stopping) {
  waiter **list = armed ? malloc(armed * sizeof *list) : NULL;
  size_t k = 0;
  for (waiter *w = e->waiters; list && w; w = w->next)
    if (w->async && w->armed && k < armed)
      list[k++] = w;
  pthread_mutex_unlock(&e->lock);
  /* Only this thread unlinks armed waiters: they stay valid here. */
  mcp_status *sts = k ? calloc(k, sizeof *sts) : NULL;
  json_t **results = k ? calloc(k, sizeof *results) : NULL;
  bool *over = k ? calloc(k, sizeof *over) : NULL;
  for (size_t i = 0; sts && results && over && i < k; i++)
    over[i] = waiter_outcome(e, list[i]->call, list[i]->id, stopping, &sts[i],
                             &results[i]);
  pthread_mutex_lock(&e->lock);
  for (size_t i = 0; over && i < k; i++)
    if (over[i])
      unlink_waiter(e, list[i]);
  pthread_mutex_unlock(&e->lock);
  for (size_t i = 0; over && i < k; i++)
    if (over[i]) {
      mcp__call_complete(list[i]->call, sts[i], results[i]);
      free(list[i]);
    }
  free(list);
  free(sts);
  free(results);
  free(over);
  pthread_mutex_lock(&e->lock);
}

/* While somebody waits for tasks (a tasks/result, blocked or suspended, or
 * a listen stream naming tasks) the watcher asks the store every
 * WATCH_MS whether another process changed tasks (task_changes.h): when it
 * did, the waiters look again at once and the listened tasks are
 * published. Changes made in this process wake it directly. Every
 * RESULT_POLL_MS the suspended waiters look again anyway (stores that
 * cannot tell; tasks changed through another mcp_tasks_t of this process
 * on the same store). */
void *mcp__runner_watcher_main(void *arg) {
  mcp__task_runner *e = arg;
  store_watch sw = {0};
  uint64_t looked = 0;       /* change_seq when the waiters last looked */
  int64_t looked_ms = 0;     /* and when (monotonic) */
  pthread_mutex_lock(&e->lock);
  for (;;) {
    size_t n = 0, armed = 0;
    bool blocked = false;
    for (waiter *w = e->waiters; w; w = w->next) {
      blocked = blocked || !w->async;
      if (w->async) {
        n++;
        armed += w->armed;
      }
    }
    if (n == 0 && e->stopping)
      break;
    bool listened = mcp__listen_task_streams(e->server) > 0;
    if (n == 0 && !blocked && !listened) {
      sw.known = false; /* nobody waits: the next look starts afresh */
      pthread_cond_wait(&e->changed, &e->lock);
      continue;
    }
    bool stopping = e->stopping;
    pthread_mutex_unlock(&e->lock);
    bool can_tell;
    bool moved = store_moved(e, &sw, &can_tell);
    if (listened && moved)
      publish_listened(e);
    pthread_mutex_lock(&e->lock);
    if (moved) { /* blocked tasks/result calls look again too */
      e->change_seq++;
      pthread_cond_broadcast(&e->changed);
    }
    uint64_t seq = e->change_seq;
    int64_t now = mcp__monotonic_ms();
    if (armed > 0 && (seq != looked || stopping ||
                      now - looked_ms >= RESULT_POLL_MS)) {
      looked = seq;
      looked_ms = now;
      answer_waiters(e, armed, stopping);
    }
    if (e->change_seq == seq && !(e->stopping && !stopping))
      mcp__runner_wait_ms(&e->changed, &e->lock,
                          can_tell ? WATCH_MS : RESULT_POLL_MS);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

mcp_status mcp__handle_tasks_result(mcp_call_t *call, json_t **result) {
  mcp__task_runner *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = mcp__runner_load_param_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  /* While it waits, the task's requests (elicitation, sampling) and
   * notifications travel on this request's stream. */
  if (!mcp_task_status_is_terminal(rec.status) && mcp__call_can_suspend(call) &&
      e->has_watcher) {
    waiter *aw = calloc(1, sizeof *aw);
    if (aw != NULL) {
      mcp_task_record_clear(&rec);
      aw->call = call;
      aw->async = true;
      snprintf(aw->id, sizeof aw->id, "%s", id);
      mcp__call_suspend(call, arm_waiter, aw);
      pthread_mutex_lock(&e->lock);
      bool stopping = e->stopping;
      bool elsewhere = mcp__runner_find_run(e, aw->id) == NULL;
      if (!stopping)
        link_waiter(e, aw);
      pthread_mutex_unlock(&e->lock);
      if (!stopping && elsewhere) /* its questions wait there */
        mcp__runner_publish_want(e, aw->id, NULL);
      if (!stopping)
        return MCP_OK; /* answered by the watcher */
      mcp__call_unsuspend(call);
      free(aw);
      return shutting_down(call);
    }
  }
  if (mcp_task_status_is_terminal(rec.status)) {
    st = replay(call, &rec, result);
    mcp_task_record_clear(&rec);
    return st;
  }
  mcp_task_record_clear(&rec);
  waiter w = {0};
  w.call = call;
  snprintf(w.id, sizeof w.id, "%s", id);
  add_waiter(e, &w);
  pthread_mutex_lock(&e->lock);
  bool elsewhere = mcp__runner_find_run(e, w.id) == NULL;
  pthread_mutex_unlock(&e->lock);
  if (elsewhere) /* its questions wait on the replica running it */
    mcp__runner_publish_want(e, w.id, NULL);
  for (;;) {
    pthread_mutex_lock(&e->lock);
    uint64_t seq = e->change_seq;
    bool stopping = e->stopping;
    pthread_mutex_unlock(&e->lock);
    if (waiter_outcome(e, call, id, stopping, &st, result))
      break;
    pthread_mutex_lock(&e->lock);
    if (e->change_seq == seq && !e->stopping)
      mcp__runner_wait_ms(&e->changed, &e->lock, RESULT_POLL_MS);
    pthread_mutex_unlock(&e->lock);
  }
  remove_waiter(e, &w);
  return st;
}
