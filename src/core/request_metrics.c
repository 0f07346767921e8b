/* SPDX-License-Identifier: MIT */
/* request_metrics.c - see request_metrics.h. */
#include "core/request_metrics.h"

#include <stdio.h>
#include <string.h>

#include "core/call_internal.h"
#include "core/session_internal.h"
#include "telemetry/metrics.h"
#include "util/clock.h"

void mcp__metrics_end(mcp_call_t *call, const json_t *result, int code) {
  if (call->metrics_started_ns == 0)
    return;
  double seconds =
      (double)(mcp__monotonic_ns() - call->metrics_started_ns) / 1e9;
  call->metrics_started_ns = 0; /* once per request */
  const char *method = call->msg.method ? call->msg.method : "unknown";
  /* the series' attributes as bytes: no text unless the series is new */
  mcp__metrics_attr a[5];
  size_t n = 0;
  a[n++] = MCP__METRICS_ATTR("mcp.method.name", method, strlen(method));
  const char *name;
  size_t name_len;
  if (strcmp(method, "tools/call") == 0 &&
      mcp__call_param_string(call, "name", &name, &name_len))
    a[n++] = MCP__METRICS_ATTR("gen_ai.tool.name", name, name_len);
  else if (strcmp(method, "prompts/get") == 0 &&
           mcp__call_param_string(call, "name", &name, &name_len))
    a[n++] = MCP__METRICS_ATTR("gen_ai.prompt.name", name, name_len);
  char code_text[16];
  if (code != 0) {
    int len = snprintf(code_text, sizeof code_text, "%d", code);
    a[n++] = MCP__METRICS_ATTR("error.type", code_text, (size_t)len);
  } else if (!atomic_load(&call->cancelled) &&
             (call->tool_error ||
              json_is_true(json_object_get(result, "isError")))) {
    a[n++] = MCP__METRICS_ATTR("error.type", "tool_error", 10);
  }
  /* initialize: the version it just negotiated, on the session (the call
   * took its copy before there was one), as the span and the log line */
  char version[MCP__MAX_VERSION_LEN];
  const char *v = mcp__call_version_seen(call, version);
  if (v[0] != '\0')
    a[n++] = MCP__METRICS_ATTR("mcp.protocol.version", v, strlen(v));
  a[n++] = call->peer.http ? MCP__METRICS_ATTR("network.transport", "tcp", 3)
                           : MCP__METRICS_ATTR("network.transport", "pipe", 4);
  mcp__metrics_record_attrs(call->server->metrics, MCP__METRIC_OPERATION, a, n,
                            seconds);
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
  mcp__metrics_attr a[2];
  size_t n = 0;
  if (version[0] != '\0')
    a[n++] = MCP__METRICS_ATTR("mcp.protocol.version", version,
                               strlen(version));
  a[n++] = http ? MCP__METRICS_ATTR("network.transport", "tcp", 3)
                : MCP__METRICS_ATTR("network.transport", "pipe", 4);
  mcp__metrics_record_attrs(se->server->metrics, MCP__METRIC_SESSION, a, n,
                            seconds);
}
