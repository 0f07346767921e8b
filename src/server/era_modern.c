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

#define META_VERSION  MCP__META_VERSION
#define META_CAPS     "io.modelcontextprotocol/clientCapabilities"
#define META_INFO     "io.modelcontextprotocol/clientInfo"
#define META_LOGLEVEL "io.modelcontextprotocol/logLevel"

static void answer(mcp_call_t *call, int code, const char *message,
                   json_t *data) {
  mcp__call_reply_error(call, code, message, data);
  json_decref(data);
}

/* One standard header against its body value; NULL when they agree, else
 * the reason (a static string). */
static const char *header_mismatch(const char *header, const char *body) {
  if (header == NULL)
    return "missing";
  if (mcp__header_value_equals(header, body))
    return NULL; /* the common case, without a copy */
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
    const char *key = mcp__header_name_field(mcp_call_method(call));
    const char *v;
    size_t len;
    if (key && mcp__call_param_string(call, key, &v, &len)) {
      char small[256]; /* the value is not NUL-terminated on the tape */
      char *body = len < sizeof small ? small : malloc(len + 1);
      if (body == NULL)
        why = "unreadable";
      else {
        memcpy(body, v, len);
        body[len] = '\0';
        why = header_mismatch(p->name_header, body);
        if (body != small)
          free(body);
      }
      if (why)
        which = "Mcp-Name";
    }
  }
  if (why == NULL)
    return true;
  snprintf(msg, sizeof msg, "Header mismatch: %s header %s", which, why);
  answer(call, MCP_RPC_HEADER_MISMATCH, msg, NULL);
  return false;
}

/* The members of _meta this era reads, found in one pass (their names are
 * long: a hashed lookup each would hash each name). */
typedef struct meta_members {
  json_t *version, *caps, *info, *level;
} meta_members;

static meta_members read_meta(json_t *meta) {
  meta_members m = {NULL, NULL, NULL, NULL};
  const char *key;
  size_t len;
  json_t *value;
#define IS(name) (len == sizeof(name) - 1 && memcmp(key, name, len) == 0)
  json_object_keylen_foreach(meta, key, len, value) {
    if (IS(META_VERSION))
      m.version = value;
    else if (IS(META_CAPS))
      m.caps = value;
    else if (IS(META_INFO))
      m.info = value;
    else if (IS(META_LOGLEVEL))
      m.level = value;
  }
#undef IS
  return m;
}

bool mcp__modern_bind(mcp_call_t *call) {
  meta_members m = read_meta(mcp__call_meta_object(call));
  json_t *v = m.version;
  json_t *caps = m.caps;
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
  json_t *level = m.level;
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
  json_t *info = m.info;
  mcp__call_bind_modern(call, version, caps,
                        json_is_object(info) ? info : NULL);
  return true;
}

bool mcp__is_modern_request(const mcp__peer *peer, const json_t *meta_version) {
  const char *header = peer ? peer->protocol_header : NULL;
  if (mcp__version_is_modern(header))
    return true;
  /* An HTTP header naming no version we know is not a legacy client: answer
   * it in the era that can say so (-32022 with the request's id). */
  if (header && !mcp__version_is_supported(header))
    return true;
  return meta_version != NULL;
}
