/* SPDX-License-Identifier: MIT */
/* call_replay.c - tools/call calls built from a stored request (see
 * call_replay.h). */
#include "core/call_replay.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/call_internal.h"

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
  mcp_call_t *call = root ? calloc(1, sizeof *call) : NULL;
  if (call == NULL) {
    json_decref(root);
    return NULL;
  }
  call->server = s;
  call->msg.kind = MCP__MSG_REQUEST;
  call->msg.root = root;
  call->msg.id = json_object_get(root, "id");
  call->msg.method = json_string_value(json_object_get(root, "method"));
  call->msg.params = json_object_get(root, "params");
  atomic_init(&call->params, json_incref(call->msg.params));
  call->reply = (mcp__channel){send_nothing, NULL, NULL, NULL};
  pthread_mutex_init(&call->send_lock, NULL);
  atomic_init(&call->cancelled, false);
  call->stateless = stateless;
  json_t *meta = json_object_get(call->msg.params, "_meta");
  if (stateless) {
    const char *v = json_string_value(
        json_object_get(meta, "io.modelcontextprotocol/protocolVersion"));
    snprintf(call->protocol_version, sizeof call->protocol_version, "%s",
             v ? v : "2026-07-28");
    json_t *caps =
        json_object_get(meta, "io.modelcontextprotocol/clientCapabilities");
    call->client_capabilities = json_is_object(caps) ? caps : NULL;
    json_t *info = json_object_get(meta, "io.modelcontextprotocol/clientInfo");
    call->client_info = json_is_object(info) ? info : NULL;
  } else {
    snprintf(call->protocol_version, sizeof call->protocol_version, "%s",
             protocol_version ? protocol_version : "");
  }
  return call;
}
