/* SPDX-License-Identifier: MIT */
/* outcome.c - writing a task's final state when the store fails (issue #16
 * item 9). A failed write is retried (SQLITE_BUSY, a full disk that frees
 * up); when the outcome still cannot be stored, a plain "failed" state is
 * tried (a much smaller write); when that fails too, the engine keeps the
 * task's end in memory: failed, with a clear statusMessage and error. Every
 * read of the task through the engine (tasks/get, tasks/list, tasks/result, the
 * 2026-07-28 extension's tasks/get) sees that instead of the "working" the
 * store still holds (mcp__engine_overlay_lost), until the sweeper manages
 * to store it (mcp__engine_retry_lost) or the process ends. Every failure
 * is logged.
 */
#include "tasks/engine_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"

/* Attempts of a final write and the pause before each retry (ms). */
static const int retry_pause_ms[] = {10, 50, 200};
#define ATTEMPTS (1 + (int)(sizeof retry_pause_ms / sizeof retry_pause_ms[0]))
/* Remembered lost outcomes at most (the oldest are forgotten first). */
#define LOST_MAX 1024

typedef struct lost_outcome {
  struct lost_outcome *next;
  char id[40];
  char message[200];
  int64_t at_ms; /* wall clock: when the task ended */
} lost_outcome;

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

static mcp_status write_retrying(mcp__task_engine *e, const char *id,
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

static void remember(mcp__task_engine *e, const char *id, mcp_status st) {
  lost_outcome *l = calloc(1, sizeof *l);
  pthread_mutex_lock(&e->lock);
  if (l) {
    snprintf(l->id, sizeof l->id, "%s", id);
    snprintf(l->message, sizeof l->message,
             "Internal error: the outcome of task %.40s could not be stored "
             "(task store: %s)",
             id, mcp_strerror(st));
    l->at_ms = mcp__wall_ms();
    l->next = e->lost;
    e->lost = l;
    if (++e->nlost > LOST_MAX) { /* forget the oldest */
      lost_outcome **pp = &e->lost;
      while ((*pp)->next)
        pp = &(*pp)->next;
      free(*pp);
      *pp = NULL;
      e->nlost--;
    }
  }
  e->change_seq++; /* waiters look again and find it */
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
}

mcp_status mcp__engine_store_outcome(mcp__task_engine *e, const char *id,
                                     mcp_task_status status,
                                     const char *message, const char *result,
                                     const char *error) {
  mcp_status st = write_retrying(e, id, status, message, result, error);
  if (!retryable(st))
    return st;
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

/* The JSON-RPC error a failed task with this message replays (malloc'd). */
static char *error_text(const char *message) {
  json_t *err = json_pack("{s:i,s:s}", "code", MCP_RPC_INTERNAL_ERROR,
                          "message", message);
  char *text = err ? json_dumps(err, JSON_COMPACT) : NULL;
  json_decref(err);
  return text;
}

bool mcp__engine_lost_end(mcp__task_engine *e, const char *id, char msg[200],
                          int64_t *at_ms) {
  bool found = false;
  pthread_mutex_lock(&e->lock);
  for (lost_outcome *l = e->lost; l && !found; l = l->next)
    if (strcmp(l->id, id) == 0) {
      memcpy(msg, l->message, sizeof l->message);
      *at_ms = l->at_ms;
      found = true;
    }
  pthread_mutex_unlock(&e->lock);
  return found;
}

void mcp__engine_overlay_lost(mcp__task_engine *e, mcp_task_record *rec) {
  if (mcp_task_status_is_terminal(rec->status))
    return;
  char msg[sizeof((lost_outcome *)0)->message];
  int64_t at = 0;
  if (!mcp__engine_lost_end(e, rec->task_id, msg, &at))
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

void mcp__engine_retry_lost(mcp__task_engine *e) {
  typedef struct {
    char id[40];
    char message[200];
  } item;
  item *items = NULL;
  size_t n = 0;
  pthread_mutex_lock(&e->lock);
  if (e->nlost > 0 && (items = calloc(e->nlost, sizeof *items)) != NULL)
    for (lost_outcome *l = e->lost; l; l = l->next, n++) {
      memcpy(items[n].id, l->id, sizeof l->id);
      memcpy(items[n].message, l->message, sizeof l->message);
    }
  pthread_mutex_unlock(&e->lock);
  for (size_t i = 0; i < n; i++) {
    char *err = error_text(items[i].message);
    if (err == NULL)
      continue;
    mcp_status st =
        mcp__tasks_transition(&e->tasks, items[i].id, MCP_TASK_FAILED,
                              items[i].message, NULL, err, NULL);
    free(err);
    if (retryable(st))
      continue; /* the store still refuses it: next sweep */
    if (st == MCP_OK)
      mcp__log(e->server, MCP_LOG_NOTICE,
               "tasks: the failed state of task %s is now stored", items[i].id);
    pthread_mutex_lock(&e->lock);
    for (lost_outcome **pp = &e->lost; *pp; pp = &(*pp)->next)
      if (strcmp((*pp)->id, items[i].id) == 0) {
        lost_outcome *gone = *pp;
        *pp = gone->next;
        free(gone);
        e->nlost--;
        break;
      }
    pthread_mutex_unlock(&e->lock);
  }
  free(items);
}

void mcp__engine_lost_clear(mcp__task_engine *e) {
  for (lost_outcome *l = e->lost, *next; l; l = next) {
    next = l->next;
    free(l);
  }
  e->lost = NULL;
  e->nlost = 0;
}
