/* SPDX-License-Identifier: MIT */
/* session.c - per-client state of the legacy (initialize-based) era.
 *
 * A session holds what initialize negotiated, the log level, the requests in
 * flight (so notifications/cancelled can find them) and the server-to-client
 * requests awaiting an answer. It is reference-counted: the transport holds
 * one reference, each running call another, so a session outlives a closed
 * connection until its last call has finished.
 */
#include "core/call_internal.h"
#include "core/request_metrics.h"
#include "core/session_internal.h"

#include <assert.h>
#include "util/hash.h"
#include "util/rand.h"
#include "util/str.h"
#include "util/thread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mcp_status session_new(mcp_server_t *s, mcp__channel notify, bool listed,
                              mcp_session_t **out) {
  /* not calloc: a stateless HTTP request makes one (see mcp__call_new) */
  mcp_session_t *se = malloc(sizeof *se);
  if (se == NULL)
    return MCP_ERR_NOMEM;
  *se = (mcp_session_t){0};
  atomic_init(&se->refs, 1);
  se->server = s;
  pthread_mutex_init(&se->lock, NULL);
  /* a throw-away session (one request) needs no more than one */
  se->stripes = listed ? MCP__INFLIGHT_STRIPES : 1;
  for (size_t i = 0; i < se->stripes; i++)
    pthread_mutex_init(&se->inflight[i].lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&se->cond, &attr);
  pthread_condattr_destroy(&attr);
  se->log_level = -1;
  se->notify = notify;
  se->next_outbound_id = 1;
  se->listed = listed;
  if (listed) {
    pthread_mutex_lock(&s->lock);
    se->next = s->sessions;
    if (s->sessions)
      s->sessions->prev = se;
    s->sessions = se;
    pthread_mutex_unlock(&s->lock);
  }
  *out = se;
  return MCP_OK;
}

mcp_status mcp__session_new(mcp_server_t *s, mcp__channel notify,
                            mcp_session_t **out) {
  return session_new(s, notify, true, out);
}

mcp_status mcp__session_new_stateless(mcp_server_t *s, const char *version,
                                      mcp_session_t **out) {
  /* Not listed: a throw-away session of one request has no stream to
   * broadcast to, and listing it would take the server lock twice per
   * request. */
  mcp__channel none = {NULL, NULL, NULL, NULL, false};
  mcp_status st = session_new(s, none, false, out);
  if (st != MCP_OK)
    return st;
  mcp_session_t *se = *out;
  se->client_capabilities = json_object();
  if (se->client_capabilities == NULL) {
    mcp__session_release(se);
    *out = NULL;
    return MCP_ERR_NOMEM;
  }
  /* Treated as initialized and ready: the request carries everything. */
  assert(se->state == MCP__SESSION_NEW);
  se->state = MCP__SESSION_READY;
  se->input_closed = true;
  mcp__str_copy(se->protocol_version, sizeof se->protocol_version,
                version ? version : "2025-03-26");
  return MCP_OK;
}

void mcp__session_set_notify(mcp_session_t *se, mcp__channel notify) {
  pthread_mutex_lock(&se->lock);
  se->notify = notify;
  pthread_mutex_unlock(&se->lock);
}

void mcp__session_retain(mcp_session_t *se) {
  int before = atomic_fetch_add_explicit(&se->refs, 1, memory_order_relaxed);
  assert(before > 0); /* only a holder of a reference may add one */
  (void)before;
}

void mcp__session_release(mcp_session_t *se) {
  if (se == NULL)
    return;
  int before = atomic_fetch_sub_explicit(&se->refs, 1, memory_order_acq_rel);
  assert(before > 0); /* one release per reference */
  if (before != 1)
    return;
  mcp_server_t *s = se->server;
  if (se->listed) {
    pthread_mutex_lock(&s->lock);
    if (se->prev)
      se->prev->next = se->next;
    else if (s->sessions == se)
      s->sessions = se->next;
    if (se->next)
      se->next->prev = se->prev;
    pthread_mutex_unlock(&s->lock);
  }
  for (mcp__outbound *o = se->outbound, *next; o; o = next) {
    next = o->next;
    json_decref(o->response);
    free(o);
  }
  for (size_t i = 0; i < 16; i++)
    json_decref(se->early_cancels[i]);
  json_decref(se->client_capabilities);
  json_decref(se->client_info);
  json_decref(se->subscriptions);
  json_decref(se->url_elicitations);
  mcp__viewer_clear(&se->viewer);
  free(se->id);
  pthread_mutex_destroy(&se->lock);
  for (size_t i = 0; i < se->stripes; i++)
    pthread_mutex_destroy(&se->inflight[i].lock);
  pthread_cond_destroy(&se->cond);
  free(se);
}

void mcp__session_close(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  se->state = MCP__SESSION_CLOSED;
  se->notify.send = NULL;
  pthread_mutex_unlock(&se->lock);
  /* A request listed after its stripe was visited here read CLOSED under
   * that stripe's lock and was not listed (mcp__session_snapshot). */
  for (size_t i = 0; i < se->stripes; i++) {
    mcp__inflight_stripe *st = &se->inflight[i];
    pthread_mutex_lock(&st->lock);
    for (mcp_call_t *c = st->calls; c; c = c->next)
      atomic_store(&c->cancelled, true);
    pthread_mutex_unlock(&st->lock);
  }
  pthread_mutex_lock(&se->lock);
  pthread_cond_broadcast(&se->cond);
  pthread_mutex_unlock(&se->lock);
  /* suspended tasks/result calls of this session end now, not at the next
   * poll */
  if (se->server->task_hooks)
    se->server->task_hooks->session_event(se->server, se, false);
  if (se->server->metrics != NULL)
    mcp__metrics_session(se);
}

void mcp__session_stream_opened(mcp_session_t *se) {
  if (se->server->task_hooks)
    se->server->task_hooks->session_event(se->server, se, true);
}

void mcp__session_input_closed(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  se->input_closed = true;
  pthread_cond_broadcast(&se->cond);
  pthread_mutex_unlock(&se->lock);
}

bool mcp__session_is_ready(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  bool ready = se->state == MCP__SESSION_READY;
  pthread_mutex_unlock(&se->lock);
  return ready;
}

void mcp__session_notify(mcp_session_t *se, const char *msg, size_t len) {
  mcp__session_notify_as(se, msg, len, MCP__SEND_NOTIFICATION);
}

void mcp__session_notify_as(mcp_session_t *se, const char *msg, size_t len,
                            unsigned flags) {
  pthread_mutex_lock(&se->lock);
  mcp__channel ch = se->notify;
  pthread_mutex_unlock(&se->lock);
  if (ch.send)
    ch.send(ch.ctx, msg, len, flags);
}

mcp_status mcp__session_notify_live(mcp_session_t *se, const char *msg,
                                    size_t len, unsigned flags) {
  pthread_mutex_lock(&se->lock);
  mcp__channel ch = se->notify;
  pthread_mutex_unlock(&se->lock);
  if (ch.send == NULL)
    return MCP_ERR_CLOSED;
  return ch.send(ch.ctx, msg, len, flags | MCP__SEND_LIVE);
}

/* The stripe the calling thread lists its requests in: each thread mostly
 * writes its own stripe's cache line (a stripe by id made every core write
 * every stripe). Threads collide now and then; that only shares a lock. */
static unsigned stripe_here(const mcp_session_t *se) {
  return (unsigned)(mcp__hash_thread() >> 61) % se->stripes;
}

/* Sets early_cancels_kept from the ring. se->lock held. */
static void count_early_cancels(mcp_session_t *se) {
  assert(mcp__mutex_held(&se->lock));
  unsigned kept = 0;
  for (size_t i = 0; i < 16; i++)
    kept += se->early_cancels[i] != NULL;
  atomic_store(&se->early_cancels_kept, kept);
}

/* Takes a cancel kept for call's id, if any: the call starts cancelled.
 * Call's stripe lock held. */
static void take_early_cancel(mcp_session_t *se, mcp_call_t *call) {
  pthread_mutex_lock(&se->lock);
  for (size_t i = 0; i < 16; i++)
    if (se->early_cancels[i] &&
        json_equal(se->early_cancels[i], call->msg.id)) {
      atomic_store(&call->cancelled, true);
      json_decref(se->early_cancels[i]);
      se->early_cancels[i] = NULL;
    }
  count_early_cancels(se);
  pthread_mutex_unlock(&se->lock);
}

/* Lists call in its stripe, whose lock the caller holds. */
static void add_inflight_locked(mcp_session_t *se, mcp__inflight_stripe *st,
                                mcp_call_t *call) {
  assert(mcp__mutex_held(&st->lock));
  if (atomic_load(&se->early_cancels_kept) > 0)
    take_early_cancel(se, call);
  call->prev = NULL;
  call->next = st->calls;
  if (st->calls)
    st->calls->prev = call;
  st->calls = call;
  call->tracked = true;
}

void mcp__session_add_inflight(mcp_session_t *se, mcp_call_t *call) {
  call->stripe = (uint8_t)stripe_here(se);
  mcp__inflight_stripe *st = &se->inflight[call->stripe];
  pthread_mutex_lock(&st->lock);
  add_inflight_locked(se, st, call);
  pthread_mutex_unlock(&st->lock);
}

void mcp__session_remove_inflight(mcp_session_t *se, mcp_call_t *call) {
  if (!call->tracked)
    return; /* never listed (and never will be once it ends) */
  mcp__inflight_stripe *st = &se->inflight[call->stripe];
  pthread_mutex_lock(&st->lock);
  if (call->prev)
    call->prev->next = call->next;
  else if (st->calls == call)
    st->calls = call->next;
  if (call->next)
    call->next->prev = call->prev;
  call->next = call->prev = NULL;
  pthread_mutex_unlock(&st->lock);
}

void mcp__session_cancel(mcp_session_t *se, const json_t *request_id) {
  if (!mcp__jsonrpc_id_is_valid(request_id))
    return; /* malformed cancels are ignored silently (spec: SHOULD) */
  /* Every stripe held (cancels are rare): a request listed meanwhile is
   * either found or finds the kept cancel (see early_cancels). */
  for (size_t i = 0; i < se->stripes; i++)
    pthread_mutex_lock(&se->inflight[i].lock);
  bool found = false;
  for (size_t i = 0; i < se->stripes && !found; i++)
    for (mcp_call_t *c = se->inflight[i].calls; c; c = c->next)
      if (json_equal(c->msg.id, (json_t *)request_id)) {
        found = true;
        if (strcmp(c->msg.method, "initialize") != 0) /* never cancellable */
          atomic_store(&c->cancelled, true);
        break;
      }
  pthread_mutex_lock(&se->lock);
  if (!found) {
    unsigned slot = se->early_cancel_next++ % 16;
    json_decref(se->early_cancels[slot]);
    se->early_cancels[slot] = json_deep_copy(request_id);
    count_early_cancels(se);
  }
  /* Wake handlers blocked on a server-to-client request so they can see it. */
  pthread_cond_broadcast(&se->cond);
  pthread_mutex_unlock(&se->lock);
  for (size_t i = se->stripes; i-- > 0;)
    pthread_mutex_unlock(&se->inflight[i].lock);
}

bool mcp__session_deliver_response(mcp_session_t *se, mcp__message *msg) {
  if (!json_is_integer(msg->id))
    return false; /* we only issue integer ids; anything else is not ours */
  int64_t id = (int64_t)json_integer_value(msg->id);
  bool found = false;
  pthread_mutex_lock(&se->lock);
  for (mcp__outbound *o = se->outbound; o; o = o->next)
    if (o->id == id && !o->done) {
      o->done = true;
      /* The waiter takes the message over: a reference shared by two
       * threads would have both decrement it, and jansson's json_decref
       * reads the count non-atomically before its atomic decrement. */
      o->response = msg->root;
      msg->root = NULL;
      pthread_cond_broadcast(&se->cond);
      found = true;
      break;
    }
  pthread_mutex_unlock(&se->lock);
  return found;
}

void mcp__session_set_outbound_base(mcp_session_t *se, int64_t first) {
  pthread_mutex_lock(&se->lock);
  if (first > se->next_outbound_id)
    se->next_outbound_id = first;
  pthread_mutex_unlock(&se->lock);
}

size_t mcp__server_max_message_bytes(const mcp_server_t *s) {
  return s->max_message_bytes;
}

bool mcp__server_guards_stdout(const mcp_server_t *s) {
  return !s->stdout_unguarded;
}

unsigned mcp__server_worker_threads(const mcp_server_t *s) {
  return s->worker_threads;
}

bool mcp__session_is_initialized(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  bool ok =
      se->state == MCP__SESSION_INITIALIZED || se->state == MCP__SESSION_READY;
  pthread_mutex_unlock(&se->lock);
  return ok;
}

mcp_status mcp__session_set_transport(mcp_session_t *se, const char *id,
                                      void *data) {
  char *copy = id ? strdup(id) : NULL;
  if (id && copy == NULL)
    return MCP_ERR_NOMEM;
  pthread_mutex_lock(&se->lock);
  free(se->id);
  se->id = copy;
  se->transport_data = data;
  pthread_mutex_unlock(&se->lock);
  return MCP_OK;
}

void mcp__session_clear_transport(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  se->transport_data = NULL;
  pthread_mutex_unlock(&se->lock);
}

bool mcp__session_id_is(mcp_session_t *se, const char *id) {
  pthread_mutex_lock(&se->lock);
  bool same = id && se->id && strcmp(se->id, id) == 0;
  pthread_mutex_unlock(&se->lock);
  return same;
}

char *mcp__session_id_copy(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  char *id = se->id ? strdup(se->id) : NULL;
  pthread_mutex_unlock(&se->lock);
  return id;
}

mcp_session_t *mcp__server_session_by_id(mcp_server_t *s, const char *id) {
  mcp_session_t *found = NULL;
  pthread_mutex_lock(&s->lock);
  for (mcp_session_t *it = s->sessions; it && !found; it = it->next)
    if (mcp__session_id_is(it, id)) {
      found = it;
      mcp__session_retain(it);
    }
  pthread_mutex_unlock(&s->lock);
  return found;
}

void *mcp__session_transport_data(mcp_session_t *se, void (*retain)(void *)) {
  pthread_mutex_lock(&se->lock);
  void *data = se->transport_data;
  if (data && retain)
    retain(data);
  pthread_mutex_unlock(&se->lock);
  return data;
}

bool mcp__session_is_closed(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  bool closed = se->state == MCP__SESSION_CLOSED;
  pthread_mutex_unlock(&se->lock);
  return closed;
}

void mcp__session_wake(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  pthread_cond_broadcast(&se->cond);
  pthread_mutex_unlock(&se->lock);
}

const char *mcp__session_owner_key(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  if (se->tasks_key[0] == '\0' && mcp__random_uuid(se->tasks_key) != MCP_OK)
    se->tasks_key[0] = '\0';
  pthread_mutex_unlock(&se->lock);
  return se->tasks_key[0] ? se->tasks_key : NULL;
}

static json_t **set_of(mcp_session_t *se, mcp__session_set set) {
  return set == MCP__SET_SUBSCRIPTIONS ? &se->subscriptions
                                       : &se->url_elicitations;
}

mcp_status mcp__session_set_update(mcp_session_t *se, mcp__session_set set,
                                   const char *key, bool add) {
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&se->lock);
  json_t **o = set_of(se, set);
  if (add) {
    if (*o == NULL)
      *o = json_object();
    if (*o == NULL || json_object_set_new(*o, key, json_true()) != 0)
      st = MCP_ERR_NOMEM;
  } else if (*o) {
    json_object_del(*o, key);
  }
  pthread_mutex_unlock(&se->lock);
  return st;
}

bool mcp__session_set_match(mcp_session_t *se, mcp__session_set set,
                            bool ready_only,
                            bool (*match)(const char *key, const void *ud),
                            const void *ud, bool take) {
  bool found = false;
  pthread_mutex_lock(&se->lock);
  json_t *o = *set_of(se, set);
  if (o && (!ready_only || se->state == MCP__SESSION_READY)) {
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
      if (match(key, ud)) {
        found = true;
        if (take)
          json_object_del(o, key);
        break;
      }
    }
  }
  pthread_mutex_unlock(&se->lock);
  return found;
}

static bool same_key(const char *key, const void *ud) {
  return strcmp(key, ud) == 0;
}

mcp_session_t *mcp__server_take_session_key(mcp_server_t *s,
                                            mcp__session_set set,
                                            const char *key) {
  mcp_session_t *target = NULL;
  pthread_mutex_lock(&s->lock);
  for (mcp_session_t *it = s->sessions; it && !target; it = it->next)
    if (mcp__session_set_match(it, set, false, same_key, key, true)) {
      target = it;
      mcp__session_retain(it);
    }
  pthread_mutex_unlock(&s->lock);
  return target;
}

bool mcp__session_initialize(mcp_session_t *se, const char *version,
                             json_t *caps, json_t *info) {
  pthread_mutex_lock(&se->lock);
  if (se->state != MCP__SESSION_NEW) {
    pthread_mutex_unlock(&se->lock);
    json_decref(caps);
    return false;
  }
  se->state = MCP__SESSION_INITIALIZED;
  snprintf(se->protocol_version, sizeof se->protocol_version, "%s", version);
  se->client_capabilities = caps;
  se->client_info = info ? json_incref(info) : NULL;
  pthread_mutex_unlock(&se->lock);
  return true;
}

void mcp__session_mark_ready(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  if (se->state == MCP__SESSION_INITIALIZED)
    se->state = MCP__SESSION_READY;
  pthread_mutex_unlock(&se->lock);
}

void mcp__session_set_log_level(mcp_session_t *se, mcp_log_level level) {
  pthread_mutex_lock(&se->lock);
  se->log_level = (int)level;
  pthread_mutex_unlock(&se->lock);
}

/* What initialize negotiated, copied out for a call. */
static void copy_facts(const mcp_session_t *se, char *version, size_t n,
                       json_t **caps, json_t **info) {
  if (n > 0)
    mcp__str_copy(version, n, se->protocol_version);
  *caps = se->client_capabilities;
  *info = se->client_info;
}

mcp__session_state mcp__session_snapshot(mcp_session_t *se, char *version,
                                         size_t n, json_t **caps, json_t **info,
                                         mcp_call_t *track) {
  /* The common case: a ready session, read without its lock (nothing read
   * here changes once it is ready), and the call listed under its stripe's
   * lock, where the state is read again so that mcp__session_close either
   * sees the call or the call sees CLOSED. */
  for (;;) {
    if (se->state == MCP__SESSION_READY) {
      mcp__inflight_stripe *st = NULL;
      if (track != NULL) {
        track->stripe = (uint8_t)stripe_here(se);
        st = &se->inflight[track->stripe];
        pthread_mutex_lock(&st->lock);
      }
      mcp__session_state state = se->state;
      if (state == MCP__SESSION_READY) {
        copy_facts(se, version, n, caps, info);
        if (st != NULL)
          add_inflight_locked(se, st, track);
      }
      if (st != NULL)
        pthread_mutex_unlock(&st->lock);
      if (state == MCP__SESSION_READY)
        return state;
    }
    pthread_mutex_lock(&se->lock);
    mcp__session_state state = se->state;
    if (state != MCP__SESSION_READY) /* not listed */
      copy_facts(se, version, n, caps, info);
    pthread_mutex_unlock(&se->lock);
    if (state != MCP__SESSION_READY)
      return state;
    /* became ready meanwhile: list it as above */
  }
}
