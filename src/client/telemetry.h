/* SPDX-License-Identifier: MIT */
/* telemetry.h - the CLIENT span of a request (OpenTelemetry, issue #26
 * item 4): begun before the request is sent (its context injected into
 * params._meta.traceparent), ended with the outcome, exported by the
 * client's OTLP exporter (telemetry/otlp.h). Nothing runs when the client
 * has no exporter. */
#ifndef MCP_CLIENT_TELEMETRY_H
#define MCP_CLIENT_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "client/internal.h"

typedef struct mcp__cspan {
  bool on;
  unsigned char trace_id[16], span_id[8], parent_id[8];
  bool has_parent;
  int64_t start_ns;
  char target_key[24]; /* "gen_ai.tool.name", ... or "" */
  char target[256];
} mcp__cspan;

/* Starts the client's exporter when its options name a collector. */
mcp_status mcp__client_telemetry_start(mcp_client_t *c, mcp_error_t *err);
void mcp__client_telemetry_stop(mcp_client_t *c);
/* params (an object) gets _meta.traceparent naming the new span. */
void mcp__cspan_begin(mcp_client_t *c, const char *method, json_t *params,
                      mcp__cspan *sp);
/* result: the result object (may be NULL); err the failure (st != OK). */
void mcp__cspan_end(mcp_client_t *c, mcp__cspan *sp, const char *method,
                    mcp_status st, const mcp_error_t *err,
                    const json_t *result);

#endif
