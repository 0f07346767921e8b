/* SPDX-License-Identifier: MIT */
/* http_session.c - the HTTP transport's session table.
 *
 * Session ids are UUIDv4 from the kernel CSPRNG (they are bearer
 * capabilities for the session's state). The table is a fixed-size hash
 * sized from max_sessions, under one mutex held only for lookups and links.
 * Ending a session removes it from the table first, so every later request
 * with its id gets 404, then closes the core session (cancelling its calls)
 * and ends its streams.
 */
#include "transport/http_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/dispatch.h"
#include "util/clock.h"
#include "util/rand.h"

static size_t bucket_of(const mcp_http_server_t *h, const char *id) {
  size_t x = 5381;
  for (; *id; id++)
    x = x * 33 + (unsigned char)*id;
  return x & (h->nbuckets - 1);
}

mcp_status mcp__hs_sessions_init(mcp_http_server_t *h) {
  size_t n = 16;
  while (n < h->o->max_sessions && n < (1u << 20))
    n <<= 1;
  h->buckets = calloc(n, sizeof *h->buckets);
  if (h->buckets == NULL)
    return MCP_ERR_NOMEM;
  h->nbuckets = n;
  pthread_mutex_init(&h->sess_lock, NULL);
  return MCP_OK;
}

void mcp__hs_sessions_destroy(mcp_http_server_t *h) {
  free(h->buckets);
  pthread_mutex_destroy(&h->sess_lock);
}

void mcp__hs_session_retain(hs_session *hs) {
  atomic_fetch_add_explicit(&hs->refs, 1, memory_order_relaxed);
}

void mcp__hs_session_release(hs_session *hs) {
  if (hs == NULL ||
      atomic_fetch_sub_explicit(&hs->refs, 1, memory_order_acq_rel) != 1)
    return;
  mcp_http_server_t *h = hs->h;
  mcp__session_release(hs->se);
  pthread_mutex_destroy(&hs->lock);
  free(hs->subject);
  free(hs->shared);
  free(hs);
  mcp__hs_server_release(h); /* session_new's */
}

static void retain_session(void *hs) {
  mcp__hs_session_retain(hs);
}

/* The core session's notify channel: its ctx is the core session, which the
 * broadcaster keeps alive while sending; transport_data leads to us and is
 * cleared (under the session lock) when we end. */
static mcp_status notify_send(void *ctx, const char *msg, size_t len,
                              unsigned flags) {
  hs_session *hs = mcp__session_transport_data(ctx, retain_session);
  if (hs == NULL)
    return MCP_ERR_CLOSED;
  pthread_mutex_lock(&hs->lock);
  hs_stream *st = hs->get_stream;
  if (st)
    mcp__hs_stream_retain(st);
  pthread_mutex_unlock(&hs->lock);
  mcp_status s = MCP_ERR_CLOSED;
  /* MCP__SEND_LIVE (task messages): a stream without a client would only
   * keep the message for a resume the client may never make; the task
   * queues it for the next stream instead. */
  if (st && (!(flags & MCP__SEND_LIVE) || mcp__hs_stream_is_live(st)))
    s = mcp__hs_stream_send(st, msg, len, flags & ~MCP__SEND_FINAL);
  /* Released whether sent or not: a task message that found the stream
   * without a client once kept the stream, and through it its session and
   * the server, for ever (a stop then waited on them: issue #24 item 2). */
  if (st)
    mcp__hs_stream_release(st);
  mcp__hs_session_release(hs);
  return s;
}

/* A new session (one reference, the caller's), not yet in the table: id
 * NULL draws a fresh one; streams are numbered from stream_base. */
static mcp_status session_new(mcp_http_server_t *h, const char *id,
                              uint32_t stream_base, hs_session **out) {
  *out = NULL;
  hs_session *hs = calloc(1, sizeof *hs);
  if (hs == NULL)
    return MCP_ERR_NOMEM;
  mcp_status s = MCP_OK;
  if (id)
    snprintf(hs->id, sizeof hs->id, "%s", id);
  else
    s = mcp__random_uuid(hs->id);
  if (s != MCP_OK) {
    free(hs);
    return s;
  }
  mcp__channel none = {NULL, NULL, NULL, NULL, false};
  s = mcp__session_new(h->server, none, &hs->se);
  if (s != MCP_OK) {
    free(hs);
    return s;
  }
  atomic_init(&hs->refs, 1);
  hs->h = h;
  pthread_mutex_init(&hs->lock, NULL);
  hs->next_stream = stream_base;
  hs->last_active_ms = mcp__monotonic_ms();
  if (mcp__session_set_transport(hs->se, hs->id, hs) != MCP_OK) {
    mcp__session_close(hs->se);
    mcp__session_release(hs->se);
    pthread_mutex_destroy(&hs->lock);
    free(hs);
    return MCP_ERR_NOMEM;
  }
  mcp__channel notify = {notify_send, NULL, hs->se, hs->h, false};
  mcp__session_set_notify(hs->se, notify);
  mcp__hs_server_retain(h); /* releasing hs goes through h->server */
  *out = hs;
  return MCP_OK;
}

static void session_discard(hs_session *hs) {
  mcp__session_clear_transport(hs->se);
  mcp__session_close(hs->se);
  mcp__hs_session_release(hs);
}

/* Links hs (the caller's reference, which becomes the table's) into the
 * table; *out is hs retained for the caller. A session with the same id
 * already there (another request adopted it first) wins: hs is discarded
 * and *out is that one. */
static mcp_status session_insert(mcp_http_server_t *h, hs_session *hs,
                                 hs_session **out) {
  *out = NULL;
  pthread_mutex_lock(&h->sess_lock);
  size_t b = bucket_of(h, hs->id);
  hs_session *there = h->buckets[b];
  while (there && strcmp(there->id, hs->id) != 0)
    there = there->next;
  if (there) {
    mcp__hs_session_retain(there);
    pthread_mutex_unlock(&h->sess_lock);
    session_discard(hs);
    *out = there;
    return MCP_OK;
  }
  if (h->nsessions >= h->o->max_sessions) {
    pthread_mutex_unlock(&h->sess_lock);
    session_discard(hs);
    return MCP_ERR_LIMIT;
  }
  mcp__hs_session_retain(hs); /* the caller's; the one we had is the table's */
  hs->next = h->buckets[b];
  h->buckets[b] = hs;
  h->nsessions++;
  pthread_mutex_unlock(&h->sess_lock);
  *out = hs;
  return MCP_OK;
}

mcp_status mcp__hs_session_create(mcp_http_server_t *h, hs_session **out) {
  hs_session *hs;
  mcp_status s = session_new(h, NULL, 1, &hs);
  if (s != MCP_OK) {
    *out = NULL;
    return s;
  }
  return session_insert(h, hs, out);
}

mcp_status mcp__hs_session_adopt(mcp_http_server_t *h, const char *id,
                                 const char *state, const char *subject,
                                 uint32_t stream_base, hs_session **out) {
  *out = NULL;
  hs_session *hs;
  mcp_status s = session_new(h, id, stream_base, &hs);
  if (s != MCP_OK)
    return s;
  if ((s = mcp__session_import(hs->se, state)) != MCP_OK ||
      (hs->shared = strdup(state)) == NULL ||
      (subject && (hs->subject = strdup(subject)) == NULL)) {
    session_discard(hs);
    return s != MCP_OK ? s : MCP_ERR_NOMEM;
  }
  /* Its requests to the client get ids of this load's own range, so an
   * answer that reaches another replica names the one that asked
   * (mcp/relay.h): the creator numbers from 1, a load with stream base b
   * (1 + n * 100000) from b * 2^20, below 2^53 (exact in JSON numbers). */
  mcp__session_set_outbound_base(hs->se, (int64_t)stream_base << 20);
  return session_insert(h, hs, out);
}

hs_session *mcp__hs_session_find(mcp_http_server_t *h, const char *id,
                                 bool *unreachable) {
  if (strlen(id) != HS_SESSION_ID_LEN)
    return NULL;
  pthread_mutex_lock(&h->sess_lock);
  hs_session *hs = h->buckets[bucket_of(h, id)];
  while (hs && strcmp(hs->id, id) != 0)
    hs = hs->next;
  if (hs)
    mcp__hs_session_retain(hs);
  pthread_mutex_unlock(&h->sess_lock);
  if (hs == NULL && h->o->sessions.ops) /* served by another replica? */
    hs = mcp__hs_share_load(h, id, unreachable);
  return hs;
}

void mcp__hs_session_end(hs_session *hs) {
  mcp_http_server_t *h = hs->h;
  bool found = false;
  pthread_mutex_lock(&h->sess_lock);
  for (hs_session **p = &h->buckets[bucket_of(h, hs->id)]; *p; p = &(*p)->next)
    if (*p == hs) {
      *p = hs->next;
      h->nsessions--;
      found = true;
      break;
    }
  pthread_mutex_unlock(&h->sess_lock);
  if (!found)
    return;
  mcp__session_clear_transport(hs->se);
  mcp__session_close(hs->se);
  pthread_mutex_lock(&hs->lock);
  hs->ended = true;
  hs_stream *get = hs->get_stream, *list = hs->streams;
  hs->get_stream = NULL;
  hs->streams = NULL;
  pthread_mutex_unlock(&hs->lock);
  if (get) {
    mcp__hs_stream_finish(get);
    mcp__hs_stream_release(get);
  }
  for (hs_stream *st = list, *next; st; st = next) {
    next = st->snext;
    mcp__hs_stream_finish(st);
    mcp__hs_stream_release(st);
  }
  if (h->store.ops && h->store.ops->drop_session)
    h->store.ops->drop_session(h->store.impl, hs->id);
  mcp__hs_session_release(hs); /* the table's reference */
}

void mcp__hs_session_touch(hs_session *hs, int delta) {
  pthread_mutex_lock(&hs->lock);
  hs->active += delta;
  hs->last_active_ms = mcp__monotonic_ms();
  pthread_mutex_unlock(&hs->lock);
}

/* Collects (retained) the idle sessions, or all, then ends them outside
 * the table lock. */
static void end_matching(mcp_http_server_t *h, int64_t now, bool all) {
  size_t count = 0;
  hs_session **list = NULL;
  pthread_mutex_lock(&h->sess_lock);
  list = malloc((h->nsessions + 1) * sizeof *list);
  for (size_t b = 0; list && b < h->nbuckets; b++)
    for (hs_session *hs = h->buckets[b]; hs; hs = hs->next) {
      bool take = all;
      if (!take) {
        pthread_mutex_lock(&hs->lock);
        take = hs->active == 0 && now - hs->last_active_ms > h->o->idle_ms;
        pthread_mutex_unlock(&hs->lock);
      }
      if (take) {
        mcp__hs_session_retain(hs);
        list[count++] = hs;
      }
    }
  pthread_mutex_unlock(&h->sess_lock);
  for (size_t i = 0; i < count; i++) {
    mcp__hs_session_end(list[i]);
    mcp__hs_session_release(list[i]);
  }
  free(list);
}

void mcp__hs_sessions_expire(mcp_http_server_t *h, int64_t now) {
  if (h->o->idle_ms > 0)
    end_matching(h, now, false);
}

void mcp__hs_sessions_end_all(mcp_http_server_t *h) {
  end_matching(h, 0, true);
}

void mcp__hs_sessions_finish_get_streams(mcp_http_server_t *h) {
  pthread_mutex_lock(&h->sess_lock);
  for (size_t b = 0; b < h->nbuckets; b++)
    for (hs_session *hs = h->buckets[b]; hs; hs = hs->next) {
      pthread_mutex_lock(&hs->lock);
      if (hs->get_stream)
        mcp__hs_stream_finish(hs->get_stream);
      pthread_mutex_unlock(&hs->lock);
    }
  pthread_mutex_unlock(&h->sess_lock);
}

bool mcp__hs_session_next_stream_id(hs_session *hs, char id[HS_STREAM_ID_MAX]) {
  pthread_mutex_lock(&hs->lock);
  bool ok = !hs->ended;
  snprintf(id, HS_STREAM_ID_MAX, "%u", hs->next_stream++);
  pthread_mutex_unlock(&hs->lock);
  return ok;
}

void mcp__hs_session_add_stream(hs_session *hs, hs_stream *st) {
  pthread_mutex_lock(&hs->lock);
  if (!hs->ended) {
    mcp__hs_stream_retain(st);
    st->snext = hs->streams;
    hs->streams = st;
  }
  pthread_mutex_unlock(&hs->lock);
}

void mcp__hs_session_remove_stream(hs_session *hs, hs_stream *st) {
  bool found = false;
  pthread_mutex_lock(&hs->lock);
  for (hs_stream **p = &hs->streams; *p; p = &(*p)->snext)
    if (*p == st) {
      *p = st->snext;
      found = true;
      break;
    }
  pthread_mutex_unlock(&hs->lock);
  if (found)
    mcp__hs_stream_release(st);
}

hs_stream *mcp__hs_session_find_stream(hs_session *hs, const char *id) {
  hs_stream *found = NULL;
  pthread_mutex_lock(&hs->lock);
  if (hs->get_stream && strcmp(hs->get_stream->id, id) == 0)
    found = hs->get_stream;
  for (hs_stream *st = hs->streams; st && !found; st = st->snext)
    if (strcmp(st->id, id) == 0)
      found = st;
  if (found)
    mcp__hs_stream_retain(found);
  pthread_mutex_unlock(&hs->lock);
  return found;
}
