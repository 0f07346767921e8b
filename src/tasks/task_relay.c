/* SPDX-License-Identifier: MIT */
/* task_relay.c - tasks across replicas (mcp/relay.h): a status change made
 * here is published, so that the creating session's status notifications
 * reach it on whichever replica the client listens, and tasks/result
 * waiters elsewhere wake at once; a tasks/cancel answered here is
 * published, so that the replica running the task cancels its handler. */
#include <string.h>

#include "tasks/engine_internal.h"

void mcp__engine_publish_status(mcp__task_engine *e,
                                const mcp_task_record *rec) {
  mcp_server_t *s = e->server;
  if (!mcp__relay_active(s))
    return;
  json_t *task = mcp__task_json(rec);
  json_t *ev = task ? json_pack("{s:s,s:o,s:s?}", "kind", "task_status", "task",
                                task, "session", rec->session)
                    : NULL;
  mcp__relay_publish_event(s, ev);
}

void mcp__engine_publish_cancel(mcp__task_engine *e, const char *id) {
  mcp_server_t *s = e->server;
  if (!mcp__relay_active(s))
    return;
  mcp__relay_publish_event(
      s, json_pack("{s:s,s:s}", "kind", "task_cancel", "taskId", id));
}

static bool has_tasks_key(mcp_session_t *se, void *ud) {
  return mcp__session_has_owner_key(se, ud);
}

mcp_status mcp__tasks_remote_status(mcp_server_t *s, const json_t *event) {
  mcp__task_engine *e = s->tasks;
  json_t *task = json_object_get(event, "task");
  const char *key = json_string_value(json_object_get(event, "session"));
  if (!json_is_object(task) || !json_is_string(json_object_get(task, "taskId")))
    return MCP_ERR_INVALID_ARG;
  if (e == NULL)
    return MCP_ERR_UNSUPPORTED;
  if (key && *key) {
    mcp__buf msg;
    mcp__buf_init(&msg);
    if (mcp__jsonrpc_encode_notification(&msg, "notifications/tasks/status",
                                         task))
      mcp__notify_sessions(s, has_tasks_key, (void *)key, &msg);
    mcp__buf_free(&msg);
  }
  /* tasks/result waiting here answer now, not at their next poll */
  pthread_mutex_lock(&e->lock);
  e->change_seq++;
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
  return MCP_OK;
}

mcp_status mcp__tasks_remote_cancel(mcp_server_t *s, const json_t *event) {
  const char *id = json_string_value(json_object_get(event, "taskId"));
  if (id == NULL)
    return MCP_ERR_INVALID_ARG;
  if (s->tasks == NULL)
    return MCP_ERR_UNSUPPORTED;
  mcp__engine_cancel_run(s->tasks, id);
  return MCP_OK;
}
