/* SPDX-License-Identifier: MIT */
/* session_share.c - a 2025-11-25 session's state as JSON text, so that a
 * session initialized on one replica can be served by another (the HTTP
 * transport's session store, mcp/session_store.h): negotiated version,
 * client capabilities and info, log level, resource subscriptions and the
 * key naming the session's tasks. Requests in flight, pending server-to-
 * client requests and streams stay with the replica that has them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/session_internal.h"

char *mcp__session_export(mcp_session_t *se) {
  /* the owner key is made now, not lazily: every replica must use one */
  if (se->server->task_hooks) /* tasks are enabled */
    mcp__session_owner_key(se);
  pthread_mutex_lock(&se->lock);
  json_t *j = json_pack(
      "{s:i,s:s,s:O?,s:O?,s:i,s:O?,s:s?}", "v", 1, "protocolVersion",
      se->protocol_version, "clientCapabilities", se->client_capabilities,
      "clientInfo", se->client_info, "logLevel", se->log_level, "subscriptions",
      se->subscriptions, "tasksKey", se->tasks_key[0] ? se->tasks_key : NULL);
  bool ready =
      se->state == MCP__SESSION_INITIALIZED || se->state == MCP__SESSION_READY;
  pthread_mutex_unlock(&se->lock);
  char *text = j && ready ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
  json_decref(j);
  return text;
}

mcp_status mcp__session_import(mcp_session_t *se, const char *text) {
  json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
  const char *version =
      json_string_value(json_object_get(j, "protocolVersion"));
  json_t *caps = json_object_get(j, "clientCapabilities");
  json_t *info = json_object_get(j, "clientInfo");
  json_t *level = json_object_get(j, "logLevel");
  json_t *subs = json_object_get(j, "subscriptions");
  const char *key = json_string_value(json_object_get(j, "tasksKey"));
  if (json_is_null(info))
    info = NULL;
  if (json_is_null(subs))
    subs = NULL;
  if (!json_is_object(j) || json_integer_value(json_object_get(j, "v")) != 1 ||
      version == NULL || strlen(version) >= MCP__MAX_VERSION_LEN ||
      !json_is_object(caps) || (info && !json_is_object(info)) ||
      !json_is_integer(level) || (subs && !json_is_object(subs)) ||
      (key && strlen(key) >= sizeof se->tasks_key)) {
    json_decref(j);
    return MCP_ERR_PARSE;
  }
  pthread_mutex_lock(&se->lock);
  snprintf(se->protocol_version, sizeof se->protocol_version, "%s", version);
  json_decref(se->client_capabilities);
  se->client_capabilities = json_incref(caps);
  json_decref(se->client_info);
  se->client_info = json_incref(info);
  se->log_level = (int)json_integer_value(level);
  json_decref(se->subscriptions);
  se->subscriptions = json_incref(subs);
  snprintf(se->tasks_key, sizeof se->tasks_key, "%s", key ? key : "");
  /* initialized on another replica: the client went on from there */
  se->state = MCP__SESSION_READY;
  pthread_mutex_unlock(&se->lock);
  json_decref(j);
  return MCP_OK;
}

bool mcp__session_has_owner_key(mcp_session_t *se, const char *key) {
  pthread_mutex_lock(&se->lock);
  bool match = se->state == MCP__SESSION_READY && se->tasks_key[0] != '\0' &&
               strcmp(se->tasks_key, key) == 0;
  pthread_mutex_unlock(&se->lock);
  return match;
}
