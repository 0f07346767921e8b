/* SPDX-License-Identifier: MIT */
/* lifecycle.c - initialize and version negotiation (legacy era),
 * server/discover (2026-07-28 era), logging/setLevel.
 *
 * Negotiation follows the spec's normative path: a supported requested
 * version is echoed; anything else is answered with our latest version
 * (never an error), and the client decides whether to continue.
 */
#include "server/internal.h"

#include <string.h>

#include "mcp/version.h"

static const char *const legacy_versions[] = {"2025-11-25", "2025-06-18",
                                              "2025-03-26", "2024-11-05"};
static const char *const modern_versions[] = {"2026-07-28"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Every version is a date, "YYYY-MM-DD": a string of another length is
 * none of them, and one of that length is compared in fixed-size pieces
 * (the checks run several times per request). */
#define VERSION_LEN 10

static bool version_in(const char *v, const char *const *list, size_t n) {
  if (v == NULL || strnlen(v, VERSION_LEN + 1) != VERSION_LEN)
    return false;
  for (size_t i = 0; i < n; i++)
    if (memcmp(v, list[i], VERSION_LEN) == 0)
      return true;
  return false;
}

bool mcp__version_is_supported(const char *v) {
  return version_in(v, legacy_versions, COUNT(legacy_versions));
}

bool mcp__version_is_modern(const char *v) {
  return version_in(v, modern_versions, COUNT(modern_versions));
}

json_t *mcp__supported_versions_json(void);
json_t *mcp__supported_versions_json(void) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < COUNT(modern_versions); i++)
    json_array_append_new(a, json_string(modern_versions[i]));
  for (size_t i = 0; a && i < COUNT(legacy_versions); i++)
    json_array_append_new(a, json_string(legacy_versions[i]));
  return a;
}

mcp_status mcp__handle_initialize(mcp_call_t *call, json_t **result) {
  mcp_session_t *se = mcp__call_session(call);
  json_t *version = json_object_get(mcp_call_params(call), "protocolVersion");
  json_t *caps = json_object_get(mcp_call_params(call), "capabilities");
  json_t *info = json_object_get(mcp_call_params(call), "clientInfo");
  if (!json_is_string(version))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: protocolVersion must be a string");
  if (caps != NULL && !json_is_object(caps))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: capabilities must be an object");
  if (info != NULL && !json_is_object(info))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: clientInfo must be an object");
  const char *requested = json_string_value(version);
  const char *chosen =
      mcp__version_is_supported(requested) ? requested : MCP_PROTOCOL_LATEST;
  json_t *caps_copy = caps ? json_incref(caps) : json_object();
  if (caps_copy == NULL)
    return MCP_ERR_NOMEM;

  if (!mcp__session_initialize(se, chosen, caps_copy, info))
    return mcp__call_fail(
        call, MCP_RPC_INVALID_REQUEST,
        "Invalid Request: the session is already initialized");

  mcp_server_t *s = mcp_call_server(call);
  json_t *res = json_pack("{s:s,s:o,s:o}", "protocolVersion", chosen,
                          "capabilities",
                          mcp__server_capabilities(s, MCP__ERA_LEGACY),
                          "serverInfo", mcp__server_info_json(s));
  if (res == NULL)
    return MCP_ERR_NOMEM;
  mcp__server_add_instructions(s, res);
  *result = res;
  return MCP_OK;
}

mcp_status mcp__handle_discover(mcp_call_t *call, json_t **result) {
  mcp_server_t *s = mcp_call_server(call);
  json_t *res = json_pack(
      "{s:o,s:o,s:s,s:{s:o}}", "supportedVersions",
      mcp__supported_versions_json(), "capabilities",
      mcp__server_capabilities(s, MCP__ERA_MODERN), "resultType", "complete",
      "_meta", "io.modelcontextprotocol/serverInfo", mcp__server_info_json(s));
  if (res == NULL ||
      mcp__call_add_cache_hint(call, res, MCP_CACHE_DISCOVER, NULL) != MCP_OK) {
    json_decref(res);
    return MCP_ERR_NOMEM;
  }
  mcp__server_add_instructions(s, res);
  *result = res;
  return MCP_OK;
}

mcp_status mcp__handle_set_level(mcp_call_t *call, json_t **result) {
  mcp_log_level level;
  json_t *name = json_object_get(mcp_call_params(call), "level");
  if (!json_is_string(name) ||
      mcp_log_level_parse(json_string_value(name), &level) != MCP_OK)
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: level must be one of debug, info, "
                          "notice, warning, error, critical, alert, emergency");
  mcp__session_set_log_level(mcp__call_session(call), level);
  *result = json_object();
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp__handle_ping(mcp_call_t *call, json_t **result) {
  (void)call;
  *result = json_object();
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

static const mcp__method lifecycle_methods[] = {
    {"initialize", mcp__handle_initialize, MCP__ERA_LEGACY},
    {"ping", mcp__handle_ping, MCP__ERA_LEGACY},
    {"server/discover", mcp__handle_discover, MCP__ERA_MODERN},
    {"logging/setLevel", mcp__handle_set_level, MCP__ERA_LEGACY},
    {"subscriptions/listen", mcp__handle_subscriptions_listen, MCP__ERA_MODERN},
};

mcp_status mcp__lifecycle_register(mcp_server_t *s) {
  return mcp__server_add_methods(s, lifecycle_methods,
                                 sizeof lifecycle_methods /
                                     sizeof lifecycle_methods[0]);
}
