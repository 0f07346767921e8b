/* SPDX-License-Identifier: MIT */
/* prometheus.h - the server's metrics (telemetry/metrics.h) in the
 * Prometheus text exposition format 0.0.4, named by the OpenTelemetry to
 * Prometheus mapping: dots become underscores, the unit a suffix
 * (mcp.server.operation.duration, unit s: the histogram
 * mcp_server_operation_duration_seconds with _bucket{le=...}, _sum and
 * _count), a monotonic sum gets _total (libmcp_telemetry_dropped_total),
 * attributes become labels (mcp.method.name: mcp_method_name) and the
 * resource a target_info gauge. Served by the HTTP transport
 * (transport/http_metrics.c, docs/observability.md). */
#ifndef MCP_TELEMETRY_PROMETHEUS_H
#define MCP_TELEMETRY_PROMETHEUS_H

#include <stdbool.h>

#include "telemetry/metrics.h"
#include "util/buf.h"

/* The media type of what mcp__prometheus_text writes. */
#define MCP__PROMETHEUS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Appends every metric of m to out. false: out of memory. */
bool mcp__prometheus_text(mcp__metrics *m, mcp__buf *out);

/* Appends the OpenTelemetry name name as a Prometheus metric or label
 * name: every character but [A-Za-z0-9_] (and ':' when metric) becomes
 * '_', and a leading digit gets a '_' before it. false: out of memory. */
bool mcp__prometheus_name(mcp__buf *out, const char *name, size_t len,
                          bool metric);

#endif
