/* SPDX-License-Identifier: MIT */
/* http_conn.c - one connection of the own HTTP engine: reading requests
 * (head, Content-Length or chunked body, 100-continue), calling the request
 * callback, writing responses (buffer, or a reader's body chunked), keep-
 * alive and pipelining in order, suspend/resume, close detection while
 * parked, and the response objects. See http_engine.h.
 *
 * Memory: an idle or parked connection holds only its struct (a few hundred
 * bytes). Input is read into the loop's scratch buffer; only bytes of an
 * unfinished head or chunk line are kept in rbuf. A request's head lives in
 * one block until its response starts; the output buffer exists while
 * bytes wait to be written, and a reader is asked for more only when it is
 * empty (a slow reader holds at most one block here).
 */
#include "transport/http_engine_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/http_status.h"

#define HE_RBUF_STEP  4096
#define HE_LINGER_MS  2000
#define HE_FRAME_ROOM 24 /* chunk size line before a block, CRLF after */

static void begin_response(mcp__he_conn *c);
static void conn_write(mcp__he_conn *c);
static ssize_t sock_write(mcp__he_conn *c, struct iovec *iov, int niov);
static size_t feed(mcp__he_conn *c, const char *buf, size_t len);
static void after_head(mcp__he_conn *c);

/* ---- responses ----------------------------------------------------------- */

/* A zeroed response. malloc and an assignment, not calloc: glibc's calloc
 * never takes its per-thread cache (see mcp__call_new). */
static mcp__he_resp *resp_new(void) {
  mcp__he_resp *r = malloc(sizeof *r);
  if (r != NULL)
    *r = (mcp__he_resp){0};
  return r;
}

mcp__he_resp *mcp__he_resp_buffer(size_t size, void *data,
                                  enum mcp__he_mem mode) {
  mcp__he_resp *r = resp_new();
  if (r == NULL)
    return NULL;
  atomic_init(&r->refs, 1);
  r->len = size;
  if (mode == MCP__HE_MEM_MUST_COPY && size > 0) {
    if ((r->data = malloc(size)) == NULL) {
      free(r);
      return NULL;
    }
    memcpy(r->data, data, size);
    r->owned = true;
  } else {
    r->data = data;
    r->owned = mode == MCP__HE_MEM_MUST_FREE;
  }
  return r;
}

mcp__he_resp *mcp__he_resp_callback(uint64_t size, size_t block,
                                    mcp__he_reader_fn crc,
                                    void *crc_cls,
                                    mcp__he_reader_free_fn crfc) {
  (void)size; /* always streamed with chunked coding (or until close) */
  mcp__he_resp *r = resp_new();
  if (r == NULL)
    return NULL;
  atomic_init(&r->refs, 1);
  r->callback = true;
  r->crc = crc;
  r->crc_cls = crc_cls;
  r->crfc = crfc;
  r->block = block ? block : 4096;
  return r;
}

/* The length of s, or SIZE_MAX when it holds CR or LF (header
 * injection). */
static size_t header_len(const char *s) {
  size_t n = strcspn(s, "\r\n");
  return s[n] == '\0' ? n : SIZE_MAX;
}

enum mcp__he_result mcp__he_resp_header(mcp__he_resp *r, const char *name,
                                        const char *value) {
  if (r == NULL || name == NULL || value == NULL || *name == '\0')
    return MCP__HE_NO;
  size_t nl = header_len(name), vl = header_len(value);
  if (nl == SIZE_MAX || vl == SIZE_MAX)
    return MCP__HE_NO;
  return mcp__he_resp_header_trusted(r, name, nl, value, vl);
}

enum mcp__he_result mcp__he_resp_header_trusted(mcp__he_resp *r,
                                                const char *name, size_t nl,
                                                const char *value,
                                                size_t vl) {
  size_t need = nl + vl + 4;
  if (r->hdrs == NULL) { /* most responses have a header or two */
    r->hdrs = r->hsmall;
    r->hcap = sizeof r->hsmall;
  }
  if (r->hlen + need + 1 > r->hcap) {
    size_t cap = r->hcap * 2;
    while (cap < r->hlen + need + 1)
      cap *= 2;
    char *h = r->hdrs == r->hsmall ? malloc(cap) : realloc(r->hdrs, cap);
    if (h == NULL)
      return MCP__HE_NO;
    if (r->hdrs == r->hsmall)
      memcpy(h, r->hsmall, r->hlen);
    r->hdrs = h;
    r->hcap = cap;
  }
  char *o = r->hdrs + r->hlen;
  memcpy(o, name, nl);
  memcpy(o + nl, ": ", 2);
  memcpy(o + nl + 2, value, vl);
  memcpy(o + nl + 2 + vl, "\r\n", 3); /* with the NUL */
  r->hlen += need;
  if (nl == 10 && vl == 5 && strcasecmp(name, "Connection") == 0 &&
      strcasecmp(value, "close") == 0)
    r->close = true;
  return MCP__HE_YES;
}

void mcp__he_resp_destroy(mcp__he_resp *r) {
  if (r == NULL ||
      atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1)
    return;
  if (r->crfc)
    r->crfc(r->crc_cls);
  if (r->owned)
    free(r->data);
  if (r->hdrs != r->hsmall)
    free(r->hdrs);
  free(r);
}

/* ---- the request layer's view of a connection ---------------------------- */

const char *mcp__he_lookup(mcp__he_conn *c, const char *name) {
  if (c->req == NULL || name == NULL)
    return NULL;
  return mcp__hp_field_get(&c->req->head, name);
}

const char *mcp__he_known(mcp__he_conn *c, enum mcp__hp_known k) {
  return c->req ? mcp__hp_known_get(&c->req->head, k) : NULL;
}

unsigned mcp__he_known_count(mcp__he_conn *c, enum mcp__hp_known k) {
  return c->req ? c->req->head.known_n[k] : 0;
}

unsigned mcp__he_param_count(mcp__he_conn *c) {
  return c->req ? c->req->head.params : 0;
}

bool mcp__he_body_length(mcp__he_conn *c, uint64_t *n) {
  if (c->req == NULL || c->req->head.body != MCP__HP_BODY_LENGTH)
    return false;
  *n = c->req->head.content_length;
  return true;
}

int mcp__he_values(mcp__he_conn *c, mcp__he_value_fn it, void *cls) {
  if (c->req == NULL)
    return 0;
  const mcp__hp_head *h = &c->req->head;
  int n = 0;
  for (size_t i = 0; i < h->nfields; i++) {
    n++;
    if (it && it(cls, h->fields[i].name, h->fields[i].value) != MCP__HE_YES)
      break;
  }
  return n;
}

void *mcp__he_socket_context(mcp__he_conn *c) { return c->socket_context; }

int mcp__he_fd(mcp__he_conn *c) { return c->fd; }

const struct sockaddr *mcp__he_client_addr(mcp__he_conn *c) {
  return (const struct sockaddr *)&c->addr;
}

const char *mcp__he_path(mcp__he_conn *c) {
  return c->req != NULL ? c->req->head.path : NULL;
}

int mcp__he_http_minor(mcp__he_conn *c) {
  return c->req != NULL ? c->req->head.minor : 1;
}

enum mcp__he_result mcp__he_queue(mcp__he_conn *c, unsigned int status,
                                  mcp__he_resp *r) {
  if (c == NULL || r == NULL || c->resp != NULL || c->req == NULL ||
      status < 100 || status > 999)
    return MCP__HE_NO;
  atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
  c->resp = r;
  c->status = status;
  return MCP__HE_YES;
}

void mcp__he_suspend(mcp__he_conn *c) {
  c->susp_seq++; /* on the loop thread, inside a callback */
  atomic_store(&c->suspended, true);
}

void mcp__he_resume(mcp__he_conn *c) {
  if (atomic_exchange(&c->suspended, false))
    mcp__he_wake(c);
}

/* ---- calling the request layer ------------------------------------------- */

enum he_phase { HE_ON_HEAD, HE_ON_BODY, HE_ON_END, HE_ON_RESUME };

/* Calls the request layer's callback of phase (data/len: on_body); false
 * when it refused (the connection is closed then). */
static bool call(mcp__he_conn *c, enum he_phase phase, const char *data,
                 size_t len) {
  mcp__he_daemon *d = c->loop->d;
  const mcp__he_handler *hd = d->handler;
  const mcp__hp_head *h = &c->req->head;
  c->called = true;
  uint32_t seq = c->susp_seq;
  enum mcp__he_result ret;
  switch (phase) {
  case HE_ON_HEAD:
    ret = hd->on_head(d->dh_cls, c, h->method, h->path, h->version,
                      &c->con_cls);
    break;
  case HE_ON_BODY:
    ret = hd->on_body(d->dh_cls, c, &c->con_cls, data, len);
    break;
  case HE_ON_END:
    ret = hd->on_end(d->dh_cls, c, &c->con_cls);
    break;
  default:
    ret = hd->on_resume(d->dh_cls, c, &c->con_cls);
    break;
  }
  c->susp_in_call = c->susp_seq != seq;
  if (ret != MCP__HE_YES) {
    mcp__he_close(c, MCP__HE_END_WITH_ERROR);
    return false;
  }
  return true;
}

/* What follows a call: a queued response is written, a suspension parks
 * the connection (or, when another thread resumed it already, the callback
 * runs again at once). Returns false when the call did neither. */
static bool after_call(mcp__he_conn *c) {
  for (;;) {
    if (c->dead)
      return true;
    if (c->resp) {
      begin_response(c);
      return true;
    }
    if (!c->susp_in_call)
      return false;
    if (atomic_load(&c->suspended)) {
      c->state = HE_PARK_REQ;
      mcp__he_want(c, EPOLLRDHUP); /* only hang-ups */
      return true;
    }
    if (!call(c, HE_ON_RESUME, NULL, 0))
      return true;
  }
}

/* An answer of the engine itself (malformed request, no answer). */
static void engine_error(mcp__he_conn *c, unsigned status,
                         const char *text) {
  if (c->resp) {
    mcp__he_resp_destroy(c->resp);
    c->resp = NULL;
  }
  if (c->req == NULL) { /* a minimal request for the answer */
    c->req = calloc(1, sizeof *c->req);
    if (c->req == NULL) {
      mcp__he_close(c, MCP__HE_END_WITH_ERROR);
      return;
    }
    c->req->head.method = "GET";
    c->req->head.minor = 1;
  }
  mcp__he_resp *r =
      mcp__he_resp_buffer(strlen(text), (void *)text, MCP__HE_MEM_PERSISTENT);
  if (r == NULL) {
    mcp__he_close(c, MCP__HE_END_WITH_ERROR);
    return;
  }
  mcp__he_resp_header(r, "Content-Type", "text/plain");
  c->resp = r; /* our reference */
  c->status = status;
  c->must_close = true;
  c->unread = true;
  begin_response(c);
}

/* ---- reading ------------------------------------------------------------- */

static size_t count_lines(const char *p, size_t n) {
  size_t k = 0;
  const char *e = p + n;
#if defined(__SSE2__)
  /* sixteen bytes a step, not a memchr call per line: each byte lane
   * counts its LFs (a match is -1), summed every 255 steps before a lane
   * could wrap */
  const __m128i lf = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
  while (e - p >= 16) {
    __m128i lanes = zero;
    for (int steps = 0; steps < 255 && e - p >= 16; steps++, p += 16)
      lanes = _mm_sub_epi8(
          lanes, _mm_cmpeq_epi8(
                     _mm_loadu_si128((const __m128i *)(const void *)p), lf));
    __m128i sums = _mm_sad_epu8(lanes, zero);
    k += (size_t)_mm_cvtsi128_si32(sums) +
         (size_t)_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums));
  }
#endif
  for (; p != e; p++)
    k += *p == '\n';
  return k;
}

static void start_request(mcp__he_conn *c, const char *p, size_t n) {
  size_t lines = count_lines(p, n) + 1;
  if (lines > MCP__HP_MAX_FIELDS + 2)
    lines = MCP__HP_MAX_FIELDS + 2;
  size_t text = (n + 1 + 7) & ~(size_t)7;
  he_req *q = malloc(sizeof *q + text + lines * sizeof(mcp__hp_field));
  if (q == NULL) {
    mcp__he_close(c, MCP__HE_END_WITH_ERROR);
    return;
  }
  memcpy(q->text, p, n);
  q->text[n] = '\0';
  mcp__hp_field *fields = (mcp__hp_field *)(void *)(q->text + text);
  enum mcp__hp_result res =
      mcp__hp_parse_head(q->text, n, c->loop->fields, &q->head);
  if (res == MCP__HP_OK && q->head.nfields > lines)
    res = MCP__HP_TOO_LARGE; /* cannot happen: one field per line */
  if (res != MCP__HP_OK) {
    const char *why = q->head.error; /* static text */
    free(q);
    /* the connection closes after the answer: nothing after this head is
     * read as a request (no smuggling through framing we refused) */
    engine_error(c,
                 res == MCP__HP_TOO_LARGE ? 431
                 : res == MCP__HP_VERSION ? 505
                                          : 400,
                 res == MCP__HP_TOO_LARGE ? "Request Header Fields Too Large"
                 : res == MCP__HP_VERSION ? "HTTP Version Not Supported"
                 : why                    ? why
                                          : "Bad Request");
    return;
  }
  memcpy(fields, c->loop->fields, q->head.nfields * sizeof *fields);
  q->head.fields = fields;
  c->req = q;
  c->must_close = !q->head.keep_alive;
  c->body_end = c->chunked = c->unread = c->req_read = false;
  c->rpos = 0;
  const mcp__hp_head *h = &q->head;
  c->no_body = strcmp(h->method, "HEAD") == 0;
  if (h->minor == 1 && h->known_n[MCP__HK_HOST] == 0) {
    engine_error(c, 400, "Bad Request: Host header missing");
    return;
  }
  if (h->body == MCP__HP_BODY_UNKNOWN) { /* before the request layer */
    engine_error(c, 501,
                 "Not Implemented: the only supported transfer coding is "
                 "chunked");
    return;
  }
  c->body_left = h->body == MCP__HP_BODY_LENGTH ? h->content_length : 0;
  if (h->body == MCP__HP_BODY_CHUNKED)
    mcp__hp_chunked_init(&c->ch);
  if (call(c, HE_ON_HEAD, NULL, 0))
    after_head(c);
}

/* What follows on_head (or an on_resume of a request parked at its head,
 * before its body was read): a queued response answers the request; a
 * suspension parks it (the body stays unread, in the socket or rbuf, until
 * it is resumed: a request may wait there, e.g. for its token to be
 * checked, without its body being taken in); otherwise the body is read,
 * or on_end runs at once when there is none. */
static void after_head(mcp__he_conn *c) {
  const mcp__hp_head *h = &c->req->head;
  for (;;) {
    if (c->dead)
      return;
    if (c->resp) {
      if (h->body != MCP__HP_BODY_NONE) { /* answered before the body */
        c->must_close = true;
        c->unread = true;
      }
      begin_response(c);
      return;
    }
    if (!c->susp_in_call)
      break;
    if (atomic_load(&c->suspended)) {
      c->state = HE_PARK_REQ;
      mcp__he_want(c, EPOLLRDHUP); /* only hang-ups */
      return;
    }
    if (!call(c, HE_ON_RESUME, NULL, 0))
      return;
  }
  if (h->body == MCP__HP_BODY_NONE) {
    c->req_read = true;
    if (call(c, HE_ON_END, NULL, 0) && !after_call(c))
      engine_error(c, 500, "Internal Server Error");
    return;
  }
  c->state = HE_BODY;
  mcp__he_want(c, EPOLLIN | EPOLLRDHUP); /* after a park at the head */
  if (h->expect_continue) {
    static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
    bool ww;
    ssize_t w = c->tls ? mcp__tls_write(c->tls, cont, sizeof cont - 1, &ww)
                       : send(c->fd, cont, sizeof cont - 1, MSG_NOSIGNAL);
    if (w != (ssize_t)(sizeof cont - 1))
      mcp__he_close(c, MCP__HE_END_WITH_ERROR);
  }
}

/* The body is complete: the final call. */
static void body_complete(mcp__he_conn *c) {
  c->req_read = true;
  if (call(c, HE_ON_END, NULL, 0) && !after_call(c))
    engine_error(c, 500, "Internal Server Error");
}

/* Hands body bytes to the request layer; false when that ended reading. */
static bool deliver(mcp__he_conn *c, const char *data, size_t len) {
  if (!call(c, HE_ON_BODY, data, len))
    return false;
  if (c->resp || c->susp_in_call) { /* an answer mid-body */
    c->must_close = true;
    c->unread = true;
    after_call(c);
    return false;
  }
  return true;
}

static size_t body_feed(mcp__he_conn *c, const char *buf, size_t len) {
  const mcp__hp_head *h = &c->req->head;
  if (h->body == MCP__HP_BODY_LENGTH) {
    size_t take = len;
    if ((uint64_t)take > c->body_left)
      take = (size_t)c->body_left;
    c->body_left -= take;
    if (take > 0 && !deliver(c, buf, take))
      return len;
    if (c->body_left == 0)
      body_complete(c);
    return take;
  }
  size_t off = 0;
  while (off < len) {
    size_t used = 0, dlen = 0;
    const char *data = NULL;
    enum mcp__hp_chunk_result r =
        mcp__hp_chunked_feed(&c->ch, buf + off, len - off, &used, &data, &dlen);
    off += used;
    if (r == MCP__HP_CHUNK_DATA) {
      if (dlen > 0 && !deliver(c, data, dlen))
        return len;
    } else if (r == MCP__HP_CHUNK_DONE) {
      body_complete(c);
      return off;
    } else if (r == MCP__HP_CHUNK_BAD) {
      engine_error(c, 400, "Bad Request: malformed chunked body");
      return len;
    } else {
      break;
    }
  }
  return off;
}

/* Processes buf; returns the bytes consumed. Stops where a request waits
 * for its answer (the rest is pipelined input) or needs more bytes. */
static size_t feed(mcp__he_conn *c, const char *buf, size_t len) {
  size_t off = 0;
  mcp__he_daemon *d = c->loop->d;
  while (off < len && !c->dead &&
         (c->state == HE_HEAD || c->state == HE_BODY)) {
    if (c->state == HE_BODY) {
      off += body_feed(c, buf + off, len - off);
      continue;
    }
    size_t end = mcp__hp_head_end(buf + off, len - off, c->scanned);
    if (end == 0 || end > d->head_max) {
      if (end > d->head_max || len - off > d->head_max) {
        engine_error(c, 431, "Request Header Fields Too Large");
        return len;
      }
      c->scanned = (uint32_t)(len - off);
      break;
    }
    c->scanned = 0;
    start_request(c, buf + off, end);
    off += end;
  }
  return off;
}

/* Keeps buf[0..len) as the start of the unprocessed input. */
static bool keep_input(mcp__he_conn *c, const char *buf, size_t len) {
  if (len == 0) {
    c->rlen = 0;
    return true;
  }
  if (c->rbuf == NULL || c->rcap < len) {
    size_t cap = (len + HE_RBUF_STEP - 1) / HE_RBUF_STEP * HE_RBUF_STEP;
    char *nb = malloc(cap);
    if (nb == NULL)
      return false;
    memcpy(nb, buf, len);
    free(c->rbuf);
    c->rbuf = nb;
    c->rcap = (uint32_t)cap;
  } else if (buf != c->rbuf) {
    memmove(c->rbuf, buf, len);
  }
  c->rlen = (uint32_t)len;
  return true;
}

static void drop_rbuf_if_idle(mcp__he_conn *c) {
  if (c->rlen == 0 && c->rbuf) {
    free(c->rbuf);
    c->rbuf = NULL;
    c->rcap = 0;
  }
}

/* Processes the input kept in rbuf (pipelined requests). */
static void drive(mcp__he_conn *c) {
  while (!c->dead && c->rlen > 0 &&
         (c->state == HE_HEAD || c->state == HE_BODY)) {
    uint32_t before = c->rlen;
    size_t used = feed(c, c->rbuf, c->rlen);
    if (c->dead)
      return;
    if (used >= c->rlen) {
      c->rlen = 0;
    } else {
      memmove(c->rbuf, c->rbuf + used, c->rlen - used);
      c->rlen -= (uint32_t)used;
    }
    if (used == 0 || c->rlen == before)
      break;
  }
  if (!c->dead && c->rlen == 0)
    drop_rbuf_if_idle(c);
}

static ssize_t sock_read(mcp__he_conn *c, char *buf, size_t len) {
  if (c->tls) {
    ssize_t n = mcp__tls_read(c->tls, buf, len, &c->want_write);
    if (n == MCP__TLS_AGAIN) {
      errno = EAGAIN;
      return -1;
    }
    if (n == MCP__TLS_ERROR) {
      errno = EIO;
      return -1;
    }
    return n;
  }
  return recv(c->fd, buf, len, 0);
}

static void conn_read(mcp__he_conn *c) {
  he_loop *l = c->loop;
  for (int round = 0; round < 8 && !c->dead; round++) {
    if (c->state == HE_LINGER) {
      ssize_t n = sock_read(c, l->scratch, HE_SCRATCH);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
        mcp__he_close(c, MCP__HE_END_COMPLETED_OK);
      if (n <= 0)
        return;
      continue;
    }
    if (c->state != HE_HEAD && c->state != HE_BODY)
      return;
    char *into;
    size_t room;
    bool scratch = c->rlen == 0;
    if (scratch) {
      into = l->scratch;
      room = HE_SCRATCH;
    } else {
      size_t want = c->rlen + HE_RBUF_STEP * 4;
      if (c->rcap < want) {
        char *nb = realloc(c->rbuf, want);
        if (nb == NULL) {
          mcp__he_close(c, MCP__HE_END_WITH_ERROR);
          return;
        }
        c->rbuf = nb;
        c->rcap = (uint32_t)want;
      }
      into = c->rbuf + c->rlen;
      room = c->rcap - c->rlen;
    }
    ssize_t n = sock_read(c, into, room);
    if (n == 0) {
      /* the client is done: an unfinished request is abandoned */
      mcp__he_close(c, c->called ? MCP__HE_END_CLIENT_ABORT
                    : MCP__HE_END_COMPLETED_OK);
      return;
    }
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        mcp__he_close(c, MCP__HE_END_READ_ERROR);
      else if (c->want_write)
        mcp__he_want(c, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
      return;
    }
    c->active_ms = mcp__he_now_ms();
    if (scratch) {
      size_t used = feed(c, into, (size_t)n);
      if (c->dead)
        return;
      if (used < (size_t)n && c->state != HE_LINGER &&
          !keep_input(c, into + used, (size_t)n - used)) {
        mcp__he_close(c, MCP__HE_END_WITH_ERROR);
        return;
      }
    } else {
      c->rlen += (uint32_t)n;
      drive(c);
      if (c->dead)
        return;
    }
    if ((size_t)n < room && !c->tls)
      return; /* the socket is drained */
  }
}

/* ---- writing ------------------------------------------------------------- */

/* Append to a buffer sized beforehand (begin_response). */
static void put_text(char *o, size_t *len, const char *text) {
  size_t n = strlen(text);
  memcpy(o + *len, text, n);
  *len += n;
}

static void put_uint(char *o, size_t *len, size_t v) {
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0)
    o[(*len)++] = digits[--n];
}

static const char *status_reason(unsigned s) {
  const char *phrase = mcp__http_reason(s);
  return phrase ? phrase : "Status";
}

static void begin_response(mcp__he_conn *c) {
  mcp__he_resp *r = c->resp;
  const mcp__hp_head *h = &c->req->head;
  unsigned s = c->status;
  bool bodyless = (s >= 100 && s < 200) || s == 204 || s == 304;
  if (r->close || c->peer_shut || atomic_load(&c->loop->d->stop))
    c->must_close = true;
  c->chunked = false;
  if (r->callback && !bodyless && !c->no_body) {
    if (h->minor >= 1)
      c->chunked = true;
    else
      c->must_close = true; /* HTTP/1.0: the body ends with the connection */
  }
  /* status line (at most 9 + 3 + 1 + 31 + 2), Date (37), Content-Length
   * (at most 38) or Transfer-Encoding (28), Connection (at most 24), CRLF */
  size_t cap = 192 + r->hlen;
  char *o = cap <= HE_HEAD_BUF ? c->loop->head : malloc(cap);
  if (o == NULL) {
    mcp__he_close(c, MCP__HE_END_WITH_ERROR);
    return;
  }
  /* no printf on the hot path: every piece is known text or a number */
  size_t len = 0;
  put_text(o, &len, "HTTP/1.1 ");
  put_uint(o, &len, s);
  put_text(o, &len, " ");
  put_text(o, &len, status_reason(s));
  put_text(o, &len, "\r\nDate: ");
  put_text(o, &len, mcp__he_date(c->loop));
  put_text(o, &len, "\r\n");
  if (r->hlen) {
    memcpy(o + len, r->hdrs, r->hlen);
    len += r->hlen;
  }
  if (!bodyless && !r->callback) {
    put_text(o, &len, "Content-Length: ");
    put_uint(o, &len, r->len);
    put_text(o, &len, "\r\n");
  }
  if (c->chunked)
    put_text(o, &len, "Transfer-Encoding: chunked\r\n");
  if (c->must_close && !r->close)
    put_text(o, &len, "Connection: close\r\n");
  else if (!c->must_close && h->minor == 0)
    put_text(o, &len, "Connection: keep-alive\r\n");
  memcpy(o + len, "\r\n", 2);
  len += 2;
  bool send_body = !bodyless && !c->no_body;
  c->body = send_body && !r->callback ? r->data : NULL;
  c->body_len = send_body && !r->callback ? r->len : 0;
  c->body_end = !send_body || !r->callback;
  /* the head is not needed once the answer is decided */
  free(c->req);
  c->req = NULL;
  c->state = HE_WRITE;
  free(c->obuf);
  c->obuf = NULL;
  c->olen = c->ooff = 0;
  if (o == c->loop->head) {
    /* Head and body in one write, usually all of it; what is left of the
     * head moves to the connection (errors are met again below). */
    size_t w = 0;
    if (!c->tls) {
      struct iovec iov[2] = {{o, len}, {(void *)c->body, c->body_len}};
      ssize_t n = sock_write(c, iov, 2);
      if (n > 0) {
        c->active_ms = mcp__he_now_ms();
        w = (size_t)n;
      }
    }
    if (w >= len) {
      c->body += w - len;
      c->body_len -= w - len;
    } else {
      char *rest = malloc(len - w);
      if (rest == NULL) {
        mcp__he_close(c, MCP__HE_END_WITH_ERROR);
        return;
      }
      memcpy(rest, o + w, len - w);
      c->obuf = rest;
      c->olen = (uint32_t)(len - w);
    }
  } else {
    c->obuf = o;
    c->olen = (uint32_t)len;
  }
  conn_write(c);
}

/* The response is out: the request is complete. */
static void response_done(mcp__he_conn *c) {
  mcp__he_daemon *d = c->loop->d;
  free(c->obuf);
  c->obuf = NULL;
  c->olen = c->ooff = 0;
  if (c->called && d->done)
    d->done(d->done_cls, c, &c->con_cls, MCP__HE_END_COMPLETED_OK);
  c->called = false;
  c->con_cls = NULL;
  mcp__he_resp_destroy(c->resp);
  c->resp = NULL;
  c->body = NULL;
  c->body_len = 0;
  if (c->must_close) {
    if ((c->unread || c->rlen > 0) && !c->peer_shut) {
      /* Closing with unread input would reset the connection, and the
       * client could lose the answer: stop sending, drop what comes. */
      shutdown(c->fd, SHUT_WR);
      c->state = HE_LINGER;
      c->linger_until = mcp__he_now_ms() + HE_LINGER_MS;
      c->rlen = 0;
      drop_rbuf_if_idle(c);
      mcp__he_want(c, EPOLLIN | EPOLLRDHUP);
    } else {
      mcp__he_close(c, MCP__HE_END_COMPLETED_OK);
    }
    return;
  }
  c->state = HE_HEAD;
  c->scanned = 0;
  mcp__he_want(c, EPOLLIN | EPOLLRDHUP);
}

static ssize_t sock_write(mcp__he_conn *c, struct iovec *iov,
                          int niov) {
  if (c->tls) {
    struct iovec *v = iov[0].iov_len ? &iov[0] : &iov[1];
    ssize_t n = mcp__tls_write(c->tls, v->iov_base, v->iov_len, &c->want_write);
    if (n == MCP__TLS_AGAIN) {
      errno = EAGAIN;
      return -1;
    }
    if (n <= 0) {
      errno = EIO;
      return -1;
    }
    return n;
  }
  struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)niov};
  return sendmsg(c->fd, &m, MSG_NOSIGNAL);
}

/* Asks the reader for the next block; false when writing must wait. */
static bool next_block(mcp__he_conn *c) {
  mcp__he_resp *r = c->resp;
  if (atomic_load(&c->suspended)) {
    c->state = HE_PARK_OUT;
    mcp__he_want(c, EPOLLRDHUP);
    return false;
  }
  size_t cap = HE_FRAME_ROOM + r->block + 8;
  char *o = malloc(cap);
  if (o == NULL) {
    mcp__he_close(c, MCP__HE_END_WITH_ERROR);
    return false;
  }
  ssize_t n = r->crc(r->crc_cls, c->rpos, o + HE_FRAME_ROOM, r->block);
  if (n > 0) {
    size_t take = (size_t)n;
    c->rpos += take;
    size_t start = HE_FRAME_ROOM;
    if (c->chunked) {
      char line[HE_FRAME_ROOM];
      int k = snprintf(line, sizeof line, "%zx\r\n", take);
      start = HE_FRAME_ROOM - (size_t)k;
      memcpy(o + start, line, (size_t)k);
      memcpy(o + HE_FRAME_ROOM + take, "\r\n", 2);
      take += 2;
    }
    memmove(o, o + start, HE_FRAME_ROOM - start + take);
    c->obuf = o;
    c->olen = (uint32_t)(HE_FRAME_ROOM - start + take);
    c->ooff = 0;
    return true;
  }
  if (n == MCP__HE_READER_END) {
    c->body_end = true;
    if (c->chunked) {
      memcpy(o, "0\r\n\r\n", 5);
      c->obuf = o;
      c->olen = 5;
      c->ooff = 0;
    } else {
      free(o);
    }
    return true;
  }
  free(o);
  if (n == MCP__HE_READER_ERROR) {
    mcp__he_close(c, MCP__HE_END_WITH_ERROR);
    return false;
  }
  /* nothing yet: the reader suspended the connection (or will be asked
   * again after the next wake-up) */
  c->state = HE_PARK_OUT;
  mcp__he_want(c, EPOLLRDHUP);
  if (!atomic_load(&c->suspended))
    mcp__he_wake(c);
  return false;
}

static void conn_write(mcp__he_conn *c) {
  while (!c->dead) {
    size_t pending = (size_t)(c->olen - c->ooff) + c->body_len;
    if (pending > 0) {
      struct iovec iov[2] = {{c->obuf + c->ooff, c->olen - c->ooff},
                             {(void *)c->body, c->body_len}};
      ssize_t n = sock_write(c, iov, 2);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
          mcp__he_want(c, c->tls && !c->want_write ? EPOLLIN : EPOLLOUT);
          return;
        }
        mcp__he_close(c, MCP__HE_END_WITH_ERROR);
        return;
      }
      c->active_ms = mcp__he_now_ms();
      size_t w = (size_t)n;
      size_t head = c->olen - c->ooff;
      if (w >= head) {
        c->ooff = c->olen;
        w -= head;
        c->body += w;
        c->body_len -= w;
      } else {
        c->ooff += (uint32_t)w;
      }
      continue;
    }
    free(c->obuf);
    c->obuf = NULL;
    c->olen = c->ooff = 0;
    if (!c->body_end) {
      if (!next_block(c))
        return;
      continue;
    }
    response_done(c);
    return;
  }
}

/* ---- events -------------------------------------------------------------- */

static void handshake(mcp__he_conn *c) {
  ssize_t r = mcp__tls_handshake(c->tls, &c->want_write);
  if (r == MCP__TLS_ERROR) {
    mcp__he_close(c, MCP__HE_END_WITH_ERROR);
    return;
  }
  c->active_ms = mcp__he_now_ms();
  if (r == MCP__TLS_AGAIN) {
    mcp__he_want(c, c->want_write ? EPOLLOUT : EPOLLIN);
    return;
  }
  c->state = HE_HEAD;
  mcp__he_want(c, EPOLLIN | EPOLLRDHUP);
  conn_read(c); /* the client may have sent its request already */
}

void mcp__he_conn_event(mcp__he_conn *c, uint32_t ev) {
  if (c->dead)
    return;
  bool parked = c->state == HE_PARK_REQ || c->state == HE_PARK_OUT;
  if ((ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) == EPOLLRDHUP &&
      c->state == HE_PARK_REQ && c->req_read) {
    /* The client sent its whole request and shut its sending side
     * (shutdown(SHUT_WR), or a close: TCP cannot tell them apart without
     * writing): it may still read, so its answer is finished and sent,
     * then the connection closes. Nothing more is read. */
    c->peer_shut = true;
    mcp__he_want(c, 0);
    return;
  }
  if ((ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) == EPOLLRDHUP &&
      c->state == HE_PARK_REQ && !c->req_read) {
    /* Parked at its head (after_head): the rest of the request may be in
     * the socket before the client's end; it is read when the request is
     * resumed, and the end is met then. */
    mcp__he_want(c, 0);
    return;
  }
  if ((ev & EPOLLERR) || ((ev & (EPOLLHUP | EPOLLRDHUP)) && parked)) {
    /* a parked stream whose client left (a half-closed stream's client
     * is taken as gone: a stream has no end of its own to wait for) */
    mcp__he_close(c, MCP__HE_END_CLIENT_ABORT);
    return;
  }
  switch (c->state) {
  case HE_TLS:
    handshake(c);
    return;
  case HE_WRITE:
    if (ev & (EPOLLOUT | EPOLLIN | EPOLLHUP))
      conn_write(c);
    if (!c->dead && c->state == HE_HEAD)
      drive(c); /* pipelined requests waited for this answer */
    return;
  case HE_HEAD:
  case HE_BODY:
  case HE_LINGER:
    if (ev & (EPOLLIN | EPOLLOUT | EPOLLHUP | EPOLLRDHUP)) {
      conn_read(c);
      if (!c->dead && c->state == HE_HEAD && c->rlen == 0)
        drop_rbuf_if_idle(c);
    }
    return;
  default:
    return;
  }
}

void mcp__he_continue(mcp__he_conn *c) {
  if (c->dead || atomic_load(&c->suspended))
    return;
  if (c->state == HE_PARK_REQ && !c->req_read) {
    /* parked at its head: the body (if any) is still to be read */
    c->state = HE_HEAD;
    c->active_ms = mcp__he_now_ms(); /* the park is no idleness */
    if (call(c, HE_ON_RESUME, NULL, 0))
      after_head(c);
  } else if (c->state == HE_PARK_REQ) {
    c->state = HE_BODY; /* for the calls below; the body was read */
    if (call(c, HE_ON_RESUME, NULL, 0) && !after_call(c))
      engine_error(c, 500, "Internal Server Error");
  } else if (c->state == HE_PARK_OUT) {
    c->state = HE_WRITE;
    conn_write(c);
  } else {
    return;
  }
  /* a finished answer lets pipelined requests go on; a request resumed at
   * its head reads the body bytes that came with it */
  if (!c->dead && (c->state == HE_HEAD || c->state == HE_BODY))
    drive(c);
}

void mcp__he_conn_release(mcp__he_conn *c) {
  if (c->resp) {
    mcp__he_resp_destroy(c->resp);
    c->resp = NULL;
  }
  free(c->req);
  c->req = NULL;
  free(c->obuf);
  c->obuf = NULL;
  c->olen = c->ooff = 0;
}
