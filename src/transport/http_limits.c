/* SPDX-License-Identifier: MIT */
/* http_limits.c - connection and stream admission (see http_limits.h). */
#include "transport/http_limits.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "transport/http_internal.h"
#include "util/clock.h"

enum conn_phase {
  C_WAITING = 0, /* no request head yet (new or keep-alive) */
  C_READING,     /* head in, body arriving */
  C_ACTIVE,      /* request complete, answer pending */
  C_STREAMING    /* an SSE response is open */
};

/* Connections of one client address: IPv4 /32, IPv6 /64 (one host's
 * usual allocation, so one client cannot dodge the limit by address). */
#define KEY_MAX 9

/* A connection's phase changes three times per request on its network
 * thread, which is the only writer of phase, since_ms and wait_seq: those
 * changes take no lock (the table's lock is shared by every network
 * thread), unless they move the stream count. Readers on other threads
 * (admission of a new connection, the housekeeper) read them atomically
 * under the lock, which orders them only against the list. since_ms is
 * stored before phase (release) and read after it (acquire), so a
 * connection seen waiting or reading is never judged by the time its
 * previous phase began. */
typedef struct hs_conn {
  mcp_http_server_t *h; /* for mcp__hs_conn_server (CORS) */
  mcp__he_conn *c;
  int fd;
  unsigned char key[KEY_MAX];
  _Atomic int phase;          /* enum conn_phase */
  _Atomic int64_t since_ms;   /* when it began waiting (or reading) */
  _Atomic uint64_t wait_seq;  /* order of the beginnings of waits (ties in ms) */
  enum hs_admit refuse; /* decided before the connection's first request */
  const hs_session *stream_of; /* identity only, never dereferenced */
  bool shut;                   /* shut down by us; closing */
  struct hs_conn *prev, *next;
} hs_conn;

struct hs_limits {
  mcp_http_server_t *h;
  pthread_mutex_t lock;
  hs_conn *head;
  size_t max_conns; /* effective (bounded by RLIMIT_NOFILE) */
  size_t count;     /* registered, shut ones included */
  size_t shut;      /* registered and shut down by us */
  size_t streams;
  size_t max_streams; /* resolved */
  _Atomic uint64_t seq;
  size_t evicted, deadline_closed, refused;
};

/* Descriptors kept free for everything else of the process. */
#define FD_RESERVE 64

hs_limits *mcp__hs_limits_new(mcp_http_server_t *h, size_t max_connections) {
  hs_limits *l = calloc(1, sizeof *l);
  if (l == NULL)
    return NULL;
  l->h = h;
  pthread_mutex_init(&l->lock, NULL);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      rl.rlim_cur > 2 * FD_RESERVE) {
    /* Room for the connections we refuse or evict for (engine_cap). */
    size_t room = (size_t)rl.rlim_cur - FD_RESERVE;
    room -= room / 9;
    if (max_connections > room)
      max_connections = room;
  }
  l->max_conns = max_connections;
  l->max_streams = h->o->max_streams ? h->o->max_streams
                                     : max_connections - max_connections / 4;
  return l;
}

void mcp__hs_limits_free(hs_limits *l) {
  if (l == NULL)
    return;
  hs_conn *c = l->head;
  while (c) {
    hs_conn *next = c->next;
    free(c);
    c = next;
  }
  pthread_mutex_destroy(&l->lock);
  free(l);
}

size_t mcp__hs_limits_engine_cap(const hs_limits *l) {
  return l->max_conns + l->max_conns / 8 + 16;
}

static void addr_key(const struct sockaddr *sa, unsigned char key[KEY_MAX]) {
  memset(key, 0, KEY_MAX);
  if (sa == NULL)
    return;
  if (sa->sa_family == AF_INET) {
    key[0] = 4;
    memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
  } else if (sa->sa_family == AF_INET6) {
    const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(a)) {
      key[0] = 4;
      memcpy(key + 1, a->s6_addr + 12, 4);
    } else {
      key[0] = 6;
      memcpy(key + 1, a->s6_addr, 8);
    }
  }
}

static enum conn_phase phase_of(const hs_conn *c) {
  return (enum conn_phase)atomic_load_explicit(&c->phase,
                                               memory_order_acquire);
}

/* A new phase from now (the connection's network thread only). */
static void set_phase(hs_conn *c, enum conn_phase phase, int64_t now_ms) {
  atomic_store_explicit(&c->since_ms, now_ms, memory_order_relaxed);
  atomic_store_explicit(&c->phase, (int)phase, memory_order_release);
}

static hs_conn *conn_of(mcp__he_conn *conn) {
  return mcp__he_socket_context(conn);
}

mcp_http_server_t *mcp__hs_conn_server(mcp__he_conn *conn) {
  hs_conn *c = conn_of(conn);
  return c ? c->h : NULL;
}

/* Shuts c's socket down: the engine sees the end of the stream and
 * closes the connection (its close notification unregisters c, so the
 * descriptor is still c's here). Lock held. */
static void shut(hs_limits *l, hs_conn *c) {
  if (c->shut)
    return;
  c->shut = true;
  l->shut++;
  shutdown(c->fd, SHUT_RDWR);
}

static void unlink_conn(hs_limits *l, hs_conn *c) {
  if (c->prev)
    c->prev->next = c->next;
  else
    l->head = c->next;
  if (c->next)
    c->next->prev = c->prev;
  l->count--;
  if (c->shut)
    l->shut--;
  if (phase_of(c) == C_STREAMING)
    l->streams--;
}

/* Registers c and decides on its admission. Lock held. */
static void admit(hs_limits *l, hs_conn *c) {
  const mcp_http_options_t *o = l->h->o;
  size_t live = 0, same = 0;
  hs_conn *oldest = NULL, *oldest_same = NULL;
  uint64_t oldest_seq = 0, oldest_same_seq = 0;
  for (hs_conn *x = l->head; x; x = x->next) {
    if (x->shut)
      continue;
    live++;
    bool is_same = memcmp(x->key, c->key, KEY_MAX) == 0;
    same += is_same;
    if (phase_of(x) != C_WAITING)
      continue;
    uint64_t seq = atomic_load_explicit(&x->wait_seq, memory_order_relaxed);
    if (oldest == NULL || seq < oldest_seq)
      oldest = x, oldest_seq = seq;
    if (is_same && (oldest_same == NULL || seq < oldest_same_seq))
      oldest_same = x, oldest_same_seq = seq;
  }
  if (same >= o->max_conns_per_addr) {
    if (oldest_same) {
      shut(l, oldest_same);
      l->evicted++;
      live--;
    } else {
      c->refuse = HS_ADMIT_TOO_MANY;
      return;
    }
  }
  if (live >= l->max_conns) {
    if (oldest) {
      shut(l, oldest);
      l->evicted++;
    } else {
      c->refuse = HS_ADMIT_BUSY;
    }
  }
}

void mcp__hs_on_connection(void *cls, mcp__he_conn *conn,
                           void **socket_context,
                           enum mcp__he_notify code) {
  mcp_http_server_t *h = cls;
  hs_limits *l = h->limits;
  if (code == MCP__HE_NOTIFY_CLOSED) {
    hs_conn *c = *socket_context;
    if (c == NULL)
      return;
    *socket_context = NULL;
    pthread_mutex_lock(&l->lock);
    unlink_conn(l, c);
    pthread_mutex_unlock(&l->lock);
    free(c);
    return;
  }
  hs_conn *c = calloc(1, sizeof *c);
  if (c == NULL)
    return; /* unregistered: served, but outside the limits */
  c->c = conn;
  c->h = h;
  c->fd = mcp__he_fd(conn);
  addr_key(mcp__he_client_addr(conn), c->key);
  atomic_init(&c->phase, C_WAITING);
  atomic_init(&c->since_ms, mcp__monotonic_ms());
  atomic_init(&c->wait_seq, atomic_fetch_add(&l->seq, 1) + 1);
  pthread_mutex_lock(&l->lock);
  size_t evicted = l->evicted;
  admit(l, c);
  evicted = l->evicted - evicted;
  if (c->refuse)
    l->refused++;
  c->next = l->head;
  if (l->head)
    l->head->prev = c;
  l->head = c;
  l->count++;
  pthread_mutex_unlock(&l->lock);
  *socket_context = c;
  if (evicted > 0) /* logged outside the lock (the handler is the user's) */
    mcp__log(h->server, MCP_LOG_INFO,
             "http: closed %zu connection(s) still waiting for a request to "
             "admit a new one (connection limit)",
             evicted);
}

enum hs_admit mcp__hs_conn_request(hs_limits *l, mcp__he_conn *conn,
                                   bool with_body) {
  (void)l;
  hs_conn *c = conn_of(conn);
  if (c == NULL)
    return HS_ADMIT_OK;
  /* the body gets a deadline of its own */
  set_phase(c, with_body ? C_READING : C_ACTIVE, mcp__monotonic_ms());
  return c->refuse;
}

void mcp__hs_conn_body_done(hs_limits *l, mcp__he_conn *conn) {
  (void)l;
  hs_conn *c = conn_of(conn);
  if (c != NULL && phase_of(c) == C_READING)
    atomic_store_explicit(&c->phase, C_ACTIVE, memory_order_release);
}

void mcp__hs_conn_request_done(hs_limits *l, mcp__he_conn *conn) {
  hs_conn *c = conn_of(conn);
  if (c == NULL)
    return;
  atomic_store_explicit(&c->wait_seq, atomic_fetch_add(&l->seq, 1) + 1,
                        memory_order_relaxed);
  if (phase_of(c) != C_STREAMING) {
    set_phase(c, C_WAITING, mcp__monotonic_ms());
    return;
  }
  pthread_mutex_lock(&l->lock); /* the stream count moves */
  l->streams--;
  c->stream_of = NULL;
  set_phase(c, C_WAITING, mcp__monotonic_ms());
  pthread_mutex_unlock(&l->lock);
}

enum hs_admit mcp__hs_stream_admit(hs_limits *l, const hs_session *hs) {
  const mcp_http_options_t *o = l->h->o;
  enum hs_admit a = HS_ADMIT_OK;
  pthread_mutex_lock(&l->lock);
  if (l->streams >= l->max_streams) {
    a = HS_ADMIT_BUSY;
  } else if (hs != NULL) {
    size_t mine = 0;
    for (hs_conn *x = l->head; x; x = x->next)
      mine += phase_of(x) == C_STREAMING && x->stream_of == hs;
    if (mine >= o->max_streams_per_session)
      a = HS_ADMIT_TOO_MANY;
  }
  if (a != HS_ADMIT_OK)
    l->refused++;
  pthread_mutex_unlock(&l->lock);
  return a;
}

void mcp__hs_conn_streaming(hs_limits *l, mcp__he_conn *conn,
                            const hs_session *hs) {
  hs_conn *c = conn_of(conn);
  if (c == NULL)
    return;
  pthread_mutex_lock(&l->lock);
  if (phase_of(c) != C_STREAMING)
    l->streams++;
  c->stream_of = hs;
  atomic_store_explicit(&c->phase, C_STREAMING, memory_order_release);
  pthread_mutex_unlock(&l->lock);
}

void mcp__hs_limits_tick(hs_limits *l, int64_t now_ms) {
  int64_t deadline = l->h->o->request_timeout_ms;
  if (deadline <= 0)
    return;
  size_t closed = 0;
  pthread_mutex_lock(&l->lock);
  for (hs_conn *x = l->head; x; x = x->next) {
    enum conn_phase phase = x->shut ? C_ACTIVE : phase_of(x);
    if ((phase == C_WAITING || phase == C_READING) &&
        now_ms - atomic_load_explicit(&x->since_ms, memory_order_relaxed) >=
            deadline) {
      shut(l, x);
      l->deadline_closed++;
      closed++;
    }
  }
  pthread_mutex_unlock(&l->lock);
  if (closed > 0)
    mcp__log(l->h->server, MCP_LOG_INFO,
             "http: closed %zu connection(s) past the request deadline "
             "(%lld ms)",
             closed, (long long)deadline);
}

hs_limits_stats mcp__hs_limits_stats(hs_limits *l) {
  pthread_mutex_lock(&l->lock);
  hs_limits_stats s = {l->count - l->shut, l->streams, l->evicted,
                       l->deadline_closed, l->refused};
  pthread_mutex_unlock(&l->lock);
  return s;
}
