/* SPDX-License-Identifier: MIT */
/* prometheus.c - the core's part of the Prometheus endpoint
 * (docs/observability.md, "Prometheus"): metric collection turned on for
 * it when OTLP metrics are not, and the metrics as exposition text for the
 * HTTP transport, which cannot reach telemetry itself (docs/layers.txt). */
#include <stdlib.h>

#include "core/channel.h"
#include "core/feature.h"
#include "core/server_internal.h"
#include "telemetry/metrics.h"
#include "telemetry/prometheus.h"
#include "telemetry/resource.h"

static uint64_t dropped_spans(void *ctx) {
  return mcp_server_otlp_dropped(ctx);
}

mcp_status mcp__server_collect_metrics(mcp_server_t *s, mcp_error_t *err) {
  if (s->metrics != NULL) /* OTLP metrics, or an earlier endpoint */
    return MCP_OK;
  /* s->metrics is read without a lock by every request: it is set only
   * before any transport serves, as mcp_server_enable_otlp_metrics is */
  if (mcp__server_is_serving(s))
    return mcp_error_set(err, MCP_ERR_STATE,
                         "mcp_http_options_set_metrics: metrics are collected "
                         "from the start: start this HTTP server before s "
                         "serves on another transport, or turn OTLP metrics "
                         "on before serving (mcp_server_enable_otlp_metrics)");
  char *resource = mcp__otel_resource_json(s->name);
  if (resource == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  mcp__metrics_config cfg = {.metrics_url = NULL, /* collect, no export */
                             .resource_attributes_json = resource,
                             .max_series = 1000,
                             .dropped_spans = dropped_spans,
                             .dropped_ctx = s};
  char why[200] = "";
  mcp_status st = mcp__metrics_start(&cfg, &s->metrics, why, sizeof why);
  free(resource);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "%s", why[0] ? why : mcp_strerror(st));
  mcp__log(s, MCP_LOG_INFO, "metrics: collected for the Prometheus endpoint");
  return MCP_OK;
}

bool mcp__server_metrics_text(mcp_server_t *s, mcp__buf *out) {
  return s->metrics != NULL && mcp__prometheus_text(s->metrics, out);
}
