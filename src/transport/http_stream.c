/* SPDX-License-Identifier: MIT */
/* http_stream.c - logical SSE streams of the HTTP transport.
 *
 * A stream buffers formatted events for the one connection attached to it;
 * the connection's content reader drains the buffer and, when it is empty,
 * suspends the connection (no thread waits, no busy polling). Producers
 * append under the stream lock and resume a suspended connection. Resumable
 * streams also append each event to the event store before queuing it, under
 * the same lock, so a concurrent resume (store replay + attach, also under
 * the lock) sees every event exactly once: either replayed or live.
 *
 * A client that does not read cannot make the server hold much for it: a
 * notification stream (subscriptions/listen, GET) holds at most
 * mcp_http_options_set_stream_buffer_bytes, an answer's stream 8 MiB, and
 * all streams together the total of
 * mcp_http_options_set_stream_buffer_total_bytes. A stream that would go
 * beyond is cut: its bytes are dropped and its connection ends, so that
 * the client reconnects and resynchronises (a resumable stream resumes from
 * the event store). A "state changed" notification (MCP__SEND_STATE: the
 * server flags list changes) that waits unsent is not queued again with
 * the same key: one tells the client all it needs.
 */
#include "transport/http_internal.h"

#include <stdlib.h>
#include <string.h>

#include "server/dispatch.h"
#include "transport/sse.h"
#include "util/clock.h"

/* What an answer's stream (a POST answered as SSE) may hold for a client
 * that does not read (notification streams: the option). */
#define STREAM_OUT_HIGH_WATER (8u << 20)
/* Bytes the engine asks the reader for at a time (its block for each
 * response): events are small, and a stream that only listens should
 * not hold 16 KiB for its rare notifications (bench/listen); a big result
 * just takes more callbacks. */
#define SSE_BLOCK 2048
/* A drained buffer bigger than this is freed (an idle stream holds
 * nothing); a consumed prefix this long is moved out once it is half the
 * buffer (a client that reads a little slower than events come must not
 * make the buffer grow forever). */
#define STREAM_OUT_KEEP (16u << 10)
/* SSE framing around a message (event id, "data: ", blank line), at most */
#define SSE_FRAMING 128

typedef struct hs_reader {
  hs_stream *st; /* counted */
  unsigned gen;
  mcp__he_conn *conn;
} hs_reader;

hs_stream *mcp__hs_stream_new(mcp_http_server_t *h, hs_session *session,
                              const char *id, bool resumable,
                              mcp__he_conn *conn) {
  hs_stream *st = calloc(1, sizeof *st);
  if (st == NULL)
    return NULL;
  atomic_init(&st->refs, 1);
  mcp__hs_server_retain(h); /* h's memory outlives its streams */
  st->h = h;
  if (session) {
    mcp__hs_session_retain(session);
    st->session = session;
  }
  pthread_mutex_init(&st->lock, NULL);
  snprintf(st->id, sizeof st->id, "%s", id ? id : "");
  st->resumable = resumable && session && h->store.ops;
  mcp__buf_init(&st->out);
  st->conn = conn;
  st->high_water = STREAM_OUT_HIGH_WATER;
  st->gen = 1;
  st->last_write_ms = mcp__monotonic_ms();
  pthread_mutex_lock(&h->streams_lock);
  st->next = h->streams;
  if (h->streams)
    h->streams->prev = st;
  h->streams = st;
  pthread_mutex_unlock(&h->streams_lock);
  return st;
}

void mcp__hs_stream_retain(hs_stream *st) {
  atomic_fetch_add_explicit(&st->refs, 1, memory_order_relaxed);
}

void mcp__hs_stream_release(hs_stream *st) {
  if (st == NULL ||
      atomic_fetch_sub_explicit(&st->refs, 1, memory_order_acq_rel) != 1)
    return;
  mcp_http_server_t *h = st->h;
  pthread_mutex_lock(&h->streams_lock);
  if (st->prev)
    st->prev->next = st->next;
  else if (h->streams == st)
    h->streams = st->next;
  if (st->next)
    st->next->prev = st->prev;
  pthread_mutex_unlock(&h->streams_lock);
  if (st->session)
    mcp__hs_session_release(st->session);
  atomic_fetch_sub(&h->stream_bytes, st->charged);
  mcp__buf_free(&st->out);
  pthread_mutex_destroy(&st->lock);
  free(st);
  mcp__hs_server_release(h); /* after a stop, the last stream frees h */
}

/* Resumes the attached connection if its reader is waiting. Lock held. */
static void wake(hs_stream *st) {
  if (st->suspended && st->conn) {
    st->suspended = false;
    mcp__he_resume(st->conn);
  }
}

void mcp__hs_stream_notifications_only(hs_stream *st) {
  pthread_mutex_lock(&st->lock);
  st->high_water = st->h->o->stream_buffer;
  pthread_mutex_unlock(&st->lock);
}

/* Brings the server-wide count up to date with what out holds. Lock held;
 * after every change of out. */
static void recount(hs_stream *st) {
  size_t now = st->out.len - st->out_off;
  if (now > st->charged)
    atomic_fetch_add(&st->h->stream_bytes, now - st->charged);
  else if (now < st->charged)
    atomic_fetch_sub(&st->h->stream_bytes, st->charged - now);
  st->charged = now;
}

static void reset_out(hs_stream *st) {
  if (st->out.cap > STREAM_OUT_KEEP)
    mcp__buf_free(&st->out);
  else
    mcp__buf_reset(&st->out);
  st->out_off = 0;
  memset(st->state_end, 0, sizeof st->state_end);
  recount(st);
}

/* Moves a long consumed prefix out of the buffer. Lock held. */
static void compact(hs_stream *st) {
  size_t off = st->out_off;
  if (off >= STREAM_OUT_KEEP && off * 2 >= st->out.len) {
    memmove(st->out.data, st->out.data + off, st->out.len - off + 1);
    st->out.len -= off;
    st->out_off = 0;
    for (unsigned k = 0; k < MCP__SEND_STATE_KEYS; k++)
      st->state_end[k] = st->state_end[k] > off ? st->state_end[k] - off : 0;
  }
  recount(st);
}

/* Whether adding len bytes keeps st within its own limit and the
 * server's. A stream holding nothing takes any one message (a big answer
 * must get through). Lock held. */
static bool fits(hs_stream *st, size_t len) {
  size_t held = st->out.len - st->out_off;
  if (held == 0)
    return true;
  size_t total = atomic_load(&st->h->stream_bytes);
  len += SSE_FRAMING;
  return held + len <= st->high_water &&
         total + len <= st->h->o->stream_buffer_total;
}

/* Drops what st holds and ends its connection (its reader ends the
 * response; the client reconnects). Later events go only to the store
 * until a client attaches again. Lock held. */
static void cut(hs_stream *st) {
  mcp__buf_free(&st->out);
  st->out_off = 0;
  memset(st->state_end, 0, sizeof st->state_end);
  recount(st);
  st->cut = true;
  st->gen++; /* the reader's next call ends the response */
  if (st->suspended) {
    st->suspended = false;
    mcp__he_resume(st->conn);
  }
  st->conn = NULL;
}

mcp_status mcp__hs_stream_prime(hs_stream *st, bool poll) {
  if (!st->resumable)
    return MCP_OK;
  char id[MCP_EVENT_ID_MAX];
  mcp_http_server_t *h = st->h;
  pthread_mutex_lock(&st->lock);
  mcp_status s =
      h->store.ops->append(h->store.impl, st->session->id, st->id, "", 0, id);
  if (s == MCP_OK && st->conn) {
    if (!mcp__sse_append_priming(&st->out, id, h->o->retry_ms))
      s = MCP_ERR_NOMEM;
    recount(st);
    st->poll_close = poll;
    wake(st);
  }
  pthread_mutex_unlock(&st->lock);
  return s;
}

mcp_status mcp__hs_stream_send(hs_stream *st, const char *msg, size_t len,
                               unsigned flags) {
  bool final = flags & MCP__SEND_FINAL;
  mcp_http_server_t *h = st->h;
  mcp_status s = MCP_OK;
  pthread_mutex_lock(&st->lock);
  if (st->finished) {
    pthread_mutex_unlock(&st->lock);
    return MCP_ERR_CLOSED;
  }
  int key = st->conn && (flags & MCP__SEND_STATE)
                ? (int)MCP__SEND_STATE_KEY(flags)
                : -1;
  if (key >= 0 && st->state_end[key] > st->out_off) {
    /* the same notification waits unsent: it says all this one would */
    pthread_mutex_unlock(&st->lock);
    return MCP_OK;
  }
  char id[MCP_EVENT_ID_MAX];
  if (st->resumable)
    s = h->store.ops->append(h->store.impl, st->session->id, st->id, msg, len,
                             id);
  if (s == MCP_OK && st->conn && !fits(st, len))
    cut(st);
  if (s == MCP_OK && st->conn) {
    if (!mcp__sse_append_event(&st->out, st->resumable ? id : NULL, msg, len))
      s = MCP_ERR_NOMEM;
    else if (key >= 0)
      st->state_end[key] = st->out.len;
    recount(st);
    wake(st);
  } else if (s == MCP_OK && st->cut && !st->resumable) {
    s = MCP_ERR_CLOSED; /* nothing keeps the event for this stream */
  }
  if (final) {
    st->finished = true;
    wake(st);
  }
  pthread_mutex_unlock(&st->lock);
  return s;
}

bool mcp__hs_stream_is_live(hs_stream *st) {
  pthread_mutex_lock(&st->lock);
  bool live = st->conn != NULL && !st->finished;
  pthread_mutex_unlock(&st->lock);
  return live;
}

void mcp__hs_stream_finish(hs_stream *st) {
  pthread_mutex_lock(&st->lock);
  st->finished = true;
  wake(st);
  pthread_mutex_unlock(&st->lock);
}

static mcp_status replay_one(void *ctx, const char *event_id, const char *data,
                             size_t len) {
  hs_stream *st = ctx;
  bool ok = len == 0 ? mcp__sse_append_priming(&st->out, event_id, 0)
                     : mcp__sse_append_event(&st->out, event_id, data, len);
  return ok ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp__hs_stream_attach(hs_stream *st, mcp__he_conn *conn,
                                 const char *last_event_id) {
  mcp_http_server_t *h = st->h;
  pthread_mutex_lock(&st->lock);
  if (st->conn) { /* the old connection's reader sees the new gen and ends */
    wake(st);
    st->conn = NULL;
  }
  st->gen++;
  st->suspended = false;
  st->poll_close = false;
  st->cut = false;
  reset_out(st);
  mcp_status s = MCP_OK;
  if (last_event_id && h->store.ops && st->session)
    s = h->store.ops->replay_after(h->store.impl, st->session->id,
                                   last_event_id, replay_one, st, NULL);
  recount(st);
  if (s == MCP_OK) {
    st->conn = conn;
    st->last_write_ms = mcp__monotonic_ms();
  } else {
    reset_out(st);
  }
  pthread_mutex_unlock(&st->lock);
  return s;
}

static ssize_t read_stream(void *cls, uint64_t pos, char *buf, size_t max) {
  (void)pos;
  hs_reader *r = cls;
  hs_stream *st = r->st;
  ssize_t n;
  pthread_mutex_lock(&st->lock);
  size_t avail = st->out.len - st->out_off;
  if (r->gen != st->gen) {
    n = MCP__HE_READER_END;
  } else if (avail > 0) {
    size_t take = avail < max ? avail : max;
    memcpy(buf, st->out.data + st->out_off, take);
    st->out_off += take;
    if (st->out_off == st->out.len)
      reset_out(st);
    else
      compact(st);
    st->last_write_ms = mcp__monotonic_ms();
    n = (ssize_t)take;
  } else if (st->finished || st->poll_close) {
    /* Detach: later events only go to the store, for a resume. */
    st->conn = NULL;
    st->gen++;
    st->poll_close = false;
    n = MCP__HE_READER_END;
  } else {
    st->suspended = true;
    mcp__he_suspend(r->conn);
    n = 0;
  }
  pthread_mutex_unlock(&st->lock);
  return n;
}

static void free_reader(void *cls) {
  hs_reader *r = cls;
  hs_stream *st = r->st;
  pthread_mutex_lock(&st->lock);
  if (r->gen == st->gen) { /* the client went away: detach */
    st->conn = NULL;
    st->suspended = false;
    st->gen++;
    reset_out(st);
  }
  pthread_mutex_unlock(&st->lock);
  mcp__hs_stream_release(st);
  free(r);
}

mcp__he_resp *mcp__hs_stream_response(hs_stream *st) {
  hs_reader *r = malloc(sizeof *r);
  if (r == NULL)
    return NULL;
  mcp__hs_stream_retain(st);
  r->st = st;
  pthread_mutex_lock(&st->lock);
  r->gen = st->gen;
  r->conn = st->conn;
  pthread_mutex_unlock(&st->lock);
  mcp__he_resp *resp = mcp__he_resp_callback(
      MCP__HE_SIZE_UNKNOWN, SSE_BLOCK, read_stream, r, free_reader);
  if (resp == NULL) {
    mcp__hs_stream_release(st);
    free(r);
    return NULL;
  }
  mcp__he_resp_header(resp, MCP__HTTP_HEADER_CONTENT_TYPE,
                      "text/event-stream");
  mcp__he_resp_header(resp, MCP__HTTP_HEADER_CACHE_CONTROL,
                      "no-cache, no-transform");
  mcp__he_resp_header(resp, "X-Accel-Buffering", "no");
  return resp;
}

void mcp__hs_streams_tick(mcp_http_server_t *h, int64_t now, bool finish_all) {
  int hb = h->o->heartbeat_ms;
  pthread_mutex_lock(&h->streams_lock);
  for (hs_stream *st = h->streams; st; st = st->next) {
    pthread_mutex_lock(&st->lock);
    if (finish_all) {
      st->finished = true;
      wake(st);
    } else if (hb > 0 && st->conn && !st->finished &&
               st->out.len == st->out_off && now - st->last_write_ms >= hb) {
      /* an SSE comment line: not an MCP method */
      mcp__sse_append_comment(&st->out, "ping");
      recount(st);
      st->last_write_ms = now;
      wake(st);
    }
    pthread_mutex_unlock(&st->lock);
  }
  pthread_mutex_unlock(&h->streams_lock);
}
