/* SPDX-License-Identifier: MIT */
/* server_internal.h - the layout of a server, private to src/core.
 *
 * Every other module sees mcp_server_t as an opaque handle (mcp/server.h)
 * and reaches it through the functions of the core headers: feature.h (what
 * a method handler and a feature use), sessions.h, notify.h, relay.h,
 * call_life.h, channel.h. This header brings all of them, for the core's
 * own files. Only src/core includes it (docs/layers.txt marks it private).
 *
 * Locking: server->lock guards the session list and configuration read at
 * request time; the tool catalog has its own rwlock (catalog/catalog.h); each
 * session has its own mutex for its state, in-flight calls and pending
 * outbound requests. Lock order: server->lock before session->lock; never
 * call a channel's send while holding a session lock.
 */
#ifndef MCP_CORE_SERVER_INTERNAL_H
#define MCP_CORE_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "core/cache_hint.h"
#include "core/call_life.h"
#include "core/channel.h"
#include "core/feature.h"
#include "core/listen.h"
#include "core/methods.h"
#include "core/notify.h"
#include "core/relay.h"
#include "core/request_state.h"
#include "core/sessions.h"
#include "jsonrpc/jsonrpc.h"
#include "mcp/relay.h"
#include "mcp/roots.h"
#include "mcp/server.h"

#define MCP__MAX_VERSION_LEN 16
#define MCP__INLINE_SLOTS    256 /* tools tracked for running inline */

struct mcp_server {
  char *name, *version, *title, *description, *website_url, *instructions;
  json_t *icons; /* array or NULL */
  size_t page_size;
  size_t max_message_bytes;
  size_t max_json_depth;
  unsigned worker_threads;
  int request_timeout_ms;
  /* A transport started serving (mcp__server_start_serving): tasks are
   * enabled before serving or not at all, so from now on a tool that needs
   * them is refused when added. */
  atomic_bool serving;

  mcp_log_fn log_fn;
  void *log_user_data;
  mcp_log_level log_min;
  bool log_params; /* request log lines carry params (request_log.h) */
  /* OpenTelemetry traces (request_span.h): the exporter, NULL when off,
   * and the sampler (mcp__sampler) with its ratio */
  struct mcp__otlp *otlp;
  struct mcp__metrics *metrics; /* OpenTelemetry metrics, NULL when off */
  int trace_sampler;
  double trace_ratio;
  /* the OTLP encodings (mcp__otlp_protocol) of the trace and metric
   * exporters: 0, http/protobuf, unless the API or environment said */
  int otlp_traces_protocol, otlp_metrics_protocol;
  /* mcp_server_set_stdout_guard(false): serve stdio on fd 1 itself */
  bool stdout_unguarded;

  mcp__cache_hint cache_hints[MCP__CACHE_TARGETS]; /* under lock */
  /* installed by the tasks module when tasks are enabled (methods.h) */
  const mcp__task_hooks *task_hooks;

  pthread_mutex_t lock;
  mcp_session_t *sessions; /* doubly linked via next/prev */

  /* Delivers a resource update here (installed by src/resources). */
  mcp_status (*resource_updated_local)(mcp_server_t *s, const char *uri);

  /* Per tool-name hash: recent fast runs, negative after a slow one, and
   * consecutive slow runs on a network thread (inline_runs.c). */
  atomic_int inline_streak[MCP__INLINE_SLOTS];
  atomic_int inline_strikes[MCP__INLINE_SLOTS];

  mcp__method_table method_tables[MCP__METHOD_TABLES]; /* methods.h */
  size_t method_tables_count;
  mcp__method_slot method_slots[MCP__METHOD_SLOTS];
  /* what each module adds to ServerCapabilities, in registration order */
  mcp__capability_fn capability_hooks[MCP__CAPABILITY_HOOKS];
  size_t capability_hooks_count;
  /* the relay lost events: each module re-announces its lists */
  mcp__resync_fn resync[MCP__RESYNC_HOOKS];
  size_t resync_count;
  /* Each feature module's state (feature.h): appended under lock, read
   * without it (slots_count is published after the slot is filled). */
  struct {
    const mcp__slot_key *key;
    _Atomic(void *) state;
  } slots[MCP__SLOTS];
  atomic_size_t slots_count;

  mcp__listen_registry listen; /* subscriptions/listen streams (listen.h) */

  mcp__state_key state_key; /* seals requestState (under lock) */
  int64_t state_ttl_ms;

  mcp_relay relay; /* fan-out to other replicas (relay.c); ops may be NULL */
};

/* tracing.c: stops the OTLP exporters (their last data goes out), if any
 * (mcp__server_destroy). */
void mcp__server_tracing_stop(mcp_server_t *s);

#endif
