/* SPDX-License-Identifier: MIT */
/* otlp.c - see otlp.h. */
#include "telemetry/otlp.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "mcp/version.h"
#include "util/buf.h"
#include "util/clock.h"

#define IO_TIMEOUT_S 2 /* connect, send, receive: a slow collector loses */

struct mcp__otlp {
  char host[256], port[8], path[1024];
  char *headers; /* "Name: value\r\n"..., owned */
  char *resource;
  int64_t delay_ms;
  size_t max_queue, max_batch;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  char **queue; /* ring of max_queue span texts */
  size_t head, count;
  bool stopping;
  uint64_t dropped, exported;
  pthread_t thread;
};

static bool parse_url(mcp__otlp *e, const char *url, char *why, size_t n) {
  if (url == NULL || strncmp(url, "http://", 7) != 0) {
    snprintf(why, n, "OTLP endpoint \"%s\": only http:// URLs are supported",
             url ? url : "");
    return false;
  }
  const char *h = url + 7, *slash = strchr(h, '/');
  size_t hl = slash ? (size_t)(slash - h) : strlen(h);
  char hostport[300];
  if (hl == 0 || hl >= sizeof hostport) {
    snprintf(why, n, "OTLP endpoint \"%s\": no host", url);
    return false;
  }
  memcpy(hostport, h, hl);
  hostport[hl] = '\0';
  snprintf(e->path, sizeof e->path, "%s", slash ? slash : "/");
  char *colon = strrchr(hostport, ':');
  char *close = strrchr(hostport, ']');
  if (colon != NULL && (close == NULL || colon > close)) {
    *colon = '\0';
    snprintf(e->port, sizeof e->port, "%.7s", colon + 1);
  } else {
    snprintf(e->port, sizeof e->port, "80");
  }
  char *host = hostport;
  if (host[0] == '[') { /* [::1] */
    host++;
    char *end = strchr(host, ']');
    if (end)
      *end = '\0';
  }
  snprintf(e->host, sizeof e->host, "%.255s", host);
  if (e->host[0] == '\0' || atoi(e->port) <= 0) {
    snprintf(why, n, "OTLP endpoint \"%s\": bad host or port", url);
    return false;
  }
  return true;
}

/* "k=v,k2=v2" as HTTP header lines (values trimmed, %20 and friends kept
 * as written: the W3C baggage octets collectors expect). */
static char *header_lines(const char *spec) {
  mcp__buf b;
  mcp__buf_init(&b);
  mcp__buf_append_str(&b, "");
  for (const char *p = spec; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (eq != NULL && eq > p) {
      const char *k = p, *v = eq + 1;
      size_t kl = (size_t)(eq - p), vl = len - kl - 1;
      while (kl && (k[kl - 1] == ' '))
        kl--;
      while (*k == ' ' && kl)
        k++, kl--;
      while (vl && *v == ' ')
        v++, vl--;
      bool clean = true; /* no header injection through the environment */
      for (size_t i = 0; i < vl; i++)
        clean &= v[i] != '\r' && v[i] != '\n';
      for (size_t i = 0; i < kl; i++)
        clean &= k[i] != '\r' && k[i] != '\n' && k[i] != ':';
      if (clean && kl) {
        mcp__buf_append(&b, k, kl);
        mcp__buf_append_str(&b, ": ");
        mcp__buf_append(&b, v, vl);
        mcp__buf_append_str(&b, "\r\n");
      }
    }
    p = comma ? comma + 1 : NULL;
  }
  size_t n;
  char *s = mcp__buf_steal(&b, &n);
  mcp__buf_free(&b);
  return s;
}

/* One POST of body; true on a 2xx answer. */
static bool post(mcp__otlp *e, const char *body, size_t len) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
  if (getaddrinfo(e->host, e->port, &hints, &ai) != 0)
    return false;
  int fd = -1;
  for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
      continue;
    struct timeval tv = {IO_TIMEOUT_S, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(ai);
  if (fd < 0)
    return false;
  char head[2048];
  int hl = snprintf(head, sizeof head,
                    "POST %s HTTP/1.1\r\nHost: %s:%s\r\n"
                    "Content-Type: application/json\r\n"
                    "Content-Length: %zu\r\nConnection: close\r\n%s\r\n",
                    e->path, e->host, e->port, len, e->headers);
  bool ok = hl > 0 && (size_t)hl < sizeof head;
  const char *parts[2] = {head, body};
  size_t sizes[2] = {ok ? (size_t)hl : 0, len};
  for (int i = 0; ok && i < 2; i++)
    for (size_t off = 0; ok && off < sizes[i];) {
      ssize_t w = send(fd, parts[i] + off, sizes[i] - off, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR)
        continue;
      ok = w > 0;
      off += w > 0 ? (size_t)w : 0;
    }
  /* the status line, then the rest read and dropped until the collector
   * closes (Connection: close), so it never sees a reset */
  char status[64] = "", rest[512];
  size_t got = 0;
  while (ok) {
    bool in_status = got < sizeof status - 1;
    ssize_t r = in_status ? recv(fd, status + got, sizeof status - 1 - got, 0)
                     : recv(fd, rest, sizeof rest, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    if (in_status)
      got += (size_t)r;
  }
  close(fd);
  status[got] = '\0';
  return ok && strncmp(status, "HTTP/1.", 7) == 0 && status[9] == '2';
}

/* Takes up to max_batch spans under the lock (count in *n). */
static char **take_batch(mcp__otlp *e, size_t *n) {
  *n = e->count < e->max_batch ? e->count : e->max_batch;
  if (*n == 0)
    return NULL;
  char **batch = malloc(*n * sizeof *batch);
  if (batch == NULL) {
    *n = 0;
    return NULL;
  }
  for (size_t i = 0; i < *n; i++) {
    batch[i] = e->queue[e->head];
    e->queue[e->head] = NULL;
    e->head = (e->head + 1) % e->max_queue;
  }
  e->count -= *n;
  return batch;
}

/* Returns whether the collector took the batch. */
static bool export_batch(mcp__otlp *e, char **batch, size_t n) {
  mcp__buf b;
  mcp__buf_init(&b);
  mcp__buf_append_str(&b, "{\"resourceSpans\":[{\"resource\":{\"attributes\":[");
  mcp__buf_append_str(&b, e->resource);
  mcp__buf_append_str(&b, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"libmcp\","
                          "\"version\":\"" MCP_VERSION_STRING "\"},\"spans\":[");
  for (size_t i = 0; i < n; i++) {
    if (i)
      mcp__buf_append_char(&b, ',');
    mcp__buf_append_str(&b, batch[i]);
    free(batch[i]);
  }
  bool built = mcp__buf_append_str(&b, "]}]}]}");
  bool sent = built && post(e, b.data, b.len);
  mcp__buf_free(&b);
  pthread_mutex_lock(&e->lock);
  if (sent)
    e->exported += n;
  else
    e->dropped += n;
  pthread_mutex_unlock(&e->lock);
  return sent;
}

static void *exporter_main(void *arg) {
  mcp__otlp *e = arg;
  pthread_mutex_lock(&e->lock);
  for (;;) {
    if (!e->stopping && e->count < e->max_batch) {
      struct timespec until;
      mcp__deadline_in(CLOCK_MONOTONIC, e->delay_ms, &until);
      while (!e->stopping && e->count < e->max_batch &&
             pthread_cond_timedwait(&e->wake, &e->lock, &until) == 0)
        ;
    }
    size_t n;
    char **batch = take_batch(e, &n);
    bool last = e->stopping && e->count == 0;
    pthread_mutex_unlock(&e->lock);
    bool sent = n == 0 || export_batch(e, batch, n);
    free(batch);
    pthread_mutex_lock(&e->lock);
    if (e->stopping && !sent) { /* no collector: the rest is dropped now */
      e->dropped += e->count;
      last = true;
    }
    if (last)
      break;
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

mcp_status mcp__otlp_start(const mcp__otlp_config *cfg, mcp__otlp **out,
                           char *why, size_t n) {
  *out = NULL;
  mcp__otlp *e = calloc(1, sizeof *e);
  if (e == NULL)
    return MCP_ERR_NOMEM;
  if (!parse_url(e, cfg->traces_url, why, n)) {
    free(e);
    return MCP_ERR_INVALID_ARG;
  }
  e->delay_ms = cfg->schedule_delay_ms > 0 ? cfg->schedule_delay_ms : 5000;
  e->max_queue = cfg->max_queue ? cfg->max_queue : 2048;
  e->max_batch = cfg->max_batch ? cfg->max_batch : 512;
  e->headers = header_lines(cfg->headers);
  e->resource = strdup(cfg->resource_attributes_json
                           ? cfg->resource_attributes_json
                           : "");
  e->queue = calloc(e->max_queue, sizeof *e->queue);
  if (e->headers == NULL || e->resource == NULL || e->queue == NULL) {
    free(e->headers);
    free(e->resource);
    free(e->queue);
    free(e);
    return MCP_ERR_NOMEM;
  }
  pthread_mutex_init(&e->lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&e->wake, &ca);
  pthread_condattr_destroy(&ca);
  if (pthread_create(&e->thread, NULL, exporter_main, e) != 0) {
    pthread_cond_destroy(&e->wake);
    pthread_mutex_destroy(&e->lock);
    free(e->headers);
    free(e->resource);
    free(e->queue);
    free(e);
    return MCP_ERR_NOMEM;
  }
  *out = e;
  return MCP_OK;
}

bool mcp__otlp_submit(mcp__otlp *e, const char *span, size_t len) {
  char *copy = malloc(len + 1);
  if (copy != NULL) {
    memcpy(copy, span, len);
    copy[len] = '\0';
  }
  pthread_mutex_lock(&e->lock);
  bool queued = copy != NULL && !e->stopping && e->count < e->max_queue;
  if (queued) {
    e->queue[(e->head + e->count) % e->max_queue] = copy;
    if (++e->count == e->max_batch)
      pthread_cond_signal(&e->wake);
  } else {
    e->dropped++;
  }
  pthread_mutex_unlock(&e->lock);
  if (!queued)
    free(copy);
  return queued;
}

uint64_t mcp__otlp_dropped(mcp__otlp *e) {
  pthread_mutex_lock(&e->lock);
  uint64_t n = e->dropped;
  pthread_mutex_unlock(&e->lock);
  return n;
}

uint64_t mcp__otlp_exported(mcp__otlp *e) {
  pthread_mutex_lock(&e->lock);
  uint64_t n = e->exported;
  pthread_mutex_unlock(&e->lock);
  return n;
}

void mcp__otlp_stop(mcp__otlp *e) {
  if (e == NULL)
    return;
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  pthread_cond_signal(&e->wake);
  pthread_mutex_unlock(&e->lock);
  pthread_join(e->thread, NULL);
  for (size_t i = 0; i < e->max_queue; i++)
    free(e->queue[i]);
  free(e->queue);
  free(e->headers);
  free(e->resource);
  pthread_cond_destroy(&e->wake);
  pthread_mutex_destroy(&e->lock);
  free(e);
}
