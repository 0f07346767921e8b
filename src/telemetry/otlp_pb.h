/* SPDX-License-Identifier: MIT */
/* otlp_pb.h - OTLP http/protobuf bodies (issue #26): an
 * ExportTraceServiceRequest or ExportMetricsServiceRequest that the
 * exporters built in the OTLP/JSON mapping (telemetry/otlp.c,
 * telemetry/metrics.c: the one model both encodings share), written in the
 * protobuf wire format with the field numbers of opentelemetry-proto
 * (collector/trace/v1, collector/metrics/v1, trace/v1, metrics/v1,
 * common/v1, resource/v1). Every JSON member must have its row in the
 * tables of otlp_pb.c: a member without one fails the export (dropped and
 * counted; otlp_pb_test and otel_traces_test see it), so a field added to
 * the JSON model cannot vanish from the protobuf silently. */
#ifndef MCP_TELEMETRY_OTLP_PB_H
#define MCP_TELEMETRY_OTLP_PB_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* A request body is refused past this size (the export is dropped and
 * counted; the OTLP specification recommends 64 MiB as a client's limit):
 * the export queue bounds what goes in, this what comes out. */
#define MCP__OTLP_PB_MAX_BYTES ((size_t)64 << 20)

/* json (len bytes): {"resourceSpans":[...]} or {"resourceMetrics":[...]}.
 * true with the protobuf bytes appended to out; false with the reason in
 * why[n] (malformed, a member without a row, over the size limit, out of
 * memory). */
bool mcp__otlp_json_to_pb(const char *json, size_t len, mcp__buf *out,
                          char *why, size_t n);

/* The contents of a Resource message (no tag, no length) whose attributes
 * are attributes_json, OTLP/JSON KeyValue objects, comma separated: what
 * the trace exporter writes before its spans (telemetry/span_encode.h),
 * encoded once. false with the reason in why[n]. */
bool mcp__otlp_resource_json_to_pb(const char *attributes_json,
                                   mcp__buf *out, char *why, size_t n);

#endif
