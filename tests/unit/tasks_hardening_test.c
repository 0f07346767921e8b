/* SPDX-License-Identifier: MIT */
/* tasks_hardening_test.c - issue #16 items 5 to 9, in-process over a store
 * that fails on demand (tests/util/fault_store.h):
 *  5  tasks/result of another session does not take the task's question;
 *  6  a task whose ttl ends stops running and frees its thread; one caller's
 *     long tasks leave threads for other callers (running cap);
 *  7  2026-07-28 calls of a taskSupport "required" tool are capped;
 *  8  stored tasks are capped per caller and in total, with a clear error;
 *  9  every store call site's failure: create, completion (transient,
 *     persistent, fallback, not storable at all: shown failed in both
 *     eras), get, list, delete, sweep, recovery; logged.
 * Waits are bounded polls for a condition; no assertion on durations. */
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_store.h"
#include "server/internal.h"
#include "task_fixture.h"
#include "tasks/runner_internal.h"
#include "util/clock.h"

static int gate;    /* gated_ask asks once this is set */
static int release; /* hold returns once this is set */

static mcp_status quick_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "done");
  return MCP_OK;
}

/* Runs until cancelled (at most 60 s). */
static mcp_status forever_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)args, (void)ud;
  for (int i = 0; i < 30000 && !mcp_call_is_cancelled(call); i++)
    usleep(2000);
  mcp_result_add_text(r, "stopped");
  return MCP_OK;
}

/* Runs until release is set (at most 60 s). */
static mcp_status hold_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)call, (void)args, (void)ud;
  for (int i = 0; i < 30000 && !__atomic_load_n(&release, __ATOMIC_SEQ_CST);
       i++)
    usleep(2000);
  mcp_result_add_text(r, "released");
  return MCP_OK;
}

/* Asks the client once gate is set. */
static mcp_status gated_ask(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)args, (void)ud;
  for (int i = 0; i < 10000 && !__atomic_load_n(&gate, __ATOMIC_SEQ_CST); i++)
    usleep(2000);
  json_t *res = NULL;
  mcp_error_t err;
  mcp_status st = mcp_call_request(call, "elicitation/create",
                                   json_pack("{s:s,s:{s:s,s:{}}}", "message",
                                             "Proceed?", "requestedSchema",
                                             "type", "object", "properties"),
                                   20000, &res, &err);
  if (st != MCP_OK) {
    mcp_result_set_error(r, "%s", err.message);
    return MCP_OK;
  }
  mcp_result_add_text(r, json_string_value(json_object_get(res, "action")));
  json_decref(res);
  return MCP_OK;
}

typedef struct fixture {
  mcp_server_t *server;
  mcp_store_t *store;
  fault_store *faults;
  mcp_session_t *a, *b;
  tu_capture notify_a, notify_b;
  pthread_mutex_t log_lock;
  char errors[4096]; /* error-level log lines, '\n'-separated */
  char warnings[4096];
} fixture;

static void on_log(mcp_log_level level, const char *msg, void *ud) {
  fixture *f = ud;
  pthread_mutex_lock(&f->log_lock);
  char *into = level >= MCP_LOG_ERROR     ? f->errors
               : level == MCP_LOG_WARNING ? f->warnings
                                          : NULL;
  if (into && strlen(into) + strlen(msg) + 2 < sizeof f->errors) {
    strcat(into, msg);
    strcat(into, "\n");
  }
  pthread_mutex_unlock(&f->log_lock);
}

static bool logged(fixture *f, bool error, const char *needle) {
  pthread_mutex_lock(&f->log_lock);
  bool yes = strstr(error ? f->errors : f->warnings, needle) != NULL;
  pthread_mutex_unlock(&f->log_lock);
  return yes;
}

/* The default task options but threads, running cap, unfinished tasks per
 * caller (0: default), stored caps and the outcome retry time (< 0:
 * default). */
static void setup_opts_keep(fixture *f, unsigned threads, unsigned running,
                            unsigned per_caller, size_t stored_per_caller,
                            size_t stored_total, int64_t outcome_retry_ms) {
  memset(f, 0, sizeof *f);
  pthread_mutex_init(&f->log_lock, NULL);
  __atomic_store_n(&gate, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&release, 0, __ATOMIC_SEQ_CST);
  assert_int_equal(mcp_server_new("tasks-hardening", "1", &f->server), MCP_OK);
  mcp_server_set_log_handler(f->server, on_log, f);
  tu_add_task_tool(f->server, "quick", quick_tool, MCP_TASK_OPTIONAL);
  tu_add_task_tool(f->server, "forever", forever_tool, MCP_TASK_OPTIONAL);
  tu_add_task_tool(f->server, "hold", hold_tool, MCP_TASK_REQUIRED);
  tu_add_task_tool(f->server, "ask", gated_ask, MCP_TASK_OPTIONAL);
  mcp_store_t *mem;
  assert_int_equal(mcp_store_memory_new(&mem), MCP_OK);
  f->store = fault_store_new(mem, &f->faults);
  assert_non_null(f->store);
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_threads(o, threads);
  mcp_task_options_set_list(o, true); /* tasks/list shows lost ends too */
  mcp_task_options_set_max_running_per_caller(o, running);
  if (per_caller)
    mcp_task_options_set_max_per_caller(o, per_caller);
  if (stored_per_caller)
    mcp_task_options_set_max_stored(o, stored_per_caller, stored_total);
  if (outcome_retry_ms >= 0)
    assert_int_equal(mcp_task_options_set_outcome_retry(o, outcome_retry_ms),
                     MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(f->server, f->store, o, NULL),
                   MCP_OK);
  mcp_task_options_free(o);
  tu_capture_init(&f->notify_a);
  tu_capture_init(&f->notify_b);
  f->a = tu_session(f->server, &f->notify_a);
  f->b = tu_session(f->server, &f->notify_b);
  tu_initialize(f->server, f->a, "{\"elicitation\":{}}");
  tu_initialize(f->server, f->b, "{\"elicitation\":{}}");
}

static void setup_opts(fixture *f, unsigned threads, unsigned running,
                       unsigned per_caller, size_t stored_per_caller,
                       size_t stored_total) {
  setup_opts_keep(f, threads, running, per_caller, stored_per_caller,
                  stored_total, -1);
}

static void setup(fixture *f) {
  setup_opts(f, 4, 0, 0, 0, 0);
}

/* The defaults, but an outcome the store refuses is kept keep_ms. */
static void setup_keep(fixture *f, int64_t keep_ms) {
  setup_opts_keep(f, 4, 0, 0, 0, 0, keep_ms);
}

static void teardown(fixture *f) {
  __atomic_store_n(&gate, 1, __ATOMIC_SEQ_CST);
  __atomic_store_n(&release, 1, __ATOMIC_SEQ_CST);
  mcp__session_close(f->a);
  mcp__session_release(f->a);
  mcp__session_close(f->b);
  mcp__session_release(f->b);
  mcp_server_free(f->server);
  mcp_store_free(f->store);
  tu_capture_destroy(&f->notify_a);
  tu_capture_destroy(&f->notify_b);
  pthread_mutex_destroy(&f->log_lock);
}

/* ---- requests (tests/util/task_fixture.h) ------------------------------- */
static json_t *rpc(fixture *f, mcp_session_t *se, const char *text) {
  return tu_rpc_as(f->server, se, NULL, text);
}

static json_t *call_task(fixture *f, mcp_session_t *se, const char *tool,
                         const char *task) {
  return tu_call_tool(f->server, se, NULL, tool, "{}", task);
}

static json_t *method(fixture *f, mcp_session_t *se, const char *m,
                      const char *id) {
  return tu_task_method(f->server, se, NULL, m, id);
}

/* Starts a task; returns its id (malloc'd). */
static char *start(fixture *f, mcp_session_t *se, const char *tool,
                   const char *task) {
  return tu_start_task(f->server, se, NULL, tool, "{}", task);
}

static void wait_status(fixture *f, mcp_session_t *se, const char *id,
                        const char *want) {
  tu_wait_task_status(f->server, se, id, want);
}

/* ---- item 9 -------------------------------------------------------------- */

/* A full disk at create: -32603 saying what kind of failure, and an error
 * log with the store's words. */
static void test_create_on_failing_store(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  fault_store_fail(f.faults, FS_PUT, FS_ENOSPC, -1);
  json_t *r = call_task(&f, f.a, "quick", "{}");
  assert_int_equal(tu_error_code(r), -32603);
  assert_non_null(strstr(tu_error_message(r), "task could not be created"));
  /* the kind of failure for the client; the store's own words (which may
   * name paths or hosts) only in the log */
  assert_non_null(strstr(tu_error_message(r), mcp_strerror(MCP_ERR_IO)));
  assert_null(strstr(tu_error_message(r), "disk is full"));
  json_decref(r);
  assert_true(logged(&f, true, "cannot store a new task of tool quick"));
  assert_true(logged(&f, true, "disk is full"));
  fault_store_fail(f.faults, 0, FS_ENOSPC, 0);
  char *id = start(&f, f.a, "quick", "{}"); /* the slot was given back */
  wait_status(&f, f.a, id, "completed");
  free(id);
  teardown(&f);
}

/* Writes of the outcome fail for good: once the outcome retry time (300
 * ms here) is over, the waiting tasks/result gets a clear error instead of
 * waiting forever, and it is logged. Fails without the fix (execute
 * ignored the status: the task stayed working). */
static void test_completion_write_fails(void **state) {
  (void)state;
  fixture f;
  setup_keep(&f, 300);
  char *id = start(&f, f.a, "ask", "{}"); /* waits for the gate */
  fault_store_fail(f.faults, FS_UPDATE, FS_EIO, -1);
  tu_bg_rpc b;
  tu_bg_start(&b, f.server, f.a, NULL, "tasks/result", id);
  __atomic_store_n(&gate, 1, __ATOMIC_SEQ_CST);
  /* answer the question on whichever stream has it */
  tu_capture *caps[2] = {&b.cap, &f.notify_a};
  json_t *req = tu_find_request(caps, 2, "elicitation/create");
  tu_accept_elicitation(f.server, f.a, req, "{}");
  json_decref(req);
  json_t *r = tu_bg_answer(&b);
  assert_int_equal(tu_error_code(r), -32603);
  assert_non_null(strstr(tu_error_message(r), "could not be stored"));
  json_decref(r);
  assert_true(logged(&f, true, "could not be stored"));
  assert_true(logged(&f, false, "attempt 1 of"));
  assert_true(logged(&f, false, "kept in memory and retried"));
  /* the next tasks/result says the same at once */
  fault_store_fail(f.faults, 0, FS_EIO, 0);
  free(id);
  teardown(&f);
}

/* A locked database twice: the retry stores the outcome. */
static void test_completion_write_retried(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  fault_store_fail(f.faults, FS_UPDATE, FS_BUSY, 2);
  char *id = start(&f, f.a, "quick", "{}");
  wait_status(&f, f.a, id, "completed");
  assert_int_equal(fault_store_failures(f.faults), 2);
  assert_true(logged(&f, false, "database is locked"));
  json_t *r = method(&f, f.a, "tasks/result", id);
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(
              json_object_get(json_object_get(r, "result"), "content"), 0),
          "text")),
      "done");
  json_decref(r);
  free(id);
  teardown(&f);
}

/* No outcome retry time (0): every attempt at the outcome fails, the plain
 * "failed" state passes at once. */
static void test_completion_falls_back_to_failed(void **state) {
  (void)state;
  fixture f;
  setup_keep(&f, 0);
  fault_store_fail(f.faults, FS_UPDATE, FS_ENOSPC, 4);
  char *id = start(&f, f.a, "quick", "{}");
  wait_status(&f, f.a, id, "failed");
  json_t *g = method(&f, f.a, "tasks/get", id);
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(g, "result"), "statusMessage")),
                         "could not be stored"));
  json_decref(g);
  assert_true(logged(&f, true, "marking it failed"));
  free(id);
  teardown(&f);
}

/* Waits (at most 20 s) until the runner has given up storing an outcome:
 * the error log says so. */
static void wait_logged_loss(fixture *f) {
  for (int i = 0; i < 2000 && !logged(f, true, "cannot be marked failed"); i++)
    usleep(10000);
  assert_true(logged(f, true, "cannot be marked failed"));
}

#define EXT_CAPS "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}"

/* The outcome of a task cannot be stored at all (every update fails, for
 * longer than the outcome retry time, 200 ms here): the task shows failed,
 * with a message saying why, to tasks/get and tasks/result (2025-11-25)
 * and to the extension's tasks/get (2026-07-28), not "working" forever;
 * once the store takes writes again that failed state is stored. Fails
 * without the fix: tasks/get said "working". */
static void test_unstorable_outcome_shows_failed(void **state) {
  (void)state;
  fixture f;
  setup_keep(&f, 200);
  fault_store_fail(f.faults, FS_UPDATE, FS_EIO, -1);
  /* 2025-11-25 */
  char *id = start(&f, f.a, "quick", "{}");
  wait_logged_loss(&f);
  json_t *g = method(&f, f.a, "tasks/get", id);
  json_t *task = json_object_get(g, "result");
  assert_string_equal(json_string_value(json_object_get(task, "status")),
                      "failed");
  assert_non_null(
      strstr(json_string_value(json_object_get(task, "statusMessage")),
             "could not be stored"));
  json_decref(g);
  json_t *r = method(&f, f.a, "tasks/result", id);
  assert_int_equal(tu_error_code(r), -32603);
  assert_non_null(strstr(tu_error_message(r), "could not be stored"));
  json_decref(r);
  /* tasks/list shows it as tasks/get does */
  json_t *l = tu_request(f.server, f.a, "tasks/list", "{}");
  json_t *listed = NULL, *t;
  size_t k;
  json_array_foreach(json_object_get(json_object_get(l, "result"), "tasks"), k,
                     t) {
    if (strcmp(json_string_value(json_object_get(t, "taskId")), id) == 0)
      listed = t;
  }
  assert_non_null(listed);
  assert_string_equal(json_string_value(json_object_get(listed, "status")),
                      "failed");
  assert_non_null(
      strstr(json_string_value(json_object_get(listed, "statusMessage")),
             "could not be stored"));
  json_decref(l);
  /* 2026-07-28, the tasks extension */
  __atomic_store_n(&release, 1, __ATOMIC_SEQ_CST); /* hold returns at once */
  json_t *c = tu_modern_request(
      f.server, "tools/call", "{\"name\":\"hold\",\"arguments\":{}}", EXT_CAPS);
  const char *mid = json_string_value(
      json_object_get(json_object_get(c, "result"), "taskId"));
  assert_non_null(mid);
  char params[128];
  snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", mid);
  json_t *mg = NULL;
  const char *status = NULL;
  for (int i = 0; i < 2000; i++) { /* until its end was given up */
    json_decref(mg);
    mg = tu_modern_request(f.server, "tasks/get", params, EXT_CAPS);
    status = json_string_value(
        json_object_get(json_object_get(mg, "result"), "status"));
    if (status == NULL || strcmp(status, "working") != 0)
      break;
    usleep(10000);
  }
  json_t *res = json_object_get(mg, "result");
  assert_string_equal(status, "failed");
  assert_non_null(strstr(
      json_string_value(json_object_get(res, "statusMessage")), "could not"));
  assert_int_equal(json_integer_value(
                       json_object_get(json_object_get(res, "error"), "code")),
                   -32603);
  json_decref(mg);
  json_decref(c);
  /* the store works again: the sweeper stores the failed state */
  fault_store_fail(f.faults, 0, FS_EIO, 0);
  mcp__runner_retry_lost(mcp__tasks_runner(f.server));
  mcp_task_record rec;
  assert_int_equal(
      mcp_store_task_get(f.store, "tasks-hardening", id, &rec, NULL), MCP_OK);
  assert_int_equal(rec.status, MCP_TASK_FAILED);
  assert_non_null(strstr(rec.status_message, "could not be stored"));
  mcp_task_record_clear(&rec);
  r = method(&f, f.a, "tasks/result", id); /* the same answer from there */
  assert_int_equal(tu_error_code(r), -32603);
  assert_non_null(strstr(tu_error_message(r), "could not be stored"));
  json_decref(r);
  free(id);
  teardown(&f);
}

/* Issue #25 N5: the store refuses the outcome for a while (the database is
 * away for about a second: the first four attempts and the next four of
 * the outcome thread fail), then takes writes again. The outcome is kept
 * and stored as the handler made it: the task completes with its result,
 * the tasks/result waiting meanwhile gets that result, and no "failed" is
 * ever written or shown in its place. Fails without the fix: the task
 * ended failed ("could not be stored"). */
static mcp_task_status stored_status(fixture *f, const char *id, char *message,
                                     size_t size);
static void test_outcome_kept_until_the_store_returns(void **state) {
  (void)state;
  fixture f;
  setup(&f); /* the default outcome retry time */
  fault_store_fail(f.faults, FS_UPDATE, FS_EIO, 8);
  char *id = start(&f, f.a, "quick", "{}");
  tu_bg_rpc b;
  tu_bg_start(&b, f.server, f.a, NULL, "tasks/result", id);
  json_t *r = tu_bg_answer(&b); /* answered once the outcome is stored */
  assert_null(json_object_get(r, "error"));
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(
              json_object_get(json_object_get(r, "result"), "content"), 0),
          "text")),
      "done");
  json_decref(r);
  assert_int_equal(fault_store_failures(f.faults), 8);
  assert_int_equal(stored_status(&f, id, NULL, 0), MCP_TASK_COMPLETED);
  assert_true(logged(&f, false, "kept in memory and retried"));
  assert_false(logged(&f, true, "marking it failed"));
  json_t *g = method(&f, f.a, "tasks/get", id);
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(g, "result"), "status")),
                      "completed");
  json_decref(g);
  free(id);
  teardown(&f);
}

/* Reads, lists, deletes and sweeps that fail: errors, never a crash or a
 * hang; recovery at enable survives a failing list. */
static void test_other_call_sites(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  char *id = start(&f, f.a, "quick", "{}");
  wait_status(&f, f.a, id, "completed");
  fault_store_fail(f.faults, FS_GET, FS_EIO, -1);
  json_t *r = method(&f, f.a, "tasks/get", id);
  assert_non_null(json_object_get(r, "error"));
  json_decref(r);
  r = method(&f, f.a, "tasks/result", id);
  assert_non_null(json_object_get(r, "error"));
  json_decref(r);
  r = method(&f, f.a, "tasks/cancel", id);
  assert_non_null(json_object_get(r, "error"));
  json_decref(r);
  fault_store_fail(f.faults, FS_LIST, FS_EIO, -1);
  r = rpc(&f, f.a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tasks/list\"}");
  assert_non_null(r); /* an error, or an empty page: answered */
  json_decref(r);
  fault_store_fail(f.faults, FS_DELETE, FS_EIO, -1);
  assert_int_equal(mcp_task_delete(mcp_server_tasks(f.server), id), MCP_ERR_IO);
  fault_store_fail(f.faults, FS_SWEEP, FS_EIO, -1);
  assert_int_equal(mcp_task_delete_outdated(mcp_server_tasks(f.server), NULL,
                                            NULL, NULL, NULL),
                   MCP_ERR_IO);
  fault_store_fail(f.faults, 0, FS_EIO, 0);
  assert_int_equal(mcp_task_delete(mcp_server_tasks(f.server), id), MCP_OK);
  free(id);
  teardown(&f);

  /* enable over a store whose list fails (recovery, counting) */
  mcp_server_t *s;
  mcp_store_t *mem;
  fault_store *fs;
  assert_int_equal(mcp_server_new("t", "1", &s), MCP_OK);
  mcp_server_set_log_level(s, MCP_LOG_EMERGENCY);
  assert_int_equal(mcp_store_memory_new(&mem), MCP_OK);
  mcp_store_t *st = fault_store_new(mem, &fs);
  fault_store_fail(fs, FS_LIST, FS_EIO, -1);
  assert_int_equal(mcp_server_enable_tasks(s, st, NULL, NULL), MCP_OK);
  mcp_server_free(s);
  mcp_store_free(st);
}

/* ---- a claimed re-run whose record cannot be read ----------------------- */

/* Puts task id of tool "again" in the store as a replica that died would
 * have left it: working, no result. */
static void put_orphan(fixture *f, const char *id) {
  mcp_task_record rec = {0};
  rec.scope = (char *)mcp__tasks_runner(f->server)->tasks.scope;
  rec.task_id = (char *)id;
  rec.tool = "again";
  rec.status = MCP_TASK_WORKING;
  rec.created_ms = rec.updated_ms = mcp__wall_ms();
  rec.ttl_ms = rec.poll_interval_ms = -1;
  assert_int_equal(mcp_store_task_put(f->store, &rec, NULL), MCP_OK);
}

/* Adds tool "again" (idempotent, so a task of it may run again) with
 * handler fn. */
static void add_again(fixture *f, mcp_tool_fn fn) {
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new("again", &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, fn, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL), MCP_OK);
  assert_int_equal(mcp_tool_set_hint(t, MCP_HINT_IDEMPOTENT, true), MCP_OK);
  assert_int_equal(mcp_server_add_tool(f->server, t, NULL), MCP_OK);
}

static mcp_task_status stored_status(fixture *f, const char *id, char *message,
                                     size_t size) {
  mcp_task_record rec;
  assert_int_equal(mcp_store_task_get(f->store,
                                      mcp__tasks_runner(f->server)->tasks.scope,
                                      id, &rec, NULL),
                   MCP_OK);
  mcp_task_status st = rec.status;
  if (message)
    snprintf(message, size, "%s", rec.status_message ? rec.status_message : "");
  mcp_task_record_clear(&rec);
  return st;
}

/* The lease keeper claimed a task (this replica now holds and renews its
 * lease) but reading its record fails with an I/O error: the task must not
 * stay "working" with nobody running it. The memory store cannot hand it
 * over (only PostgreSQL can), so it is failed with a statusMessage saying
 * why. A claim whose read works runs the task: the same call reaches the
 * run, so the failure above is the read's. Fails without the fix: the task
 * stayed "working". */
static void test_claimed_task_unreadable_is_not_kept(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  add_again(&f, quick_tool);
  const char *request = "{\"v\":1,\"stateless\":false,\"protocolVersion\":"
                        "\"2025-11-25\",\"params\":{\"name\":\"again\","
                        "\"arguments\":{}}}";

  put_orphan(&f, "orphan-unreadable");
  fault_store_fail(f.faults, FS_GET, FS_EIO, 1);
  mcp__runner_claimed(mcp__tasks_runner(f.server), "orphan-unreadable",
                      request, 2);
  assert_int_equal(fault_store_failures(f.faults), 1);
  char msg[256];
  assert_int_equal(stored_status(&f, "orphan-unreadable", msg, sizeof msg),
                   MCP_TASK_FAILED);
  assert_non_null(strstr(msg, "its stored record could not be read"));
  assert_non_null(strstr(msg, mcp_strerror(MCP_ERR_IO)));
  assert_true(logged(&f, false, "could not be read"));

  put_orphan(&f, "orphan-readable");
  mcp__runner_claimed(mcp__tasks_runner(f.server), "orphan-readable",
                      request, 2);
  mcp_task_status st = MCP_TASK_WORKING;
  for (int i = 0; i < 2000 && st == MCP_TASK_WORKING; i++) {
    st = stored_status(&f, "orphan-readable", NULL, 0);
    if (st == MCP_TASK_WORKING)
      usleep(10000);
  }
  assert_int_equal(st, MCP_TASK_COMPLETED);
  teardown(&f);
}

/* Counts its runs, then holds like hold_tool. */
static int held_runs; /* atomic */
static mcp_status counted_hold(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  __atomic_add_fetch(&held_runs, 1, __ATOMIC_SEQ_CST);
  return hold_tool(call, args, r, ud);
}

/* Tasks run again for a caller count against that caller's running cap,
 * like the tasks it starts here: with a cap of 1, of two re-runs of
 * alice's tasks one runs and the other waits, though threads are free.
 * Fails without the fix: re-runs had a caller of their own that no cap
 * applied to, and both ran at once. */
static void test_reruns_share_the_callers_running_cap(void **state) {
  (void)state;
  fixture f;
  setup_opts(&f, 4, 1, 0, 0, 0);
  __atomic_store_n(&held_runs, 0, __ATOMIC_SEQ_CST);
  add_again(&f, counted_hold);
  const char *request = "{\"v\":1,\"stateless\":false,\"protocolVersion\":"
                        "\"2025-11-25\",\"subject\":\"alice\",\"params\":{"
                        "\"name\":\"again\",\"arguments\":{}}}";
  put_orphan(&f, "alice-1");
  put_orphan(&f, "alice-2");
  mcp__runner_claimed(mcp__tasks_runner(f.server), "alice-1", request, 2);
  mcp__runner_claimed(mcp__tasks_runner(f.server), "alice-2", request, 2);
  for (int i = 0; i < 2000 && __atomic_load_n(&held_runs, __ATOMIC_SEQ_CST) < 1;
       i++)
    usleep(5000);
  assert_int_equal(__atomic_load_n(&held_runs, __ATOMIC_SEQ_CST), 1);
  /* the other is queued behind the cap, not running */
  mcp__task_runner *e = mcp__tasks_runner(f.server);
  pthread_mutex_lock(&e->lock);
  unsigned running = mcp__runner_running(e, "sub:alice", 0);
  bool queued = e->qhead != NULL;
  pthread_mutex_unlock(&e->lock);
  assert_int_equal(running, 1);
  assert_true(queued);
  __atomic_store_n(&release, 1, __ATOMIC_SEQ_CST);
  mcp_task_status st1 = MCP_TASK_WORKING, st2 = MCP_TASK_WORKING;
  for (int i = 0;
       i < 2000 && (st1 == MCP_TASK_WORKING || st2 == MCP_TASK_WORKING); i++) {
    st1 = stored_status(&f, "alice-1", NULL, 0);
    st2 = stored_status(&f, "alice-2", NULL, 0);
    if (st1 == MCP_TASK_WORKING || st2 == MCP_TASK_WORKING)
      usleep(10000);
  }
  assert_int_equal(st1, MCP_TASK_COMPLETED);
  assert_int_equal(st2, MCP_TASK_COMPLETED);
  assert_int_equal(__atomic_load_n(&held_runs, __ATOMIC_SEQ_CST), 2);
  pthread_mutex_lock(&e->lock);
  running = mcp__runner_running(e, "sub:alice", 0); /* slots given back */
  pthread_mutex_unlock(&e->lock);
  assert_int_equal(running, 0);
  teardown(&f);
}

/* ---- item 5 -------------------------------------------------------------- */

/* Session B waits in tasks/result on A's task when it asks its question:
 * the question goes to A (its standalone stream), not to B. Fails without
 * the fix: B's stream carried it and A never saw it. */
static void test_result_of_other_session_does_not_steal(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  char *id = start(&f, f.a, "ask", "{}");
  tu_bg_rpc b;
  tu_bg_start(&b, f.server, f.b, NULL, "tasks/result", id);
  /* B's waiter is registered before the question is asked */
  mcp__task_runner *e = mcp__tasks_runner(f.server);
  bool waiting = false;
  for (int i = 0; i < 2000 && !waiting; i++) {
    pthread_mutex_lock(&e->lock);
    waiting = e->waiters != NULL;
    pthread_mutex_unlock(&e->lock);
    if (!waiting)
      usleep(10000);
  }
  assert_true(waiting);
  __atomic_store_n(&gate, 1, __ATOMIC_SEQ_CST);
  tu_capture *on_a = &f.notify_a;
  json_t *req = tu_find_request(&on_a, 1, "elicitation/create");
  assert_non_null(req);
  pthread_mutex_lock(&b.cap.lock);
  assert_int_equal(json_array_size(b.cap.messages), 0);
  pthread_mutex_unlock(&b.cap.lock);
  tu_accept_elicitation(f.server, f.a, req, "{}");
  json_decref(req);
  json_t *r = tu_bg_answer(&b); /* B may read the outcome (id as capability) */
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(
              json_object_get(json_object_get(r, "result"), "content"), 0),
          "text")),
      "accept");
  json_decref(r);
  free(id);
  teardown(&f);
}

/* ---- item 6 -------------------------------------------------------------- */

/* One executor thread, taken by a task with ttl 1 ms that would run for a
 * minute: its expiry stops it, so B's instant task completes. Fails
 * without the fix: expiry waited for the periodic sweep (60 s). */
static void test_expiry_stops_the_run(void **state) {
  (void)state;
  fixture f;
  setup_opts(&f, 1, 1, 0, 0, 0);
  char *slow = start(&f, f.a, "forever", "{\"ttl\":1}");
  char *quick = start(&f, f.b, "quick", "{}");
  wait_status(&f, f.b, quick, "completed");
  json_t *g = method(&f, f.a, "tasks/get", slow);
  assert_non_null(json_object_get(g, "error")); /* expired: gone */
  json_decref(g);
  free(slow);
  free(quick);
  teardown(&f);
}

/* Two threads; A's long tasks may hold one of them (running cap 1), so B's
 * task runs at once. Fails without the cap: A's tasks took both threads
 * and B's waited behind them. */
static void test_one_caller_cannot_starve_others(void **state) {
  (void)state;
  fixture f;
  setup_opts(&f, 2, 0, 0, 0, 0); /* automatic cap: 2 / 2 = 1 */
  char *ids[3];
  for (int i = 0; i < 3; i++)
    ids[i] = start(&f, f.a, "forever", "{}");
  char *quick = start(&f, f.b, "quick", "{}");
  wait_status(&f, f.b, quick, "completed");
  json_t *g = method(&f, f.a, "tasks/get", ids[2]);
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(g, "result"), "status")),
                      "working"); /* queued behind A's first */
  json_decref(g);
  for (int i = 0; i < 3; i++) {
    json_decref(method(&f, f.a, "tasks/cancel", ids[i]));
    free(ids[i]);
  }
  free(quick);
  teardown(&f);
}

/* ---- item 7 -------------------------------------------------------------- */

#define HOLD_CALLS 4

typedef struct modern_bg {
  fixture *f;
  const char *caps;
  int calls;
  json_t *answers[HOLD_CALLS + 1];
  int answered; /* atomic: answers received */
  pthread_t th;
} modern_bg;

/* calls 2026-07-28 tools/call of hold, one after the other. */
static void *modern_main(void *arg) {
  modern_bg *m = arg;
  for (int i = 0; i < m->calls; i++) {
    m->answers[i] =
        tu_modern_request(m->f->server, "tools/call",
                          "{\"name\":\"hold\",\"arguments\":{}}", m->caps);
    __atomic_add_fetch(&m->answered, 1, __ATOMIC_SEQ_CST);
  }
  return NULL;
}

static void modern_start(modern_bg *m, fixture *f, const char *caps,
                         int calls) {
  memset(m, 0, sizeof *m);
  m->f = f;
  m->caps = caps;
  m->calls = calls;
  assert_int_equal(pthread_create(&m->th, NULL, modern_main, m), 0);
}

/* Waits (at most 20 s) for all of m's answers; hold runs 60 s unless
 * released, so a call run inline is not answered in time. */
static bool answered(modern_bg *m) {
  for (int i = 0; i < 2000; i++) {
    if (__atomic_load_n(&m->answered, __ATOMIC_SEQ_CST) == m->calls)
      return true;
    usleep(10000);
  }
  return false;
}

/* 2026-07-28 calls of a "required" tool must not run on the request's
 * worker (item 7): without the tasks extension they are refused at once;
 * with it (today's path, ext_tasks.c) they become tasks, answered at once
 * with the task while the tool runs on the executor, tools/list is answered
 * meanwhile, and the caller's caps hold: one running at a time (so another
 * caller's task still runs on the second thread) and no more unfinished
 * tasks than max_per_caller. Each check fails without its fix: the call ran
 * on the worker until the tool returned (60 s); without the running cap
 * A's tasks took both threads; without the per-caller cap a fifth was
 * accepted. */
static void test_modern_required_calls_do_not_hold_workers(void **state) {
  (void)state;
  fixture f;
  setup_opts(&f, 2, 1, HOLD_CALLS, 0, 0);
  modern_bg plain, ext;
  modern_start(&plain, &f, NULL, 1);
  bool a = answered(&plain);
  modern_start(&ext, &f, EXT_CAPS, HOLD_CALLS + 1);
  bool b = answered(&ext);
  /* while A's tasks hold: tools/list, and B's task on the free thread */
  json_t *list = tu_modern_request(f.server, "tools/list", NULL, EXT_CAPS);
  char *quick = start(&f, f.b, "quick", "{}");
  wait_status(&f, f.b, quick, "completed");
  __atomic_store_n(&release, 1, __ATOMIC_SEQ_CST);
  pthread_join(plain.th, NULL);
  pthread_join(ext.th, NULL);
  assert_true(a);
  assert_true(b);
  assert_non_null(json_object_get(plain.answers[0], "error"));
  for (int i = 0; i < HOLD_CALLS; i++) {
    json_t *res = json_object_get(ext.answers[i], "result");
    assert_string_equal(json_string_value(json_object_get(res, "resultType")),
                        "task");
  }
  assert_int_equal(tu_error_code(ext.answers[HOLD_CALLS]), -32603);
  assert_non_null(strstr(tu_error_message(ext.answers[HOLD_CALLS]),
                         "Too many concurrent tasks for this caller"));
  assert_non_null(json_object_get(json_object_get(list, "result"), "tools"));
  json_decref(list);
  for (int i = 0; i <= HOLD_CALLS; i++) {
    json_decref(plain.answers[i]);
    json_decref(ext.answers[i]);
  }
  free(quick);
  teardown(&f);
}

/* ---- item 8 -------------------------------------------------------------- */

/* At most 3 stored tasks per caller and 5 in all; the refusal says which.
 * Fails without the caps: every task was stored. */
static void test_stored_task_caps(void **state) {
  (void)state;
  fixture f;
  setup_opts(&f, 4, 0, 0, 3, 5);
  char *ids[5];
  for (int i = 0; i < 3; i++) {
    ids[i] = start(&f, f.a, "quick", "{}");
    wait_status(&f, f.a, ids[i], "completed");
  }
  json_t *r = call_task(&f, f.a, "quick", "{}");
  assert_int_equal(tu_error_code(r), -32603);
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(json_object_get(r, "error"), "data"), "stored")),
      "caller");
  json_decref(r);
  ids[3] = start(&f, f.b, "quick", "{}");
  ids[4] = start(&f, f.b, "quick", "{}");
  r = call_task(&f, f.b, "quick", "{}");
  assert_int_equal(tu_error_code(r), -32603);
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(json_object_get(r, "error"), "data"), "stored")),
      "total");
  json_decref(r);
  /* a deleted task frees its place (seen at the caller's next store
   * count, at most one a second: poll for up to 20 s) */
  assert_int_equal(mcp_task_delete(mcp_server_tasks(f.server), ids[0]), MCP_OK);
  bool stored = false;
  for (int i = 0; i < 2000 && !stored; i++) {
    r = call_task(&f, f.a, "quick", "{}");
    stored = json_object_get(json_object_get(r, "result"), "task") != NULL;
    json_decref(r);
    if (!stored)
      usleep(10000);
  }
  assert_true(stored);
  for (int i = 0; i < 5; i++)
    free(ids[i]);
  teardown(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_on_failing_store),
      cmocka_unit_test(test_completion_write_fails),
      cmocka_unit_test(test_completion_write_retried),
      cmocka_unit_test(test_completion_falls_back_to_failed),
      cmocka_unit_test(test_unstorable_outcome_shows_failed),
      cmocka_unit_test(test_outcome_kept_until_the_store_returns),
      cmocka_unit_test(test_other_call_sites),
      cmocka_unit_test(test_claimed_task_unreadable_is_not_kept),
      cmocka_unit_test(test_reruns_share_the_callers_running_cap),
      cmocka_unit_test(test_result_of_other_session_does_not_steal),
      cmocka_unit_test(test_expiry_stops_the_run),
      cmocka_unit_test(test_one_caller_cannot_starve_others),
      cmocka_unit_test(test_modern_required_calls_do_not_hold_workers),
      cmocka_unit_test(test_stored_task_caps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
