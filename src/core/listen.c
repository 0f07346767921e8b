/* SPDX-License-Identifier: MIT */
/* listen.c - subscriptions/listen streams (2026-07-28, SEP-2575).
 *
 * Life of a stream: the handler checks the filter, sends
 * notifications/subscriptions/acknowledged (always the first message of
 * the subscription), registers a listener and parks the call (see
 * mcp_call.pending), which frees its worker. A listener is counted: the
 * registry holds one reference while it is registered, the handler one
 * until the call is parked, and every fan-out one while it sends. When the
 * last goes, the call is finished: with the SubscriptionsListenResult when
 * the server ended the stream, silently (as a cancelled request) when the
 * client left.
 *
 * Fan-out encodes each notification once, with a placeholder where the
 * subscription id goes, and splices every stream's id (its JSON text, kept
 * from the request) between the two halves: one allocation per publish,
 * none per stream.
 */
#include "core/listen.h"

#include <assert.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/call_internal.h"
#include "core/viewer.h"

#define SUBSCRIPTION_ID "io.modelcontextprotocol/subscriptionId"
/* A string no id can be: jansson writes U+0001 as \u0001. */
#define PLACEHOLDER      "\001mcp-subscription-id\001"
#define PLACEHOLDER_JSON "\"\\u0001mcp-subscription-id\\u0001\""
#define MIN_BUCKETS      64

typedef struct mcp__listener {
  atomic_int refs;
  struct mcp__listener *next, *prev; /* registry->head */
  struct mcp__listener *hnext;       /* bucket chain (by ctx) */
  mcp_server_t *server;
  mcp_call_t *call; /* parked; finished when refs reaches 0 */
  const void *ctx, *owner;
  unsigned kinds;
  char **keys; /* resource URIs (MCP__LISTEN_RESOURCE) then task ids */
  size_t nuris, ntasks;
  char *id_text; /* the subscription id as JSON text */
  size_t id_len;
  /* The caller: resource updates only of what it may read, task status
   * only of its own tasks. */
  mcp__viewer viewer;
  bool registered; /* in the registry (under its lock) */
  bool ended;      /* the server ended it: send the final result */
} mcp__listener;

void mcp__listen_init(mcp__listen_registry *r) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->lock, NULL);
  atomic_init(&r->count, 0);
  atomic_init(&r->task_ids, false);
  atomic_init(&r->task_streams, 0);
}

static size_t bucket_of(const mcp__listen_registry *r, const void *ctx) {
  uintptr_t x = (uintptr_t)ctx;
  x ^= x >> 17;
  x *= 0x9e3779b97f4a7c15u;
  return (size_t)(x >> 7) & (r->nbuckets - 1);
}

/* ---- listeners ----------------------------------------------------------- */

static void listener_free(mcp__listener *l) {
  for (size_t i = 0; i < l->nuris + l->ntasks; i++)
    free(l->keys[i]);
  free(l->keys);
  free(l->id_text);
  mcp__viewer_clear(&l->viewer);
  free(l);
}

static void listener_retain(mcp__listener *l) {
  int before = atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
  assert(before > 0); /* only a holder of a reference may add one */
  (void)before;
}

/* The last reference finishes the parked call. */
static void listener_release(mcp__listener *l) {
  int before = atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel);
  assert(before > 0); /* one release per reference */
  if (before != 1)
    return;
  mcp_call_t *call = l->call;
  if (l->ended) {
    json_t *result = json_object();
    json_t *meta = json_object();
    json_t *id = json_deep_copy(call->msg.id);
    if (result && meta && id &&
        json_object_set_new(meta, SUBSCRIPTION_ID, id) == 0) {
      id = NULL;
      json_object_set_new(result, "_meta", meta);
      meta = NULL;
    }
    json_decref(id);
    json_decref(meta);
    mcp__call_complete(call, result ? MCP_OK : MCP_ERR_NOMEM, result);
  } else {
    /* The client left (or cancelled): a cancelled request is not answered. */
    mcp__call_cancel(call);
    mcp__call_complete(call, MCP_ERR_CANCELLED, NULL);
  }
  listener_free(l);
}

/* Takes l out of the registry. Lock held; the caller drops the registry's
 * reference after unlocking. false when it was not registered. */
static bool unlink_locked(mcp__listen_registry *r, mcp__listener *l) {
  if (!l->registered)
    return false;
  l->registered = false;
  if (l->prev)
    l->prev->next = l->next;
  else
    r->head = l->next;
  if (l->next)
    l->next->prev = l->prev;
  mcp__listener **pp = &r->buckets[bucket_of(r, l->ctx)];
  while (*pp != l)
    pp = &(*pp)->hnext;
  *pp = l->hnext;
  atomic_fetch_sub(&r->count, 1);
  if (l->ntasks > 0)
    atomic_fetch_sub(&r->task_streams, 1);
  return true;
}

static bool grow_locked(mcp__listen_registry *r) {
  size_t n = r->nbuckets ? r->nbuckets * 2 : MIN_BUCKETS;
  mcp__listener **b = calloc(n, sizeof *b);
  if (b == NULL)
    return false;
  mcp__listener **old = r->buckets;
  size_t oldn = r->nbuckets;
  r->buckets = b;
  r->nbuckets = n;
  for (size_t i = 0; i < oldn; i++)
    for (mcp__listener *l = old[i], *next; l; l = next) {
      next = l->hnext;
      size_t k = bucket_of(r, l->ctx);
      l->hnext = b[k];
      b[k] = l;
    }
  free(old);
  return true;
}

static bool register_listener(mcp__listen_registry *r, mcp__listener *l) {
  pthread_mutex_lock(&r->lock);
  if (atomic_load(&r->count) >= r->nbuckets * 2 && !grow_locked(r) &&
      r->nbuckets == 0) {
    pthread_mutex_unlock(&r->lock);
    return false;
  }
  listener_retain(l); /* the registry's */
  l->registered = true;
  l->next = r->head;
  if (r->head)
    r->head->prev = l;
  r->head = l;
  size_t k = bucket_of(r, l->ctx);
  l->hnext = r->buckets[k];
  r->buckets[k] = l;
  atomic_fetch_add(&r->count, 1);
  if (l->ntasks > 0)
    atomic_fetch_add(&r->task_streams, 1);
  void (*hook)(void *) = l->ntasks > 0 ? r->on_task_stream : NULL;
  void *hook_ud = r->on_task_stream_ud;
  pthread_mutex_unlock(&r->lock);
  if (hook != NULL)
    hook(hook_ud);
  return true;
}

/* Unregisters the listeners matching (ctx or owner) and id, marking them
 * ended when end is set, and drops the registry's references. */
static void remove_matching(mcp_server_t *s, const void *ctx, const void *owner,
                            const json_t *id, bool end) {
  mcp__listen_registry *r = &s->listen;
  if (atomic_load(&r->count) == 0)
    return;
  mcp__listener *gone = NULL; /* chained through hnext once unlinked */
  pthread_mutex_lock(&r->lock);
  if (ctx != NULL && r->nbuckets > 0) {
    mcp__listener *l = r->buckets[bucket_of(r, ctx)];
    while (l) {
      mcp__listener *next = l->hnext;
      if (l->ctx == ctx && (id == NULL || json_equal(l->call->msg.id, id))) {
        unlink_locked(r, l);
        l->ended = end;
        l->hnext = gone;
        gone = l;
      }
      l = next;
    }
  } else if (ctx == NULL) {
    for (mcp__listener *l = r->head, *next; l; l = next) {
      next = l->next;
      if (owner == NULL || l->owner == owner) {
        unlink_locked(r, l);
        l->ended = end;
        l->hnext = gone;
        gone = l;
      }
    }
  }
  pthread_mutex_unlock(&r->lock);
  while (gone) {
    mcp__listener *next = gone->hnext;
    listener_release(gone);
    gone = next;
  }
}

void mcp__server_channel_gone(mcp_server_t *s, const void *ctx) {
  if (s && ctx)
    remove_matching(s, ctx, NULL, NULL, false);
}

void mcp__server_end_streams(mcp_server_t *s, const void *owner) {
  if (s)
    remove_matching(s, NULL, owner, NULL, true);
}

void mcp__listen_cancel(mcp_server_t *s, const void *ctx,
                        const json_t *request_id) {
  if (ctx && request_id)
    remove_matching(s, ctx, NULL, request_id, false);
}

void mcp__listen_destroy(mcp_server_t *s) {
  remove_matching(s, NULL, NULL, NULL, true);
  free(s->listen.buckets);
  pthread_mutex_destroy(&s->listen.lock);
}

void mcp__listen_enable_task_ids(mcp_server_t *s, bool on) {
  atomic_store(&s->listen.task_ids, on);
}

size_t mcp__listen_count(mcp_server_t *s) {
  return atomic_load(&s->listen.count);
}

void mcp__listen_set_task_hook(mcp_server_t *s, void (*fn)(void *ud),
                               void *ud) {
  pthread_mutex_lock(&s->listen.lock);
  s->listen.on_task_stream = fn;
  s->listen.on_task_stream_ud = ud;
  pthread_mutex_unlock(&s->listen.lock);
}

size_t mcp__listen_task_streams(mcp_server_t *s) {
  return atomic_load(&s->listen.task_streams);
}

json_t *mcp__listen_task_ids(mcp_server_t *s) {
  mcp__listen_registry *r = &s->listen;
  json_t *seen = json_object();
  if (seen == NULL)
    return NULL;
  pthread_mutex_lock(&r->lock);
  for (mcp__listener *l = r->head; l; l = l->next)
    for (size_t i = 0; i < l->ntasks; i++)
      json_object_set_new(seen, l->keys[l->nuris + i], json_true());
  pthread_mutex_unlock(&r->lock);
  json_t *ids = json_array();
  const char *id;
  json_t *v;
  json_object_foreach(seen, id, v) {
    json_array_append_new(ids, json_string(id));
  }
  json_decref(seen);
  return ids;
}

/* ---- fan-out ------------------------------------------------------------- */

bool mcp__uri_covers(const char *sub, const char *uri) {
  size_t n = strlen(sub);
  if (strncmp(sub, uri, n) != 0)
    return false;
  return uri[n] == '\0' || uri[n] == '/' || (n > 0 && sub[n - 1] == '/');
}

static bool wants(const mcp__listener *l, unsigned kind, const char *key,
                  const char *owner) {
  if (!(l->kinds & kind))
    return false;
  if (kind == MCP__LISTEN_RESOURCE) {
    bool named = false;
    for (size_t i = 0; !named && i < l->nuris; i++)
      named = key && mcp__uri_covers(l->keys[i], key);
    return named && mcp__viewer_may_read(&l->viewer, key);
  }
  if (kind == MCP__LISTEN_TASK) {
    bool named = false;
    for (size_t i = 0; !named && i < l->ntasks; i++)
      named = key && strcmp(l->keys[l->nuris + i], key) == 0;
    return named && mcp__viewer_sees_owner(&l->viewer, owner);
  }
  return true;
}

/* The notification with the placeholder where the id goes, split in two. */
static bool encode_template(const char *method, const json_t *params,
                            mcp__buf *out, size_t *split) {
  json_t *p = params ? json_copy((json_t *)params) : json_object();
  json_t *meta = p ? json_object_get(p, "_meta") : NULL;
  meta = json_is_object(meta) ? json_copy(meta) : json_object();
  bool ok = p && meta &&
            json_object_set_new(meta, SUBSCRIPTION_ID,
                                json_string(PLACEHOLDER)) == 0 &&
            json_object_set(p, "_meta", meta) == 0 &&
            mcp__jsonrpc_encode_notification(out, method, p);
  json_decref(meta);
  json_decref(p);
  if (!ok)
    return false;
  const char *at = memmem(out->data, out->len, PLACEHOLDER_JSON,
                          sizeof PLACEHOLDER_JSON - 1);
  if (at == NULL)
    return false;
  *split = (size_t)(at - out->data);
  return true;
}

unsigned mcp__listen_send_flags(unsigned kind, const json_t *params) {
  unsigned key = kind == MCP__LISTEN_TOOLS       ? 1
                 : kind == MCP__LISTEN_PROMPTS   ? 2
                 : kind == MCP__LISTEN_RESOURCES ? 3
                                                 : 0;
  /* only _meta (the stream's subscription id) may come on top */
  if (key == 0 || json_object_size(params) > 0)
    return MCP__SEND_NOTIFICATION;
  return MCP__SEND_NOTIFICATION | MCP__SEND_STATE_AS(key - 1);
}

/* Sends one tagged message to l. false when its client is gone. */
static bool send_tagged(mcp__listener *l, const mcp__buf *tpl, size_t split,
                        mcp__buf *msg, unsigned flags) {
  size_t tail = split + sizeof PLACEHOLDER_JSON - 1;
  mcp__buf_reset(msg);
  if (!mcp__buf_append(msg, tpl->data, split) ||
      !mcp__buf_append(msg, l->id_text, l->id_len) ||
      !mcp__buf_append(msg, tpl->data + tail, tpl->len - tail))
    return true; /* out of memory: this one misses it, the stream lives */
  mcp_call_t *call = l->call;
  pthread_mutex_lock(&call->send_lock);
  mcp_status st = call->reply.send(call->reply.ctx, msg->data, msg->len,
                                   flags | MCP__SEND_LIVE);
  pthread_mutex_unlock(&call->send_lock);
  return st != MCP_ERR_CLOSED;
}

void mcp__listen_publish(mcp_server_t *s, unsigned kind, const char *key,
                         const char *method, const json_t *params) {
  mcp__listen_publish_owned(s, kind, key, NULL, method, params);
}

void mcp__listen_publish_owned(mcp_server_t *s, unsigned kind, const char *key,
                               const char *owner, const char *method,
                               const json_t *params) {
  mcp__listen_registry *r = &s->listen;
  if (atomic_load(&r->count) == 0)
    return;
  mcp__listener *stack[32], **list = stack;
  size_t n = 0;
  pthread_mutex_lock(&r->lock);
  size_t cap = atomic_load(&r->count);
  if (cap > sizeof stack / sizeof stack[0] &&
      (list = malloc(cap * sizeof *list)) == NULL) {
    list = stack;
    cap = sizeof stack / sizeof stack[0]; /* the first ones still get it */
  }
  for (mcp__listener *l = r->head; l && n < cap; l = l->next)
    if (wants(l, kind, key, owner)) {
      listener_retain(l);
      list[n++] = l;
    }
  pthread_mutex_unlock(&r->lock);
  if (n > 0) {
    mcp__buf tpl, msg;
    mcp__buf_init(&tpl);
    mcp__buf_init(&msg);
    size_t split = 0;
    bool ok = encode_template(method, params, &tpl, &split);
    unsigned flags = mcp__listen_send_flags(kind, params);
    for (size_t i = 0; i < n; i++) {
      if (ok && !send_tagged(list[i], &tpl, split, &msg, flags))
        mcp__server_channel_gone(s, list[i]->ctx);
      listener_release(list[i]);
    }
    mcp__buf_free(&tpl);
    mcp__buf_free(&msg);
  }
  if (list != stack)
    free(list);
}

/* ---- subscriptions/listen ------------------------------------------------ */

/* Appends the strings of array v (NULL: none) to l->keys, counting them
 * in *count as they are kept (so listener_free frees them whatever
 * happens). false: not an array of strings, or out of memory (*nomem). */
static bool take_strings(mcp__listener *l, const json_t *v, size_t *count,
                         bool *nomem) {
  if (v == NULL)
    return true;
  if (!json_is_array(v))
    return false;
  size_t have = l->nuris + l->ntasks, add = json_array_size(v);
  for (size_t i = 0; i < add; i++)
    if (!json_is_string(json_array_get(v, i)))
      return false;
  if (add == 0)
    return true;
  char **keys = realloc(l->keys, (have + add) * sizeof *keys);
  if (keys == NULL) {
    *nomem = true;
    return false;
  }
  l->keys = keys;
  for (size_t i = 0; i < add; i++) {
    keys[have + i] = strdup(json_string_value(json_array_get(v, i)));
    if (keys[have + i] == NULL) {
      *nomem = true;
      return false;
    }
    ++*count;
  }
  return true;
}

/* The acknowledgement: the filter as honoured, tagged. */
static bool encode_ack(mcp__listener *l, mcp__buf *out) {
  json_t *honoured = json_object();
  json_t *params = json_object();
  json_t *meta = json_object();
  json_t *id = json_deep_copy(l->call->msg.id);
  bool ok = honoured && params && meta && id;
  if (ok && (l->kinds & MCP__LISTEN_TOOLS))
    ok = json_object_set_new(honoured, "toolsListChanged", json_true()) == 0;
  if (ok && (l->kinds & MCP__LISTEN_PROMPTS))
    ok = json_object_set_new(honoured, "promptsListChanged", json_true()) == 0;
  if (ok && (l->kinds & MCP__LISTEN_RESOURCES))
    ok =
        json_object_set_new(honoured, "resourcesListChanged", json_true()) == 0;
  for (int part = 0; ok && part < 2; part++) {
    unsigned kind = part == 0 ? MCP__LISTEN_RESOURCE : MCP__LISTEN_TASK;
    if (!(l->kinds & kind))
      continue;
    size_t from = part == 0 ? 0 : l->nuris;
    size_t n = part == 0 ? l->nuris : l->ntasks;
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
      if (json_array_append_new(a, json_string(l->keys[from + i])) != 0) {
        json_decref(a);
        a = NULL;
      }
    ok = a &&
         json_object_set_new(
             honoured, part == 0 ? "resourceSubscriptions" : "taskIds", a) == 0;
  }
  if (ok) {
    ok = json_object_set_new(meta, SUBSCRIPTION_ID, id) == 0;
    id = NULL;
  }
  ok = ok && json_object_set(params, "notifications", honoured) == 0 &&
       json_object_set(params, "_meta", meta) == 0 &&
       mcp__jsonrpc_encode_notification(
           out, "notifications/subscriptions/acknowledged", params);
  json_decref(id);
  json_decref(meta);
  json_decref(params);
  json_decref(honoured);
  return ok;
}

static void park(mcp_call_t *call, void *ctx) {
  (void)call;
  listener_release(ctx); /* the handler's */
}

mcp_status mcp__listen_open(mcp_call_t *call, unsigned kinds,
                            const json_t *uris, const json_t *task_ids) {
  mcp_server_t *s = call->server;
  if (!call->can_suspend)
    return mcp__call_fail(call, MCP_RPC_INTERNAL_ERROR,
                          "Internal error: this transport cannot hold a "
                          "listen stream");
  mcp__listener *l = calloc(1, sizeof *l);
  if (l == NULL)
    return MCP_ERR_NOMEM;
  atomic_init(&l->refs, 1); /* the handler's, dropped by park */
  if (mcp__viewer_set(&l->viewer, call) != MCP_OK) {
    free(l);
    return MCP_ERR_NOMEM;
  }
  l->server = s;
  l->call = call;
  l->ctx = call->reply.ctx;
  l->owner = call->reply.owner;
  l->kinds =
      kinds & (MCP__LISTEN_TOOLS | MCP__LISTEN_PROMPTS | MCP__LISTEN_RESOURCES);
  bool nomem = false;
  if (!take_strings(l, uris, &l->nuris, &nomem) ||
      (atomic_load(&s->listen.task_ids) &&
       !take_strings(l, task_ids, &l->ntasks, &nomem))) {
    listener_free(l);
    return nomem ? MCP_ERR_NOMEM
                 : mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                                  "Invalid params: a SubscriptionFilter takes "
                                  "arrays of strings");
  }
  if (l->nuris > 0)
    l->kinds |= MCP__LISTEN_RESOURCE;
  if (l->ntasks > 0)
    l->kinds |= MCP__LISTEN_TASK;

  mcp__buf idtext, ack;
  mcp__buf_init(&idtext);
  mcp__buf_init(&ack);
  bool ok =
      mcp__buf_append_json(&idtext, call->msg.id, 0) && encode_ack(l, &ack);
  if (ok) {
    l->id_text = idtext.data; /* taken over */
    l->id_len = idtext.len;
    mcp__buf_init(&idtext);
  }
  mcp_status st = ok ? mcp__call_send(call, &ack) : MCP_ERR_NOMEM;
  mcp__buf_free(&idtext);
  mcp__buf_free(&ack);
  /* The request is answered as far as the stream goes: 10,000 idle streams
   * should not keep 10,000 parsed requests (bench/listen). Before it is
   * registered: a cancellation compares the id it keeps. */
  if (st == MCP_OK)
    mcp__call_shed_request(call);
  if (st == MCP_OK && !register_listener(&s->listen, l))
    st = MCP_ERR_NOMEM;
  if (st != MCP_OK) {
    listener_free(l);
    /* The client may already be gone (closed): nothing more to say. */
    return st == MCP_ERR_NOMEM ? MCP_ERR_NOMEM : MCP_ERR_CANCELLED;
  }
  call->pending = true;
  call->suspend = park;
  call->suspend_ctx = l;
  return MCP_OK;
}
