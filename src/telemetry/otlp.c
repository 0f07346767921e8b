/* SPDX-License-Identifier: MIT */
/* otlp.c - see otlp.h. */
#include "telemetry/otlp.h"

#include "telemetry/otlp_http.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/version.h"
#include "util/buf.h"
#include "util/clock.h"

struct mcp__otlp {
  mcp__otlp_target target;
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
  bool sent = built && mcp__otlp_post(&e->target, b.data, b.len);
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
  if (!mcp__otlp_target_init(&e->target, cfg->traces_url, cfg->headers, why,
                             n)) {
    free(e);
    return MCP_ERR_INVALID_ARG;
  }
  e->target.protocol = cfg->protocol;
  e->delay_ms = cfg->schedule_delay_ms > 0 ? cfg->schedule_delay_ms : 5000;
  e->max_queue = cfg->max_queue ? cfg->max_queue : 2048;
  e->max_batch = cfg->max_batch ? cfg->max_batch : 512;
  e->resource = strdup(cfg->resource_attributes_json
                           ? cfg->resource_attributes_json
                           : "");
  e->queue = calloc(e->max_queue, sizeof *e->queue);
  if (e->resource == NULL || e->queue == NULL) {
    mcp__otlp_target_clear(&e->target);
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
    mcp__otlp_target_clear(&e->target);
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
  mcp__otlp_target_clear(&e->target);
  free(e->resource);
  pthread_cond_destroy(&e->wake);
  pthread_mutex_destroy(&e->lock);
  free(e);
}
