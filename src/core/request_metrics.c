/* SPDX-License-Identifier: MIT */
/* request_metrics.c - see request_metrics.h. */
#include "core/request_metrics.h"

#include <stdio.h>
#include <string.h>

#include "core/call_internal.h"
#include "telemetry/metrics.h"
#include "util/clock.h"

static void attr(mcp__buf *b, const char *key, const char *v, size_t n) {
  mcp__buf_append_str(b, b->len ? ",{\"key\":\"" : "{\"key\":\"");
  mcp__buf_append_str(b, key);
  mcp__buf_append_str(b, "\",\"value\":{\"stringValue\":");
  mcp__buf_append_escaped(b, v, n);
  mcp__buf_append_str(b, "}}");
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
  if (call->protocol_version[0] != '\0')
    attr(&b, "mcp.protocol.version", call->protocol_version,
         strlen(call->protocol_version));
  const char *transport = call->peer.http ? "tcp" : "pipe";
  attr(&b, "network.transport", transport, strlen(transport));
  if (b.data != NULL)
    mcp__metrics_record(call->server->metrics, b.data, b.len, seconds);
  mcp__buf_free(&b);
}
