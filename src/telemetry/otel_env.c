/* SPDX-License-Identifier: MIT */
/* otel_env.c - an OTLP exporter from the environment (otel_env.h). */
#include "telemetry/otel_env.h"

#include <stdio.h>
#include <string.h>

#include "util/env.h"

bool mcp__otel_export_from_env(mcp__otel_signal signal, mcp__otel_export *out,
                               char *why, size_t why_len) {
  bool traces = signal == MCP__OTEL_TRACES;
  const char *exporter_var =
      traces ? "OTEL_TRACES_EXPORTER" : "OTEL_METRICS_EXPORTER";
  memset(out, 0, sizeof *out);
  const char *disabled = mcp__env("OTEL_SDK_DISABLED");
  const char *exporter = mcp__env(exporter_var);
  if ((disabled && strcmp(disabled, "true") == 0) ||
      (exporter && strcmp(exporter, "none") == 0)) {
    out->off = true;
    return true;
  }
  if (exporter && strcmp(exporter, "otlp") != 0) {
    snprintf(why, why_len, "%s=%.100s: libmcp exports otlp (or none)",
             exporter_var, exporter);
    return false;
  }
  out->url = mcp__env(traces ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
                             : "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
  const char *base = out->url ? NULL : mcp__env("OTEL_EXPORTER_OTLP_ENDPOINT");
  if (base != NULL) {
    size_t n = strlen(base);
    snprintf(out->joined, sizeof out->joined, "%s%s%s", base,
             n && base[n - 1] == '/' ? "" : "/",
             traces ? "v1/traces" : "v1/metrics");
    out->url = out->joined;
  }
  if (out->url == NULL)
    return true;
  out->headers = mcp__env(traces ? "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
                                 : "OTEL_EXPORTER_OTLP_METRICS_HEADERS");
  if (out->headers == NULL)
    out->headers = mcp__env("OTEL_EXPORTER_OTLP_HEADERS");
  const char *var = traces ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
                           : "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL";
  const char *protocol = mcp__env(var);
  if (protocol == NULL)
    protocol = mcp__env(var = "OTEL_EXPORTER_OTLP_PROTOCOL");
  if (protocol == NULL)
    return true;
  if (!mcp__otlp_protocol_parse(protocol, &out->protocol)) {
    snprintf(why, why_len,
             "%s=%.60s: libmcp exports http/protobuf or http/json (for "
             "grpc, run a Collector beside it)",
             var, protocol);
    return false;
  }
  out->has_protocol = true;
  return true;
}
