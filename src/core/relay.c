/* SPDX-License-Identifier: MIT */
/* relay.c - the core's side of notification fan-out between replicas
 * (mcp/relay.h): what mcp_server_broadcast and
 * mcp_server_notify_resource_updated deliver here is also published through
 * the relay; what the relay receives from other replicas goes into the same
 * local delivery functions, never back out. */
#include <stdlib.h>
#include <string.h>

#include "core/server_internal.h"

static mcp_status deliver(void *ctx, const char *event, size_t len) {
  return mcp_server_relay_deliver(ctx, event, len);
}

mcp_status mcp_server_set_relay(mcp_server_t *s, mcp_relay relay) {
  if (s == NULL || relay.ops == NULL || relay.ops->version < 1 ||
      relay.ops->start == NULL || relay.ops->publish == NULL) {
    if (relay.ops && relay.ops->close)
      relay.ops->close(relay.impl);
    return s == NULL ? MCP_ERR_INVALID_ARG
                     : mcp__refuse(s, "mcp_server_set_relay: the relay needs "
                                      "ops with version >= 1, start and "
                                      "publish");
  }
  pthread_mutex_lock(&s->lock);
  bool taken = s->relay.ops != NULL;
  if (!taken)
    s->relay = relay;
  pthread_mutex_unlock(&s->lock);
  if (taken) {
    if (relay.ops->close)
      relay.ops->close(relay.impl);
    return MCP_ERR_EXISTS;
  }
  mcp_status st = relay.ops->start(relay.impl, s->name, deliver, s);
  if (st != MCP_OK)
    mcp__relay_close(s);
  return st;
}

bool mcp__relay_active(mcp_server_t *s) {
  pthread_mutex_lock(&s->lock);
  bool on = s->relay.ops != NULL;
  pthread_mutex_unlock(&s->lock);
  return on;
}

void mcp__relay_close(mcp_server_t *s) {
  pthread_mutex_lock(&s->lock);
  mcp_relay r = s->relay;
  s->relay.ops = NULL;
  s->relay.impl = NULL;
  pthread_mutex_unlock(&s->lock);
  if (r.ops && r.ops->close)
    r.ops->close(r.impl);
}

static void publish(mcp_server_t *s, json_t *event);

void mcp__relay_publish_event(mcp_server_t *s, json_t *event) {
  publish(s, event);
}

static void publish(mcp_server_t *s, json_t *event) {
  /* set before serving and cleared only by mcp_server_free */
  const mcp_relay_ops *ops = s->relay.ops;
  if (ops == NULL || event == NULL) {
    json_decref(event);
    return;
  }
  char *text = json_dumps(event, JSON_COMPACT);
  json_decref(event);
  if (text)
    ops->publish(s->relay.impl, text, strlen(text));
  free(text);
}

void mcp__relay_publish_broadcast(mcp_server_t *s, const char *method,
                                  const json_t *params) {
  if (s->relay.ops == NULL)
    return;
  json_t *e = json_pack("{s:s,s:s}", "kind", "broadcast", "method", method);
  if (e && params)
    json_object_set_new(e, "params", json_deep_copy(params));
  publish(s, e);
}

void mcp__relay_publish_resource_updated(mcp_server_t *s, const char *uri) {
  if (s->relay.ops == NULL)
    return;
  publish(s, json_pack("{s:s,s:s}", "kind", "resource_updated", "uri", uri));
}

mcp_status mcp_server_relay_deliver(mcp_server_t *s, const char *event,
                                    size_t len) {
  if (s == NULL || event == NULL)
    return MCP_ERR_INVALID_ARG;
  json_t *e = json_loadb(event, len, JSON_REJECT_DUPLICATES, NULL);
  if (!json_is_object(e)) {
    json_decref(e);
    return MCP_ERR_PARSE;
  }
  const char *kind = json_string_value(json_object_get(e, "kind"));
  mcp_status st = MCP_ERR_INVALID_ARG;
  if (kind && strcmp(kind, "broadcast") == 0) {
    const char *method = json_string_value(json_object_get(e, "method"));
    json_t *params = json_object_get(e, "params");
    /* only notifications of the protocol: never a request */
    if (method && strncmp(method, "notifications/", 14) == 0 &&
        (params == NULL || json_is_object(params)))
      st = mcp__server_broadcast_local(s, method, json_incref(params));
  } else if (kind && strcmp(kind, "resync") == 0) {
    /* the relay lost events: every list the server announces changes of */
    st = MCP_OK;
    for (size_t i = 0; i < s->resync_count; i++)
      s->resync[i](s);
  } else if (kind && strcmp(kind, "task_status") == 0) {
    st = s->task_hooks ? s->task_hooks->remote_status(s, e)
                       : MCP_ERR_UNSUPPORTED;
  } else if (kind && strcmp(kind, "task_cancel") == 0) {
    st = s->task_hooks ? s->task_hooks->remote_cancel(s, e)
                       : MCP_ERR_UNSUPPORTED;
  } else if (kind && (strcmp(kind, "task_question") == 0 ||
                      strcmp(kind, "task_question_taken") == 0 ||
                      strcmp(kind, "task_want_questions") == 0)) {
    st = s->task_hooks && s->task_hooks->remote_question
             ? s->task_hooks->remote_question(s, kind, e)
             : MCP_ERR_UNSUPPORTED;
  } else if (kind && strcmp(kind, "answer") == 0) {
    st = mcp__relay_deliver_answer(s, e);
  } else if (kind && strcmp(kind, "resource_updated") == 0) {
    const char *uri = json_string_value(json_object_get(e, "uri"));
    if (uri)
      st = s->resource_updated_local ? s->resource_updated_local(s, uri)
                                     : MCP_ERR_UNSUPPORTED;
  }
  json_decref(e);
  return st;
}
