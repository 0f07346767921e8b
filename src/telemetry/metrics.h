/* SPDX-License-Identifier: MIT */
/* metrics.h - the OpenTelemetry metrics of a server or a client (issue
 * #26 item 4): the mcp.{server,client}.operation.duration and
 * mcp.{server,client}.session.duration histograms (seconds, the
 * conventions' buckets) per attribute set, and a counter of telemetry
 * dropped (spans and series), exported by OTLP/HTTP
 * (ExportMetricsServiceRequest, cumulative; built as JSON, sent as
 * protobuf or JSON per the protocol) by a background thread every
 * interval and once at the end, and/or read by the Prometheus endpoint
 * (telemetry/prometheus.h, through mcp__metrics_each). Recording takes one
 * mutex and a hash lookup; a series beyond the limit
 * is dropped and counted. */
#ifndef MCP_TELEMETRY_METRICS_H
#define MCP_TELEMETRY_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/status.h"
#include "telemetry/otlp_http.h"

typedef struct mcp__metrics mcp__metrics;

typedef struct mcp__metrics_config {
  /* http://host[:port]/v1/metrics; NULL: collect only, for a reader of
   * mcp__metrics_each (the Prometheus endpoint), no thread, no export */
  const char *metrics_url;
  const char *headers;     /* "k=v,..." or NULL */
  const char *resource_attributes_json; /* KeyValue objects, comma separated */
  int64_t interval_ms;     /* between exports (OTEL_METRIC_EXPORT_INTERVAL) */
  size_t max_series;       /* attribute sets kept at most */
  /* spans dropped so far, read at each export (may be NULL) */
  uint64_t (*dropped_spans)(void *ctx);
  void *dropped_ctx;
  mcp__otlp_protocol protocol; /* http/protobuf (0, the default) or json */
} mcp__metrics_config;

mcp_status mcp__metrics_start(const mcp__metrics_config *cfg,
                              mcp__metrics **out, char *why, size_t n);
/* The histograms (seconds, the conventions' buckets): a server records
 * the first two, a client (src/client/telemetry.c) the other two; only
 * instruments with data points are exported. */
typedef enum mcp__instrument {
  MCP__METRIC_OPERATION = 0,    /* mcp.server.operation.duration */
  MCP__METRIC_SESSION,          /* mcp.server.session.duration */
  MCP__METRIC_CLIENT_OPERATION, /* mcp.client.operation.duration */
  MCP__METRIC_CLIENT_SESSION,   /* mcp.client.session.duration */
  MCP__METRIC_COUNT
} mcp__instrument;

/* One attribute of a series, by mcp__metrics_record_attrs: a key and a
 * string value as bytes (the value lent for the call). */
typedef struct mcp__metrics_attr {
  const char *key; /* a string literal: a series compares its address */
  size_t key_len;
  const char *value;
  size_t len; /* under 4 GiB (a longer one's series is dropped) */
} mcp__metrics_attr;
/* An attribute whose key is a string literal (measured at compile time). */
#define MCP__METRICS_ATTR(key, v, n)                                         \
  (mcp__metrics_attr) { "" key, sizeof(key) - 1, (v), (n) }
/* One value of instrument for the series whose attributes are attrs, in
 * that order (with the instrument, the series' identity). The attributes'
 * KeyValue text (what the export and mcp__metrics_each show) is written
 * only for a new series: a request's recording hashes the values, finds
 * the series and compares the bytes. */
void mcp__metrics_record_attrs(mcp__metrics *m, mcp__instrument instrument,
                               const mcp__metrics_attr *attrs, size_t n,
                               double seconds);
/* What mcp__metrics_each shows of one series: attrs as recorded, the
 * count of values at or below each bound (not cumulative: buckets[k] counts
 * (bounds[k-1], bounds[k]]; the last, above the last bound), their sum. */
typedef struct mcp__metrics_series {
  mcp__instrument instrument;
  const char *attrs;
  size_t len;
  uint64_t count;
  const uint64_t *buckets; /* nbounds + 1 */
  double sum;
} mcp__metrics_series;

/* The histograms' bucket bounds (seconds, ascending); *n gets how many. */
const double *mcp__metrics_bounds(size_t *n);
/* An instrument's OpenTelemetry name and description. */
const char *mcp__metrics_name(mcp__instrument instrument);
const char *mcp__metrics_description(mcp__instrument instrument);
/* Calls fn for every series of instrument, under m's lock (fn must not
 * record). resource, when not NULL, gets the resource's KeyValue objects
 * (JSON text, comma separated; m's, valid until m stops). Returns the
 * dropped-telemetry count, as the OTLP export reports it. */
uint64_t mcp__metrics_each(mcp__metrics *m, mcp__instrument instrument,
                           void (*fn)(void *ctx, const mcp__metrics_series *s),
                           void *ctx, const char **resource);
/* Exports once more (when exporting), stops the thread, frees. */
void mcp__metrics_stop(mcp__metrics *m);

#endif
