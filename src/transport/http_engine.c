/* SPDX-License-Identifier: MIT */
/* http_engine.c - the own HTTP engine's event loops, accept, wake-ups,
 * timeouts and daemon life (see http_engine.h). */
#include "transport/http_engine_internal.h"
#include "util/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
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

void mcp__he_want(mcp__he_conn *c, uint32_t events) {
  if (c->peer_shut) /* its input ended: only writing is left */
    events &= ~(uint32_t)(EPOLLIN | EPOLLRDHUP);
  if (c->events == events || c->dead)
    return;
  struct epoll_event ev = {.events = events, .data.ptr = c};
  epoll_ctl(c->loop->ep, EPOLL_CTL_MOD, c->fd, &ev);
  c->events = events;
}

/* ---- wake-ups ------------------------------------------------------------ */

void mcp__he_wake(mcp__he_conn *c) {
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
  mcp__he_conn *c = l->wake;
  l->wake = NULL;
  l->signalled = false;
  pthread_mutex_unlock(&l->mu);
  /* While queued, a connection's wnext is ours: it is unmarked (under the
   * lock) only once its successor is known. Nothing frees a connection
   * before the batch ends. */
  while (c) {
    pthread_mutex_lock(&l->mu);
    mcp__he_conn *next = c->wnext;
    c->queued = false;
    pthread_mutex_unlock(&l->mu);
    if (!c->dead)
      mcp__he_continue(c);
    c = next;
  }
}

/* ---- closing ------------------------------------------------------------- */

static void unlink_conn(he_loop *l, mcp__he_conn *c) {
  if (c->prev)
    c->prev->next = c->next;
  else
    l->conns = c->next;
  if (c->next)
    c->next->prev = c->prev;
  c->prev = c->next = NULL;
}

void mcp__he_close(mcp__he_conn *c,
                   enum mcp__he_end toe) {
  if (c->dead)
    return;
  he_loop *l = c->loop;
  mcp__he_daemon *d = l->d;
  c->dead = true;
  if (c->called && d->done) /* the request layer lets go of c here */
    d->done(d->done_cls, c, &c->con_cls, toe);
  c->called = false;
  mcp__he_conn_release(c);
  atomic_store(&c->suspended, false);
  if (d->notify)
    d->notify(d->notify_cls, c, &c->socket_context,
              MCP__HE_NOTIFY_CLOSED);
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
  mcp__he_conn *keep = NULL;
  pthread_mutex_lock(&l->mu);
  while (l->grave) {
    mcp__he_conn *c = l->grave;
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
  mcp__he_daemon *d = l->d;
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
  mcp__he_daemon *d = l->d;
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
    mcp__he_conn *c = calloc(1, sizeof *c);
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
                MCP__HE_NOTIFY_STARTED);
  }
}

/* ---- timeouts ------------------------------------------------------------ */

static void sweep(he_loop *l, int64_t now) {
  mcp__he_daemon *d = l->d;
  int64_t idle = (int64_t)d->timeout_s * 1000;
  for (mcp__he_conn *c = l->conns, *next; c; c = next) {
    next = c->next;
    if (c->state == HE_LINGER) {
      if (now >= c->linger_until)
        mcp__he_close(c, MCP__HE_END_COMPLETED_OK);
    } else if (idle > 0 && c->state != HE_PARK_REQ && c->state != HE_PARK_OUT &&
               now - c->active_ms >= idle) {
      mcp__he_close(c, MCP__HE_END_TIMEOUT_REACHED);
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
  mcp__he_daemon *d = l->d;
  /* named, so that a profile (and http_test) can tell network threads */
  pthread_setname_np(pthread_self(), "mcp-http-loop");
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
    mcp__he_close(l->conns, MCP__HE_END_DAEMON_SHUTDOWN);
  bury(l, true);
  return NULL;
}

/* ---- the daemon ---------------------------------------------------------- */

static void free_daemon(mcp__he_daemon *d) {
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

static void stop_loops(mcp__he_daemon *d) {
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

mcp__he_daemon *mcp__he_start(const mcp__he_config *cfg) {
  mcp__he_daemon *d = calloc(1, sizeof *d);
  if (d == NULL || cfg->listen_fd < 0 || cfg->handler == NULL ||
      (cfg->tls_cert == NULL) != (cfg->tls_key == NULL)) {
    if (cfg->listen_fd >= 0)
      close(cfg->listen_fd); /* the socket given is consumed */
    errno = d ? EINVAL : ENOMEM;
    free(d);
    return NULL;
  }
  d->handler = cfg->handler;
  d->done = cfg->on_completed;
  d->notify = cfg->on_connection;
  d->dh_cls = d->done_cls = d->notify_cls = cfg->cls;
  d->lfd = cfg->listen_fd;
  d->head_max = cfg->head_max ? cfg->head_max : 8192;
  d->timeout_s = cfg->timeout_s;
  d->conn_limit = cfg->conn_limit;
  unsigned loops = cfg->loops;
  if (cfg->tls_cert) {
    char why[300];
    d->tls = mcp__tls_ctx_new(cfg->tls_cert, cfg->tls_key, why, sizeof why);
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
    close(d->lfd); /* the socket given is consumed */
    free_daemon(d);
    errno = e;
    return NULL;
  }
  return d;
}

int mcp__he_quiesce(mcp__he_daemon *d) {
  if (atomic_exchange(&d->quiesced, true))
    return -1;
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

void mcp__he_stop(mcp__he_daemon *d) {
  if (d == NULL)
    return;
  stop_loops(d);
  if (!atomic_load(&d->quiesced))
    close(d->lfd);
  free_daemon(d);
}

unsigned mcp__he_connections(mcp__he_daemon *d) {
  return atomic_load(&d->nconns);
}
