/* SPDX-License-Identifier: MIT */
/* http_daemon.c - life of an HTTP transport: start (bind, HTTP
 * engine, worker pool, housekeeper), graceful stop, and the blocking
 * convenience that serves until SIGINT/SIGTERM.
 *
 * Stop order matters: refuse new work, end GET streams, let calls finish
 * until the deadline, then cancel (closing sessions wakes handlers blocked
 * on a client answer), end every stream, wait for the engine to complete the
 * requests it holds (no connection may stay suspended), and only then stop
 * the daemon and free the sessions.
 */
#include "mcp/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth/auth_http.h"
#include "server/dispatch.h"
#include "store/dpop_jti.h"
#include "transport/http_cors.h"
#include "transport/http_engine.h"
#include "transport/http_internal.h"
#include "transport/http_metrics.h"
#include "transport/http_serve.h"
#include "util/clock.h"
#include "util/thread.h"
#include "util/str.h"

#define IO_DRAIN_MS 2000

/* ---- worker pool --------------------------------------------------------- */

/* Wake-ups are the main cost of the hand-off, so a request is queued
 * without waking anyone while workers already running calls can take it
 * soon: the first to finish takes it. Running calls may
 * block (a database, a client answer), so while any worker is busy the idle
 * ones look again every QUEUE_POLL_MS and take the head request when no
 * request was taken in the meantime (a request left to busy workers wakes
 * a sleeper when none is polling yet). A request thus waits at most about two
 * polls behind stuck calls, and under load one running worker drains the
 * queue with no wake-ups at all. */
#define QUEUE_POLL_MS 1
/* Queued requests per running worker above which another worker joins. */
#define QUEUE_PER_BUSY 8

static void poll_deadline(struct timespec *ts) {
  mcp__deadline_in(CLOCK_MONOTONIC, QUEUE_POLL_MS, ts);
}

static void *worker_main(void *arg) {
  mcp_http_server_t *h = arg;
  bool stalled = false;
  pthread_mutex_lock(&h->q_lock);
  for (;;) {
    if (h->qhead && (h->q_stop || stalled || h->busy == 0 ||
                     h->qlen > h->busy * QUEUE_PER_BUSY)) {
      stalled = false;
      hs_req *r = h->qhead;
      h->qhead = r->qnext;
      if (h->qhead == NULL)
        h->qtail = NULL;
      h->qlen--;
      h->q_taken++;
      h->busy++;
      pthread_mutex_unlock(&h->q_lock);
      mcp__hs_work(r, h->q_stop); /* may free r */
      pthread_mutex_lock(&h->q_lock);
      h->busy--;
      if (h->qhead == NULL && h->busy == 0)
        pthread_cond_broadcast(&h->q_idle);
      continue;
    }
    if (h->q_stop && h->qhead == NULL)
      break;
    h->idle_workers++;
    if (h->busy > 0) {
      bool had = h->qhead != NULL;
      uint64_t seen = h->q_taken;
      struct timespec ts;
      poll_deadline(&ts);
      h->pollers++;
      int rc = pthread_cond_timedwait(&h->q_nonempty, &h->q_lock, &ts);
      h->pollers--;
      stalled = rc != 0 && had && h->qhead && h->q_taken == seen;
    } else {
      pthread_cond_wait(&h->q_nonempty, &h->q_lock);
    }
    h->idle_workers--;
  }
  pthread_mutex_unlock(&h->q_lock);
  return NULL;
}

void mcp__hs_enqueue(mcp_http_server_t *h, hs_req *r) {
  r->qnext = NULL;
  pthread_mutex_lock(&h->q_lock);
  if (h->qtail)
    h->qtail->qnext = r;
  else
    h->qhead = r;
  h->qtail = r;
  h->qlen++;
  /* Someone must watch a request left to the busy workers. */
  bool wake =
      h->idle_workers > 0 &&
      (h->busy == 0 || h->qlen > h->busy * QUEUE_PER_BUSY || h->pollers == 0);
  pthread_mutex_unlock(&h->q_lock);
  if (wake)
    pthread_cond_signal(&h->q_nonempty);
}

/* ---- housekeeping -------------------------------------------------------- */

static void *housekeeper_main(void *arg) {
  mcp_http_server_t *h = arg;
  int64_t period = 1000;
  if (h->o->heartbeat_ms > 0 && h->o->heartbeat_ms < period)
    period = h->o->heartbeat_ms;
  if (h->o->idle_ms > 0 && h->o->idle_ms / 2 < period)
    period = h->o->idle_ms / 2;
  if (h->o->request_timeout_ms > 0 && h->o->request_timeout_ms / 2 < period)
    period = h->o->request_timeout_ms / 2;
  if (period < 10)
    period = 10;
  pthread_mutex_lock(&h->hk_lock);
  while (!h->hk_stop) {
    struct timespec ts;
    mcp__deadline_in(CLOCK_MONOTONIC, period, &ts);
    pthread_cond_timedwait(&h->hk_cond, &h->hk_lock, &ts);
    if (h->hk_stop)
      break;
    pthread_mutex_unlock(&h->hk_lock);
    int64_t now = mcp__monotonic_ms();
    mcp__hs_streams_tick(h, now, false);
    mcp__hs_sessions_expire(h, now);
    mcp__hs_retired_reap(h, false);
    mcp__hs_limits_tick(h->limits, now);
    pthread_mutex_lock(&h->hk_lock);
  }
  pthread_mutex_unlock(&h->hk_lock);
  return NULL;
}

static bool is_loopback(const struct sockaddr *sa) {
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
  }
  return false;
}

/* The listening socket is ours, not the engine's: bound (and its port
 * known) before the server starts, so nothing is accepted before the
 * loopback allow-lists, which name the port, are complete. Returns the
 * socket or -1 with errno set. */
static int open_listener(const struct addrinfo *ai, uint16_t *port) {
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ai->ai_family == AF_INET6)
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  struct sockaddr_storage bound;
  socklen_t blen = sizeof bound;
  if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 1024) != 0 ||
      getsockname(fd, (struct sockaddr *)&bound, &blen) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  *port = ntohs(bound.ss_family == AF_INET6
                    ? ((struct sockaddr_in6 *)&bound)->sin6_port
                    : ((struct sockaddr_in *)&bound)->sin_port);
  return fd;
}

/* Loopback binds get DNS-rebinding protection unless lists were given. */
static bool add_loopback_defaults(mcp_http_options_t *o, uint16_t port) {
  static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
  char buf[64];
  bool ok = true;
  bool hosts = o->nhosts == 0, origins = o->norigins == 0;
  for (size_t i = 0; ok && i < 3; i++) {
    if (hosts) {
      snprintf(buf, sizeof buf, "%s:%u", names[i], port);
      ok = mcp__http_list_add(&o->hosts, &o->nhosts, buf);
    }
    if (ok && origins) {
      snprintf(buf, sizeof buf, "http://%s:%u", names[i], port);
      ok = mcp__http_list_add(&o->origins, &o->norigins, buf);
      snprintf(buf, sizeof buf, "https://%s:%u", names[i], port);
      ok = ok && mcp__http_list_add(&o->origins, &o->norigins, buf);
    }
  }
  return ok;
}

static void free_server(mcp_http_server_t *h) {
  if (h->shares_dpop_jti) /* the store may go once the server stopped */
    mcp__auth_set_jti_recorder(h->o->auth, NULL, NULL);
  if (h->owns_store && h->store.ops)
    h->store.ops->close(h->store.impl);
  if (h->buckets)
    mcp__hs_sessions_destroy(h);
  pthread_mutex_destroy(&h->streams_lock);
  pthread_mutex_destroy(&h->q_lock);
  pthread_cond_destroy(&h->q_nonempty);
  pthread_cond_destroy(&h->q_idle);
  pthread_mutex_destroy(&h->hk_lock);
  pthread_mutex_destroy(&h->tls_lock);
  pthread_cond_destroy(&h->hk_cond);
  mcp__pool_stop(&h->workers, NULL, NULL, NULL); /* joined: frees */
  mcp__hs_limits_free(h->limits);
  mcp_http_options_free(h->o);
  free(h);
}

/* What mcp_http_server_stop waits on (on its stack): the thread dropping
 * the last reference frees h first, then says so here. The flag and the
 * signal are under the mutex, so stop cannot return (and the frame go)
 * while the releaser still uses them. */
struct hs_stop_wait {
  pthread_mutex_t lock;
  pthread_cond_t gone;
  bool freed;
};

void mcp__hs_server_retain(mcp_http_server_t *h) {
  atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
}

void mcp__hs_server_release(mcp_http_server_t *h) {
  if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1)
    return;
  /* stop sets stop_wait before its own decrement, so whoever drops the
   * last reference sees it */
  struct hs_stop_wait *w = atomic_load(&h->stop_wait);
  free_server(h);
  if (w) {
    pthread_mutex_lock(&w->lock);
    w->freed = true;
    pthread_cond_signal(&w->gone);
    pthread_mutex_unlock(&w->lock);
  }
}

static void stop_threads(mcp_http_server_t *h) {
  pthread_mutex_lock(&h->hk_lock);
  h->hk_stop = true;
  pthread_cond_broadcast(&h->hk_cond);
  pthread_mutex_unlock(&h->hk_lock);
  if (h->hk_started)
    pthread_join(h->hk, NULL);
  h->hk_started = false;
  mcp__pool_stop(&h->workers, &h->q_lock, &h->q_nonempty, &h->q_stop);
}

mcp_status mcp_http_server_start(mcp_server_t *server,
                                 const mcp_http_options_t *options,
                                 mcp_http_server_t **out, mcp_error_t *err) {
  if (out)
    *out = NULL;
  if (server == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "mcp_http_server_start: the %s is NULL",
                         server == NULL ? "server" : "out pointer");
  if (options != NULL && options->refusals != NULL) {
    char list[512];
    mcp__str_one_line(options->refusals, list, sizeof list);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "options refused: %s",
                         list);
  }
  /* metrics are collected from the first request on */
  mcp_status metrics = mcp__hs_metrics_prepare(server, options, err);
  if (metrics != MCP_OK)
    return metrics;
  mcp_status ready = mcp__server_start_serving(server, err);
  if (ready != MCP_OK)
    return ready;
  if (mcp__http_engine_check(options, err) != MCP_OK)
    return MCP_ERR_UNSUPPORTED;
  mcp_http_options_t *defaults = NULL;
  if (options == NULL) {
    if (mcp_http_options_new(&defaults) != MCP_OK)
      return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    options = defaults;
  }
  mcp_http_server_t *h = calloc(1, sizeof *h);
  if (h == NULL || (h->o = mcp__http_options_copy(options)) == NULL) {
    mcp_http_options_free(defaults);
    free(h);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  mcp_http_options_free(defaults);
  h->server = server;
  pthread_mutex_init(&h->streams_lock, NULL);
  atomic_init(&h->stream_bytes, 0);
  pthread_mutex_init(&h->q_lock, NULL);
  pthread_mutex_init(&h->hk_lock, NULL);
  pthread_mutex_init(&h->tls_lock, NULL);
  /* every timed wait here uses CLOCK_MONOTONIC deadlines */
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&h->hk_cond, &ca);
  pthread_cond_init(&h->q_idle, &ca);
  pthread_cond_init(&h->q_nonempty, &ca);
  pthread_condattr_destroy(&ca);
  atomic_init(&h->stopping, false);
  atomic_init(&h->live_reqs, 0);
  atomic_init(&h->refs, 1); /* mcp_http_server_stop's */
  atomic_init(&h->stop_wait, NULL);
  h->max_depth = h->o->max_depth;

  mcp_status st = mcp__hs_sessions_init(h);
  if (st == MCP_OK &&
      (h->limits = mcp__hs_limits_new(h, h->o->max_connections)) == NULL)
    st = MCP_ERR_NOMEM;
  if (st != MCP_OK) {
    free_server(h);
    return mcp_error_set(err, st, "out of memory");
  }
  if (h->o->store_set) {
    h->store = h->o->store;
  } else if (!h->o->stateless) {
    st = mcp_event_store_memory_new(NULL, &h->store);
    if (st != MCP_OK) {
      free_server(h);
      return mcp_error_set(err, st, "cannot create the event store");
    }
    h->owns_store = true;
  }
  if (h->o->stateless && !h->owns_store)
    h->store.ops = NULL; /* no sessions, nothing to resume */

  /* Resolve the bind address. */
  char portstr[8];
  snprintf(portstr, sizeof portstr, "%u", h->o->port);
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int gai = getaddrinfo(h->o->address, portstr, &hints, &ai);
  if (gai != 0 || ai == NULL) {
    mcp_error_set(err, MCP_ERR_IO, "cannot resolve %s: %s", h->o->address,
                  gai_strerror(gai));
    free_server(h);
    return MCP_ERR_IO;
  }
  bool loopback = is_loopback(ai->ai_addr);
  int lfd = open_listener(ai, &h->port);
  int bind_errno = errno;
  freeaddrinfo(ai);
  if (lfd < 0) {
    free_server(h);
    return mcp_error_set(err, MCP_ERR_IO, "cannot listen on %s port %s: %s",
                         options->address, portstr, strerror(bind_errno));
  }
  /* The allow-lists depend on the port; they are final before the first
   * connection can be accepted. */
  if (!loopback && h->o->auth == NULL)
    mcp__log(server, MCP_LOG_WARNING,
             "HTTP transport on %s port %u without authorization: any client "
             "that reaches this address may call every tool "
             "(mcp_http_options_set_auth, docs/auth.md)",
             h->o->address, (unsigned)h->port);
  if (h->o->auth) /* the first tokens find the keys at hand */
    mcp__auth_prefetch(h->o->auth);
  /* Replicas on one PostgreSQL database share the DPoP proofs they
   * accepted: a proof replayed to another replica is refused there too. */
  mcp_store_t *tasks_store = mcp__server_task_store(server);
  if (h->o->auth && mcp__dpop_jti_store_usable(tasks_store)) {
    mcp__auth_set_jti_recorder(h->o->auth, mcp__dpop_jti_record, tasks_store);
    h->shares_dpop_jti = true;
  }
  if (loopback && !add_loopback_defaults(h->o, h->port)) {
    close(lfd);
    free_server(h);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }

  unsigned workers =
      h->o->workers ? h->o->workers : mcp__server_worker_threads(server);
  if (workers == 0)
    workers = 1;
  if (mcp__pool_start(&h->workers, workers, worker_main, h) == 0) {
    close(lfd);
    free_server(h);
    return mcp_error_set(err, MCP_ERR_NOMEM, "cannot create worker threads");
  }

  /* A vanished client must not kill the process: writes report EPIPE. */
  signal(SIGPIPE, SIG_IGN);
  h->listen_fd = lfd;
  unsigned io_threads = h->o->io_threads;
  if (io_threads == 0)
    io_threads = 2; /* accepts spread over two loops (docs/http.md) */
  h->io_threads = io_threads;
  h->daemon = mcp__hs_daemon_start(h, err);
  if (h->daemon == NULL) {
    close(lfd);
    stop_threads(h);
    free_server(h);
    return err ? err->status : MCP_ERR_IO;
  }
  if (mcp__thread_start(&h->hk, housekeeper_main, h) == 0)
    h->hk_started = true;
  *out = h;
  return MCP_OK;
}

uint16_t mcp_http_server_port(const mcp_http_server_t *h) {
  return h ? h->port : 0;
}

void mcp_http_server_stop(mcp_http_server_t *h) {
  if (h == NULL)
    return;
  atomic_store(&h->stopping, true);
  int lfd = mcp__he_quiesce(h->daemon);
  mcp__hs_sessions_finish_get_streams(h);
  mcp__server_end_streams(h->server, h); /* listen streams: final result */

  /* In-flight calls get until the deadline. */
  struct timespec deadline;
  mcp__deadline_in(CLOCK_MONOTONIC, h->o->shutdown_ms, &deadline);
  pthread_mutex_lock(&h->q_lock);
  while ((h->qhead || h->busy) &&
         pthread_cond_timedwait(&h->q_idle, &h->q_lock, &deadline) == 0)
    ;
  pthread_mutex_unlock(&h->q_lock);

  /* Then cancel what is left and wait for the workers. */
  mcp__hs_sessions_end_all(h);
  stop_threads(h);
  mcp__server_end_streams(h->server, h); /* listens that were still running */

  /* End every stream and let the engine finish the requests it holds. */
  int64_t until = mcp__monotonic_ms() + IO_DRAIN_MS;
  do {
    mcp__hs_streams_tick(h, 0, true);
    if (atomic_load(&h->live_reqs) == 0)
      break;
    nanosleep(&(struct timespec){0, 2000000L}, NULL);
  } while (mcp__monotonic_ms() < until);
  mcp__he_stop(h->daemon);
  mcp__hs_retired_reap(h, true);
  if (lfd != -1)
    close(lfd);
  close(h->listen_fd);
  /* No network thread or worker is left to open a session: end one a
   * request opened after the first round, which nothing else would. */
  mcp__hs_sessions_end_all(h);
  /* A notification sent from another thread (a task, a broadcast), or a
   * call finishing after its session ended, may still hold a stream, a
   * session or a request (all ended above), whose release goes through
   * h->server: wait for the last of them, so that the caller may free the
   * mcp_server_t once this returns. */
  struct hs_stop_wait w = {.freed = false};
  pthread_mutex_init(&w.lock, NULL);
  pthread_cond_init(&w.gone, NULL);
  atomic_store(&h->stop_wait, &w);
  mcp__hs_server_release(h);
  pthread_mutex_lock(&w.lock);
  while (!w.freed)
    pthread_cond_wait(&w.gone, &w.lock);
  pthread_mutex_unlock(&w.lock);
  pthread_cond_destroy(&w.gone);
  pthread_mutex_destroy(&w.lock);
}

/* ---- blocking convenience ------------------------------------------------ */

mcp_status mcp__http_parse_host_port(const char *s, char *host, size_t host_len,
                                     uint16_t *port) {
  const char *colon;
  const char *h0 = s;
  size_t n;
  if (s[0] == '[') {
    const char *close_br = strchr(s, ']');
    if (close_br == NULL || close_br[1] != ':')
      return MCP_ERR_INVALID_ARG;
    h0 = s + 1;
    n = (size_t)(close_br - h0);
    colon = close_br + 1;
  } else {
    colon = strrchr(s, ':');
    if (colon == NULL)
      return MCP_ERR_INVALID_ARG;
    n = (size_t)(colon - s);
  }
  if (n == 0 || n >= host_len)
    return MCP_ERR_INVALID_ARG;
  char *end;
  unsigned long p = strtoul(colon + 1, &end, 10);
  if (*end != '\0' || colon[1] == '\0' || p > 65535)
    return MCP_ERR_INVALID_ARG;
  memcpy(host, h0, n);
  host[n] = '\0';
  *port = (uint16_t)p;
  return MCP_OK;
}

mcp_status mcp__http_serve_until_signal(mcp_server_t *server,
                                        const mcp_http_options_t *o,
                                        void (*started)(mcp_http_server_t *h,
                                                        void *user_data),
                                        void *user_data, mcp_error_t *err) {
  /* Block the signals before any thread exists so that only sigwait below
   * receives them. */
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (o && o->tls_cert) /* SIGHUP reloads the certificate */
    sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  mcp_http_server_t *h = NULL;
  mcp_error_t local;
  if (err == NULL)
    err = &local;
  mcp_status st = mcp_http_server_start(server, o, &h, err);
  if (st != MCP_OK) {
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return st;
  }
  if (started != NULL)
    started(h, user_data);
  int sig;
  for (;;) {
    if (sigwait(&set, &sig) != 0)
      continue;
    if (sig != SIGHUP)
      break;
    mcp_error_t rerr;
    if (mcp_http_server_reload_tls(h, &rerr) == MCP_OK)
      mcp__log(server, MCP_LOG_NOTICE, "http: TLS certificate reloaded");
    else
      mcp__log(server, MCP_LOG_ERROR, "http: TLS reload failed: %s",
               rerr.message);
  }
  mcp_http_server_stop(h);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return MCP_OK;
}

mcp_status mcp_server_serve_http_options(mcp_server_t *server,
                                         const mcp_http_options_t *o) {
  mcp_error_t err = {0};
  mcp_status st = mcp__http_serve_until_signal(server, o, NULL, NULL, &err);
  if (st != MCP_OK)
    mcp__log(server, MCP_LOG_ERROR, "http: %s", err.message);
  return st;
}

mcp_status mcp_server_serve_http(mcp_server_t *server, const char *host_port) {
  if (server == NULL || host_port == NULL)
    return MCP_ERR_INVALID_ARG;
  char host[256];
  uint16_t port;
  mcp_status st =
      mcp__http_parse_host_port(host_port, host, sizeof host, &port);
  if (st != MCP_OK)
    return st;
  mcp_http_options_t *o;
  st = mcp_http_options_new(&o);
  if (st == MCP_OK)
    st = mcp_http_options_set_bind(o, host, port);
  if (st == MCP_OK)
    st = mcp_server_serve_http_options(server, o);
  mcp_http_options_free(o);
  return st;
}
