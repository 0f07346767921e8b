/* SPDX-License-Identifier: MIT */
/* tasks.c - the application's task API (mcp_tasks_t), store-backed.
 *
 * Every change is a compare-and-set in the store ("only while not
 * terminal"), so a task cancelled by a client stays cancelled when its work
 * finishes later, and a completion from another process cannot be
 * overwritten. Expired tasks (ttl counted from creation) are "not found"
 * even before the sweeper removes them.
 */
#include "tasks/tasks_internal.h"

#include "store/task_store.h"
#include "tasks/runner_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/result_internal.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/rand.h"

mcp_status mcp__tasks_init(mcp_tasks_t *t, mcp_store_t *store,
                           const char *scope) {
  memset(t, 0, sizeof *t);
  t->store = store;
  t->scope = strdup(scope);
  return t->scope ? MCP_OK : MCP_ERR_NOMEM;
}

void mcp__tasks_clear(mcp_tasks_t *t) {
  free(t->scope);
  t->scope = NULL;
}

mcp_status mcp_tasks_open(mcp_store_t *store, const char *scope,
                          mcp_tasks_t **out) {
  if (out)
    *out = NULL;
  if (store == NULL || scope == NULL || *scope == '\0' || out == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_tasks_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return MCP_ERR_NOMEM;
  if (mcp__tasks_init(t, store, scope) != MCP_OK) {
    free(t);
    return MCP_ERR_NOMEM;
  }
  *out = t;
  return MCP_OK;
}

void mcp_tasks_free(mcp_tasks_t *t) {
  if (t == NULL || t->runner)
    return;
  mcp__tasks_clear(t);
  free(t);
}

json_t *mcp__task_json(const mcp_task_record *r) {
  char created[32], updated[32];
  mcp__format_rfc3339_ms(r->created_ms, created);
  mcp__format_rfc3339_ms(r->updated_ms, updated);
  json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:o}", "taskId", r->task_id, "status",
                        mcp_task_status_name(r->status), "createdAt", created,
                        "lastUpdatedAt", updated, "ttl",
                        r->ttl_ms >= 0 ? json_integer(r->ttl_ms) : json_null());
  if (o && r->status_message)
    json_object_set_new(o, "statusMessage", json_string(r->status_message));
  if (o && r->poll_interval_ms >= 0)
    json_object_set_new(o, "pollInterval", json_integer(r->poll_interval_ms));
  return o;
}

/* True when the record's ttl has elapsed at now_ms. */
static bool task_expired(const mcp_task_record *r, int64_t now_ms) {
  return r->ttl_ms >= 0 && r->created_ms + r->ttl_ms <= now_ms;
}

mcp_status mcp__tasks_load(mcp_tasks_t *t, const char *id,
                           mcp_task_record *out) {
  mcp_status st = mcp_store_task_get(t->store, t->scope, id, out, NULL);
  if (st == MCP_OK && task_expired(out, mcp__wall_ms())) {
    mcp_task_record_clear(out);
    st = MCP_ERR_NOT_FOUND;
  }
  return st;
}

mcp_status mcp__tasks_transition(mcp_tasks_t *t, const char *id,
                                 mcp_task_status status, const char *message,
                                 const char *result, const char *error,
                                 mcp_task_status *current) {
  return mcp__tasks_transition_err(t, id, status, message, result, error,
                                   current, NULL);
}

mcp_status mcp__tasks_transition_err(mcp_tasks_t *t, const char *id,
                                     mcp_task_status status,
                                     const char *message, const char *result,
                                     const char *error,
                                     mcp_task_status *current,
                                     mcp_error_t *err) {
  if (t == NULL || id == NULL || mcp_task_status_name(status) == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_task_record rec = {0};
  rec.scope = t->scope;
  rec.task_id = (char *)id;
  rec.status = status;
  rec.status_message = (char *)message;
  rec.updated_ms = mcp__wall_ms();
  rec.result = (char *)result;
  rec.error = (char *)error;
  if (t->runner == NULL)
    return mcp_store_task_update(t->store, &rec, current, err);
  /* the changed record, for the runner's notifications (one statement on
   * PostgreSQL) */
  mcp_task_record now;
  mcp_status st =
      mcp__store_task_update_get(t->store, &rec, current, &now, err);
  if (st == MCP_OK && now.task_id != NULL) {
    mcp__runner_changed(t->runner, &now);
    mcp_task_record_clear(&now);
  }
  return st;
}

char *mcp__tasks_error_result_text(const char *message) {
  json_t *r = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text",
                        "text", message ? message : "failed", "isError", 1);
  char *text = r ? json_dumps(r, JSON_COMPACT) : NULL;
  json_decref(r);
  return text;
}

mcp_status mcp_task_create(mcp_tasks_t *t, const char *tool_name,
                           int64_t ttl_ms, int64_t poll_interval_ms,
                           char id_out[MCP_TASK_ID_SIZE]) {
  if (t == NULL || id_out == NULL)
    return MCP_ERR_INVALID_ARG;
  char id[37];
  mcp_status st = mcp__random_uuid(id);
  if (st != MCP_OK)
    return st;
  mcp_task_record rec = {0};
  rec.scope = t->scope;
  rec.task_id = id;
  rec.tool = (char *)tool_name;
  rec.status = MCP_TASK_WORKING;
  rec.created_ms = rec.updated_ms = mcp__wall_ms();
  rec.ttl_ms = ttl_ms < 0 ? -1 : ttl_ms;
  rec.poll_interval_ms = poll_interval_ms < 0 ? -1 : poll_interval_ms;
  st = mcp_store_task_put(t->store, &rec, NULL);
  if (st == MCP_OK)
    snprintf(id_out, MCP_TASK_ID_SIZE, "%s", id);
  return st;
}

mcp_status mcp_task_get(mcp_tasks_t *t, const char *id, json_t **out) {
  if (out)
    *out = NULL;
  if (t == NULL || id == NULL || out == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_task_record rec;
  mcp_status st = mcp__tasks_load(t, id, &rec);
  if (st != MCP_OK)
    return st;
  *out = mcp__task_json(&rec);
  mcp_task_record_clear(&rec);
  return *out ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp_task_get_status(mcp_tasks_t *t, const char *id,
                               mcp_task_status *out) {
  if (t == NULL || id == NULL || out == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_task_record rec;
  mcp_status st = mcp__tasks_load(t, id, &rec);
  if (st == MCP_OK)
    *out = rec.status;
  mcp_task_record_clear(&rec);
  return st;
}

/* ---- listing ------------------------------------------------------------- */
typedef struct list_ctx {
  mcp__task_runner *runner; /* NULL for a standalone manager */
  json_t *tasks;
  size_t limit, seen;
  int64_t now;
  int64_t last_created; /* last task put on the page */
  char last_id[MCP_TASK_ID_SIZE];
  bool more;
  size_t raw;          /* rows the store returned in this round */
  int64_t raw_created; /* last row the store returned */
  char raw_id[MCP_TASK_ID_SIZE];
} list_ctx;

static bool list_visit(const mcp_task_record *r, void *ud) {
  list_ctx *c = ud;
  c->raw++;
  c->raw_created = r->created_ms;
  snprintf(c->raw_id, sizeof c->raw_id, "%s", r->task_id);
  if (task_expired(r, c->now))
    return true;
  if (c->seen == c->limit) {
    c->more = true;
    return false;
  }
  c->seen++;
  c->last_created = r->created_ms;
  snprintf(c->last_id, sizeof c->last_id, "%s", r->task_id);
  json_t *task = mcp__task_json(r);
  char msg[200];
  int64_t at;
  if (task != NULL && c->runner != NULL &&
      !mcp_task_status_is_terminal(r->status) &&
      mcp__runner_lost_end(c->runner, r->task_id, msg, &at)) {
    /* its end could not be stored: listed as tasks/get shows it */
    char updated[32];
    mcp__format_rfc3339_ms(at, updated);
    json_object_set_new(task, "status", json_string("failed"));
    json_object_set_new(task, "statusMessage", json_string(msg));
    json_object_set_new(task, "lastUpdatedAt", json_string(updated));
  }
  json_array_append_new(c->tasks, task);
  return true;
}

/* Cursors are base64("tasks:<created_ms>:<task id>"): opaque to clients,
 * stable while tasks come and go (keyset pagination). */
static json_t *cursor_encode(int64_t created, const char *id) {
  char plain[128];
  snprintf(plain, sizeof plain, "tasks:%lld:%s", (long long)created, id);
  char *b64 = mcp__base64_encode(plain, strlen(plain));
  json_t *s = b64 ? json_string(b64) : NULL;
  free(b64);
  return s;
}

static bool cursor_decode(const char *cursor, int64_t *created,
                          char id[MCP_TASK_ID_SIZE]) {
  size_t len = strlen(cursor), n;
  if (len == 0 || len > 256)
    return false;
  unsigned char *plain = mcp__base64_decode(cursor, len, &n);
  if (plain == NULL)
    return false;
  bool ok = false;
  long long v;
  int used = 0;
  if (strlen((char *)plain) == n && strncmp((char *)plain, "tasks:", 6) == 0 &&
      sscanf((char *)plain + 6, "%lld:%n", &v, &used) == 1 && used > 0) {
    const char *rest = (char *)plain + 6 + used;
    size_t rl = strlen(rest);
    ok = rl > 0 && rl < MCP_TASK_ID_SIZE;
    if (ok) {
      memcpy(id, rest, rl + 1);
      *created = v;
    }
  }
  free(plain);
  return ok;
}

mcp_status mcp__tasks_page(mcp_tasks_t *t, mcp_task_filter *f,
                           const char *cursor, size_t limit, json_t **out) {
  char after[MCP_TASK_ID_SIZE];
  if (cursor) {
    if (!cursor_decode(cursor, &f->after_created_ms, after))
      return MCP_ERR_INVALID_ARG;
    f->after_id = after;
  }
  list_ctx c = {0};
  c.runner = t->runner;
  c.tasks = json_array();
  c.limit = limit ? limit : 50;
  c.now = mcp__wall_ms();
  json_t *res = json_object();
  if (c.tasks == NULL || res == NULL) {
    json_decref(c.tasks);
    json_decref(res);
    return MCP_ERR_NOMEM;
  }
  /* Rounds of limit + 1 rows: expired rows (not swept yet) are skipped, and
   * one live row beyond the page tells that a next page exists. */
  mcp_status st = MCP_OK;
  for (;;) {
    size_t want = c.limit + 1;
    c.raw = 0;
    st = mcp_store_task_list(t->store, t->scope, f, want, list_visit, &c, NULL);
    if (st != MCP_OK || c.more || c.raw < want)
      break;
    f->after_created_ms = c.raw_created;
    snprintf(after, sizeof after, "%s", c.raw_id);
    f->after_id = after;
  }
  json_object_set_new(res, "tasks", c.tasks);
  if (st == MCP_OK && c.more)
    json_object_set_new(res, "nextCursor",
                        cursor_encode(c.last_created, c.last_id));
  if (st != MCP_OK) {
    json_decref(res);
    return st;
  }
  *out = res;
  return MCP_OK;
}

mcp_status mcp_task_list(mcp_tasks_t *t, const char *cursor, size_t limit,
                         json_t **out) {
  if (out)
    *out = NULL;
  if (t == NULL || out == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_task_filter f = {0};
  return mcp__tasks_page(t, &f, cursor, limit, out);
}

/* ---- changes ------------------------------------------------------------- */
static mcp_status complete_text(mcp_tasks_t *t, const char *id,
                                const char *text, bool is_error) {
  return mcp__tasks_transition(
      t, id, is_error ? MCP_TASK_FAILED : MCP_TASK_COMPLETED,
      is_error ? "The tool reported an error (isError result)" : NULL, text,
      NULL, NULL);
}

mcp_status mcp_task_complete(mcp_tasks_t *t, const char *id,
                             const mcp_result_t *result) {
  if (t == NULL || id == NULL || result == NULL)
    return MCP_ERR_INVALID_ARG;
  if (result->failed)
    return MCP_ERR_NOMEM;
  mcp__buf text;
  mcp__buf_init(&text);
  if (!mcp__result_encode(result, &text)) {
    mcp__buf_free(&text);
    return MCP_ERR_NOMEM;
  }
  mcp_status st = complete_text(t, id, text.data, result->is_error);
  mcp__buf_free(&text);
  return st;
}

mcp_status mcp_task_complete_json(mcp_tasks_t *t, const char *id, json_t *r) {
  if (t == NULL || id == NULL || !json_is_object(r) ||
      !json_is_array(json_object_get(r, "content"))) {
    json_decref(r);
    return MCP_ERR_INVALID_ARG;
  }
  char *text = json_dumps(r, JSON_COMPACT);
  bool is_error = json_is_true(json_object_get(r, "isError"));
  json_decref(r);
  if (text == NULL)
    return MCP_ERR_NOMEM;
  mcp_status st = complete_text(t, id, text, is_error);
  free(text);
  return st;
}

mcp_status mcp_task_fail(mcp_tasks_t *t, const char *id, const char *message) {
  if (t == NULL || id == NULL)
    return MCP_ERR_INVALID_ARG;
  char *text = mcp__tasks_error_result_text(message);
  if (text == NULL)
    return MCP_ERR_NOMEM;
  mcp_status st = mcp__tasks_transition(
      t, id, MCP_TASK_FAILED, message ? message : "failed", text, NULL, NULL);
  free(text);
  return st;
}

mcp_status mcp_task_cancel(mcp_tasks_t *t, const char *id) {
  if (t == NULL || id == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = mcp__tasks_transition(t, id, MCP_TASK_CANCELLED, "Cancelled",
                                        NULL, NULL, NULL);
  if (st == MCP_OK && t->runner)
    mcp__runner_cancel_run(t->runner, id);
  return st;
}

mcp_status mcp_task_update_status(mcp_tasks_t *t, const char *id,
                                  mcp_task_status status, const char *message) {
  if (t == NULL || id == NULL || mcp_task_status_name(status) == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st =
      mcp__tasks_transition(t, id, status, message, NULL, NULL, NULL);
  if (st == MCP_OK && status == MCP_TASK_CANCELLED && t->runner)
    mcp__runner_cancel_run(t->runner, id);
  return st;
}

mcp_status mcp_task_set_payload(mcp_tasks_t *t, const char *id,
                                json_t *payload) {
  if (t == NULL || id == NULL || !json_is_object(payload)) {
    json_decref(payload);
    return MCP_ERR_INVALID_ARG;
  }
  mcp_task_record rec;
  mcp_status st = mcp__tasks_load(t, id, &rec);
  if (st != MCP_OK) {
    json_decref(payload);
    return st;
  }
  char *text = json_dumps(payload, JSON_COMPACT);
  json_decref(payload);
  if (text == NULL) {
    mcp_task_record_clear(&rec);
    return MCP_ERR_NOMEM;
  }
  /* Same status and message: only the payload changes (the CAS still
   * refuses a terminal task). */
  st = mcp__tasks_transition(t, id, rec.status, rec.status_message, text, NULL,
                             NULL);
  free(text);
  mcp_task_record_clear(&rec);
  return st;
}

mcp_status mcp_task_delete(mcp_tasks_t *t, const char *id) {
  if (t == NULL || id == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = mcp_store_task_delete(t->store, t->scope, id, NULL);
  if (st == MCP_OK && t->runner) {
    mcp__runner_stored_removed(t->runner);
    mcp__runner_cancel_run(t->runner, id);
  }
  return st;
}

/* ---- cleanup ------------------------------------------------------------- */
typedef struct fail_ctx {
  char **ids;
  size_t n, cap;
} fail_ctx;

static bool collect_id(const mcp_task_record *r, void *ud) {
  fail_ctx *c = ud;
  if (c->n == c->cap) {
    size_t ncap = c->cap ? c->cap * 2 : 16;
    char **grown = realloc(c->ids, ncap * sizeof *grown);
    if (grown == NULL)
      return false;
    c->ids = grown;
    c->cap = ncap;
  }
  if ((c->ids[c->n] = strdup(r->task_id)) != NULL)
    c->n++;
  return true;
}

/* Fails every active task created before before_ms with message, storing an
 * isError result; counts them and tells fn ("stuck"). */
static size_t fail_active(mcp_tasks_t *t, int64_t before_ms,
                          const char *message, mcp_task_cleanup_fn fn,
                          void *ud) {
  mcp_task_filter f = {0};
  f.active_only = true;
  f.created_before_ms = before_ms;
  fail_ctx c = {0};
  mcp_store_task_list(t->store, t->scope, &f, 0, collect_id, &c, NULL);
  char *text = mcp__tasks_error_result_text(message);
  size_t failed = 0;
  for (size_t i = 0; i < c.n; i++) {
    if (text && mcp__tasks_transition(t, c.ids[i], MCP_TASK_FAILED, message,
                                      text, NULL, NULL) == MCP_OK) {
      failed++;
      if (t->runner)
        mcp__runner_cancel_run(t->runner, c.ids[i]);
      if (fn)
        fn(c.ids[i], "stuck", ud);
    }
    free(c.ids[i]);
  }
  free(c.ids);
  free(text);
  return failed;
}

typedef struct sweep_ctx {
  mcp_tasks_t *tasks;
  mcp_task_cleanup_fn fn;
  void *ud;
  mcp_task_cleanup_report *report;
} sweep_ctx;

static void on_removed(const char *id, const char *reason, void *ud) {
  sweep_ctx *c = ud;
  if (strcmp(reason, "expired") == 0)
    c->report->expired++;
  else
    c->report->retained++;
  if (c->tasks->runner) {
    mcp__runner_stored_removed(c->tasks->runner);
    mcp__runner_cancel_run(c->tasks->runner, id);
  }
  if (c->fn)
    c->fn(id, reason, c->ud);
}

mcp_status mcp_task_delete_outdated(mcp_tasks_t *t,
                                    const mcp_task_options_t *options,
                                    mcp_task_cleanup_fn fn, void *user_data,
                                    mcp_task_cleanup_report *report) {
  mcp_task_cleanup_report local = {0};
  if (report == NULL)
    report = &local;
  memset(report, 0, sizeof *report);
  if (t == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_task_options_t defaults;
  if (options == NULL) {
    mcp__task_options_defaults(&defaults);
    options = &defaults;
  }
  int64_t now = mcp__wall_ms();
  sweep_ctx c = {t, fn, user_data, report};
  mcp_status st = mcp_store_task_sweep(
      t->store, t->scope, now, options->retention_ms, on_removed, &c, NULL);
  if (st != MCP_OK)
    return st;
  report->stuck = fail_active(
      t, now - options->stuck_ms,
      "Stuck: the task was still working after the configured limit and was "
      "failed by cleanup",
      fn, user_data);
  return MCP_OK;
}
