/* SPDX-License-Identifier: MIT */
/* replay_record.c - the replicas' shared DPoP replay record
 * (mcp__auth_set_jti_recorder: an INSERT on PostgreSQL) told off the
 * network threads. An admission whose proof and token passed queues its
 * record here and its request is parked (MCP__ADMIT_PENDING); a recorder
 * thread (at most MCP__RECORDERS) makes the call and the answer resumes
 * the request.
 *
 * Each record must be answered by its deadline
 * (MCP__REPLAY_RECORD_DEADLINE_MS after it was queued), also when the
 * database stops answering without closing its connections (a paused
 * server, a network black hole): the call gets what is left of that budget
 * and the PostgreSQL record gives up by then (pg_pool's deadline), so a
 * thread is never held longer and mcp_auth_free / a server's stop wait for
 * a record at most that long. A record whose deadline passed in the queue
 * is answered without a call. A failure backs the record off (1 s,
 * doubling to 30 s): meanwhile proofs that need it get a 503 at once. A
 * record is never taken as done without the database's answer: a proof the
 * other replicas could not learn of is refused. */
#include <stdlib.h>
#include <string.h>

#include "auth/auth_internal.h"
#include "util/clock.h"
#include "util/thread.h"

#define REPLAY_RECORD_QUEUE_MAX 256
#define REPLAY_RECORD_BACKOFF_FIRST_MS 1000
#define REPLAY_RECORD_BACKOFF_MAX_MS 30000

enum { REC_QUEUED = 1, REC_RUNNING, REC_ANSWERED };

void mcp__replay_record_init(mcp_auth_t *a) {
  pthread_mutex_init(&a->rec_lock, NULL);
  pthread_cond_init(&a->rec_wake, NULL);
  pthread_cond_init(&a->rec_idle_cv, NULL);
}

/* Removes w from the list at *head (linked through rec_next). */
static bool unlink_from(mcp__auth_wait **head, mcp__auth_wait *w) {
  for (mcp__auth_wait **p = head; *p; p = &(*p)->rec_next)
    if (*p == w) {
      *p = w->rec_next;
      w->rec_next = NULL;
      return true;
    }
  return false;
}

static void unlink_queued(mcp_auth_t *a, mcp__auth_wait *w) {
  if (unlink_from(&a->rec_queue, w)) {
    a->rec_queued--;
    a->rec_queue_tail = NULL;
    for (mcp__auth_wait *q = a->rec_queue; q; q = q->rec_next)
      a->rec_queue_tail = q;
  }
}

static void *recorder_main(void *arg) {
  mcp_auth_t *a = arg;
  pthread_mutex_lock(&a->rec_lock);
  while (!a->rec_stop) {
    mcp__auth_wait *w = a->rec_queue;
    if (w == NULL) {
      a->rec_idle++;
      pthread_cond_wait(&a->rec_wake, &a->rec_lock);
      a->rec_idle--;
      continue;
    }
    a->rec_queue = w->rec_next;
    if (a->rec_queue == NULL)
      a->rec_queue_tail = NULL;
    a->rec_queued--;
    w->rec_state = REC_RUNNING;
    w->rec_next = a->rec_running;
    a->rec_running = w;
    a->rec_busy++;
    /* w may be taken back and freed by its owner while the call runs
     * (mcp__replay_record_cancel): keep what the call needs, find w again
     * by its id */
    uint64_t id = w->rec_id;
    mcp__dpop_record rec = w->rec;
    int64_t now = mcp__monotonic_ms();
    int64_t budget = w->rec_deadline_ms - now;
    bool backed_off = mcp__backoff_active(&a->rec_backoff);
    pthread_mutex_unlock(&a->rec_lock);

    mcp_status st = MCP_ERR_IO;
    if (!backed_off && budget <= 0) {
      st = MCP_ERR_TIMEOUT; /* the queue took its time: the database lags */
    } else if (!backed_off) {
      pthread_mutex_lock(&a->dpop_lock);
      mcp__jti_recorder_fn fn = a->jti_record;
      void *ctx = a->jti_record_ctx;
      pthread_mutex_unlock(&a->dpop_lock);
      st = fn ? fn(ctx, rec.key, rec.until_s * 1000, rec.now_s * 1000, budget,
                   NULL)
              : MCP_OK; /* none any more: nothing to tell */
    }

    pthread_mutex_lock(&a->rec_lock);
    a->rec_busy--;
    if (a->rec_busy == 0)
      pthread_cond_broadcast(&a->rec_idle_cv);
    if (st != MCP_OK && st != MCP_ERR_EXISTS && !backed_off)
      mcp__backoff_fail(&a->rec_backoff, REPLAY_RECORD_BACKOFF_FIRST_MS,
                        REPLAY_RECORD_BACKOFF_MAX_MS);
    else if (st == MCP_OK || st == MCP_ERR_EXISTS)
      mcp__backoff_reset(&a->rec_backoff);
    mcp__auth_wait *mine = NULL;
    for (mcp__auth_wait *r = a->rec_running; r; r = r->rec_next)
      if (r->rec_id == id)
        mine = r;
    if (mine) { /* still waited for: the answer */
      unlink_from(&a->rec_running, mine);
      mine->rec_state = REC_ANSWERED;
      mine->rec_status = st;
      mine->retry_after_s = st == MCP_OK || st == MCP_ERR_EXISTS
                                ? 0
                                : mcp__backoff_retry_after_s(&a->rec_backoff);
      mcp__auth_ready_fn ready = mine->ready;
      void *ctx = mine->ctx;
      pthread_mutex_unlock(&a->rec_lock);
      ready(ctx);
      pthread_mutex_lock(&a->rec_lock);
    }
  }
  pthread_mutex_unlock(&a->rec_lock);
  return NULL;
}

bool mcp__replay_record_queue(mcp_auth_t *a, mcp__auth_wait *w,
                              unsigned *retry_after_s) {
  *retry_after_s = 1;
  pthread_mutex_lock(&a->rec_lock);
  bool ok = false;
  if (a->rec_stop || a->rec_queued >= REPLAY_RECORD_QUEUE_MAX) {
    /* refused: 503 */
  } else if (mcp__backoff_active(&a->rec_backoff)) {
    *retry_after_s = mcp__backoff_retry_after_s(&a->rec_backoff);
  } else {
    if (a->rec_queued >= a->rec_idle && a->rec_threads < MCP__RECORDERS &&
        mcp__thread_start(&a->rec_thread[a->rec_threads], recorder_main,
                          a) == 0)
      a->rec_threads++;
    ok = a->rec_threads > 0;
  }
  if (ok) {
    w->recording = true;
    w->rec_state = REC_QUEUED;
    w->rec_id = ++a->rec_ids;
    w->rec_deadline_ms = mcp__monotonic_ms() + MCP__REPLAY_RECORD_DEADLINE_MS;
    w->rec_next = NULL;
    if (a->rec_queue_tail)
      a->rec_queue_tail->rec_next = w;
    else
      a->rec_queue = w;
    a->rec_queue_tail = w;
    a->rec_queued++;
    pthread_cond_signal(&a->rec_wake);
  }
  pthread_mutex_unlock(&a->rec_lock);
  return ok;
}

mcp_status mcp__replay_record_take(mcp_auth_t *a, mcp__auth_wait *w,
                                   unsigned *retry_after_s) {
  pthread_mutex_lock(&a->rec_lock);
  mcp_status st = w->rec_state == REC_ANSWERED ? w->rec_status : MCP_ERR_IO;
  *retry_after_s = w->retry_after_s ? w->retry_after_s : 1;
  w->recording = false;
  pthread_mutex_unlock(&a->rec_lock);
  return st;
}

bool mcp__replay_record_cancel(mcp_auth_t *a, mcp__auth_wait *w) {
  pthread_mutex_lock(&a->rec_lock);
  bool taken = false;
  if (w->rec_state == REC_QUEUED) {
    unlink_queued(a, w);
    taken = true;
  } else if (w->rec_state == REC_RUNNING) {
    /* its thread finds no one waiting by this id */
    taken = unlink_from(&a->rec_running, w);
  }
  if (taken)
    w->rec_state = REC_ANSWERED;
  pthread_mutex_unlock(&a->rec_lock);
  return taken;
}

void mcp__replay_record_quiesce(mcp_auth_t *a) {
  pthread_mutex_lock(&a->rec_lock);
  while (a->rec_busy > 0)
    pthread_cond_wait(&a->rec_idle_cv, &a->rec_lock);
  pthread_mutex_unlock(&a->rec_lock);
}

void mcp__replay_record_fini(mcp_auth_t *a) {
  pthread_mutex_lock(&a->rec_lock);
  a->rec_stop = true;
  pthread_cond_broadcast(&a->rec_wake);
  unsigned n = a->rec_threads;
  pthread_mutex_unlock(&a->rec_lock);
  /* a thread in a record returns by the record's deadline */
  for (unsigned i = 0; i < n; i++)
    pthread_join(a->rec_thread[i], NULL);
  /* records no thread took: refused */
  pthread_mutex_lock(&a->rec_lock);
  mcp__auth_wait *left = a->rec_queue;
  a->rec_queue = a->rec_queue_tail = NULL;
  for (mcp__auth_wait *w = left; w; w = w->rec_next) {
    w->rec_state = REC_ANSWERED;
    w->rec_status = MCP_ERR_CLOSED;
  }
  pthread_mutex_unlock(&a->rec_lock);
  for (mcp__auth_wait *w = left, *next; w; w = next) {
    next = w->rec_next;
    w->ready(w->ctx);
  }
  pthread_cond_destroy(&a->rec_wake);
  pthread_cond_destroy(&a->rec_idle_cv);
  pthread_mutex_destroy(&a->rec_lock);
}
