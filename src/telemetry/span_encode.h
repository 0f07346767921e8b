/* SPDX-License-Identifier: MIT */
/* span_encode.h - finished spans (telemetry/span.h) written as the body of
 * an OTLP/HTTP trace export, an ExportTraceServiceRequest, by the
 * exporter's thread: in the proto3 JSON mapping as OTLP specifies it (ids
 * in hex, 64-bit integers as decimal strings, enums as numbers) for
 * http/json, or in the protobuf wire format (the field numbers of
 * opentelemetry-proto trace/v1 and common/v1, the same bytes the
 * OTLP/JSON transcoder of telemetry/otlp_pb.h writes for that JSON) for
 * http/protobuf. Straight from the records: nothing parsed. */
#ifndef MCP_TELEMETRY_SPAN_ENCODE_H
#define MCP_TELEMETRY_SPAN_ENCODE_H

#include <stdbool.h>
#include <stddef.h>

#include "telemetry/span.h"
#include "util/buf.h"

/* What every request of an exporter starts with: its resource and scope. */
typedef struct mcp__span_batch_head {
  const char *resource_json; /* KeyValue objects, comma separated */
  /* the Resource message's contents in protobuf */
  const char *resource_pb;
  size_t resource_pb_len;
  const char *scope_name, *scope_version;
} mcp__span_batch_head;

/* An ExportTraceServiceRequest holding spans[0, n) in JSON, appended to
 * out; false when out of memory. */
bool mcp__spans_to_json(const mcp__span_batch_head *head,
                        mcp__span *const *spans, size_t n, mcp__buf *out);
/* The same in protobuf, appended to out; false when it would take more
 * than limit bytes (nothing written) or out of memory. */
bool mcp__spans_to_pb(const mcp__span_batch_head *head,
                      mcp__span *const *spans, size_t n, size_t limit,
                      mcp__buf *out);

#endif
