/* SPDX-License-Identifier: MIT */
/* listen_method.c - the subscriptions/listen method (2026-07-28): checks
 * the filter and cuts it to what this server declares (core/listen.c holds
 * the streams). */
#include "server/internal.h"

static bool flag(const json_t *filter, const char *name, bool *bad) {
  const json_t *v = json_object_get(filter, name);
  if (v && !json_is_boolean(v))
    *bad = true;
  return json_is_true(v);
}

static bool strings(const json_t *v) {
  if (v == NULL)
    return true;
  if (!json_is_array(v))
    return false;
  for (size_t i = 0; i < json_array_size(v); i++)
    if (!json_is_string(json_array_get(v, i)))
      return false;
  return true;
}

static bool declared(const json_t *caps, const char *feature,
                     const char *member) {
  return json_is_true(json_object_get(json_object_get(caps, feature), member));
}

mcp_status mcp__handle_subscriptions_listen(mcp_call_t *call, json_t **result) {
  (void)result;
  const json_t *filter =
      json_object_get(mcp_call_params(call), "notifications");
  if (!json_is_object(filter))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: notifications (a SubscriptionFilter "
                          "object) is required");
  bool bad = false;
  bool tools = flag(filter, "toolsListChanged", &bad);
  bool prompts = flag(filter, "promptsListChanged", &bad);
  bool resources = flag(filter, "resourcesListChanged", &bad);
  const json_t *uris = json_object_get(filter, "resourceSubscriptions");
  const json_t *task_ids = json_object_get(filter, "taskIds");
  if (bad || !strings(uris) || !strings(task_ids))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: a SubscriptionFilter takes "
                          "booleans and arrays of strings");
  /* SEP-2663: asking for task notifications needs the tasks extension */
  if (json_array_size(task_ids) > 0 &&
      mcp__server_task_hooks(mcp_call_server(call)) != NULL &&
      !json_is_object(json_object_get(
          json_object_get(mcp_call_client_capabilities(call), "extensions"),
          "io.modelcontextprotocol/tasks")))
    return mcp__call_missing_capability(call, "extensions",
                                        "io.modelcontextprotocol/tasks");
  /* Only what the server declares (and so delivers) is honoured. */
  json_t *caps =
      mcp__server_capabilities(mcp_call_server(call), MCP__ERA_MODERN);
  unsigned kinds = 0;
  if (tools && declared(caps, "tools", "listChanged"))
    kinds |= MCP__LISTEN_TOOLS;
  if (prompts && declared(caps, "prompts", "listChanged"))
    kinds |= MCP__LISTEN_PROMPTS;
  if (resources && declared(caps, "resources", "listChanged"))
    kinds |= MCP__LISTEN_RESOURCES;
  bool subscribe = declared(caps, "resources", "subscribe");
  json_decref(caps);
  return mcp__listen_open(call, kinds, subscribe ? uris : NULL, task_ids);
}
