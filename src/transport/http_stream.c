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
 */
#include "transport/http_internal.h"

#include <stdlib.h>
#include <string.h>

#include "server/dispatch.h"
#include "transport/sse.h"
#include "util/clock.h"

/* Stop filling the connection buffer of a client that does not read; the
 * events stay in the store (when resumable) for a later resume. */
#define STREAM_OUT_HIGH_WATER (8u << 20)
/* Bytes libmicrohttpd asks the reader for at a time (it allocates them with
 * each response): events are small, and a stream that only listens should
 * not hold 16 KiB for its rare notifications (bench/listen); a big result
 * just takes more callbacks. */
#define SSE_BLOCK 2048

typedef struct hs_reader {
  hs_stream *st; /* counted */
  unsigned gen;
  struct MHD_Connection *conn;
} hs_reader;

hs_stream *mcp__hs_stream_new(mcp_http_server_t *h, hs_session *session,
                              const char *id, bool resumable,
                              struct MHD_Connection *conn) {
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
  mcp__buf_free(&st->out);
  pthread_mutex_destroy(&st->lock);
  free(st);
  mcp__hs_server_release(h); /* after a stop, the last stream frees h */
}

/* Resumes the attached connection if its reader is waiting. Lock held. */
static void wake(hs_stream *st) {
  if (st->suspended && st->conn) {
    st->suspended = false;
    MHD_resume_connection(st->conn);
  }
}

static void reset_out(hs_stream *st) {
  mcp__buf_reset(&st->out);
  st->out_off = 0;
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
    st->poll_close = poll;
    wake(st);
  }
  pthread_mutex_unlock(&st->lock);
  return s;
}

mcp_status mcp__hs_stream_send(hs_stream *st, const char *msg, size_t len,
                               bool final) {
  mcp_http_server_t *h = st->h;
  mcp_status s = MCP_OK;
  pthread_mutex_lock(&st->lock);
  if (st->finished) {
    pthread_mutex_unlock(&st->lock);
    return MCP_ERR_CLOSED;
  }
  char id[MCP_EVENT_ID_MAX];
  if (st->resumable)
    s = h->store.ops->append(h->store.impl, st->session->id, st->id, msg, len,
                             id);
  if (s == MCP_OK && st->conn &&
      st->out.len - st->out_off < STREAM_OUT_HIGH_WATER) {
    if (!mcp__sse_append_event(&st->out, st->resumable ? id : NULL, msg, len))
      s = MCP_ERR_NOMEM;
    wake(st);
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

mcp_status mcp__hs_stream_attach(hs_stream *st, struct MHD_Connection *conn,
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
  reset_out(st);
  mcp_status s = MCP_OK;
  if (last_event_id && h->store.ops && st->session)
    s = h->store.ops->replay_after(h->store.impl, st->session->id,
                                   last_event_id, replay_one, st, NULL);
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
    n = MHD_CONTENT_READER_END_OF_STREAM;
  } else if (avail > 0) {
    size_t take = avail < max ? avail : max;
    memcpy(buf, st->out.data + st->out_off, take);
    st->out_off += take;
    if (st->out_off == st->out.len)
      reset_out(st);
    st->last_write_ms = mcp__monotonic_ms();
    n = (ssize_t)take;
  } else if (st->finished || st->poll_close) {
    /* Detach: later events only go to the store, for a resume. */
    st->conn = NULL;
    st->gen++;
    st->poll_close = false;
    n = MHD_CONTENT_READER_END_OF_STREAM;
  } else {
    st->suspended = true;
    MHD_suspend_connection(r->conn);
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

struct MHD_Response *mcp__hs_stream_response(hs_stream *st) {
  hs_reader *r = malloc(sizeof *r);
  if (r == NULL)
    return NULL;
  mcp__hs_stream_retain(st);
  r->st = st;
  pthread_mutex_lock(&st->lock);
  r->gen = st->gen;
  r->conn = st->conn;
  pthread_mutex_unlock(&st->lock);
  struct MHD_Response *resp = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, SSE_BLOCK, read_stream, r, free_reader);
  if (resp == NULL) {
    mcp__hs_stream_release(st);
    free(r);
    return NULL;
  }
  /* libmicrohttpd 0.9.75 keeps the last chunk of a chunked body in its
   * buffer when the reader suspends the connection, stranding events until
   * the next resume. A close-delimited body (HTTP/1.0 framing) is written
   * at once; an SSE stream owns its connection anyway. */
  MHD_set_response_options(resp, MHD_RF_HTTP_1_0_SERVER, MHD_RO_END);
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                          "text/event-stream");
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
                          "no-cache, no-transform");
  MHD_add_response_header(resp, "X-Accel-Buffering", "no");
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
      mcp__sse_append_comment(&st->out, "ping");
      st->last_write_ms = now;
      wake(st);
    }
    pthread_mutex_unlock(&st->lock);
  }
  pthread_mutex_unlock(&h->streams_lock);
}
