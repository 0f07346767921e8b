/* SPDX-License-Identifier: MIT */
/* era_modern.c - what a 2026-07-28 request must carry before it runs.
 *
 * Order matters and follows the spec and its conformance probes: the _meta
 * keys first (-32602), then the HTTP headers against the body (-32020,
 * SEP-2243; before the version check, so a header/body disagreement is
 * reported as such even when the body names an unknown version), then
 * version support (-32022), then the optional log level.
 */
#include "server/era_modern.h"
#include "util/header_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/internal.h"
#include "util/base64.h"

#define META_VERSION  "io.modelcontextprotocol/protocolVersion"
#define META_CAPS     "io.modelcontextprotocol/clientCapabilities"
#define META_INFO     "io.modelcontextprotocol/clientInfo"
#define META_LOGLEVEL "io.modelcontextprotocol/logLevel"

static void answer(mcp_call_t *call, int code, const char *message,
                   json_t *data) {
  mcp__call_reply_error(call, code, message, data);
  json_decref(data);
}

/* Which body value Mcp-Name must repeat, or NULL for methods without one. */
static const char *name_param(const char *method) {
  if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
    return "name";
  if (strcmp(method, "resources/read") == 0)
    return "uri";
  /* the tasks extension's methods (tasks/result is not one of them) */
  if (strcmp(method, "tasks/get") == 0 || strcmp(method, "tasks/update") == 0 ||
      strcmp(method, "tasks/cancel") == 0)
    return "taskId";
  return NULL;
}

/* One standard header against its body value; NULL when they agree, else
 * the reason (a static string). */
static const char *header_mismatch(const char *header, const char *body) {
  if (header == NULL)
    return "missing";
  char *value;
  mcp_status st = mcp__header_value_decode(header, &value);
  if (st != MCP_OK)
    return st == MCP_ERR_NOMEM ? "unreadable" : "not a valid header value";
  bool same = strcmp(value, body) == 0;
  free(value);
  return same ? NULL : "does not match the body";
}

static bool check_headers(mcp_call_t *call, const char *version) {
  const mcp__peer *p = mcp__call_peer(call);
  char msg[200];
  const char *why = NULL, *which = NULL;
  if (p->repeated_header) {
    which = "MCP-Protocol-Version, Mcp-Method or Mcp-Name";
    why = "sent more than once";
  } else if (p->protocol_header == NULL ||
             strcmp(p->protocol_header, version) != 0) {
    which = "MCP-Protocol-Version";
    why =
        p->protocol_header ? "does not match _meta protocolVersion" : "missing";
  } else if ((why = header_mismatch(p->method_header, mcp_call_method(call)))) {
    which = "Mcp-Method";
  } else {
    const char *key = name_param(mcp_call_method(call));
    json_t *v = key ? json_object_get(mcp_call_params(call), key) : NULL;
    if (json_is_string(v) &&
        (why = header_mismatch(p->name_header, json_string_value(v))))
      which = "Mcp-Name";
  }
  if (why == NULL)
    return true;
  snprintf(msg, sizeof msg, "Header mismatch: %s header %s", which, why);
  answer(call, MCP_RPC_HEADER_MISMATCH, msg, NULL);
  return false;
}

bool mcp__modern_bind(mcp_call_t *call) {
  json_t *meta = json_object_get(mcp_call_params(call), "_meta");
  json_t *v = json_object_get(meta, META_VERSION);
  json_t *caps = json_object_get(meta, META_CAPS);
  if (!json_is_string(v) || !json_is_object(caps)) {
    answer(call, MCP_RPC_INVALID_PARAMS,
           "Invalid params: _meta must carry " META_VERSION
           " (a string) and " META_CAPS " (an object)",
           NULL);
    return false;
  }
  const char *version = json_string_value(v);
  if (mcp__call_peer(call)->http && !check_headers(call, version))
    return false;
  if (!mcp__version_is_modern(version)) {
    answer(call, MCP_RPC_UNSUPPORTED_PROTOCOL_VERSION,
           "Unsupported protocol version",
           json_pack("{s:o,s:s}", "supported", mcp__supported_versions_json(),
                     "requested", version));
    return false;
  }
  json_t *level = json_object_get(meta, META_LOGLEVEL);
  mcp_log_level parsed;
  if (level &&
      (!json_is_string(level) ||
       mcp_log_level_parse(json_string_value(level), &parsed) != MCP_OK)) {
    answer(call, MCP_RPC_INVALID_PARAMS,
           "Invalid params: " META_LOGLEVEL " must be one of debug, info, "
           "notice, warning, error, critical, alert, emergency",
           NULL);
    return false;
  }
  json_t *info = json_object_get(meta, META_INFO);
  mcp__call_bind_modern(call, version, caps,
                        json_is_object(info) ? info : NULL);
  return true;
}

bool mcp__is_modern_request(const mcp__peer *peer, const json_t *params) {
  const char *header = peer ? peer->protocol_header : NULL;
  if (mcp__version_is_modern(header))
    return true;
  /* An HTTP header naming no version we know is not a legacy client: answer
   * it in the era that can say so (-32022 with the request's id). */
  if (header && !mcp__version_is_supported(header))
    return true;
  return json_object_get(json_object_get(params, "_meta"), META_VERSION) !=
         NULL;
}
