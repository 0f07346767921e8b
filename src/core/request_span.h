/* SPDX-License-Identifier: MIT */
/* request_span.h - an OpenTelemetry SERVER span per request (issue #26
 * item 4, traces only), named and attributed per the OpenTelemetry
 * semantic conventions for MCP, continued from params._meta.traceparent,
 * handed to the OTLP exporter (telemetry/otlp.h) when the request ends.
 * With tracing off (the default) a call carries no span and nothing here
 * runs. */
#ifndef MCP_CORE_REQUEST_SPAN_H
#define MCP_CORE_REQUEST_SPAN_H

#include <jansson.h>

#include "mcp/call.h"

/* Samplers (OTEL_TRACES_SAMPLER). */
typedef enum mcp__sampler {
  MCP__SAMPLE_PARENT_ALWAYS_ON = 0, /* the default */
  MCP__SAMPLE_ALWAYS_ON,
  MCP__SAMPLE_ALWAYS_OFF,
  MCP__SAMPLE_RATIO,
  MCP__SAMPLE_PARENT_ALWAYS_OFF,
  MCP__SAMPLE_PARENT_RATIO
} mcp__sampler;

/* A call begins (mcp__call_new): its span when the server traces and the
 * sampler keeps it, else nothing. */
void mcp__span_begin(mcp_call_t *call);
/* The call ends: the span, finished with the outcome (code: the JSON-RPC
 * error sent, 0 for a result), goes to the exporter. */
void mcp__span_end(mcp_call_t *call, mcp_status st, const json_t *result,
                   int code);
/* Frees a span that never ended (a call dropped without an answer), and
 * a task's span. */
void mcp__span_discard(mcp_call_t *call);
/* Tasks (src/tasks): a call whose CreateTaskResult ended its request span
 * carries a task span (kind INTERNAL, "tasks/run {tool}", the request's
 * span its parent) until the task's work ends: whether it has one, and
 * its end with the task's status ("completed", ...) and, for a failed or
 * cancelled task, its error.type (else NULL). */
bool mcp__span_task_active(const mcp_call_t *call);
void mcp__span_task_end(mcp_call_t *call, const char *status,
                        const char *error_type);

#endif
