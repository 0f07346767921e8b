/* SPDX-License-Identifier: MIT */
/* telemetry.h - the CLIENT span of a request (OpenTelemetry, issue #26
 * item 4): begun before the request is sent (its context injected into
 * params._meta.traceparent), ended with the outcome, exported by the
 * client's OTLP exporter (telemetry/otlp.h); and the client's histograms
 * (telemetry/metrics.h): mcp.client.operation.duration per request,
 * mcp.client.session.duration from connect to close. Nothing runs when the
 * client has no exporter. */
#ifndef MCP_CLIENT_TELEMETRY_H
#define MCP_CLIENT_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "client/internal.h"

typedef struct mcp__cspan {
  bool on;       /* a span is recorded */
  bool measured; /* mcp.client.operation.duration is recorded */
  int64_t mono_start_ns;
  unsigned char trace_id[16], span_id[8], parent_id[8];
  bool has_parent;
  int64_t start_ns;
  const char *target_key; /* a literal ("gen_ai.tool.name", ...) or NULL */
  char target[256];
} mcp__cspan;

/* Starts the client's exporter when its options name a collector. */
mcp_status mcp__client_telemetry_start(mcp_client_t *c, mcp_error_t *err);
/* The connection is up: its session duration starts. */
void mcp__client_session_begin(mcp_client_t *c);
/* Records the session's duration (before the transport closes). */
void mcp__client_session_end(mcp_client_t *c);
/* Stops the exporters (the last spans and data points go out). */
void mcp__client_telemetry_stop(mcp_client_t *c);
/* params (an object, or NULL with tracing off) gets _meta.traceparent
 * naming the new span; the request's duration starts. */
void mcp__cspan_begin(mcp_client_t *c, const char *method, json_t *params,
                      mcp__cspan *sp);
/* result: the result object (may be NULL); err the failure (st != OK). */
void mcp__cspan_end(mcp_client_t *c, mcp__cspan *sp, const char *method,
                    mcp_status st, const mcp_error_t *err,
                    const json_t *result);

#endif
