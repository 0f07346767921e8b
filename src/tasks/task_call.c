/* SPDX-License-Identifier: MIT */
/* task_call.c - task-augmented tools/call: enforces the tool's taskSupport,
 * admits the task against the caller's concurrent-task budget, creates it in
 * the store and answers with CreateTaskResult; the call is then handed over
 * to the runner (runner.c), which runs it.
 */
#include "tasks/runner_internal.h"

#include <assert.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/task_rerun.h"
#include "tools/tool_internal.h"
#include "util/clock.h"
#include "util/rand.h"
#include "util/thread.h"

/* Who a task counts against for the per-caller cap. */
/* "kind:name", the key of a caller's counts (new string, or NULL). */
static char *key_of(const char *kind, const char *name) {
  char *out = NULL;
  return asprintf(&out, "%s:%s", kind, name ? name : "") < 0 ? NULL : out;
}

static char *caller_key(mcp_call_t *call) {
  const char *subject = mcp_call_subject(call);
  /* 2026-07-28 has no sessions: without authentication every caller is
   * one anonymous caller for the cap. */
  const char *key = subject ? subject
                    : mcp__call_session(call)
                        ? mcp__runner_session_key(mcp__call_session(call))
                        : "anonymous";
  return key_of(subject ? "sub" : "ses", key);
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

/* Counts a task of caller key (max: its budget, 0 for none). */
static bool count_slot(mcp__task_runner *e, const char *key, unsigned max) {
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
  if (ok && max && c->n >= max)
    ok = false;
  else if (ok)
    c->n++;
  pthread_mutex_unlock(&e->lock);
  return ok;
}

/* Takes a slot of the caller's concurrent-task budget. */
static bool take_slot(mcp__task_runner *e, const char *key) {
  return count_slot(e, key, e->opts.max_per_caller);
}

char *mcp__runner_rerun_caller(mcp__task_runner *e, const char *subject) {
  /* the key caller_key gives the same subject here: its tasks and its
   * re-runs share the running cap; without a subject the session is gone,
   * and such re-runs share one */
  char *key = key_of(subject ? "sub" : "rerun", subject);
  if (key == NULL)
    return NULL;
  if (!count_slot(e, key, 0)) {
    free(key);
    return NULL;
  }
  return key;
}

void mcp__runner_drop_slot(mcp__task_runner *e, const char *key) {
  assert(mcp__mutex_held(&e->lock));
  for (caller_count **pp = &e->callers; *pp; pp = &(*pp)->next)
    if (strcmp((*pp)->key, key) == 0) {
      caller_count *c = *pp;
      assert(c->n > 0); /* an entry lives while it holds a slot */
      if (--c->n == 0) {
        *pp = c->next;
        free(c->key);
        free(c);
      }
      break;
    }
}

unsigned mcp__runner_running(mcp__task_runner *e, const char *key, int delta) {
  assert(mcp__mutex_held(&e->lock));
  for (caller_count *c = e->callers; c; c = c->next)
    if (strcmp(c->key, key) == 0) {
      assert(delta >= 0 || c->running >= (unsigned)-delta);
      c->running = (unsigned)((int)c->running + delta);
      return c->running;
    }
  return 0;
}

static bool count_one(const mcp_task_record *rec, void *ud) {
  (void)rec;
  (*(size_t *)ud)++;
  return true;
}

void mcp__runner_count_stored(mcp__task_runner *e) {
  size_t n = 0;
  mcp_store_task_list(e->tasks.store, e->tasks.scope, NULL, 0, count_one, &n,
                      NULL);
  pthread_mutex_lock(&e->lock);
  e->stored = n;
  pthread_mutex_unlock(&e->lock);
}

void mcp__runner_stored_removed(mcp__task_runner *e) {
  pthread_mutex_lock(&e->lock);
  if (e->stored > 0)
    e->stored--;
  pthread_mutex_unlock(&e->lock);
}

/* The caller's stored-task count (created here, refreshed by a store
 * scan), or NULL out of memory. e->lock held. The table is dropped whole
 * when it grows past STORED_CALLERS_MAX (counts then start again and the
 * next scans set them right), which bounds it however many sessions come
 * and go. */
#define STORED_CALLERS_MAX 4096

static void stored_clear(mcp__task_runner *e) {
  for (size_t b = 0; b < STORED_BUCKETS; b++) {
    for (stored_caller *s = e->stored_callers[b], *next; s; s = next) {
      next = s->next;
      free(s);
    }
    e->stored_callers[b] = NULL;
  }
  e->nstored_callers = 0;
}

static stored_caller *stored_entry(mcp__task_runner *e, const char *key) {
  unsigned b = mcp__runner_bucket_of(key) % STORED_BUCKETS;
  for (stored_caller *s = e->stored_callers[b]; s; s = s->next)
    if (strcmp(s->key, key) == 0)
      return s;
  if (e->nstored_callers >= STORED_CALLERS_MAX) {
    stored_clear(e);
    b = mcp__runner_bucket_of(key) % STORED_BUCKETS;
  }
  size_t len = strlen(key);
  stored_caller *s = calloc(1, sizeof *s + len + 1);
  if (s == NULL)
    return NULL;
  memcpy(s->key, key, len + 1);
  s->scanned_ms = INT64_MIN / 2;
  s->next = e->stored_callers[b];
  e->stored_callers[b] = s;
  e->nstored_callers++;
  return s;
}

void mcp__runner_stored_callers_free(mcp__task_runner *e) {
  stored_clear(e);
}

/* Counts the caller's stored tasks, stopping at the cap. */
typedef struct stored_count {
  size_t n, cap;
} stored_count;

static bool count_to_cap(const mcp_task_record *rec, void *ud) {
  (void)rec;
  stored_count *c = ud;
  return ++c->n < c->cap;
}

/* -1 when the caller may store another task, else the refusing limit
 * (sets *which to "caller" or "total"). */
static long stored_limit(mcp__task_runner *e, mcp_call_t *call,
                         const char **which) {
  pthread_mutex_lock(&e->lock);
  size_t total = e->stored;
  pthread_mutex_unlock(&e->lock);
  if (total >= e->opts.max_stored_total) {
    *which = "total";
    return (long)e->opts.max_stored_total;
  }
  mcp_task_filter f = {0};
  const char *subject = mcp_call_subject(call);
  if (subject)
    f.owner = subject;
  else if (mcp__call_session(call))
    f.session = mcp__runner_session_key(mcp__call_session(call));
  /* 2026-07-28 without authentication: no caller to tell apart, the total
   * cap alone applies */
  if (f.owner == NULL && f.session == NULL)
    return -1;
  /* The store is scanned only when the caller's count, kept here, reaches
   * the cap (it counts up at each create and does not see deletions): the
   * scan then sets it right. At most one scan a second per caller. */
  char *key = caller_key(call);
  if (key == NULL)
    return -1;
  size_t cap = e->opts.max_stored_per_caller;
  int64_t now = mcp__monotonic_ms();
  long refuse = -1;
  pthread_mutex_lock(&e->lock);
  stored_caller *sc = stored_entry(e, key);
  bool scan = sc && sc->n >= cap && now - sc->scanned_ms >= 1000;
  if (sc && sc->n < cap)
    sc->n++;
  else if (sc && !scan)
    refuse = (long)cap;
  pthread_mutex_unlock(&e->lock);
  if (scan) {
    stored_count c = {0, cap};
    mcp_store_task_list(e->tasks.store, e->tasks.scope, &f, cap, count_to_cap,
                        &c, NULL);
    pthread_mutex_lock(&e->lock);
    sc = stored_entry(e, key);
    if (sc) {
      sc->n = c.n;
      sc->scanned_ms = now;
      if (sc->n < cap)
        sc->n++;
      else
        refuse = (long)cap;
    }
    pthread_mutex_unlock(&e->lock);
  }
  free(key);
  if (refuse >= 0)
    *which = "caller";
  return refuse;
}

static void give_slot(mcp__task_runner *e, const char *key) {
  pthread_mutex_lock(&e->lock);
  mcp__runner_drop_slot(e, key);
  pthread_mutex_unlock(&e->lock);
}

mcp_status mcp__tasks_tools_call(mcp_call_t *call, mcp_tool_t *tool,
                                 json_t **result, bool *handled) {
  mcp__task_runner *e = mcp__tasks_runner(mcp_call_server(call));
  *handled = false;
  if (e == NULL)
    return MCP_OK; /* no tasks here: params.task is ignored */
  if (mcp_call_is_stateless(call))
    return mcp__ext_tasks_tools_call(call, tool, result, handled);
  if (mcp__call_session(call) == NULL)
    return MCP_OK;
  json_t *task = mcp__call_param(call, "task");
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
  mcp_status st = mcp__runner_create_task(
      call, tool, mcp__call_param(call, "arguments"), ttl, result);
  *handled = st == MCP_OK;
  return st;
}

mcp_status mcp__runner_create_task(mcp_call_t *call, mcp_tool_t *tool,
                                   json_t *args, int64_t ttl, json_t **result) {
  mcp__task_runner *e = mcp__tasks_runner(mcp_call_server(call));
  bool modern = mcp_call_is_stateless(call);
  const char *which = NULL;
  long stored_cap = stored_limit(e, call, &which);
  if (stored_cap >= 0) {
    char msg[160];
    snprintf(msg, sizeof msg,
             "Too many stored tasks %s (limit %ld); delete or let them expire",
             strcmp(which, "total") == 0 ? "on this server" : "for this caller",
             stored_cap);
    mcp_call_set_error(call, MCP_RPC_INTERNAL_ERROR, msg,
                       json_pack("{s:I,s:s}", "limit", (json_int_t)stored_cap,
                                 "stored", which));
    return MCP_ERR_LIMIT;
  }
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
    rec.session = mcp__call_session(call)
                      ? (char *)mcp__runner_session_key(mcp__call_session(call))
                      : NULL;
    rec.tool = tool->entry.key;
    rec.status = MCP_TASK_WORKING;
    rec.created_ms = rec.updated_ms = mcp__wall_ms();
    rec.ttl_ms = ttl;
    rec.poll_interval_ms = e->opts.poll_interval_ms;
    mcp_error_t serr = {0};
    char *request = mcp__runner_rerun_request(call, tool); /* rerun.c */
    st = mcp__store_task_put_rerunnable(e->tasks.store, &rec, request, &serr);
    free(request);
    if (st != MCP_OK) {
      /* a full disk, a locked database: logged, and the caller is told
       * what failed (issue #16 item 9) */
      const char *why = serr.message[0] ? serr.message : mcp_strerror(st);
      mcp__log(mcp_call_server(call), MCP_LOG_ERROR,
               "tasks: cannot store a new task of tool %s: %s", tool->entry.key,
               why);
      /* The client learns the kind of failure, not the store's own text
       * (paths, database details stay in the log). */
      char msg[256];
      snprintf(msg, sizeof msg,
               "Internal error: the task could not be created (task store: "
               "%s)",
               mcp_strerror(st));
      give_slot(e, caller);
      free(caller);
      free(r);
      return mcp__call_fail(call, MCP_RPC_INTERNAL_ERROR, msg);
    }
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
    return st == MCP_ERR_IO ? mcp__runner_store_unavailable(call) : st;
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
  r->expires_ms = ttl >= 0 ? rec.created_ms + (ttl > 0 ? ttl : 1) : 0;
  pthread_mutex_lock(&e->lock);
  unsigned b = mcp__runner_bucket_of(r->id);
  r->next = e->runs[b];
  e->runs[b] = r;
  e->stored++;
  if (r->expires_ms)
    mcp__runner_expiry_changed(e);
  pthread_mutex_unlock(&e->lock);
  mcp__call_set_task(call, r->id, mcp__runner_task_input, mcp__runner_start_run,
                     r);
  *result = res;
  return MCP_OK;
}
