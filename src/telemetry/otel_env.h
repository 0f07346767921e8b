/* SPDX-License-Identifier: MIT */
/* otel_env.h - one signal's OTLP exporter as the OpenTelemetry SDK
 * environment variables describe it (OTEL_SDK_DISABLED,
 * OTEL_<SIGNAL>_EXPORTER, OTEL_EXPORTER_OTLP_[<SIGNAL>_]ENDPOINT,
 * _PROTOCOL and _HEADERS), read the same way for the server
 * (mcp_server_otlp_from_env) and the client
 * (mcp_client_options_otlp_from_env).
 *
 * Thread-safety: as getenv. */
#ifndef MCP_TELEMETRY_OTEL_ENV_H
#define MCP_TELEMETRY_OTEL_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "telemetry/otlp_http.h"

typedef enum mcp__otel_signal {
  MCP__OTEL_TRACES,
  MCP__OTEL_METRICS
} mcp__otel_signal;

typedef struct mcp__otel_export {
  /* OTEL_SDK_DISABLED=true or OTEL_<SIGNAL>_EXPORTER=none */
  bool off;
  /* OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT
   * with "/v1/<signal>" joined; NULL when off or neither is set */
  const char *url;
  /* OTEL_EXPORTER_OTLP_<SIGNAL>_HEADERS, else OTEL_EXPORTER_OTLP_HEADERS,
   * or NULL */
  const char *headers;
  /* whether a protocol variable is set, and what it says */
  bool has_protocol;
  mcp__otlp_protocol protocol;
  char joined[1100]; /* where url points when it was joined */
} mcp__otel_export;

/* Reads signal's exporter into out. false, with why naming the variable
 * and its value, when an exporter other than otlp or none, or a protocol
 * other than http/protobuf or http/json, is asked for (a setting that
 * cannot take effect is refused, not ignored). The protocol is read only
 * when there is a URL. */
bool mcp__otel_export_from_env(mcp__otel_signal signal, mcp__otel_export *out,
                               char *why, size_t why_len);

#endif
