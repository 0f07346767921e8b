/* SPDX-License-Identifier: MIT */
/* call_replay.c - tools/call calls built from a stored request (see
 * call_replay.h). */
#include "core/call_replay.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/call_internal.h"
#include "core/request_span.h"

static mcp_status send_nothing(void *ctx, const char *msg, size_t len,
                               unsigned flags) {
  (void)ctx, (void)msg, (void)len, (void)flags;
  return MCP_ERR_CLOSED;
}

mcp_call_t *mcp__call_replay(mcp_server_t *s, const char *request_id,
                             json_t *params, bool stateless,
                             const char *protocol_version) {
  json_t *root =
      json_is_object(params)
          ? json_pack("{s:s,s:s,s:s,s:O}", "jsonrpc", "2.0", "id", request_id,
                      "method", "tools/call", "params", params)
          : NULL;
  json_decref(params);
  if (root == NULL)
    return NULL;
  mcp__message msg = {.kind = MCP__MSG_REQUEST,
                      .root = root,
                      .id = json_object_get(root, "id"),
                      .method = "tools/call",
                      .params = json_object_get(root, "params")};
  mcp_call_t *call = NULL;
  mcp__channel nowhere = {send_nothing, NULL, NULL, NULL, false};
  if (mcp__call_new(s, &msg, nowhere, NULL, &call) != MCP_OK)
    return NULL;               /* msg was cleared */
  call->progress_token = NULL; /* nobody to report progress to */
  call->log_started_ns = 0;     /* a task run again, not a request */
  mcp__span_discard(call);
  call->metrics_started_ns = 0;
  if (stateless) {
    json_t *meta = mcp_call_meta(call);
    const char *v = json_string_value(
        json_object_get(meta, "io.modelcontextprotocol/protocolVersion"));
    json_t *caps =
        json_object_get(meta, "io.modelcontextprotocol/clientCapabilities");
    json_t *info = json_object_get(meta, "io.modelcontextprotocol/clientInfo");
    mcp__call_bind_modern(call, v ? v : "2026-07-28",
                          json_is_object(caps) ? caps : NULL,
                          json_is_object(info) ? info : NULL);
  } else {
    snprintf(call->protocol_version, sizeof call->protocol_version, "%s",
             protocol_version ? protocol_version : "");
  }
  return call;
}
