/* SPDX-License-Identifier: MIT */
/* otlp_http.h - posting an OTLP/HTTP request to a collector, as JSON or
 * (http/protobuf) transcoded to protobuf by telemetry/otlp_pb.h: plain
 * http:// URLs, one connection per request (Connection: close), 2 s
 * timeouts for connecting, sending and receiving, so that a dead or slow
 * collector costs the exporter's thread little and a request nothing. */
#ifndef MCP_TELEMETRY_OTLP_HTTP_H
#define MCP_TELEMETRY_OTLP_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* OTEL_EXPORTER_OTLP_PROTOCOL's values libmcp speaks. */
typedef enum mcp__otlp_protocol {
  MCP__OTLP_HTTP_PROTOBUF = 0, /* the OpenTelemetry default */
  MCP__OTLP_HTTP_JSON
} mcp__otlp_protocol;

/* "http/protobuf" or "http/json" as a protocol; false for anything else
 * (grpc included). */
bool mcp__otlp_protocol_parse(const char *name, mcp__otlp_protocol *out);
const char *mcp__otlp_protocol_name(mcp__otlp_protocol p);

typedef struct mcp__otlp_target {
  char host[256], port[8], path[1024];
  mcp__otlp_protocol protocol; /* how mcp__otlp_post sends a body */
  char *headers; /* "Name: value\r\n"..., owned */
} mcp__otlp_target;

/* url: http://host[:port][/path]; headers "k=v,k2=v2" or NULL. false with
 * the reason in why[n] (or out of memory). */
bool mcp__otlp_target_init(mcp__otlp_target *t, const char *url,
                           const char *headers, char *why, size_t n);
void mcp__otlp_target_clear(mcp__otlp_target *t);
/* One POST of body, an OTLP/JSON request: as it is (application/json) or
 * transcoded to protobuf (application/x-protobuf) per t->protocol; true on
 * a 2xx answer. */
bool mcp__otlp_post(const mcp__otlp_target *t, const char *body, size_t len);
/* One POST of body, already in t->protocol's encoding (the trace exporter
 * writes either itself); true on a 2xx answer. */
bool mcp__otlp_post_encoded(const mcp__otlp_target *t, const char *body,
                            size_t len);

#endif
