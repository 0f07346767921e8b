/* SPDX-License-Identifier: MIT */
/* request_metrics.c - see request_metrics.h. */
#include "core/request_metrics.h"

#include <stdio.h>
#include <string.h>

#include "core/call_internal.h"
#include "core/session_internal.h"
#include "telemetry/metrics.h"
#include "util/clock.h"

/* One attribute as OTLP/JSON, the series' key: written in place after one
 * reservation, the value copied as it is unless it holds a character JSON
 * escapes (an append per piece cost a traced request ~1,300
 * instructions, callgrind). */
static void attr(mcp__buf *b, const char *key, const char *v, size_t n) {
  static const char open[] = ",{\"key\":\"",
                    mid[] = "\",\"value\":{\"stringValue\":\"";
  size_t key_len = strlen(key);
  bool plain = true;
  for (size_t i = 0; i < n && plain; i++)
    plain = (unsigned char)v[i] >= 0x20 && v[i] != '"' && v[i] != '\\';
  if (!mcp__buf_reserve(b, sizeof open + key_len + sizeof mid + n + 4))
    return; /* out of memory: as when an append fails */
  char *o = b->data + b->len;
  size_t skip = b->len ? 0 : 1; /* the first has no comma */
  memcpy(o, open + skip, sizeof open - 1 - skip);
  o += sizeof open - 1 - skip;
  memcpy(o, key, key_len);
  o += key_len;
  memcpy(o, mid, sizeof mid - 1);
  o += sizeof mid - 1;
  if (plain) {
    memcpy(o, v, n);
    o += n;
    memcpy(o, "\"}}", 4); /* and the NUL */
    b->len = (size_t)(o + 3 - b->data);
    return;
  }
  b->len = (size_t)(o - 1 - b->data); /* the value's quote: escaped's own */
  b->data[b->len] = '\0';
  mcp__buf_append_escaped(b, v, n);
  mcp__buf_append(b, "}}", 2);
}

void mcp__metrics_end(mcp_call_t *call, const json_t *result, int code) {
  if (call->metrics_started_ns == 0)
    return;
  double seconds =
      (double)(mcp__monotonic_ns() - call->metrics_started_ns) / 1e9;
  call->metrics_started_ns = 0; /* once per request */
  const char *method = call->msg.method ? call->msg.method : "unknown";
  char small[512];
  mcp__buf b;
  mcp__buf_init_on(&b, small, sizeof small);
  attr(&b, "mcp.method.name", method, strlen(method));
  const char *name;
  size_t n;
  if (strcmp(method, "tools/call") == 0 &&
      mcp__call_param_string(call, "name", &name, &n))
    attr(&b, "gen_ai.tool.name", name, n);
  else if (strcmp(method, "prompts/get") == 0 &&
           mcp__call_param_string(call, "name", &name, &n))
    attr(&b, "gen_ai.prompt.name", name, n);
  if (code != 0) {
    char text[16];
    snprintf(text, sizeof text, "%d", code);
    attr(&b, "error.type", text, strlen(text));
  } else if (!atomic_load(&call->cancelled) &&
             (call->tool_error ||
              json_is_true(json_object_get(result, "isError")))) {
    attr(&b, "error.type", "tool_error", 10);
  }
  /* initialize: the version it just negotiated, on the session (the call
   * took its copy before there was one), as the span and the log line */
  char version[MCP__MAX_VERSION_LEN] = "";
  json_t *caps, *info;
  if (call->protocol_version[0] != '\0')
    memcpy(version, call->protocol_version, sizeof version);
  else if (call->session != NULL)
    (void)mcp__session_snapshot(call->session, version, sizeof version, &caps,
                                &info, NULL);
  if (version[0] != '\0')
    attr(&b, "mcp.protocol.version", version, strlen(version));
  const char *transport = call->peer.http ? "tcp" : "pipe";
  attr(&b, "network.transport", transport, strlen(transport));
  if (b.data != NULL)
    mcp__metrics_record(call->server->metrics, MCP__METRIC_OPERATION, b.data,
                        b.len, seconds);
  mcp__buf_free(&b);
  /* a session begins with its initialize (its end: mcp__metrics_session) */
  if (code == 0 && call->session != NULL &&
      strcmp(method, "initialize") == 0) {
    pthread_mutex_lock(&call->session->lock);
    call->session->metrics_started_ns = mcp__monotonic_ns();
    call->session->metrics_http = call->peer.http;
    pthread_mutex_unlock(&call->session->lock);
  }
}

void mcp__metrics_session(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  int64_t started = se->metrics_started_ns;
  se->metrics_started_ns = 0; /* once per session */
  char version[MCP__MAX_VERSION_LEN];
  memcpy(version, se->protocol_version, sizeof version);
  bool http = se->metrics_http;
  pthread_mutex_unlock(&se->lock);
  if (started == 0 || se->server->metrics == NULL)
    return;
  double seconds = (double)(mcp__monotonic_ns() - started) / 1e9;
  char small[256];
  mcp__buf b;
  mcp__buf_init_on(&b, small, sizeof small);
  if (version[0] != '\0')
    attr(&b, "mcp.protocol.version", version, strlen(version));
  attr(&b, "network.transport", http ? "tcp" : "pipe", http ? 3 : 4);
  if (b.data != NULL)
    mcp__metrics_record(se->server->metrics, MCP__METRIC_SESSION, b.data,
                        b.len, seconds);
  mcp__buf_free(&b);
}
