/* SPDX-License-Identifier: MIT */
/* otlp.c - see otlp.h. */
#include "telemetry/otlp.h"

#include "telemetry/otlp_http.h"
#include "telemetry/otlp_pb.h"
#include "telemetry/span_encode.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/version.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/rand.h"

struct mcp__otlp {
  mcp__otlp_target target;
  char *resource;      /* its attributes in OTLP/JSON */
  mcp__buf resource_pb; /* the same as a Resource message's contents */
  bool resource_pb_ok;  /* encoded (http/protobuf only) */
  mcp__random_pool ids;
  int64_t delay_ms;
  size_t max_queue, max_batch;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  mcp__span **queue; /* ring of max_queue spans */
  size_t head, count;
  /* exported records kept for new spans (max_batch at most): a record
   * malloc'ed on a request's thread and freed on this one cost a traced
   * request more than encoding its span */
  mcp__span *spare;
  size_t spares;
  bool stopping;
  uint64_t dropped, exported;
  pthread_t thread;
};

/* The size of a recycled record: a request's strings fit in 512 bytes
 * (a longer span gets a record of its own size, freed after export). */
#define SPARE_BYTES (sizeof(mcp__span) + 512)

/* Takes up to max_batch spans under the lock (count in *n). */
static mcp__span **take_batch(mcp__otlp *e, size_t *n) {
  *n = e->count < e->max_batch ? e->count : e->max_batch;
  if (*n == 0)
    return NULL;
  mcp__span **batch = malloc(*n * sizeof *batch);
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
static bool export_batch(mcp__otlp *e, mcp__span **batch, size_t n) {
  mcp__span_batch_head head = {
      .resource_json = e->resource,
      .resource_pb = e->resource_pb.data ? e->resource_pb.data : "",
      .resource_pb_len = e->resource_pb.len,
      .scope_name = "libmcp",
      .scope_version = MCP_VERSION_STRING};
  mcp__buf b;
  mcp__buf_init(&b);
  bool encoded =
      e->target.protocol == MCP__OTLP_HTTP_JSON
          ? mcp__spans_to_json(&head, batch, n, &b)
          : e->resource_pb_ok &&
                mcp__spans_to_pb(&head, batch, n, MCP__OTLP_PB_MAX_BYTES, &b);
  bool sent = encoded && mcp__otlp_post_encoded(&e->target, b.data, b.len);
  mcp__buf_free(&b);
  mcp__span *unused = NULL; /* freed outside the lock */
  pthread_mutex_lock(&e->lock);
  for (size_t i = 0; i < n; i++) {
    bool keep = batch[i]->size == SPARE_BYTES && e->spares < e->max_batch;
    batch[i]->next = keep ? e->spare : unused;
    *(keep ? &e->spare : &unused) = batch[i];
    e->spares += keep;
  }
  pthread_mutex_unlock(&e->lock);
  while (unused != NULL) {
    mcp__span *next = unused->next;
    free(unused);
    unused = next;
  }
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
    mcp__span **batch = take_batch(e, &n);
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
  /* encoded once; a resource that does not encode (it comes from
   * OTEL_RESOURCE_ATTRIBUTES through telemetry/resource.h, so it should)
   * fails every export, dropped and counted, as a bad body always did */
  mcp__buf_init(&e->resource_pb);
  char bad[200];
  e->resource_pb_ok =
      e->target.protocol != MCP__OTLP_HTTP_JSON &&
      mcp__otlp_resource_json_to_pb(e->resource, &e->resource_pb, bad,
                                    sizeof bad);
  mcp__random_pool_init(&e->ids);
  pthread_mutex_init(&e->lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&e->wake, &ca);
  pthread_condattr_destroy(&ca);
  if (pthread_create(&e->thread, NULL, exporter_main, e) != 0) {
    pthread_cond_destroy(&e->wake);
    pthread_mutex_destroy(&e->lock);
    mcp__random_pool_destroy(&e->ids);
    mcp__buf_free(&e->resource_pb);
    mcp__otlp_target_clear(&e->target);
    free(e->resource);
    free(e->queue);
    free(e);
    return MCP_ERR_NOMEM;
  }
  *out = e;
  return MCP_OK;
}

bool mcp__otlp_submit(mcp__otlp *e, mcp__span_draft *d) {
  size_t need = mcp__span_draft_bytes(d);
  bool spare_fits = need != 0 && need <= SPARE_BYTES;
  pthread_mutex_lock(&e->lock);
  bool room = need != 0 && !e->stopping && e->count < e->max_queue;
  if (room && spare_fits && e->spare != NULL) { /* the common case */
    mcp__span *sp = e->spare;
    e->spare = sp->next;
    e->spares--;
    mcp__span_draft_copy(d, sp);
    e->queue[(e->head + e->count) % e->max_queue] = sp;
    if (++e->count == e->max_batch)
      pthread_cond_signal(&e->wake);
    pthread_mutex_unlock(&e->lock);
    mcp__span_draft_free(d);
    return true;
  }
  if (!room)
    e->dropped++;
  pthread_mutex_unlock(&e->lock);
  mcp__span *sp = NULL;
  if (room) { /* no spare yet: a new record, filled outside the lock */
    size_t size = spare_fits ? SPARE_BYTES : need;
    if ((sp = malloc(size)) != NULL) {
      sp->size = size;
      mcp__span_draft_copy(d, sp);
    }
  }
  mcp__span_draft_free(d);
  if (!room)
    return false;
  pthread_mutex_lock(&e->lock);
  bool queued = sp != NULL && !e->stopping && e->count < e->max_queue;
  if (queued) {
    e->queue[(e->head + e->count) % e->max_queue] = sp;
    if (++e->count == e->max_batch)
      pthread_cond_signal(&e->wake);
  } else {
    e->dropped++;
  }
  pthread_mutex_unlock(&e->lock);
  if (!queued)
    free(sp);
  return queued;
}

mcp_status mcp__otlp_random_id(mcp__otlp *e, void *out, size_t n) {
  return mcp__random_pool_take(&e->ids, out, n);
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
  while (e->spare != NULL) {
    mcp__span *next = e->spare->next;
    free(e->spare);
    e->spare = next;
  }
  free(e->queue);
  mcp__otlp_target_clear(&e->target);
  free(e->resource);
  mcp__buf_free(&e->resource_pb);
  mcp__random_pool_destroy(&e->ids);
  pthread_cond_destroy(&e->wake);
  pthread_mutex_destroy(&e->lock);
  free(e);
}
