/* SPDX-License-Identifier: MIT */
/* http_engine.c - the own HTTP engine's event loops, accept, wake-ups,
 * timeouts and daemon life (see http_engine.h). */
/* the engine implements the table: no redirection of MHD_* names here */
#define MCP__MHD_NO_REDIRECT
#include "transport/http_engine_internal.h"
#include "util/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define HE_DEFAULT_LOOPS 2
#define HE_ACCEPT_BATCH  8 /* small: evicted connections close in between */
#define HE_SWEEP_MS      1000
#define HE_EMFILE_PAUSE  100 /* ms without accepting when out of descriptors */

int64_t mcp__he_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *mcp__he_date(he_loop *l) {
  time_t now = time(NULL);
  if (now != l->date_sec) {
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(l->date, sizeof l->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    l->date_sec = now;
  }
  return l->date;
}

void mcp__he_want(struct MHD_Connection *c, uint32_t events) {
  if (c->peer_shut) /* its input ended: only writing is left */
    events &= ~(uint32_t)(EPOLLIN | EPOLLRDHUP);
  if (c->events == events || c->dead)
    return;
  struct epoll_event ev = {.events = events, .data.ptr = c};
  epoll_ctl(c->loop->ep, EPOLL_CTL_MOD, c->fd, &ev);
  c->events = events;
}

/* ---- wake-ups ------------------------------------------------------------ */

void mcp__he_wake(struct MHD_Connection *c) {
  he_loop *l = c->loop;
  bool signal = false;
  pthread_mutex_lock(&l->mu);
  if (!c->queued) {
    c->queued = true;
    c->wnext = l->wake;
    l->wake = c;
    signal = !l->signalled;
    l->signalled = true;
  }
  pthread_mutex_unlock(&l->mu);
  if (signal) {
    uint64_t one = 1;
    ssize_t n = write(l->evfd, &one, sizeof one);
    (void)n; /* a full counter still wakes the loop */
  }
}

static void drain_wakes(he_loop *l) {
  uint64_t v;
  ssize_t n = read(l->evfd, &v, sizeof v);
  (void)n;
  pthread_mutex_lock(&l->mu);
  struct MHD_Connection *c = l->wake;
  l->wake = NULL;
  l->signalled = false;
  pthread_mutex_unlock(&l->mu);
  /* While queued, a connection's wnext is ours: it is unmarked (under the
   * lock) only once its successor is known. Nothing frees a connection
   * before the batch ends. */
  while (c) {
    pthread_mutex_lock(&l->mu);
    struct MHD_Connection *next = c->wnext;
    c->queued = false;
    pthread_mutex_unlock(&l->mu);
    if (!c->dead)
      mcp__he_continue(c);
    c = next;
  }
}

/* ---- closing ------------------------------------------------------------- */

static void unlink_conn(he_loop *l, struct MHD_Connection *c) {
  if (c->prev)
    c->prev->next = c->next;
  else
    l->conns = c->next;
  if (c->next)
    c->next->prev = c->prev;
  c->prev = c->next = NULL;
}

void mcp__he_close(struct MHD_Connection *c,
                   enum MHD_RequestTerminationCode toe) {
  if (c->dead)
    return;
  he_loop *l = c->loop;
  struct MHD_Daemon *d = l->d;
  c->dead = true;
  if (c->called && d->done) /* the request layer lets go of c here */
    d->done(d->done_cls, c, &c->con_cls, toe);
  c->called = false;
  mcp__he_conn_release(c);
  atomic_store(&c->suspended, false);
  if (d->notify)
    d->notify(d->notify_cls, c, &c->socket_context,
              MHD_CONNECTION_NOTIFY_CLOSED);
  epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
  if (c->tls) {
    mcp__tls_free(c->tls);
    c->tls = NULL;
  }
  close(c->fd);
  c->fd = -1;
  free(c->rbuf);
  c->rbuf = NULL;
  c->rlen = c->rcap = 0;
  unlink_conn(l, c);
  atomic_fetch_sub(&d->nconns, 1);
  c->next = l->grave;
  l->grave = c;
}

/* Frees closed connections no wake-up refers to any more. */
static void bury(he_loop *l, bool all) {
  struct MHD_Connection *keep = NULL;
  pthread_mutex_lock(&l->mu);
  while (l->grave) {
    struct MHD_Connection *c = l->grave;
    l->grave = c->next;
    if (c->queued && !all) {
      c->next = keep;
      keep = c;
    } else {
      free(c);
    }
  }
  l->grave = keep;
  pthread_mutex_unlock(&l->mu);
}

/* ---- accept -------------------------------------------------------------- */

static void listen_on(he_loop *l, bool on) {
  struct MHD_Daemon *d = l->d;
  if (on == l->listening)
    return;
  if (on) {
    if (atomic_load(&d->quiesced))
      return;
    /* EPOLLEXCLUSIVE: one loop wakes per new connection, so accepts
     * spread over the loops that are waiting. */
    struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE,
                             .data.ptr = &l->tag_listen};
    if (epoll_ctl(l->ep, EPOLL_CTL_ADD, d->lfd, &ev) == 0)
      l->listening = true;
  } else {
    epoll_ctl(l->ep, EPOLL_CTL_DEL, d->lfd, NULL);
    l->listening = false;
  }
}

static void accept_some(he_loop *l) {
  struct MHD_Daemon *d = l->d;
  for (int i = 0; i < HE_ACCEPT_BATCH && !atomic_load(&d->quiesced); i++) {
    struct sockaddr_in6 sa;
    socklen_t slen = sizeof sa;
    int fd = accept4(d->lfd, (struct sockaddr *)&sa, &slen,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        /* The socket stays readable: stop watching it for a moment. */
        listen_on(l, false);
        l->accept_paused_until = mcp__he_now_ms() + HE_EMFILE_PAUSE;
      }
      return;
    }
    if (d->conn_limit && atomic_load(&d->nconns) >= d->conn_limit) {
      close(fd);
      continue;
    }
    struct MHD_Connection *c = calloc(1, sizeof *c);
    if (c == NULL) {
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->loop = l;
    c->fd = fd;
    c->state = d->tls ? HE_TLS : HE_HEAD;
    memcpy(&c->addr, &sa, slen < sizeof sa ? slen : sizeof sa);
    c->addr_p = (struct sockaddr *)&c->addr;
    c->active_ms = mcp__he_now_ms();
    atomic_init(&c->suspended, false);
    if (d->tls && (c->tls = mcp__tls_new(d->tls, fd)) == NULL) {
      close(fd);
      free(c);
      continue;
    }
    c->events = EPOLLIN | EPOLLRDHUP;
    struct epoll_event ev = {.events = c->events, .data.ptr = c};
    if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
      if (c->tls)
        mcp__tls_free(c->tls);
      close(fd);
      free(c);
      continue;
    }
    c->next = l->conns;
    if (l->conns)
      l->conns->prev = c;
    l->conns = c;
    atomic_fetch_add(&d->nconns, 1);
    if (d->notify)
      d->notify(d->notify_cls, c, &c->socket_context,
                MHD_CONNECTION_NOTIFY_STARTED);
  }
}

/* ---- timeouts ------------------------------------------------------------ */

static void sweep(he_loop *l, int64_t now) {
  struct MHD_Daemon *d = l->d;
  int64_t idle = (int64_t)d->timeout_s * 1000;
  for (struct MHD_Connection *c = l->conns, *next; c; c = next) {
    next = c->next;
    if (c->state == HE_LINGER) {
      if (now >= c->linger_until)
        mcp__he_close(c, MHD_REQUEST_TERMINATED_COMPLETED_OK);
    } else if (idle > 0 && c->state != HE_PARK_REQ && c->state != HE_PARK_OUT &&
               now - c->active_ms >= idle) {
      mcp__he_close(c, MHD_REQUEST_TERMINATED_TIMEOUT_REACHED);
    }
  }
  if (!l->listening && l->accept_paused_until &&
      now >= l->accept_paused_until) {
    l->accept_paused_until = 0;
    listen_on(l, true);
  }
}

/* ---- the loop ------------------------------------------------------------ */

static void *loop_main(void *arg) {
  he_loop *l = arg;
  struct MHD_Daemon *d = l->d;
  struct epoll_event evs[HE_EVENTS];
  int64_t next_sweep = mcp__he_now_ms() + HE_SWEEP_MS;
  while (!atomic_load(&d->stop)) {
    atomic_fetch_add(&l->epoch, 1);
    int64_t now = mcp__he_now_ms();
    int64_t wait = next_sweep - now;
    if (l->accept_paused_until && l->accept_paused_until - now < wait)
      wait = l->accept_paused_until - now;
    int n = epoll_wait(l->ep, evs, HE_EVENTS, wait < 0 ? 0 : (int)wait);
    for (int i = 0; i < n; i++) {
      void *p = evs[i].data.ptr;
      if (p == &l->tag_listen)
        accept_some(l);
      else if (p == &l->tag_wake)
        drain_wakes(l);
      else
        mcp__he_conn_event(p, evs[i].events);
    }
    now = mcp__he_now_ms();
    if (now >= next_sweep || l->accept_paused_until) {
      sweep(l, now);
      if (now >= next_sweep)
        next_sweep = now + HE_SWEEP_MS;
    }
    bury(l, false);
  }
  while (l->conns)
    mcp__he_close(l->conns, MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN);
  bury(l, true);
  return NULL;
}

/* ---- the daemon ---------------------------------------------------------- */

static void free_daemon(struct MHD_Daemon *d) {
  for (unsigned i = 0; i < d->nloops; i++) {
    he_loop *l = &d->loops[i];
    if (l->ep >= 0)
      close(l->ep);
    if (l->evfd >= 0)
      close(l->evfd);
    pthread_mutex_destroy(&l->mu);
    free(l->scratch);
  }
  free(d->loops);
  if (d->tls)
    mcp__tls_ctx_free(d->tls);
  free(d);
}

static void stop_loops(struct MHD_Daemon *d) {
  atomic_store(&d->stop, true);
  for (unsigned i = 0; i < d->nloops; i++) {
    uint64_t one = 1;
    if (d->loops[i].evfd >= 0) {
      ssize_t n = write(d->loops[i].evfd, &one, sizeof one);
      (void)n;
    }
  }
  for (unsigned i = 0; i < d->nloops; i++)
    if (d->loops[i].started)
      pthread_join(d->loops[i].thread, NULL);
}

static struct MHD_Daemon *he_start_daemon(unsigned int flags, uint16_t port,
                                          MHD_AcceptPolicyCallback apc,
                                          void *apc_cls,
                                          MHD_AccessHandlerCallback dh,
                                          void *dh_cls, ...) {
  (void)port;
  (void)apc;
  (void)apc_cls;
  struct MHD_Daemon *d = calloc(1, sizeof *d);
  if (d == NULL)
    return NULL;
  d->dh = dh;
  d->dh_cls = dh_cls;
  d->lfd = -1;
  d->head_max = 8192;
  unsigned loops = 0;
  const char *cert = NULL, *key = NULL;
  va_list ap;
  va_start(ap, dh_cls);
  bool bad = false;
  for (;;) {
    enum MHD_OPTION o = va_arg(ap, enum MHD_OPTION);
    if (o == MHD_OPTION_END)
      break;
    switch (o) {
    case MHD_OPTION_LISTEN_SOCKET:
      d->lfd = va_arg(ap, MHD_socket);
      break;
    case MHD_OPTION_THREAD_POOL_SIZE:
      loops = va_arg(ap, unsigned int);
      break;
    case MHD_OPTION_CONNECTION_MEMORY_LIMIT: {
      size_t m = va_arg(ap, size_t);
      /* libmicrohttpd's pool holds the head plus slack (http_daemon.c) */
      d->head_max = m > 4096 ? m - 4096 : m;
      break;
    }
    case MHD_OPTION_CONNECTION_TIMEOUT:
      d->timeout_s = va_arg(ap, unsigned int);
      break;
    case MHD_OPTION_CONNECTION_LIMIT:
      d->conn_limit = va_arg(ap, unsigned int);
      break;
    case MHD_OPTION_NOTIFY_COMPLETED:
      d->done = va_arg(ap, MHD_RequestCompletedCallback);
      d->done_cls = va_arg(ap, void *);
      break;
    case MHD_OPTION_NOTIFY_CONNECTION:
      d->notify = va_arg(ap, MHD_NotifyConnectionCallback);
      d->notify_cls = va_arg(ap, void *);
      break;
    case MHD_OPTION_ARRAY: {
      struct MHD_OptionItem *it = va_arg(ap, struct MHD_OptionItem *);
      for (; it && it->option != MHD_OPTION_END; it++) {
        if (it->option == MHD_OPTION_HTTPS_MEM_CERT)
          cert = it->ptr_value;
        else if (it->option == MHD_OPTION_HTTPS_MEM_KEY)
          key = it->ptr_value;
        else if (it->option != MHD_OPTION_HTTPS_PRIORITIES)
          bad = true; /* TLS 1.2+ is the engine's own rule */
      }
      break;
    }
    default:
      bad = true;
      break;
    }
    if (bad)
      break;
  }
  va_end(ap);
  if (bad || d->lfd < 0 || ((flags & MHD_USE_TLS) && (!cert || !key))) {
    if (d->lfd >= 0)
      close(d->lfd); /* like libmicrohttpd: the socket given is consumed */
    errno = EINVAL;
    free(d);
    return NULL;
  }
  if (flags & MHD_USE_TLS) {
    char why[300];
    d->tls = mcp__tls_ctx_new(cert, key, why, sizeof why);
    if (d->tls == NULL) {
      close(d->lfd);
      errno = EINVAL;
      free(d);
      return NULL;
    }
  }
  atomic_init(&d->quiesced, false);
  atomic_init(&d->stop, false);
  atomic_init(&d->nconns, 0);
  atomic_init(&d->next_loop, 0);
  d->nloops = loops ? loops : HE_DEFAULT_LOOPS;
  d->loops = calloc(d->nloops, sizeof *d->loops);
  if (d->loops == NULL) {
    free_daemon(d);
    return NULL;
  }
  int flags_fl = fcntl(d->lfd, F_GETFL);
  if (flags_fl >= 0)
    fcntl(d->lfd, F_SETFL, flags_fl | O_NONBLOCK);
  bool ok = true;
  for (unsigned i = 0; i < d->nloops; i++) {
    he_loop *l = &d->loops[i];
    l->d = d;
    pthread_mutex_init(&l->mu, NULL);
    atomic_init(&l->epoch, 0);
    l->ep = epoll_create1(EPOLL_CLOEXEC);
    l->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    l->scratch = malloc(HE_SCRATCH);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &l->tag_wake};
    if (l->ep < 0 || l->evfd < 0 || l->scratch == NULL ||
        epoll_ctl(l->ep, EPOLL_CTL_ADD, l->evfd, &ev) != 0) {
      ok = false;
      break;
    }
    listen_on(l, true);
    if (!l->listening)
      ok = false;
  }
  for (unsigned i = 0; ok && i < d->nloops; i++) {
    he_loop *l = &d->loops[i];
    if (mcp__thread_start(&l->thread, loop_main, l) != 0)
      ok = false;
    else
      l->started = true;
  }
  if (!ok) {
    int e = errno;
    stop_loops(d);
    close(d->lfd); /* like libmicrohttpd: the socket given is consumed */
    free_daemon(d);
    errno = e;
    return NULL;
  }
  return d;
}

static MHD_socket he_quiesce(struct MHD_Daemon *d) {
  if (atomic_exchange(&d->quiesced, true))
    return MHD_INVALID_SOCKET;
  unsigned seen[64];
  unsigned n = d->nloops < 64 ? d->nloops : 64;
  for (unsigned i = 0; i < d->nloops; i++) {
    epoll_ctl(d->loops[i].ep, EPOLL_CTL_DEL, d->lfd, NULL);
    if (i < n)
      seen[i] = atomic_load(&d->loops[i].epoch);
  }
  /* Wait until every loop is past the batch it may be handling (its epoch
   * advances before each epoll_wait), so no accept on the descriptor
   * happens after it is handed back. */
  for (unsigned i = 0; i < n; i++) {
    he_loop *l = &d->loops[i];
    if (!l->started)
      continue;
    uint64_t one = 1;
    ssize_t w = write(l->evfd, &one, sizeof one);
    (void)w;
    for (int k = 0; k < 2000 && atomic_load(&l->epoch) == seen[i]; k++)
      nanosleep(&(struct timespec){0, 1000000L}, NULL);
  }
  return d->lfd;
}

static void he_stop_daemon(struct MHD_Daemon *d) {
  if (d == NULL)
    return;
  stop_loops(d);
  if (!atomic_load(&d->quiesced))
    close(d->lfd);
  free_daemon(d);
}

static const union MHD_DaemonInfo *
he_daemon_info(struct MHD_Daemon *d, enum MHD_DaemonInfoType type, ...) {
  if (type != MHD_DAEMON_INFO_CURRENT_CONNECTIONS)
    return NULL;
  d->info.num_connections = atomic_load(&d->nconns);
  return &d->info;
}

static const mcp__mhd_api api = {
    .MHD_start_daemon = he_start_daemon,
    .MHD_stop_daemon = he_stop_daemon,
    .MHD_quiesce_daemon = he_quiesce,
    .MHD_lookup_connection_value = mcp__he_lookup,
    .MHD_get_connection_values = mcp__he_values,
    .MHD_get_connection_info = mcp__he_conn_info,
    .MHD_queue_response = mcp__he_queue,
    .MHD_suspend_connection = mcp__he_suspend,
    .MHD_resume_connection = mcp__he_resume,
    .MHD_create_response_from_buffer = mcp__he_resp_buffer,
    .MHD_create_response_from_callback = mcp__he_resp_callback,
    .MHD_set_response_options = mcp__he_resp_options,
    .MHD_add_response_header = mcp__he_resp_header,
    .MHD_destroy_response = mcp__he_resp_destroy,
    .MHD_get_daemon_info = he_daemon_info,
};

const mcp__mhd_api *mcp__engine_api(void) {
  return &api;
}
