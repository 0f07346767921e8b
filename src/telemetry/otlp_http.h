/* SPDX-License-Identifier: MIT */
/* otlp_http.h - posting an OTLP/HTTP JSON request to a collector: plain
 * http:// URLs, one connection per request (Connection: close), 2 s
 * timeouts for connecting, sending and receiving, so that a dead or slow
 * collector costs the exporter's thread little and a request nothing. */
#ifndef MCP_TELEMETRY_OTLP_HTTP_H
#define MCP_TELEMETRY_OTLP_HTTP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mcp__otlp_target {
  char host[256], port[8], path[1024];
  char *headers; /* "Name: value\r\n"..., owned */
} mcp__otlp_target;

/* url: http://host[:port][/path]; headers "k=v,k2=v2" or NULL. false with
 * the reason in why[n] (or out of memory). */
bool mcp__otlp_target_init(mcp__otlp_target *t, const char *url,
                           const char *headers, char *why, size_t n);
void mcp__otlp_target_clear(mcp__otlp_target *t);
/* One POST of body (application/json); true on a 2xx answer. */
bool mcp__otlp_post(const mcp__otlp_target *t, const char *body, size_t len);

#endif
