/* SPDX-License-Identifier: MIT */
/* otlp.h - the OTLP/HTTP trace exporter (issue #26 item 4, traces only):
 * spans arrive as finished records (telemetry/span.h), wait in a bounded
 * queue, and a background thread encodes them in batches
 * (telemetry/span_encode.h) as an ExportTraceServiceRequest, protobuf or
 * JSON, and posts it to the collector's /v1/traces. A full queue or a dead
 * or slow collector never slows a request: spans are dropped and counted.
 * Plain http:// endpoints only (no TLS). The exporter also hands out the
 * random trace and span ids of the spans it will carry. */
#ifndef MCP_TELEMETRY_OTLP_H
#define MCP_TELEMETRY_OTLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/status.h"
#include "telemetry/otlp_http.h"
#include "telemetry/span.h"

typedef struct mcp__otlp mcp__otlp;

typedef struct mcp__otlp_config {
  const char *traces_url; /* http://host[:port]/path, the full URL */
  const char *headers;    /* "k=v,k2=v2" (OTEL_EXPORTER_OTLP_HEADERS) or NULL */
  /* The resource's attributes as OTLP/JSON KeyValue objects, comma
   * separated, without brackets ("" for none). */
  const char *resource_attributes_json;
  int64_t schedule_delay_ms; /* at most this long between exports */
  size_t max_queue;          /* spans waiting at most */
  size_t max_batch;          /* spans per request at most */
  mcp__otlp_protocol protocol; /* http/protobuf (0, the default) or json */
} mcp__otlp_config;

/* Starts the exporter thread. MCP_ERR_INVALID_ARG (why in why[n]) for a
 * URL that is not http://host[:port][/path]. */
mcp_status mcp__otlp_start(const mcp__otlp_config *cfg, mcp__otlp **out,
                           char *why, size_t n);
/* Queues the span d describes (copied into a record the exporter
 * recycles: no allocation per span once it runs); d is spent. false when
 * dropped (and counted): queue full, stopping, out of memory. */
bool mcp__otlp_submit(mcp__otlp *e, mcp__span_draft *d);
/* n random bytes (at most MCP__RANDOM_POOL_BYTES) from the kernel CSPRNG,
 * drawn in bulk (util/rand.h): new trace and span ids. */
mcp_status mcp__otlp_random_id(mcp__otlp *e, void *out, size_t n);
/* Spans dropped so far (queue full, export failed). */
uint64_t mcp__otlp_dropped(mcp__otlp *e);
/* Spans the collector accepted so far (2xx). */
uint64_t mcp__otlp_exported(mcp__otlp *e);
/* Exports what is queued (one last attempt), stops the thread, frees. */
void mcp__otlp_stop(mcp__otlp *e);

#endif
