/* SPDX-License-Identifier: MIT */
/* introspect.c - opaque access tokens through RFC 7662 token introspection,
 * with a bounded cache keyed by the token's SHA-256 (the token itself is
 * not kept). Only active answers are cached, never past the token's exp.
 *
 * Introspection requests run on a few introspection threads of the
 * mcp_auth_t (at most MCP__INTROSPECTORS, started as needed), never on the
 * caller's: a transport's network loop that meets a token the cache does
 * not hold parks that request and serves its other connections; the
 * answer resumes it. One job per distinct token in flight (requests with
 * the same token wait for the same answer), at most INTROSPECT_JOBS_MAX
 * jobs (more: 503 at once), each under one overall deadline from when it
 * was asked (queueing, discovery of the endpoint and the transfer), below
 * the HTTP transport's request deadline (10 s by default). A failed or
 * hanging endpoint is backed off (1 s, doubling to 30 s): meanwhile tokens
 * the cache does not hold get MCP__TOKEN_UNAVAILABLE (503 with
 * Retry-After) at once, and queued jobs end without a transfer. */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/auth_internal.h"
#include "auth/fetch.h"
#include "util/clock.h"
#include "util/form.h"
#include "util/thread.h"

#define INTROSPECT_DEADLINE_MS 4000
#define INTROSPECT_JOBS_MAX 64
#define INTROSPECT_BACKOFF_FIRST_MS 1000
#define INTROSPECT_BACKOFF_MAX_MS 30000

static bool principal_copy(mcp__principal *dst, const mcp__principal *src) {
  dst->subject = strdup(src->subject);
  dst->scopes = strdup(src->scopes);
  dst->exp = src->exp;
  dst->jkt = src->jkt ? strdup(src->jkt) : NULL;
  if (dst->subject && dst->scopes && (src->jkt == NULL || dst->jkt))
    return true;
  mcp__principal_clear(dst);
  return false;
}

static bool cache_get(mcp_auth_t *a, const unsigned char key[32],
                      mcp__principal *out) {
  bool hit = false;
  int64_t now = mcp__monotonic_ms();
  pthread_mutex_lock(&a->cache_lock);
  for (size_t i = 0; i < a->cache_max && a->cache; i++) {
    mcp__icache_entry *e = &a->cache[i];
    if (!e->used || memcmp(e->key, key, 32) != 0)
      continue;
    if (now >= e->expires_ms) {
      e->used = false;
      mcp__principal_clear(&e->p);
    } else {
      hit = principal_copy(out, &e->p);
    }
    break;
  }
  pthread_mutex_unlock(&a->cache_lock);
  return hit;
}

/* Stores p for ttl_ms: a free or expired slot, else the one expiring
 * first. */
static void cache_put(mcp_auth_t *a, const unsigned char key[32],
                      const mcp__principal *p, int64_t ttl_ms) {
  if (a->cache_max == 0 || ttl_ms <= 0)
    return;
  int64_t now = mcp__monotonic_ms();
  pthread_mutex_lock(&a->cache_lock);
  if (a->cache == NULL)
    a->cache = calloc(a->cache_max, sizeof *a->cache);
  mcp__icache_entry *slot = NULL;
  for (size_t i = 0; a->cache && i < a->cache_max; i++) {
    mcp__icache_entry *e = &a->cache[i];
    if (!e->used || now >= e->expires_ms) {
      slot = e;
      break;
    }
    if (slot == NULL || e->expires_ms < slot->expires_ms)
      slot = e;
  }
  if (slot) {
    mcp__principal_clear(&slot->p);
    slot->used = principal_copy(&slot->p, p);
    memcpy(slot->key, key, 32);
    slot->expires_ms = now + ttl_ms;
  }
  pthread_mutex_unlock(&a->cache_lock);
}

void mcp__icache_free(mcp_auth_t *a) {
  for (size_t i = 0; a->cache && i < a->cache_max; i++)
    mcp__principal_clear(&a->cache[i].p);
  free(a->cache);
  a->cache = NULL;
}

static mcp__verdict judge(mcp_auth_t *a, const json_t *doc, int64_t now_s,
                          mcp__principal *out, mcp_error_t *err) {
  if (!json_is_true(json_object_get(doc, "active"))) {
    mcp_error_set(err, MCP_ERR_PEER, "the token is not active");
    return MCP__TOKEN_INVALID;
  }
  const char *iss = json_string_value(json_object_get(doc, "iss"));
  const json_t *exp = json_object_get(doc, "exp");
  const char *sub = json_string_value(json_object_get(doc, "sub"));
  if (sub == NULL)
    sub = json_string_value(json_object_get(doc, "username"));
  const char *scope = json_string_value(json_object_get(doc, "scope"));
  const char *why = NULL;
  if (a->issuer && iss && strcmp(iss, a->issuer) != 0)
    why = "the token was issued by another issuer";
  /* RFC 7662: "aud" is optional; the server vouches for the token */
  else if (json_object_get(doc, "aud") != NULL &&
           !mcp__aud_names(json_object_get(doc, "aud"), a->resource))
    why = "the token is for another audience";
  else if (exp && (!json_is_number(exp) ||
                   (double)now_s > json_number_value(exp) + a->leeway_s))
    why = "the token expired";
  else if (sub == NULL || sub[0] == '\0')
    why = "the token has no subject";
  if (why) {
    mcp_error_set(err, MCP_ERR_PEER, "%s", why);
    return MCP__TOKEN_INVALID;
  }
  out->subject = strdup(sub);
  out->scopes = strdup(scope ? scope : "");
  out->exp = exp ? mcp__numeric_date(json_number_value(exp)) : 0;
  const char *jkt =
      json_string_value(json_object_get(json_object_get(doc, "cnf"), "jkt"));
  out->jkt = jkt ? strdup(jkt) : NULL;
  if (out->subject == NULL || out->scopes == NULL ||
      (jkt != NULL && out->jkt == NULL)) {
    mcp__principal_clear(out);
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    return MCP__TOKEN_UNAVAILABLE;
  }
  return MCP__TOKEN_OK;
}

/* ---- jobs ---------------------------------------------------------------- */

/* One token being introspected, and the admissions waiting for it. */
typedef struct mcp__intro_job {
  struct mcp__intro_job *next; /* in the queue or the running list */
  unsigned char key[32];
  char *token; /* wiped and freed once sent */
  int64_t deadline_ms;
  mcp__auth_wait *waiters;
} mcp__intro_job;

static void wipe_free(char *s) {
  if (s) {
    memset(s, 0, strlen(s));
    free(s);
  }
}

/* The endpoint failed (no answer in time, a transport error, not a 200
 * with a JSON object): no introspection before the backoff ends. intro_lock
 * held. */
static void back_off(mcp_auth_t *a, const char *why) {
  if (mcp__backoff_active(&a->intro_backoff))
    return; /* transfers of the same outage: one failure */
  mcp__backoff_fail(&a->intro_backoff, INTROSPECT_BACKOFF_FIRST_MS,
                    INTROSPECT_BACKOFF_MAX_MS);
  snprintf(a->intro_error, sizeof a->intro_error, "%.*s",
           (int)sizeof a->intro_error - 1, why); /* cut to fit */
}

/* Introspects job's token (an introspection thread, no lock). *failed: the
 * endpoint failed (for the backoff). */
static mcp__verdict introspect_now(mcp_auth_t *a, const mcp__intro_job *job,
                                   mcp__principal *out, mcp_error_t *err,
                                   bool *failed) {
  *failed = false;
  const char *endpoint = mcp__auth_introspection_endpoint(a, job->deadline_ms);
  if (endpoint == NULL) {
    pthread_mutex_lock(&a->keys_lock);
    bool discovered = a->discovered;
    pthread_mutex_unlock(&a->keys_lock);
    if (discovered) {
      mcp_error_set(err, MCP_ERR_PEER, "the token is not a JWT");
      return MCP__TOKEN_INVALID;
    }
    mcp_error_set(err, MCP_ERR_IO, "the introspection endpoint is not known "
                                   "yet (issuer discovery)");
    return MCP__TOKEN_UNAVAILABLE;
  }
  int64_t left = job->deadline_ms - mcp__monotonic_ms();
  if (left <= 0) {
    mcp_error_set(err, MCP_ERR_TIMEOUT, "introspection: no time left");
    return MCP__TOKEN_UNAVAILABLE;
  }
  /* RFC 7662 2.1. Room for all of it first: a buffer that grew would
   * leave a copy of the token behind in freed memory. */
  static const char hint[] = "&token_type_hint=access_token";
  mcp__buf fb;
  mcp__buf_init(&fb);
  if (!mcp__buf_reserve(&fb, sizeof "token=" + 3 * strlen(job->token) +
                                 sizeof hint) ||
      !mcp__form_append(&fb, "token", job->token) ||
      !mcp__buf_append(&fb, hint, sizeof hint - 1)) {
    wipe_free(fb.data);
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    return MCP__TOKEN_UNAVAILABLE;
  }
  char *form = fb.data; /* wiped and freed below: it holds the token */
  mcp__fetch_request req = {endpoint,         form,      a->client_id,
                            a->client_secret, a->cainfo, (long)left,
                            &a->intro_cancel};
  long status = 0;
  char *body = NULL;
  size_t len = 0;
  mcp_status s = mcp__fetch(&req, &status, &body, &len, err);
  wipe_free(form);
  if (s != MCP_OK) {
    *failed = s != MCP_ERR_CANCELLED && s != MCP_ERR_NOMEM;
    return MCP__TOKEN_UNAVAILABLE;
  }
  json_t *doc = status == 200 ? json_loadb(body, len, 0, NULL) : NULL;
  free(body);
  if (!json_is_object(doc)) {
    json_decref(doc);
    mcp_error_set(err, MCP_ERR_IO, "introspection failed (HTTP %ld)", status);
    *failed = true;
    return MCP__TOKEN_UNAVAILABLE;
  }
  int64_t now_s = (int64_t)time(NULL);
  mcp__verdict v = judge(a, doc, now_s, out, err);
  json_decref(doc);
  if (v == MCP__TOKEN_OK) {
    int64_t ttl = (int64_t)a->cache_ttl_s * 1000;
    if (out->exp && (out->exp - now_s) * 1000 < ttl)
      ttl = (out->exp - now_s) * 1000;
    cache_put(a, job->key, out, ttl);
  }
  return v;
}

/* Gives each waiter of job the answer; intro_lock held. The waiters that
 * have a ready callback are returned (linked through next) to be called
 * without the lock; blocked callers are woken. */
static mcp__auth_wait *answer_waiters(mcp_auth_t *a, mcp__intro_job *job,
                                      mcp__verdict v, const mcp__principal *p,
                                      const char *why, unsigned retry_s) {
  mcp__auth_wait *ready = NULL;
  for (mcp__auth_wait *w = job->waiters, *next; w; w = next) {
    next = w->next;
    w->job = NULL;
    w->verdict = v;
    w->retry_after_s = retry_s;
    snprintf(w->why, sizeof w->why, "%.*s", (int)sizeof w->why - 1, why);
    if (v == MCP__TOKEN_OK && !principal_copy(&w->p, p)) {
      w->verdict = MCP__TOKEN_UNAVAILABLE;
      w->retry_after_s = 1;
      snprintf(w->why, sizeof w->why, "out of memory");
    }
    w->done = true;
    if (w->ready) {
      w->next = ready;
      ready = w;
    } else {
      w->next = NULL;
    }
  }
  job->waiters = NULL;
  pthread_cond_broadcast(&a->intro_done);
  return ready;
}

/* Calls the ready callbacks (no lock): each waiter's fields are read
 * before its callback, after which its owner may free it. */
static void call_ready(mcp__auth_wait *w) {
  while (w) {
    mcp__auth_wait *next = w->next;
    mcp__auth_ready_fn fn = w->ready;
    void *ctx = w->ctx;
    fn(ctx);
    w = next;
  }
}

static void unlink_running(mcp_auth_t *a, mcp__intro_job *job) {
  for (mcp__intro_job **p = &a->intro_running; *p; p = &(*p)->next)
    if (*p == job) {
      *p = job->next;
      break;
    }
}

static void *intro_main(void *arg) {
  mcp_auth_t *a = arg;
  pthread_mutex_lock(&a->intro_lock);
  while (!a->intro_stop) {
    mcp__intro_job *job = a->intro_queue;
    if (job == NULL) {
      a->intro_idle++;
      pthread_cond_wait(&a->intro_wake, &a->intro_lock);
      a->intro_idle--;
      continue;
    }
    a->intro_queue = job->next;
    if (a->intro_queue == NULL)
      a->intro_queue_tail = NULL;
    a->intro_queued--;
    job->next = a->intro_running;
    a->intro_running = job;
    /* the endpoint failed while this job waited: no transfer */
    bool backed_off = mcp__backoff_active(&a->intro_backoff);
    mcp_error_t err;
    memset(&err, 0, sizeof err);
    if (backed_off)
      mcp_error_set(&err, MCP_ERR_IO, "introspection unavailable: %s",
                    a->intro_error);
    pthread_mutex_unlock(&a->intro_lock);

    mcp__principal p = {0};
    bool failed = false;
    mcp__verdict v = backed_off ? MCP__TOKEN_UNAVAILABLE
                                : introspect_now(a, job, &p, &err, &failed);
    wipe_free(job->token);
    job->token = NULL;

    pthread_mutex_lock(&a->intro_lock);
    if (failed)
      back_off(a, err.message[0] ? err.message : "introspection failed");
    else if (v == MCP__TOKEN_OK || v == MCP__TOKEN_INVALID)
      mcp__backoff_reset(&a->intro_backoff); /* the endpoint answered */
    unlink_running(a, job);
    a->intro_jobs--;
    unsigned retry_s = v != MCP__TOKEN_UNAVAILABLE ? 0
                       : mcp__backoff_active(&a->intro_backoff) ? mcp__backoff_retry_after_s(&a->intro_backoff)
                                                      : 1;
    mcp__auth_wait *ready =
        answer_waiters(a, job, v, &p, err.message, retry_s);
    pthread_mutex_unlock(&a->intro_lock);
    call_ready(ready);
    mcp__principal_clear(&p);
    free(job);
    pthread_mutex_lock(&a->intro_lock);
  }
  pthread_mutex_unlock(&a->intro_lock);
  return NULL;
}

void mcp__introspect_init(mcp_auth_t *a) {
  pthread_mutex_init(&a->intro_lock, NULL);
  pthread_cond_init(&a->intro_wake, NULL);
  pthread_cond_init(&a->intro_done, NULL);
  atomic_init(&a->intro_cancel, false);
}

void mcp__introspect_fini(mcp_auth_t *a) {
  pthread_mutex_lock(&a->intro_lock);
  a->intro_stop = true;
  atomic_store(&a->intro_cancel, true); /* ends transfers under way */
  pthread_cond_broadcast(&a->intro_wake);
  unsigned n = a->intro_threads;
  pthread_mutex_unlock(&a->intro_lock);
  for (unsigned i = 0; i < n; i++)
    pthread_join(a->intro_thread[i], NULL);
  /* jobs no thread took: their waiters get no answer from the endpoint */
  pthread_mutex_lock(&a->intro_lock);
  mcp__intro_job *jobs = a->intro_queue;
  a->intro_queue = a->intro_queue_tail = NULL;
  mcp__auth_wait *ready = NULL;
  for (mcp__intro_job *j = jobs; j; j = j->next) {
    mcp__auth_wait *r = answer_waiters(a, j, MCP__TOKEN_UNAVAILABLE, NULL,
                                       "the resource server is stopping", 1);
    while (r) {
      mcp__auth_wait *next = r->next;
      r->next = ready;
      ready = r;
      r = next;
    }
  }
  pthread_mutex_unlock(&a->intro_lock);
  call_ready(ready);
  for (mcp__intro_job *j = jobs, *next; j; j = next) {
    next = j->next;
    wipe_free(j->token);
    free(j);
  }
  pthread_cond_destroy(&a->intro_wake);
  pthread_cond_destroy(&a->intro_done);
  pthread_mutex_destroy(&a->intro_lock);
}

static mcp__intro_job *find_job(mcp__intro_job *list,
                                const unsigned char key[32]) {
  for (; list; list = list->next)
    if (memcmp(list->key, key, 32) == 0)
      return list;
  return NULL;
}

/* A new job for token, queued, with a thread to run it. intro_lock held.
 * NULL when out of memory or no thread can run it. */
static mcp__intro_job *queue_job(mcp_auth_t *a, const char *token,
                                 const unsigned char key[32]) {
  mcp__intro_job *job = calloc(1, sizeof *job);
  if (job == NULL || (job->token = strdup(token)) == NULL) {
    free(job);
    return NULL;
  }
  memcpy(job->key, key, 32);
  job->deadline_ms = mcp__monotonic_ms() + INTROSPECT_DEADLINE_MS;
  /* a thread more when the idle ones (woken or not yet) have a queued
   * job each already */
  if (a->intro_queued >= a->intro_idle &&
      a->intro_threads < MCP__INTROSPECTORS &&
      mcp__thread_start(&a->intro_thread[a->intro_threads], intro_main, a) ==
          0)
    a->intro_threads++;
  if (a->intro_threads == 0) {
    wipe_free(job->token);
    free(job);
    return NULL;
  }
  if (a->intro_queue_tail)
    a->intro_queue_tail->next = job;
  else
    a->intro_queue = job;
  a->intro_queue_tail = job;
  a->intro_jobs++;
  a->intro_queued++;
  pthread_cond_signal(&a->intro_wake);
  return job;
}

mcp__verdict mcp__introspect(mcp_auth_t *a, const char *token, int64_t now_s,
                             mcp__auth_ready_fn ready, void *ctx,
                             mcp__auth_wait **wait, unsigned *retry_after_s,
                             mcp__principal *out, mcp_error_t *err) {
  memset(out, 0, sizeof *out);
  *retry_after_s = 0;
  if (wait)
    *wait = NULL;
  if (!mcp__auth_introspects(a)) {
    mcp_error_set(err, MCP_ERR_PEER, "the token is not a JWT");
    return MCP__TOKEN_INVALID;
  }
  unsigned char key[32];
  unsigned int klen = 0;
  EVP_Digest(token, strlen(token), key, &klen, EVP_sha256(), NULL);
  if (cache_get(a, key, out)) {
    if (out->exp == 0 || now_s <= out->exp + a->leeway_s)
      return MCP__TOKEN_OK;
    mcp__principal_clear(out);
  }
  mcp__auth_wait local = {0};
  mcp__auth_wait *w = ready ? calloc(1, sizeof *w) : &local;
  if (w == NULL) {
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    *retry_after_s = 1;
    return MCP__TOKEN_UNAVAILABLE;
  }
  w->ready = ready;
  w->ctx = ctx;
  const char *why = NULL;
  pthread_mutex_lock(&a->intro_lock);
  mcp__intro_job *job = NULL;
  if (a->intro_stop) {
    why = "the resource server is stopping";
    *retry_after_s = 1;
  } else if (mcp__backoff_active(&a->intro_backoff)) {
    why = a->intro_error;
    *retry_after_s = mcp__backoff_retry_after_s(&a->intro_backoff);
  } else if ((job = find_job(a->intro_queue, key)) == NULL &&
             (job = find_job(a->intro_running, key)) == NULL) {
    if (a->intro_jobs >= INTROSPECT_JOBS_MAX)
      why = "too many tokens are being introspected";
    else if ((job = queue_job(a, token, key)) == NULL)
      why = "cannot start introspecting";
    *retry_after_s = 1;
  }
  if (job == NULL) {
    mcp_error_set(err, MCP_ERR_IO, "introspection unavailable: %s", why);
    pthread_mutex_unlock(&a->intro_lock);
    if (w != &local)
      free(w);
    return MCP__TOKEN_UNAVAILABLE;
  }
  *retry_after_s = 0;
  w->job = job;
  w->next = job->waiters;
  job->waiters = w;
  if (ready) {
    pthread_mutex_unlock(&a->intro_lock);
    *wait = w;
    return MCP__TOKEN_PENDING;
  }
  while (!w->done) /* bounded: every job ends by its deadline */
    pthread_cond_wait(&a->intro_done, &a->intro_lock);
  pthread_mutex_unlock(&a->intro_lock);
  return mcp__introspect_take(a, w, out, retry_after_s, err);
}

mcp__verdict mcp__introspect_take(mcp_auth_t *a, mcp__auth_wait *w,
                                  mcp__principal *out, unsigned *retry_after_s,
                                  mcp_error_t *err) {
  pthread_mutex_lock(&a->intro_lock);
  bool done = w->done;
  mcp__verdict v = w->verdict;
  *out = w->p;
  memset(&w->p, 0, sizeof w->p);
  *retry_after_s = w->retry_after_s;
  pthread_mutex_unlock(&a->intro_lock);
  if (!done) {
    *retry_after_s = 1;
    mcp_error_set(err, MCP_ERR_IO, "introspection: no answer yet");
    return MCP__TOKEN_UNAVAILABLE;
  }
  if (v != MCP__TOKEN_OK)
    mcp_error_set(err, v == MCP__TOKEN_INVALID ? MCP_ERR_PEER : MCP_ERR_IO,
                  "%s", w->why);
  return v;
}

bool mcp__auth_wait_cancel(mcp_auth_t *a, mcp__auth_wait *w) {
  if (w->recording) /* waiting for the shared replay record instead */
    return mcp__replay_record_cancel(a, w);
  pthread_mutex_lock(&a->intro_lock);
  mcp__intro_job *job = w->job;
  if (job) {
    for (mcp__auth_wait **p = &job->waiters; *p; p = &(*p)->next)
      if (*p == w) {
        *p = w->next;
        break;
      }
    w->job = NULL;
  }
  pthread_mutex_unlock(&a->intro_lock);
  return job != NULL;
}

void mcp__auth_wait_free(mcp__auth_wait *w) {
  if (w == NULL)
    return;
  mcp__principal_clear(&w->p);
  free(w->jkt);
  free(w);
}
