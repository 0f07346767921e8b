/* SPDX-License-Identifier: MIT */
/* task_call.c - task-augmented tools/call: enforces the tool's taskSupport,
 * admits the task against the caller's concurrent-task budget, creates it in
 * the store and answers with CreateTaskResult; the call is then handed over
 * to the engine (engine.c), which runs it.
 */
#include "tasks/engine_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tool_internal.h"
#include "util/clock.h"
#include "util/rand.h"

/* Who a task counts against for the per-caller cap. */
static char *caller_key(mcp_call_t *call) {
  const char *subject = mcp_call_subject(call);
  /* 2026-07-28 has no sessions: without authentication every caller is
   * one anonymous caller for the cap. */
  const char *key = subject         ? subject
                    : call->session ? mcp__engine_session_key(call->session)
                                    : "anonymous";
  char *out = NULL;
  if (asprintf(&out, "%s:%s", subject ? "sub" : "ses", key ? key : "") < 0)
    return NULL;
  return out;
}

/* ---- tools/call ---------------------------------------------------------- */
static mcp_status support_error(mcp_call_t *call, mcp_tool_t *tool,
                                bool required) {
  char msg[256];
  if (required)
    snprintf(msg, sizeof msg,
             "Method not found: tool '%.128s' must be called as a task "
             "(execution.taskSupport is \"required\")",
             tool->entry.key);
  else
    snprintf(msg, sizeof msg,
             "Method not found: tool '%.128s' does not support task-augmented "
             "calls",
             tool->entry.key);
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, msg);
}

/* Takes a slot of the caller's concurrent-task budget. */
static bool take_slot(mcp__task_engine *e, const char *key) {
  bool ok = true;
  pthread_mutex_lock(&e->lock);
  caller_count *c = e->callers;
  while (c && strcmp(c->key, key) != 0)
    c = c->next;
  if (c == NULL) {
    c = calloc(1, sizeof *c);
    if (c == NULL || (c->key = strdup(key)) == NULL) {
      free(c);
      ok = false;
    } else {
      c->next = e->callers;
      e->callers = c;
    }
  }
  if (ok && c->n >= e->opts.max_per_caller)
    ok = false;
  else if (ok)
    c->n++;
  pthread_mutex_unlock(&e->lock);
  return ok;
}

void mcp__engine_drop_slot(mcp__task_engine *e, const char *key) {
  for (caller_count **pp = &e->callers; *pp; pp = &(*pp)->next)
    if (strcmp((*pp)->key, key) == 0) {
      caller_count *c = *pp;
      if (--c->n == 0) {
        *pp = c->next;
        free(c->key);
        free(c);
      }
      break;
    }
}

static void give_slot(mcp__task_engine *e, const char *key) {
  pthread_mutex_lock(&e->lock);
  mcp__engine_drop_slot(e, key);
  pthread_mutex_unlock(&e->lock);
}

mcp_status mcp__tasks_tools_call(mcp_call_t *call, mcp_tool_t *tool,
                                 json_t *args, json_t **result, bool *handled) {
  mcp__task_engine *e = call->server->tasks;
  *handled = false;
  if (e == NULL)
    return MCP_OK; /* no tasks here: params.task is ignored */
  if (call->stateless)
    return mcp__ext_tasks_tools_call(call, tool, args, result, handled);
  if (call->session == NULL)
    return MCP_OK;
  json_t *task = json_object_get(call->params, "task");
  if (task != NULL && !json_is_object(task))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: task must be an object");
  if (task == NULL && tool->task_support == MCP_TASK_REQUIRED)
    return support_error(call, tool, true);
  if (task != NULL && tool->task_support == MCP_TASK_FORBIDDEN)
    return support_error(call, tool, false);
  if (task == NULL)
    return MCP_OK;
  json_t *jttl = json_object_get(task, "ttl");
  if (jttl != NULL && !json_is_null(jttl) &&
      !(json_is_integer(jttl) && json_integer_value(jttl) >= 0))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: task.ttl must be a non-negative "
                          "integer (milliseconds)");
  int64_t ttl = json_is_integer(jttl) ? (int64_t)json_integer_value(jttl)
                                      : e->opts.default_ttl_ms;
  if (e->opts.max_ttl_ms >= 0 && (ttl < 0 || ttl > e->opts.max_ttl_ms))
    ttl = e->opts.max_ttl_ms;
  mcp_status st = mcp__engine_create_task(call, tool, args, ttl, result);
  *handled = st == MCP_OK;
  return st;
}

mcp_status mcp__engine_create_task(mcp_call_t *call, mcp_tool_t *tool,
                                   json_t *args, int64_t ttl, json_t **result) {
  mcp__task_engine *e = call->server->tasks;
  bool modern = call->stateless;
  char *caller = caller_key(call);
  if (caller == NULL)
    return MCP_ERR_NOMEM;
  if (!take_slot(e, caller)) {
    free(caller);
    char msg[128];
    snprintf(msg, sizeof msg,
             "Too many concurrent tasks for this caller (limit %u)",
             e->opts.max_per_caller);
    mcp_call_set_error(call, MCP_RPC_INTERNAL_ERROR, msg,
                       json_pack("{s:i}", "limit", e->opts.max_per_caller));
    return MCP_ERR_LIMIT;
  }
  task_run *r = calloc(1, sizeof *r);
  const char *subject = mcp_call_subject(call);
  mcp_task_record rec = {0};
  mcp_status st = r ? mcp__random_uuid(r->id) : MCP_ERR_NOMEM;
  if (st == MCP_OK && subject && (r->subject = strdup(subject)) == NULL)
    st = MCP_ERR_NOMEM;
  if (st == MCP_OK) {
    rec.scope = e->tasks.scope;
    rec.task_id = r->id;
    rec.owner = (char *)subject;
    rec.session =
        call->session ? (char *)mcp__engine_session_key(call->session) : NULL;
    rec.tool = tool->entry.key;
    rec.status = MCP_TASK_WORKING;
    rec.created_ms = rec.updated_ms = mcp__wall_ms();
    rec.ttl_ms = ttl;
    rec.poll_interval_ms = e->opts.poll_interval_ms;
    st = mcp_store_task_put(e->tasks.store, &rec, NULL);
  }
  json_t *res = NULL;
  if (st == MCP_OK && modern) {
    res = mcp__ext_task_json(&rec);
    if (res && json_object_set_new(res, "resultType", json_string("task")))
      json_decref(res), res = NULL;
  } else if (st == MCP_OK) {
    json_t *task_json = mcp__task_json(&rec);
    res = task_json ? json_pack("{s:o}", "task", task_json) : NULL;
  }
  if (res == NULL) {
    if (st == MCP_OK) { /* stored but cannot answer: do not leave it */
      mcp_store_task_delete(e->tasks.store, e->tasks.scope, r->id, NULL);
      st = MCP_ERR_NOMEM;
    }
    give_slot(e, caller);
    free(caller);
    if (r)
      free(r->subject);
    free(r);
    return st;
  }
  if (e->opts.immediate_response) {
    char text[512];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(text, sizeof text, e->opts.immediate_response, tool->entry.key);
#pragma GCC diagnostic pop
    json_object_set_new(
        res, "_meta",
        json_pack("{s:s}", "io.modelcontextprotocol/model-immediate-response",
                  text));
  }
  r->e = e;
  r->call = call;
  mcp__tool_retain(tool);
  r->tool = tool;
  r->args = args;
  r->caller = caller;
  pthread_mutex_lock(&e->lock);
  unsigned b = mcp__engine_bucket_of(r->id);
  r->next = e->runs[b];
  e->runs[b] = r;
  pthread_mutex_unlock(&e->lock);
  call->task_id = r->id;
  call->task_input = mcp__engine_task_input;
  call->handoff = mcp__engine_start_run;
  call->handoff_ctx = r;
  *result = res;
  return MCP_OK;
}
