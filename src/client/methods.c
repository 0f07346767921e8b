/* SPDX-License-Identifier: MIT */
/* methods.c - typed wrappers over mcp_client_request for the MCP methods a
 * client calls: pagination, tools, tasks, resources, prompts, completion,
 * logging. Capability gates are checked here so an undeclared feature fails
 * fast with MCP_ERR_CAPABILITY instead of a round trip. */
#include <string.h>

#include "client/internal.h"
#include "mcp/call.h"
#include "util/clock.h"

static mcp_status need(mcp_client_t *c, const char *cap, const char *method,
                       mcp_error_t *err) {
  if (mcp_client_server_has(c, cap))
    return MCP_OK;
  return mcp_error_set(err, MCP_ERR_CAPABILITY,
                       "the server did not declare the \"%s\" capability "
                       "needed for %s",
                       cap, method);
}

/* The capability that gates a method, by its first path segment. */
static const char *gate_of(const char *method) {
  if (strncmp(method, "tools/", 6) == 0)
    return "tools";
  if (strncmp(method, "resources/", 10) == 0)
    return "resources";
  if (strncmp(method, "prompts/", 8) == 0)
    return "prompts";
  if (strncmp(method, "tasks/", 6) == 0)
    return "tasks";
  return NULL;
}

static bool modern(const mcp_client_t *c) {
  return c != NULL && c->era == MCP__ERA_MODERN;
}

mcp_status mcp_client_ping(mcp_client_t *c, mcp_error_t *err) {
  json_t *r = NULL;
  /* 2026-07-28 has no ping: an uncached server/discover is the liveness
   * check */
  mcp_status st =
      modern(c) ? mcp__client_request_once(c, "server/discover", json_object(),
                                           NULL, NULL, 0, NULL, &r, err)
                : mcp_client_request(c, "ping", NULL, NULL, NULL, &r, err);
  json_decref(r);
  return st;
}

mcp_status mcp_client_list_all(mcp_client_t *c, const char *method,
                               const char *key, size_t max_pages,
                               json_t **items, mcp_error_t *err) {
  if (c == NULL || method == NULL || key == NULL || items == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  *items = NULL;
  const char *gate = gate_of(method);
  mcp_status st = gate ? need(c, gate, method, err) : MCP_OK;
  if (st != MCP_OK)
    return st;
  if (max_pages == 0)
    max_pages = 1000;
  json_t *all = json_array();
  json_t *seen = json_object(); /* cursors already followed */
  char *cursor = NULL;
  for (size_t page = 0; st == MCP_OK; page++) {
    if (page >= max_pages) {
      st = mcp_error_set(err, MCP_ERR_LIMIT, "%s: more than %zu pages", method,
                         max_pages);
      break;
    }
    json_t *params = json_object();
    if (cursor != NULL)
      json_object_set_new(params, "cursor", json_string(cursor));
    json_t *r = NULL;
    st = mcp_client_request(c, method, params, NULL, NULL, &r, err);
    if (st != MCP_OK)
      break;
    json_t *list = json_object_get(r, key);
    if (!json_is_array(list)) {
      st = mcp_error_set(err, MCP_ERR_PARSE,
                         "%s: the result has no \"%s\" array", method, key);
      json_decref(r);
      break;
    }
    json_array_extend(all, list);
    /* The cursor is opaque: only compared for repetition, never parsed. */
    const char *next = json_string_value(json_object_get(r, "nextCursor"));
    free(cursor);
    cursor = next ? strdup(next) : NULL;
    json_decref(r);
    if (cursor == NULL)
      break;
    if (json_object_get(seen, cursor) != NULL) {
      st = mcp_error_set(err, MCP_ERR_LIMIT, "%s: cursor \"%.60s\" repeats",
                         method, cursor);
      break;
    }
    json_object_set_new(seen, cursor, json_true());
  }
  free(cursor);
  json_decref(seen);
  if (st != MCP_OK) {
    json_decref(all);
    return st;
  }
  *items = all;
  return MCP_OK;
}

mcp_status mcp_client_list_tools(mcp_client_t *c, json_t **tools,
                                 mcp_error_t *err) {
  return mcp_client_list_all(c, "tools/list", "tools", 0, tools, err);
}

/* Declares the client's capabilities without the tasks extension in
 * params._meta (mcp__modern_meta keeps them). */
static mcp_status without_tasks_extension(mcp_client_t *c, json_t *params) {
  json_t *caps = json_deep_copy(c->modern_caps);
  json_t *ext = json_object_get(caps, "extensions");
  json_object_del(ext, MCP__TASKS_EXT);
  if (json_object_size(ext) == 0)
    json_object_del(caps, "extensions");
  json_t *meta = json_object_get(params, "_meta");
  if (!json_is_object(meta)) {
    meta = json_object();
    json_object_set_new(params, "_meta", meta);
  }
  if (caps == NULL || meta == NULL ||
      json_object_set_new(meta, "io.modelcontextprotocol/clientCapabilities",
                          caps) != 0)
    return MCP_ERR_NOMEM;
  return MCP_OK;
}

static mcp_status call_tool(mcp_client_t *c, const char *name,
                            const json_t *args,
                            bool task, int64_t ttl_ms,
                            mcp_client_progress_fn progress, void *ud,
                            json_t **result, mcp_error_t *err) {
  if (c == NULL || name == NULL || result == NULL ||
      (args != NULL && !json_is_object(args)))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  mcp_status st = need(c, "tools", "tools/call", err);
  if (st != MCP_OK)
    return st;
  json_t *params = json_pack("{s:s}", "name", name);
  if (params == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  json_object_set_new(params, "arguments",
                      args ? json_deep_copy(args) : json_object());
  if (modern(c)) {
    /* Mcp-Param-* headers need the tool's schema: list once over HTTP */
    pthread_mutex_lock(&c->lock);
    bool listed = c->tools_listed;
    pthread_mutex_unlock(&c->lock);
    if (!listed && c->opts.url != NULL) {
      json_t *tools = NULL;
      if (mcp_client_list_tools(c, &tools, NULL) != MCP_OK) {
        pthread_mutex_lock(&c->lock);
        c->tools_listed = true; /* do not try again on every call */
        pthread_mutex_unlock(&c->lock);
      }
      json_decref(tools);
    }
    /* the server decides about tasks, for requests that declare the
     * extension. A plain call runs as a task only when the tool needs one,
     * as in 2025-11-25: it is sent without the extension (an optional tool
     * then answers at once), and only when the server answers -32021 (the
     * tool requires the extension) sent again with it, the task followed
     * to its result. */
    (void)ttl_ms;
    if (!task) {
      mcp_error_t first = {0};
      json_t *plain = json_deep_copy(params);
      mcp_status pst = plain ? without_tasks_extension(c, plain)
                             : mcp_error_set(&first, MCP_ERR_NOMEM, "no memory");
      if (pst == MCP_OK)
        pst = mcp__modern_request(c, "tools/call", plain, progress, ud, true,
                                  result, &first);
      else
        json_decref(plain);
      if (!(pst == MCP_ERR_PEER && first.rpc_code == MCP_RPC_MISSING_CLIENT_CAPABILITY)) {
        json_decref(params);
        if (err != NULL)
          *err = first;
        return pst;
      }
    }
    return mcp__modern_request(c, "tools/call", params, progress, ud, !task,
                               result, err);
  }
  if (task) {
    json_t *meta = json_object();
    if (ttl_ms > 0)
      json_object_set_new(meta, "ttl", json_integer(ttl_ms));
    json_object_set_new(params, "task", meta);
  }
  return mcp_client_request(c, "tools/call", params, progress, ud, result, err);
}

mcp_status mcp_client_call_tool(mcp_client_t *c, const char *name,
                                const json_t *arguments,
                                mcp_client_progress_fn progress,
                                void *user_data, json_t **result,
                                mcp_error_t *err) {
  return call_tool(c, name, arguments, false, 0, progress, user_data, result,
                   err);
}

mcp_status mcp_client_call_tool_task(mcp_client_t *c, const char *name,
                                     const json_t *arguments, int64_t ttl_ms,
                                     mcp_client_progress_fn progress,
                                     void *user_data, json_t **result,
                                     mcp_error_t *err) {
  return call_tool(c, name, arguments, true, ttl_ms, progress, user_data,
                   result, err);
}

static mcp_status task_op(mcp_client_t *c, const char *method,
                          const char *task_id, json_t **out, mcp_error_t *err) {
  if (c == NULL || task_id == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  mcp_status st = need(c, "tasks", method, err);
  if (st != MCP_OK)
    return st;
  return mcp_client_request(c, method, json_pack("{s:s}", "taskId", task_id),
                            NULL, NULL, out, err);
}

mcp_status mcp_client_task_get(mcp_client_t *c, const char *task_id,
                               json_t **task, mcp_error_t *err) {
  return task_op(c, "tasks/get", task_id, task, err);
}

mcp_status mcp_client_task_result(mcp_client_t *c, const char *task_id,
                                  json_t **result, mcp_error_t *err) {
  if (!modern(c))
    return task_op(c, "tasks/result", task_id, result, err);
  /* 2026-07-28: no tasks/result; the result comes inline with tasks/get
   * once the task is terminal (tasks/result blocked until then) */
  if (result == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  *result = NULL;
  json_t *t = NULL;
  mcp_status st = mcp_client_task_wait(c, task_id, 0, NULL, NULL, &t, err);
  if (st != MCP_OK)
    return st;
  const char *status = json_string_value(json_object_get(t, "status"));
  json_t *error = json_object_get(t, "error");
  if (json_is_object(json_object_get(t, "result"))) {
    *result = json_incref(json_object_get(t, "result"));
  } else if (json_is_object(error)) {
    const char *m = json_string_value(json_object_get(error, "message"));
    st = mcp_error_set(err, MCP_ERR_PEER, "%s", m ? m : "the task failed");
    if (err != NULL)
      err->rpc_code = (int)json_integer_value(json_object_get(error, "code"));
  } else {
    st = mcp_error_set(err, MCP_ERR_STATE, "task %s is %s", task_id,
                       status ? status : "in an unknown state");
  }
  json_decref(t);
  return st;
}

mcp_status mcp_client_task_cancel(mcp_client_t *c, const char *task_id,
                                  json_t **task, mcp_error_t *err) {
  if (!modern(c))
    return task_op(c, "tasks/cancel", task_id, task, err);
  /* 2026-07-28 acknowledges with an empty result: the task's state comes
   * from tasks/get, so both eras return the Task */
  json_t *ack = NULL;
  mcp_status st = task_op(c, "tasks/cancel", task_id, &ack, err);
  json_decref(ack);
  if (st != MCP_OK)
    return st;
  return mcp_client_task_get(c, task_id, task, err);
}

mcp_status mcp_client_task_update(mcp_client_t *c, const char *task_id,
                                  const json_t *input_responses,
                                  mcp_error_t *err) {
  if (c == NULL || task_id == NULL || !json_is_object(input_responses))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  if (!modern(c))
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "tasks/update exists only in 2026-07-28 (protocol "
                         "%s): a 2025-11-25 server asks by itself",
                         c->protocol_version);
  mcp_status st = need(c, "tasks", "tasks/update", err);
  if (st != MCP_OK)
    return st;
  json_t *r = NULL;
  st = mcp_client_request(c, "tasks/update",
                          json_pack("{s:s,s:O}", "taskId", task_id,
                                    "inputResponses", input_responses),
                          NULL, NULL, &r, err);
  json_decref(r);
  return st;
}

void mcp__client_task_status(mcp_client_t *c, json_t *task) {
  const char *id = json_string_value(json_object_get(task, "taskId"));
  if (id == NULL)
    return;
  pthread_mutex_lock(&c->lock);
  if (json_object_size(c->task_seen) > 1024)
    json_object_clear(c->task_seen);
  /* a copy: the reader thread frees the message the task came in while
   * a waiter reads the entry (no jansson value shared across threads) */
  json_object_set_new(c->task_seen, id, json_deep_copy(task));
  pthread_cond_broadcast(&c->task_cond);
  pthread_mutex_unlock(&c->lock);
}

static bool is_final(const char *status);

/* Waits up to ms for a terminal status notification of task_id; returns it
 * (new) or NULL. A legacy notification carries no result: the caller of
 * mcp_client_task_result still fetches it. */
static json_t *wait_status(mcp_client_t *c, const char *task_id, int64_t ms) {
  struct timespec deadline;
  mcp__deadline_in(CLOCK_REALTIME, ms, &deadline);
  json_t *found = NULL;
  pthread_mutex_lock(&c->lock);
  for (;;) {
    json_t *t = json_object_get(c->task_seen, task_id);
    const char *st = json_string_value(json_object_get(t, "status"));
    if (t != NULL && st != NULL && is_final(st)) {
      found = json_deep_copy(t);
      json_object_del(c->task_seen, task_id);
      break;
    }
    if (c->closed ||
        pthread_cond_timedwait(&c->task_cond, &c->lock, &deadline) != 0)
      break;
  }
  pthread_mutex_unlock(&c->lock);
  return found;
}

static bool is_final(const char *status) {
  return status == NULL || strcmp(status, "completed") == 0 ||
         strcmp(status, "failed") == 0 || strcmp(status, "cancelled") == 0 ||
         strcmp(status, "input_required") == 0;
}

mcp_status mcp_client_task_wait(mcp_client_t *c, const char *task_id,
                                int default_interval_ms,
                                mcp_client_task_fn on_status, void *user_data,
                                json_t **task, mcp_error_t *err) {
  if (task == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  *task = NULL;
  if (default_interval_ms <= 0)
    default_interval_ms = 1000;
  for (;;) {
    json_t *t = NULL;
    mcp_status st = mcp_client_task_get(c, task_id, &t, err);
    if (st != MCP_OK)
      return st;
    if (on_status != NULL)
      on_status(t, user_data);
    if (is_final(json_string_value(json_object_get(t, "status")))) {
      *task = t;
      return MCP_OK;
    }
    json_t *pi =
        json_object_get(t, modern(c) ? "pollIntervalMs" : "pollInterval");
    json_int_t ms = json_is_integer(pi) && json_integer_value(pi) > 0
                        ? json_integer_value(pi)
                        : default_interval_ms;
    if (ms > 60000)
      ms = 60000; /* bound a hostile interval; polling stays responsive */
    json_decref(t);
    /* Sleep until the next poll, or until a status notification of this
     * task arrives (listen stream, old-era stream): then answer at once. */
    json_t *seen = wait_status(c, task_id, ms);
    if (seen != NULL) {
      if (on_status != NULL)
        on_status(seen, user_data);
      *task = seen;
      return MCP_OK;
    }
  }
}

mcp_status mcp_client_read_resource(mcp_client_t *c, const char *uri,
                                    json_t **result, mcp_error_t *err) {
  if (c == NULL || uri == NULL || result == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  mcp_status st = need(c, "resources", "resources/read", err);
  if (st != MCP_OK)
    return st;
  return mcp_client_request(c, "resources/read", json_pack("{s:s}", "uri", uri),
                            NULL, NULL, result, err);
}

mcp_status mcp_client_subscribe(mcp_client_t *c, const char *uri,
                                bool subscribe, mcp_error_t *err) {
  if (c == NULL || uri == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  const char *method =
      subscribe ? "resources/subscribe" : "resources/unsubscribe";
  if (modern(c))
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "2026-07-28 has no resources/subscribe: use "
                         "mcp_client_listen with resourceSubscriptions");
  json_t *res = json_object_get(json_object_get(c->init_result, "capabilities"),
                                "resources");
  if (!json_is_true(json_object_get(res, "subscribe")))
    return mcp_error_set(err, MCP_ERR_CAPABILITY,
                         "the server did not declare resources.subscribe");
  json_t *r = NULL;
  mcp_status st = mcp_client_request(c, method, json_pack("{s:s}", "uri", uri),
                                     NULL, NULL, &r, err);
  json_decref(r);
  return st;
}

mcp_status mcp_client_get_prompt(mcp_client_t *c, const char *name,
                                 const json_t *arguments, json_t **result,
                                 mcp_error_t *err) {
  if (c == NULL || name == NULL || result == NULL ||
      (arguments != NULL && !json_is_object(arguments)))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  mcp_status st = need(c, "prompts", "prompts/get", err);
  if (st != MCP_OK)
    return st;
  json_t *params = json_pack("{s:s}", "name", name);
  if (arguments != NULL)
    json_object_set_new(params, "arguments", json_deep_copy(arguments));
  return mcp_client_request(c, "prompts/get", params, NULL, NULL, result, err);
}

mcp_status mcp_client_complete(mcp_client_t *c, const json_t *ref,
                               const char *argument, const char *value,
                               const json_t *context_arguments, json_t **result,
                               mcp_error_t *err) {
  if (c == NULL || !json_is_object(ref) || argument == NULL || value == NULL ||
      result == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  mcp_status st = need(c, "completions", "completion/complete", err);
  if (st != MCP_OK)
    return st;
  json_t *params = json_pack("{s:O,s:{s:s,s:s}}", "ref", ref, "argument",
                             "name", argument, "value", value);
  if (params != NULL && context_arguments != NULL)
    json_object_set_new(params, "context",
                        json_pack("{s:O}", "arguments", context_arguments));
  return mcp_client_request(c, "completion/complete", params, NULL, NULL,
                            result, err);
}

mcp_status mcp_client_set_log_level(mcp_client_t *c, const char *level,
                                    mcp_error_t *err) {
  if (c == NULL || level == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  /* 2026-07-28: a per-request hint, no capability needed (a server that
   * does not log ignores it); 2025-11-25: logging/setLevel needs it */
  mcp_status st =
      modern(c) ? MCP_OK : need(c, "logging", "logging/setLevel", err);
  if (st != MCP_OK)
    return st;
  static const char *const LEVELS[] = {"debug",   "info",     "notice",
                                       "warning", "error",    "critical",
                                       "alert",   "emergency"};
  bool known = false;
  for (size_t i = 0; i < sizeof LEVELS / sizeof *LEVELS; i++)
    known = known || strcmp(level, LEVELS[i]) == 0;
  if (modern(c) && !known)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "unknown log level \"%s\"",
                         level);
  if (modern(c)) {
    /* 2026-07-28: the level travels in every request's _meta */
    char *copy = strdup(level);
    if (copy == NULL)
      return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    pthread_mutex_lock(&c->lock);
    free(c->log_level);
    c->log_level = copy;
    pthread_mutex_unlock(&c->lock);
    return MCP_OK;
  }
  json_t *r = NULL;
  st = mcp_client_request(c, "logging/setLevel",
                          json_pack("{s:s}", "level", level), NULL, NULL, &r,
                          err);
  json_decref(r);
  return st;
}
