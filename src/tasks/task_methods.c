/* SPDX-License-Identifier: MIT */
/* task_methods.c - tasks/get, tasks/list and tasks/cancel, and what every
 * method on a task starts with: who owns a task and whether this caller may
 * see it.
 */
#include "tasks/runner_internal.h"

#include <stdio.h>
#include <string.h>

#include "util/rand.h"

const char *mcp__runner_session_key(mcp_session_t *se) {
  return mcp__session_owner_key(se);
}

/* Without authentication the unguessable id is the capability; with it, a
 * task is visible only to the subject that created it. */
static bool visible(mcp_call_t *call, const mcp_task_record *rec) {
  const char *subject = mcp_call_subject(call);
  if (subject == NULL && rec->owner == NULL)
    return true;
  return subject && rec->owner && strcmp(subject, rec->owner) == 0;
}

mcp_status mcp__runner_load_visible(mcp__task_runner *e, mcp_call_t *call,
                                    const char *id, mcp_task_record *rec) {
  mcp_status st = mcp__tasks_load(&e->tasks, id, rec);
  if (st == MCP_OK && !visible(call, rec)) {
    mcp_task_record_clear(rec);
    st = MCP_ERR_NOT_FOUND;
  }
  if (st == MCP_OK) /* an end the store refused (issue #16 item 9) */
    mcp__runner_overlay_lost(e, rec);
  return st;
}

mcp_status mcp__runner_not_found(mcp_call_t *call, const char *id) {
  char msg[160];
  snprintf(msg, sizeof msg, "Invalid params: task not found or expired: %.64s",
           id);
  return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
}

static mcp_status no_tasks(mcp_call_t *call) {
  char msg[200];
  snprintf(msg, sizeof msg, "Method not found: %.150s", mcp_call_method(call));
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, msg);
}

mcp_status mcp__runner_load_param_task(mcp_call_t *call, mcp__task_runner **e,
                                       const char **id, mcp_task_record *rec) {
  *id = NULL;
  *e = mcp__tasks_runner(mcp_call_server(call));
  if (*e == NULL)
    return no_tasks(call);
  json_t *param = json_object_get(mcp_call_params(call), "taskId");
  if (!json_is_string(param))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: taskId must be a string");
  *id = json_string_value(param);
  mcp_status st = mcp__runner_load_visible(*e, call, *id, rec);
  if (st == MCP_ERR_IO)
    return mcp__runner_store_unavailable(call);
  return st == MCP_ERR_NOT_FOUND ? mcp__runner_not_found(call, *id) : st;
}

mcp_status mcp__runner_store_unavailable(mcp_call_t *call) {
  mcp__call_fail(call, MCP_RPC_INTERNAL_ERROR,
                 "The task store is unavailable (database unreachable); "
                 "nothing was changed, try again later");
  return MCP_ERR_IO;
}

/* ---- tasks/get, tasks/list, tasks/cancel --------------------------------- */
mcp_status mcp__handle_tasks_get(mcp_call_t *call, json_t **result) {
  mcp__task_runner *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = mcp__runner_load_param_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  *result = mcp__task_json(&rec);
  mcp_task_record_clear(&rec);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp__handle_tasks_list(mcp_call_t *call, json_t **result) {
  mcp__task_runner *e = mcp__tasks_runner(mcp_call_server(call));
  if (e == NULL || !e->opts.list)
    return no_tasks(call);
  json_t *cursor = json_object_get(mcp_call_params(call), "cursor");
  if (cursor != NULL && !json_is_null(cursor) && !json_is_string(cursor))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: cursor must be a string");
  mcp_task_filter f = {0};
  const char *subject = mcp_call_subject(call);
  if (subject)
    f.owner = subject;
  else if ((f.session = mcp__runner_session_key(mcp__call_session(call))) ==
           NULL)
    return MCP_ERR_INTERNAL;
  mcp_status st = mcp__tasks_page(&e->tasks, &f, json_string_value(cursor),
                                  mcp__server_page_size(mcp_call_server(call)),
                                  result);
  if (st == MCP_ERR_INVALID_ARG)
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: unknown or malformed cursor");
  if (st == MCP_ERR_IO)
    return mcp__runner_store_unavailable(call);
  return st;
}

static mcp_status terminal_error(mcp_call_t *call, mcp_task_status s) {
  char msg[128];
  snprintf(msg, sizeof msg,
           "Cannot cancel task: already in terminal status '%s'",
           mcp_task_status_name(s));
  return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
}

mcp_status mcp__handle_tasks_cancel(mcp_call_t *call, json_t **result) {
  mcp__task_runner *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = mcp__runner_load_param_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  mcp_task_status s = rec.status;
  mcp_task_record_clear(&rec);
  if (mcp_task_status_is_terminal(s))
    return terminal_error(call, s);
  if (e->opts.cancel_fn)
    e->opts.cancel_fn(&e->tasks, id, e->opts.cancel_ud);
  /* cancelled is stored before the reply is sent (spec 8.9). */
  st = mcp__tasks_transition(&e->tasks, id, MCP_TASK_CANCELLED,
                             "Cancelled by the client", NULL, NULL, &s);
  if (st == MCP_ERR_STATE) /* lost the race against completion */
    return terminal_error(call, s);
  if (st == MCP_ERR_NOT_FOUND)
    return mcp__runner_not_found(call, id);
  if (st != MCP_OK)
    return st;
  mcp__runner_cancel_run(e, id);
  mcp__runner_publish_cancel(e, id); /* it may run on another replica */
  if ((st = mcp__tasks_load(&e->tasks, id, &rec)) != MCP_OK)
    return st == MCP_ERR_NOT_FOUND ? mcp__runner_not_found(call, id) : st;
  *result = mcp__task_json(&rec);
  mcp_task_record_clear(&rec);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

/* Tasks exist only in 2025-11-25 sessions here; 2026-07-28 has them as the
 * io.modelcontextprotocol/tasks extension. */
const mcp__method mcp__task_methods[] = {
    {"tasks/get", mcp__handle_tasks_get, MCP__ERA_LEGACY},
    {"tasks/result", mcp__handle_tasks_result, MCP__ERA_LEGACY},
    {"tasks/list", mcp__handle_tasks_list, MCP__ERA_LEGACY},
    {"tasks/cancel", mcp__handle_tasks_cancel, MCP__ERA_LEGACY},
};
const size_t mcp__task_methods_count =
    sizeof mcp__task_methods / sizeof mcp__task_methods[0];
