/* SPDX-License-Identifier: MIT */
/* tracing.c - turning OpenTelemetry traces on (issue #26 item 4, traces
 * only): the exporter (telemetry/otlp.h), the sampler and the resource, by
 * the API or the standard OTEL_* environment variables. Spans themselves
 * are made in core (core/request_span.c). */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/channel.h"
#include "core/request_span.h"
#include "mcp/version.h"
#include "core/server_internal.h"
#include "telemetry/metrics.h"
#include "telemetry/otel_env.h"
#include "telemetry/otlp.h"
#include "telemetry/resource.h"
#include "util/env.h"

/* The checks both exporters share before they start: MCP_OK, or the
 * refusal in err. */
static mcp_status exporter_may_start(const mcp_server_t *s, const char *url,
                                     bool started, const char *what,
                                     mcp_error_t *err) {
  if (s == NULL || url == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no server or no URL");
  if (atomic_load(&s->serving))
    return mcp_error_set(err, MCP_ERR_STATE, "%s enabled before serving",
                         what);
  if (started)
    return mcp_error_set(err, MCP_ERR_EXISTS, "%s already enabled", what);
  return MCP_OK;
}

mcp_status mcp_server_enable_otlp_traces(mcp_server_t *s,
                                         const char *traces_url,
                                         const char *headers,
                                         mcp_error_t *err) {
  mcp_status may = exporter_may_start(
      s, traces_url, s != NULL && s->otlp != NULL, "tracing is", err);
  if (may != MCP_OK)
    return may;
  char *resource = mcp__otel_resource_json(s->name);
  if (resource == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  mcp__otlp_config cfg = {
      .traces_url = traces_url,
      .headers = headers,
      .resource_attributes_json = resource,
      .schedule_delay_ms = mcp__env_positive("OTEL_BSP_SCHEDULE_DELAY", 5000),
      .max_queue = (size_t)mcp__env_positive("OTEL_BSP_MAX_QUEUE_SIZE", 2048),
      .max_batch = (size_t)mcp__env_positive("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512),
      .protocol = (mcp__otlp_protocol)s->otlp_traces_protocol};
  char why[600] = "";
  mcp_status st = mcp__otlp_start(&cfg, &s->otlp, why, sizeof why);
  free(resource);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "%s", why[0] ? why : mcp_strerror(st));
  mcp__log(s, MCP_LOG_INFO, "tracing: OTLP %s spans to %s",
           mcp__otlp_protocol_name(cfg.protocol), traces_url);
  return MCP_OK;
}

static uint64_t dropped_spans(void *ctx) {
  const mcp_server_t *s = ctx;
  return s->otlp != NULL ? mcp__otlp_dropped(s->otlp) : 0;
}

mcp_status mcp_server_enable_otlp_metrics(mcp_server_t *s,
                                          const char *metrics_url,
                                          const char *headers,
                                          mcp_error_t *err) {
  mcp_status may = exporter_may_start(
      s, metrics_url, s != NULL && s->metrics != NULL, "metrics are", err);
  if (may != MCP_OK)
    return may;
  char *resource = mcp__otel_resource_json(s->name);
  if (resource == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  mcp__metrics_config cfg = {
      .metrics_url = metrics_url,
      .headers = headers,
      .resource_attributes_json = resource,
      .interval_ms = mcp__env_positive("OTEL_METRIC_EXPORT_INTERVAL", 60000),
      .max_series = 1000,
      .dropped_spans = dropped_spans,
      .dropped_ctx = s,
      .protocol = (mcp__otlp_protocol)s->otlp_metrics_protocol};
  char why[600] = "";
  mcp_status st = mcp__metrics_start(&cfg, &s->metrics, why, sizeof why);
  free(resource);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "%s", why[0] ? why : mcp_strerror(st));
  mcp__log(s, MCP_LOG_INFO, "metrics: OTLP %s to %s",
           mcp__otlp_protocol_name(cfg.protocol), metrics_url);
  return MCP_OK;
}

/* protocol as an exporter's encoding; MCP_ERR_UNSUPPORTED naming what
 * (the variable or the function) for anything else. */
static mcp_status protocol_from(const char *what, const char *protocol,
                                int *out, mcp_error_t *err) {
  mcp__otlp_protocol p;
  if (!mcp__otlp_protocol_parse(protocol, &p))
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "%s=%.60s: libmcp exports http/protobuf or "
                         "http/json (for grpc, run a Collector beside it)",
                         what, protocol ? protocol : "(null)");
  *out = (int)p;
  return MCP_OK;
}

mcp_status mcp_server_set_otlp_protocol(mcp_server_t *s, const char *protocol,
                                        mcp_error_t *err) {
  if (s == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no server");
  if (atomic_load(&s->serving))
    return mcp_error_set(err, MCP_ERR_STATE,
                         "the OTLP protocol is set before serving");
  if (s->otlp != NULL || s->metrics != NULL)
    return mcp_error_set(err, MCP_ERR_STATE,
                         "the OTLP protocol is set before "
                         "mcp_server_enable_otlp_traces/_metrics (and before "
                         "an HTTP server's /metrics starts collecting)");
  int p = 0; /* set on MCP_OK (GCC cannot see it in Release) */
  mcp_status st = protocol_from("mcp_server_set_otlp_protocol", protocol, &p,
                                err);
  if (st == MCP_OK)
    s->otlp_traces_protocol = s->otlp_metrics_protocol = p;
  return st;
}

mcp_status mcp_server_set_trace_sampler(mcp_server_t *s, const char *sampler,
                                        double ratio) {
  static const struct {
    const char *name;
    mcp__sampler kind;
  } names[] = {{"parentbased_always_on", MCP__SAMPLE_PARENT_ALWAYS_ON},
               {"always_on", MCP__SAMPLE_ALWAYS_ON},
               {"always_off", MCP__SAMPLE_ALWAYS_OFF},
               {"traceidratio", MCP__SAMPLE_RATIO},
               {"parentbased_always_off", MCP__SAMPLE_PARENT_ALWAYS_OFF},
               {"parentbased_traceidratio", MCP__SAMPLE_PARENT_RATIO}};
  if (s == NULL || sampler == NULL || !(ratio >= 0 && ratio <= 1))
    return MCP_ERR_INVALID_ARG;
  if (atomic_load(&s->serving))
    return MCP_ERR_STATE;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(sampler, names[i].name) == 0) {
      s->trace_sampler = (int)names[i].kind;
      s->trace_ratio = ratio;
      return MCP_OK;
    }
  return MCP_ERR_INVALID_ARG;
}

/* Metrics as the environment says (telemetry/otel_env.h). */
static mcp_status metrics_from_env(mcp_server_t *s, mcp_error_t *err) {
  mcp__otel_export m;
  char why[300];
  if (!mcp__otel_export_from_env(MCP__OTEL_METRICS, &m, why, sizeof why))
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED, "%s", why);
  if (m.url == NULL)
    return MCP_OK;
  if (m.has_protocol)
    s->otlp_metrics_protocol = (int)m.protocol;
  return mcp_server_enable_otlp_metrics(s, m.url, m.headers, err);
}

mcp_status mcp_server_otlp_from_env(mcp_server_t *s, mcp_error_t *err) {
  if (s == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no server");
  mcp__otel_export t;
  char why[300];
  if (!mcp__otel_export_from_env(MCP__OTEL_TRACES, &t, why, sizeof why))
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED, "%s", why);
  const char *sampler = t.off ? NULL : mcp__env("OTEL_TRACES_SAMPLER");
  if (sampler != NULL) {
    const char *arg = mcp__env("OTEL_TRACES_SAMPLER_ARG");
    char *end = NULL;
    double ratio = arg ? strtod(arg, &end) : 1.0;
    if ((arg && *end != '\0') ||
        mcp_server_set_trace_sampler(s, sampler, ratio) != MCP_OK)
      return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                           "OTEL_TRACES_SAMPLER=%.60s with "
                           "OTEL_TRACES_SAMPLER_ARG=%.40s: not a sampler "
                           "libmcp knows (always_on, always_off, "
                           "traceidratio, parentbased_always_on, "
                           "parentbased_always_off, parentbased_traceidratio; "
                           "ratio 0..1)",
                           sampler, arg ? arg : "");
  }
  if (t.url != NULL) {
    if (t.has_protocol)
      s->otlp_traces_protocol = (int)t.protocol;
    mcp_status st = mcp_server_enable_otlp_traces(s, t.url, t.headers, err);
    if (st != MCP_OK)
      return st;
  }
  return metrics_from_env(s, err);
}

uint64_t mcp_server_otlp_dropped(const mcp_server_t *s) {
  return s != NULL && s->otlp != NULL ? mcp__otlp_dropped(s->otlp) : 0;
}

uint64_t mcp_server_otlp_exported(const mcp_server_t *s) {
  return s != NULL && s->otlp != NULL ? mcp__otlp_exported(s->otlp) : 0;
}

void mcp__server_tracing_stop(mcp_server_t *s) {
  mcp__metrics_stop(s->metrics); /* first: it reads the spans dropped */
  s->metrics = NULL;
  mcp__otlp_stop(s->otlp);
  s->otlp = NULL;
}

bool mcp__server_traces(const mcp_server_t *s) { return s->otlp != NULL; }
