/* SPDX-License-Identifier: MIT */
/* outcome.c - writing a task's final state when the store fails (issue #16
 * item 9, issue #25 N5).
 *
 * A failed write is retried at once a few times (SQLITE_BUSY). When the
 * outcome still cannot be stored (the database is away, the disk is full)
 * it is kept in memory as the handler made it, and the outcome thread
 * stores it when the store takes writes again: attempts on a short backoff
 * (BACKOFF_FIRST_MS doubling to BACKOFF_MAX_MS) for at most the options'
 * outcome retry time (mcp_task_options_set_outcome_retry). Meanwhile the
 * store still says "working", which is true: the end is not stored yet.
 * Once stored, the change is published like any other (waiters here wake,
 * other replicas are told through the relay and read it from the shared
 * store), so everyone sees the real outcome within a backoff step of the
 * database's return instead of a "failed" written in its place.
 *
 * Only when that time is up (or too many outcomes, or too many bytes, are
 * kept already) is the outcome given up: a plain "failed" state is tried;
 * when that fails too, the runner keeps the task's end in memory: failed,
 * with a clear statusMessage and error. Every read of the task through the
 * runner (tasks/get, tasks/list, tasks/result, the 2026-07-28 extension's
 * tasks/get) sees that instead of the "working" the store still holds
 * (mcp__runner_overlay_lost), and the outcome thread goes on trying to
 * store it every LOST_RETRY_MS. Every failure is logged.
 *
 * Each kept end is worked on by one thread at a time (busy), without the
 * runner's lock; only that thread unlinks it. */
#include "tasks/runner_internal.h"

#include <assert.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/thread.h"

/* Attempts of a final write and the pause before each retry (ms). */
static const int retry_pause_ms[] = {10, 50, 200};
#define ATTEMPTS (1 + (int)(sizeof retry_pause_ms / sizeof retry_pause_ms[0]))
/* Kept ends at most; outcomes beyond are given up at once, and the oldest
 * failed ends kept in memory are forgotten first. */
#define KEPT_MAX 1024
/* Bytes of kept outcomes at most (results can be large). */
#define KEPT_BYTES_MAX ((size_t)64 << 20)
/* The backoff between attempts at a kept outcome. */
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   1000
/* Between attempts at storing the failed state of a given-up outcome. */
#define LOST_RETRY_MS 5000

typedef struct kept_end {
  struct kept_end *next;
  char id[40];
  /* the outcome to store (owned strings), while !lost */
  mcp_task_status status;
  char *message, *result, *error;
  size_t bytes;
  /* given up: the failed state the runner shows and tries to store */
  bool lost;
  char lost_message[200];
  bool busy;          /* a thread is storing it: only that one unlinks it */
  int64_t at_ms;      /* wall clock: when the task ended */
  int64_t give_up_ms; /* monotonic: the outcome is given up after this */
  int64_t next_ms;    /* monotonic: the next attempt */
  int64_t backoff_ms;
} kept_end;

/* Not the store's fault: the task is already final or gone (cancelled,
 * expired), which is no reason to retry. */
static bool retryable(mcp_status st) {
  return st != MCP_OK && st != MCP_ERR_STATE && st != MCP_ERR_NOT_FOUND &&
         st != MCP_ERR_INVALID_ARG;
}

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static mcp_status write_retrying(mcp__task_runner *e, const char *id,
                                 mcp_task_status status, const char *message,
                                 const char *result, const char *error) {
  mcp_status st = MCP_OK;
  for (int i = 0; i < ATTEMPTS; i++) {
    if (i > 0)
      pause_ms(retry_pause_ms[i - 1]);
    mcp_error_t err = {0};
    st = mcp__tasks_transition_err(&e->tasks, id, status, message, result,
                                   error, NULL, &err);
    if (!retryable(st))
      return st;
    mcp__log(e->server, MCP_LOG_WARNING,
             "tasks: storing the outcome of task %s failed (attempt %d of "
             "%d): %s",
             id, i + 1, ATTEMPTS,
             err.message[0] ? err.message : mcp_strerror(st));
  }
  return st;
}

static void kept_free(kept_end *k) {
  free(k->message);
  free(k->result);
  free(k->error);
  free(k);
}

/* Unlinks k (busy, held by the caller) and frees it. */
static void kept_drop(mcp__task_runner *e, kept_end *k) {
  pthread_mutex_lock(&e->lock);
  for (kept_end **pp = &e->kept; *pp; pp = &(*pp)->next)
    if (*pp == k) {
      *pp = k->next;
      e->nkept--;
      e->kept_bytes -= k->bytes;
      break;
    }
  pthread_mutex_unlock(&e->lock);
  kept_free(k);
}

static void *outcome_main(void *arg);

/* Starts the outcome thread unless it runs. e->lock held. */
static bool outcome_thread(mcp__task_runner *e) {
  assert(mcp__mutex_held(&e->lock));
  if (!e->has_outcome_thread && !e->stopping)
    e->has_outcome_thread =
        mcp__thread_start(&e->outcome_thread, outcome_main, e) == 0;
  return e->has_outcome_thread;
}

/* Keeps task id's end in memory as failed (its outcome was given up and
 * the failed state could not be stored either). */
static void remember(mcp__task_runner *e, const char *id, mcp_status st) {
  kept_end *l = calloc(1, sizeof *l);
  kept_end *forget = NULL;
  pthread_mutex_lock(&e->lock);
  if (l) {
    snprintf(l->id, sizeof l->id, "%s", id);
    l->lost = true;
    snprintf(l->lost_message, sizeof l->lost_message,
             "Internal error: the outcome of task %.40s could not be stored "
             "(task store: %s)",
             id, mcp_strerror(st));
    l->at_ms = mcp__wall_ms();
    l->next_ms = mcp__monotonic_ms() + LOST_RETRY_MS;
    l->next = e->kept;
    e->kept = l;
    if (++e->nkept > KEPT_MAX) { /* forget the oldest idle failed end */
      kept_end **oldest = NULL;
      for (kept_end **pp = &e->kept; *pp; pp = &(*pp)->next)
        if ((*pp)->lost && !(*pp)->busy)
          oldest = pp;
      if (oldest && *oldest != l) {
        forget = *oldest;
        *oldest = forget->next;
        e->nkept--;
      }
    }
    outcome_thread(e); /* the sweeper retries too, should it not start */
  }
  e->change_seq++; /* waiters look again and find it */
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
  if (forget)
    kept_free(forget);
}

/* The outcome of task id is not stored in time: a plain failed state is
 * tried instead; when that fails too, the failed end is kept in memory. */
static mcp_status give_up(mcp__task_runner *e, const char *id,
                          mcp_task_status status, const char *result,
                          const char *error, mcp_status st) {
  mcp__log(e->server, MCP_LOG_ERROR,
           "tasks: the outcome of task %s could not be stored (%s); marking "
           "it failed",
           id, mcp_strerror(st));
  if (status != MCP_TASK_FAILED || result != NULL || error != NULL) {
    mcp_status f = write_retrying(
        e, id, MCP_TASK_FAILED,
        "The task's outcome could not be stored (task store failure)", NULL,
        NULL);
    if (!retryable(f))
      return f;
  }
  mcp__log(e->server, MCP_LOG_ERROR,
           "tasks: task %s cannot be marked failed either (%s); its waiters "
           "get an error",
           id, mcp_strerror(st));
  remember(e, id, st);
  return st;
}

static char *copy(const char *s, bool *ok) {
  char *c = s ? strdup(s) : NULL;
  if (s && c == NULL)
    *ok = false;
  return c;
}

/* Keeps the outcome for the outcome thread; false when it cannot (no retry
 * time configured, the server stops, the memory for kept outcomes is used
 * up): the caller then gives it up. */
static bool keep(mcp__task_runner *e, const char *id, mcp_task_status status,
                 const char *message, const char *result, const char *error,
                 mcp_status st) {
  int64_t keep_ms = e->opts.outcome_retry_ms;
  if (keep_ms <= 0)
    return false;
  kept_end *k = calloc(1, sizeof *k);
  bool ok = k != NULL;
  if (ok) {
    snprintf(k->id, sizeof k->id, "%s", id);
    k->status = status;
    k->message = copy(message, &ok);
    k->result = copy(result, &ok);
    k->error = copy(error, &ok);
    k->bytes = sizeof *k + (message ? strlen(message) : 0) +
               (result ? strlen(result) : 0) + (error ? strlen(error) : 0);
    k->at_ms = mcp__wall_ms();
    k->backoff_ms = BACKOFF_FIRST_MS;
    k->next_ms = mcp__monotonic_ms() + k->backoff_ms;
    k->give_up_ms = mcp__monotonic_ms() + keep_ms;
  }
  const char *why = ok ? NULL : "out of memory";
  pthread_mutex_lock(&e->lock);
  if (why == NULL && (e->nkept >= KEPT_MAX ||
                      e->kept_bytes + k->bytes > KEPT_BYTES_MAX))
    why = "too many outcomes are waiting for the store already";
  if (why == NULL && !outcome_thread(e))
    why = e->stopping ? "the server is stopping" : "no thread to retry it";
  if (why == NULL) {
    k->next = e->kept;
    e->kept = k;
    e->nkept++;
    e->kept_bytes += k->bytes;
    pthread_cond_broadcast(&e->outcome_wake);
  }
  pthread_mutex_unlock(&e->lock);
  if (why != NULL) {
    mcp__log(e->server, MCP_LOG_ERROR,
             "tasks: the outcome of task %s cannot be kept for a later "
             "attempt (%s)",
             id, why);
    if (k)
      kept_free(k);
    return false;
  }
  mcp__log(e->server, MCP_LOG_WARNING,
           "tasks: the outcome of task %s could not be stored (%s); kept in "
           "memory and retried for up to %lld s",
           id, mcp_strerror(st), (long long)((keep_ms + 999) / 1000));
  return true;
}

mcp_status mcp__runner_store_outcome(mcp__task_runner *e, const char *id,
                                     mcp_task_status status,
                                     const char *message, const char *result,
                                     const char *error) {
  mcp_status st = write_retrying(e, id, status, message, result, error);
  if (!retryable(st))
    return st;
  if (keep(e, id, status, message, result, error, st))
    return st; /* not stored yet: the outcome thread goes on */
  return give_up(e, id, status, result, error, st);
}

/* The JSON-RPC error a failed task with this message replays (malloc'd). */
static char *error_text(const char *message) {
  json_t *err = json_pack("{s:i,s:s}", "code", MCP_RPC_INTERNAL_ERROR,
                          "message", message);
  char *text = err ? json_dumps(err, JSON_COMPACT) : NULL;
  json_decref(err);
  return text;
}

/* One attempt at storing kept end k (busy, held by the caller): unlinks it
 * once stored or moot, or gives its outcome up when its time is up (always
 * when final: the server stops), else schedules the next attempt. */
static void attempt(mcp__task_runner *e, kept_end *k, bool final) {
  mcp_error_t err = {0};
  mcp_status st;
  if (k->lost) {
    char *text = error_text(k->lost_message);
    st = text ? mcp__tasks_transition_err(&e->tasks, k->id, MCP_TASK_FAILED,
                                          k->lost_message, NULL, text, NULL,
                                          &err)
              : MCP_ERR_NOMEM;
    free(text);
  } else {
    st = mcp__tasks_transition_err(&e->tasks, k->id, k->status, k->message,
                                   k->result, k->error, NULL, &err);
  }
  if (!retryable(st)) {
    if (st == MCP_OK)
      mcp__log(e->server, MCP_LOG_NOTICE,
               k->lost ? "tasks: the failed state of task %s is now stored"
                       : "tasks: the outcome of task %s is now stored",
               k->id);
    else /* ended meanwhile (cancelled, failed by a lease) or gone */
      mcp__log(e->server, MCP_LOG_WARNING,
               "tasks: the kept outcome of task %s was not stored: %s", k->id,
               mcp_strerror(st));
    kept_drop(e, k);
    return;
  }
  int64_t now = mcp__monotonic_ms();
  if (final || (!k->lost && now >= k->give_up_ms)) {
    if (!k->lost && final)
      mcp__log(e->server, MCP_LOG_ERROR,
               "tasks: stopping: the outcome of task %s could not be stored "
               "(%s); the task stays working in the store until its lease "
               "lapses or the next start fails it",
               k->id, err.message[0] ? err.message : mcp_strerror(st));
    else if (!k->lost)
      give_up(e, k->id, k->status, k->result, k->error, st);
    kept_drop(e, k);
    return;
  }
  pthread_mutex_lock(&e->lock);
  if (k->lost) {
    k->next_ms = now + LOST_RETRY_MS;
  } else {
    k->backoff_ms = k->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS
                                                       : k->backoff_ms * 2;
    k->next_ms = now + k->backoff_ms;
  }
  k->busy = false;
  pthread_mutex_unlock(&e->lock);
}

/* Tries every kept end (due ones only when due_only) once. */
static void retry_pass(mcp__task_runner *e, bool due_only, bool final) {
  kept_end **items = NULL;
  size_t n = 0;
  pthread_mutex_lock(&e->lock);
  int64_t now = mcp__monotonic_ms();
  if (e->nkept > 0 && (items = calloc(e->nkept, sizeof *items)) != NULL)
    for (kept_end *k = e->kept; k && n < e->nkept; k = k->next)
      if (!k->busy && (!due_only || k->next_ms <= now)) {
        k->busy = true;
        items[n++] = k;
      }
  pthread_mutex_unlock(&e->lock);
  for (size_t i = 0; i < n; i++)
    attempt(e, items[i], final);
  free(items);
}

static void *outcome_main(void *arg) {
  mcp__task_runner *e = arg;
  pthread_mutex_lock(&e->lock);
  while (!e->stopping) {
    int64_t due = INT64_MAX, now = mcp__monotonic_ms();
    for (kept_end *k = e->kept; k; k = k->next)
      if (!k->busy && k->next_ms < due)
        due = k->next_ms;
    if (due > now) {
      mcp__runner_wait_ms(&e->outcome_wake, &e->lock,
                          due == INT64_MAX ? 60000 : due - now);
      continue;
    }
    pthread_mutex_unlock(&e->lock);
    retry_pass(e, true, false);
    pthread_mutex_lock(&e->lock);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

bool mcp__runner_lost_end(mcp__task_runner *e, const char *id, char msg[200],
                          int64_t *at_ms) {
  bool found = false;
  pthread_mutex_lock(&e->lock);
  for (kept_end *l = e->kept; l && !found; l = l->next)
    if (l->lost && strcmp(l->id, id) == 0) {
      memcpy(msg, l->lost_message, sizeof l->lost_message);
      *at_ms = l->at_ms;
      found = true;
    }
  pthread_mutex_unlock(&e->lock);
  return found;
}

void mcp__runner_overlay_lost(mcp__task_runner *e, mcp_task_record *rec) {
  if (mcp_task_status_is_terminal(rec->status))
    return;
  char msg[sizeof((kept_end *)0)->lost_message];
  int64_t at = 0;
  if (!mcp__runner_lost_end(e, rec->task_id, msg, &at))
    return;
  char *m = strdup(msg), *err = error_text(msg);
  if (m == NULL || err == NULL) { /* keep the record as it is */
    free(m);
    free(err);
    return;
  }
  free(rec->status_message);
  free(rec->error);
  free(rec->result);
  rec->status = MCP_TASK_FAILED;
  rec->status_message = m;
  rec->error = err;
  rec->result = NULL;
  rec->updated_ms = at;
}

void mcp__runner_retry_lost(mcp__task_runner *e) {
  retry_pass(e, false, false);
}

void mcp__runner_outcomes_stop(mcp__task_runner *e) {
  pthread_mutex_lock(&e->lock);
  bool joined = e->has_outcome_thread;
  e->has_outcome_thread = false;
  pthread_cond_broadcast(&e->outcome_wake);
  pthread_mutex_unlock(&e->lock);
  if (joined)
    pthread_join(e->outcome_thread, NULL);
  retry_pass(e, false, true); /* a last attempt at what is still kept */
}

void mcp__runner_lost_clear(mcp__task_runner *e) {
  for (kept_end *l = e->kept, *next; l; l = next) {
    next = l->next;
    kept_free(l);
  }
  e->kept = NULL;
  e->nkept = 0;
  e->kept_bytes = 0;
}
