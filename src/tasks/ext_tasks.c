/* SPDX-License-Identifier: MIT */
/* ext_tasks.c - the 2026-07-28 tasks extension io.modelcontextprotocol/tasks
 * (SEP-2663) on the same runner and store as the 2025-11-25 core tasks.
 *
 * The server decides: a tools/call of a tool that supports tasks becomes a
 * task when the request's own clientCapabilities declare the extension
 * (no `task` param; a legacy one is ignored); a tool that requires a task
 * is refused with -32021 otherwise. The answer is a flat CreateTaskResult
 * (resultType "task", ttlMs, pollIntervalMs). tasks/get returns the
 * DetailedTask: the result inline once completed (a tool error is a
 * completed task with an isError result), the JSON-RPC error once failed,
 * and the outstanding inputRequests while input_required. A handler asks
 * exactly as in a multi-round request; its run is parked (runner.c) and
 * tasks/update delivers the answers; once every outstanding key is
 * answered the handler runs again from the top. tasks/cancel and
 * tasks/update answer an empty ack. tasks/result and tasks/list do not
 * exist in this era (-32601 from the dispatcher).
 */
#include "tasks/runner_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tool_internal.h"
#include "util/clock.h"

json_t *mcp__ext_task_json(const mcp_task_record *r) {
  char created[32], updated[32];
  mcp__format_rfc3339_ms(r->created_ms, created);
  mcp__format_rfc3339_ms(r->updated_ms, updated);
  json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:o}", "taskId", r->task_id, "status",
                        mcp_task_status_name(r->status), "createdAt", created,
                        "lastUpdatedAt", updated, "ttlMs",
                        r->ttl_ms > 0 ? json_integer(r->ttl_ms) : json_null());
  if (o && r->status_message)
    json_object_set_new(o, "statusMessage", json_string(r->status_message));
  if (o && r->poll_interval_ms > 0)
    json_object_set_new(o, "pollIntervalMs", json_integer(r->poll_interval_ms));
  return o;
}

static bool client_declared(const mcp_call_t *call) {
  json_t *ext =
      json_object_get(mcp_call_client_capabilities(call), "extensions");
  return json_is_object(json_object_get(ext, MCP__TASKS_EXT));
}

static mcp_status missing_extension(mcp_call_t *call) {
  return mcp__call_missing_capability(call, "extensions", MCP__TASKS_EXT);
}

mcp_status mcp__ext_tasks_tools_call(mcp_call_t *call, mcp_tool_t *tool,
                                     json_t **result, bool *handled) {
  *handled = false;
  if (tool->task_support == MCP_TASK_FORBIDDEN)
    return MCP_OK;
  if (!client_declared(call))
    return tool->task_support == MCP_TASK_REQUIRED ? missing_extension(call)
                                                   : MCP_OK;
  if (tool->task_start_in_handler)
    return MCP_OK; /* mcp_call_continue_as_task decides */
  mcp_status st = mcp__runner_create_task(
      call, tool, mcp__call_param(call, "arguments"),
      mcp__tasks_runner(mcp_call_server(call))->opts.default_ttl_ms, result);
  *handled = st == MCP_OK;
  return st;
}

mcp_status mcp_call_continue_as_task(mcp_call_t *call) {
  if (call == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp__task_runner *e = mcp__tasks_runner(mcp_call_server(call));
  if (mcp_call_task_id(call) != NULL || !mcp_call_is_stateless(call) ||
      e == NULL || !client_declared(call) || mcp__call_is_handed_off(call) ||
      strcmp(mcp_call_method(call), "tools/call") != 0)
    return MCP_OK; /* already a task, or the call goes on synchronously */
  json_t *name = json_object_get(mcp_call_params(call), "name");
  mcp_tool_t *tool = (mcp_tool_t *)mcp__catalog_find(
      mcp__tools_catalog(mcp_call_server(call)), json_string_value(name));
  if (tool == NULL)
    return MCP_ERR_STATE;
  mcp_status st = MCP_OK;
  if (tool->task_support != MCP_TASK_FORBIDDEN) {
    json_t *res = NULL;
    st = mcp__runner_create_task(
        call, tool, json_object_get(mcp_call_params(call), "arguments"),
        e->opts.default_ttl_ms, &res);
    if (st == MCP_OK) {
      task_run *r = mcp__call_handoff_ctx(call);
      r->input_requests = res; /* the CreateTaskResult until it is sent */
      /* The run starts from the top; the answers stay. */
      json_decref(mcp__call_take_asked(call));
      mcp__call_set_task_id(call, NULL); /* set again when it is sent */
      st = MCP_ERR_TASK_STARTED;
    }
  }
  mcp__tool_release(tool);
  return st;
}

mcp_status mcp__tasks_call_started(mcp_call_t *call, json_t **result) {
  task_run *r =
      mcp__call_is_handed_off(call) ? mcp__call_handoff_ctx(call) : NULL;
  if (r == NULL || r->input_requests == NULL)
    return MCP_ERR_INTERNAL;
  *result = r->input_requests;
  r->input_requests = NULL;
  mcp__call_set_task_id(call, r->id);
  mcp__buf_reset(mcp__call_raw_result(call));
  return MCP_OK;
}

/* ---- tasks/get, tasks/update, tasks/cancel ------------------------------- */
/* The common start: the extension, the task visible to this caller. */
static mcp_status open_task(mcp_call_t *call, mcp__task_runner **e,
                            const char **id, mcp_task_record *rec) {
  if (mcp__tasks_runner(mcp_call_server(call)) == NULL) {
    char msg[200];
    snprintf(msg, sizeof msg, "Method not found: %.150s",
             mcp_call_method(call));
    return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, msg);
  }
  if (!client_declared(call))
    return missing_extension(call);
  return mcp__runner_load_param_task(call, e, id, rec);
}

static json_t *ack(void) {
  return json_object(); /* resultType "complete" is added on the way out */
}

json_t *mcp__ext_detailed_task(mcp__task_runner *e,
                               const mcp_task_record *rec) {
  json_t *o = mcp__ext_task_json(rec);
  if (o && rec->status == MCP_TASK_COMPLETED && rec->result) {
    json_t *res = json_loads(rec->result, 0, NULL);
    if (res)
      json_object_set_new(o, "result", res);
  } else if (o && rec->status == MCP_TASK_FAILED) {
    json_t *err = rec->error ? json_loads(rec->error, 0, NULL) : NULL;
    if (!json_is_object(err)) {
      json_decref(err);
      err = json_pack("{s:i,s:s}", "code", MCP_RPC_INTERNAL_ERROR, "message",
                      rec->status_message ? rec->status_message : "failed");
    }
    json_object_set_new(o, "error", err);
  } else if (o && rec->status == MCP_TASK_INPUT_REQUIRED) {
    pthread_mutex_lock(&e->lock);
    task_run *r = mcp__runner_find_run(e, rec->task_id);
    json_t *asked = r && r->parked && r->input_requests
                        ? json_deep_copy(r->input_requests)
                        : NULL;
    pthread_mutex_unlock(&e->lock);
    json_object_set_new(o, "inputRequests", asked ? asked : json_object());
  }
  return o;
}

mcp_status mcp__handle_ext_tasks_get(mcp_call_t *call, json_t **result) {
  mcp__task_runner *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = open_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  json_t *o = mcp__ext_detailed_task(e, &rec);
  mcp_task_record_clear(&rec);
  *result = o;
  return o ? MCP_OK : MCP_ERR_NOMEM;
}

json_int_t mcp__ext_task_rank(const mcp_task_record *rec) {
  return (json_int_t)rec->updated_ms * 2 +
         (mcp_task_status_is_terminal(rec->status) ? 1 : 0);
}

void mcp__ext_tasks_publish(mcp__task_runner *e, const mcp_task_record *rec) {
  mcp_server_t *s = e->server;
  if (mcp__listen_count(s) == 0)
    return; /* nobody listens: build nothing */
  json_t *params = mcp__ext_detailed_task(e, rec);
  if (params)
    mcp__listen_publish_owned(s, MCP__LISTEN_TASK, rec->task_id, rec->owner,
                              "notifications/tasks", params);
  json_decref(params);
  if (mcp__listen_task_streams(s) == 0)
    return;
  json_int_t rank = mcp__ext_task_rank(rec);
  pthread_mutex_lock(&e->lock);
  json_t *before = json_object_get(e->published, rec->task_id);
  if (before == NULL || json_integer_value(before) < rank)
    json_object_set_new(e->published, rec->task_id, json_integer(rank));
  pthread_mutex_unlock(&e->lock);
}

mcp_status mcp__handle_ext_tasks_update(mcp_call_t *call, json_t **result) {
  json_t *responses = json_object_get(mcp_call_params(call), "inputResponses");
  mcp__task_runner *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = open_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  mcp_task_record_clear(&rec);
  if (!json_is_object(responses))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: inputResponses must be an object");
  /* Answers to keys not outstanding (unknown, answered, superseded) are
   * ignored; a partial set leaves the task input_required. */
  bool resume = false;
  pthread_mutex_lock(&e->lock);
  task_run *r = mcp__runner_find_run(e, id);
  if (r && r->parked && r->input_requests) {
    mcp_call_t *tc = r->call;
    const char *k;
    json_t *v;
    json_object_foreach(responses, k, v) {
      if (!json_is_object(v) || json_object_get(r->input_requests, k) == NULL)
        continue;
      /* a copy: v belongs to this request, freed when it is answered,
       * while the task's handler reads the answer on another thread */
      if (mcp__call_add_answer(tc, k, v) != MCP_OK)
        break;
      json_object_del(r->input_requests, k);
    }
    if (json_object_size(r->input_requests) == 0) {
      json_decref(r->input_requests);
      r->input_requests = NULL;
      r->parked = false;
      resume = true;
    }
  }
  pthread_mutex_unlock(&e->lock);
  if (resume) {
    /* working before the handler can park again (a cancel in between keeps
     * the task cancelled: the CAS refuses, the run sees the flag) */
    mcp__tasks_transition(&e->tasks, id, MCP_TASK_WORKING, NULL, NULL, NULL,
                          NULL);
    mcp__runner_enqueue(e, r);
  }
  *result = ack();
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp__handle_ext_tasks_cancel(mcp_call_t *call, json_t **result) {
  mcp__task_runner *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = open_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  mcp_task_status s = rec.status;
  mcp_task_record_clear(&rec);
  /* Cancelling a terminal task is acknowledged like any other: the spec
   * keeps -32602 for unknown ids only. */
  if (!mcp_task_status_is_terminal(s)) {
    if (e->opts.cancel_fn)
      e->opts.cancel_fn(&e->tasks, id, e->opts.cancel_ud);
    st = mcp__tasks_transition(&e->tasks, id, MCP_TASK_CANCELLED,
                               "Cancelled by the client", NULL, NULL, &s);
    if (st == MCP_ERR_NOT_FOUND)
      return mcp__runner_not_found(call, id);
    if (st != MCP_OK && st != MCP_ERR_STATE)
      return st;
    mcp__runner_cancel_run(e, id);
    pthread_mutex_lock(&e->lock);
    task_run *r = mcp__runner_find_run(e, id);
    bool take = r && r->parked;
    if (take)
      r->parked = false;
    pthread_mutex_unlock(&e->lock);
    if (take)
      mcp__runner_finish_run(r);
  }
  *result = ack();
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

void mcp__ext_tasks_capabilities(const mcp_server_t *s, json_t *caps) {
  (void)s;
  mcp__capability_extension(caps, MCP__TASKS_EXT, json_object());
}

const mcp__method mcp__ext_task_methods[] = {
    {"tasks/get", mcp__handle_ext_tasks_get, MCP__ERA_MODERN},
    {"tasks/update", mcp__handle_ext_tasks_update, MCP__ERA_MODERN},
    {"tasks/cancel", mcp__handle_ext_tasks_cancel, MCP__ERA_MODERN},
};
const size_t mcp__ext_task_methods_count =
    sizeof mcp__ext_task_methods / sizeof mcp__ext_task_methods[0];
