/* SPDX-License-Identifier: MIT */
/* task_restart_test.c - what a graceful stop and the next start do to
 * running tasks (issue #24 item 5), in-process on a SQLite file:
 *   - mcp_server_free leaves the running tasks working, "Interrupted by a
 *     server stop; will resume at the next start";
 *   - the next mcp_server_enable_tasks offers each to the resume hook (with
 *     the stored tools/call params), runs again the one of an idempotent
 *     tool and fails only the rest as interrupted;
 *   - a task that keeps being interrupted runs at most 3 times;
 *   - a handler that ignores the stop does not keep its task from being
 *     handed over: after 5 s the stop does it anyway;
 *   - mcp_task_options_set_fail_on_stop(true) fails them at the stop, and
 *     the memory store always does (nothing outlives the process). */
#include "task_fixture.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mcp/mcp.h>

#define SCOPE "restart-test"

static int started; /* handlers running (atomic) */

/* Works until cancelled (the stop), returning partial work. */
static mcp_status until_stopped(mcp_call_t *call, json_t *args,
                                mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
  while (!mcp_call_is_cancelled(call))
    usleep(2000);
  mcp_result_add_text(r, "partial");
  return MCP_OK;
}

static mcp_status quick(mcp_call_t *call, json_t *args, mcp_result_t *r,
                        void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "done again");
  return MCP_OK;
}

typedef struct hook_seen {
  int offered;
  char args[128]; /* arguments of the task taken */
} hook_seen;

/* Takes the tasks of tool "resumable", declines the others. */
static bool take_resumable(mcp_tasks_t *t, const json_t *task, void *ud) {
  (void)t;
  hook_seen *seen = ud;
  seen->offered++;
  const json_t *params = json_object_get(task, "params");
  const char *tool = json_string_value(json_object_get(params, "name"));
  if (tool == NULL || strcmp(tool, "resumable") != 0)
    return false;
  char *text = json_dumps(json_object_get(params, "arguments"),
                          JSON_COMPACT | JSON_SORT_KEYS);
  snprintf(seen->args, sizeof seen->args, "%s", text ? text : "");
  free(text);
  return true;
}

typedef struct server_run {
  mcp_server_t *server;
  mcp_session_t *session;
} server_run;

/* A server on store with tools "again" (idempotent), "once" and
 * "resumable", "again" running fn_again. */
static void start_server(server_run *sr, mcp_store_t *store, mcp_tool_fn fn,
                         mcp_tool_fn fn_again, hook_seen *seen,
                         bool fail_on_stop) {
  assert_int_equal(mcp_server_new(SCOPE, "1", &sr->server), MCP_OK);
  tu_add_task_tool(sr->server, "once", fn, MCP_TASK_OPTIONAL);
  tu_add_task_tool(sr->server, "resumable", fn, MCP_TASK_OPTIONAL);
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new("again", &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, fn_again, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL), MCP_OK);
  assert_int_equal(mcp_tool_set_hint(t, MCP_HINT_IDEMPOTENT, true), MCP_OK);
  assert_int_equal(mcp_server_add_tool(sr->server, t, NULL), MCP_OK);
  mcp_task_options_t *o;
  assert_int_equal(mcp_task_options_new(&o), MCP_OK);
  /* the three tasks of one session run at once */
  assert_int_equal(mcp_task_options_set_max_running_per_caller(o, 4), MCP_OK);
  if (seen)
    assert_int_equal(mcp_task_options_set_resume_hook(o, take_resumable, seen),
                     MCP_OK);
  assert_int_equal(mcp_task_options_set_fail_on_stop(o, fail_on_stop), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(sr->server, store, o, NULL),
                   MCP_OK);
  mcp_task_options_free(o);
  sr->session = tu_session(sr->server, NULL);
  tu_initialize(sr->server, sr->session, NULL);
}

static void stop_server(server_run *sr) {
  mcp__session_release(sr->session);
  mcp_server_free(sr->server); /* the graceful stop */
}

/* Starts a task of each tool and waits until every handler runs. */
static void start_three(server_run *sr, char *ids[3]) {
  __atomic_store_n(&started, 0, __ATOMIC_SEQ_CST);
  ids[0] = tu_start_task(sr->server, sr->session, NULL, "again", "{\"n\":1}",
                         "{}");
  ids[1] = tu_start_task(sr->server, sr->session, NULL, "once", "{\"n\":2}",
                         "{}");
  ids[2] = tu_start_task(sr->server, sr->session, NULL, "resumable",
                         "{\"n\":3}", "{}");
  for (int i = 0; i < 4000 && __atomic_load_n(&started, __ATOMIC_SEQ_CST) < 3;
       i++)
    usleep(5000);
  assert_int_equal(__atomic_load_n(&started, __ATOMIC_SEQ_CST), 3);
}

/* The task's status and statusMessage as stored. */
static mcp_task_status stored(mcp_store_t *store, const char *id, char *msg,
                              size_t size) {
  mcp_task_record rec;
  assert_int_equal(mcp_store_task_get(store, SCOPE, id, &rec, NULL), MCP_OK);
  mcp_task_status st = rec.status;
  snprintf(msg, size, "%s", rec.status_message ? rec.status_message : "");
  mcp_task_record_clear(&rec);
  return st;
}

static mcp_task_status wait_terminal(mcp_store_t *store, const char *id,
                                     char *msg, size_t size) {
  mcp_task_status st = MCP_TASK_WORKING;
  for (int i = 0; i < 4000; i++) {
    st = stored(store, id, msg, size);
    if (mcp_task_status_is_terminal(st))
      break;
    usleep(5000);
  }
  return st;
}

static mcp_store_t *open_sqlite(char path[64]) {
  snprintf(path, 64, "/tmp/mcp-task-restart-%d.db", (int)getpid());
  unlink(path);
  char spec[80];
  snprintf(spec, sizeof spec, "sqlite:%s", path);
  mcp_store_t *store = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_store_open(spec, &store, &err), MCP_OK);
  return store;
}

static void remove_sqlite(const char *path) {
  char side[80];
  unlink(path);
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
}

static void test_stop_hands_over_and_start_takes_over(void **state) {
  (void)state;
  char path[64], msg[256];
  mcp_store_t *store = open_sqlite(path);
  server_run sr;
  hook_seen seen = {0};
  start_server(&sr, store, until_stopped, until_stopped, &seen, false);
  char *ids[3];
  start_three(&sr, ids);
  stop_server(&sr);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(stored(store, ids[i], msg, sizeof msg), MCP_TASK_WORKING);
    assert_string_equal(
        msg, "Interrupted by a server stop; will resume at the next start");
  }
  /* the next start: "again" runs again (quick now), "resumable" goes to
   * the hook with its arguments, "once" is failed */
  start_server(&sr, store, until_stopped, quick, &seen, false);
  assert_int_equal(seen.offered, 3);
  assert_string_equal(seen.args, "{\"n\":3}");
  assert_int_equal(wait_terminal(store, ids[0], msg, sizeof msg),
                   MCP_TASK_COMPLETED);
  json_t *r = tu_task_method(sr.server, sr.session, NULL, "tasks/result",
                             ids[0]);
  char *text = json_dumps(tu_result_of(r), 0);
  assert_non_null(strstr(text, "done again"));
  free(text);
  json_decref(r);
  assert_int_equal(stored(store, ids[1], msg, sizeof msg), MCP_TASK_FAILED);
  assert_non_null(strstr(msg, "Interrupted: the server stopped"));
  assert_int_equal(stored(store, ids[2], msg, sizeof msg), MCP_TASK_WORKING);
  stop_server(&sr);
  for (int i = 0; i < 3; i++)
    free(ids[i]);
  mcp_store_free(store);
  remove_sqlite(path);
}

/* Interrupted again and again, a task of an idempotent tool runs 3 times
 * in all, then is failed. */
static void test_runs_are_bounded(void **state) {
  (void)state;
  char path[64], msg[256];
  mcp_store_t *store = open_sqlite(path);
  server_run sr;
  start_server(&sr, store, until_stopped, until_stopped, NULL, false);
  __atomic_store_n(&started, 0, __ATOMIC_SEQ_CST);
  char *id = tu_start_task(sr.server, sr.session, NULL, "again", "{}", "{}");
  for (int run = 2; run <= 3; run++) {
    for (int i = 0;
         i < 4000 && __atomic_load_n(&started, __ATOMIC_SEQ_CST) < run - 1; i++)
      usleep(5000);
    stop_server(&sr);
    start_server(&sr, store, until_stopped, until_stopped, NULL, false);
    assert_int_equal(stored(store, id, msg, sizeof msg), MCP_TASK_WORKING);
    char want[64];
    snprintf(want, sizeof want, "(run %d of 3)", run);
    assert_non_null(strstr(msg, want));
  }
  for (int i = 0; i < 4000 && __atomic_load_n(&started, __ATOMIC_SEQ_CST) < 3;
       i++)
    usleep(5000);
  stop_server(&sr);
  start_server(&sr, store, until_stopped, until_stopped, NULL, false);
  assert_int_equal(stored(store, id, msg, sizeof msg), MCP_TASK_FAILED);
  assert_non_null(strstr(msg, "Interrupted"));
  stop_server(&sr);
  free(id);
  mcp_store_free(store);
  remove_sqlite(path);
}

/* fail_on_stop, and the memory store whatever the option: the stop fails
 * the running tasks as interrupted. */
static void test_stop_fails_with_option_or_memory_store(void **state) {
  (void)state;
  char path[64], msg[256];
  mcp_store_t *stores[2] = {open_sqlite(path), NULL};
  assert_int_equal(mcp_store_memory_new(&stores[1]), MCP_OK);
  for (int k = 0; k < 2; k++) {
    server_run sr;
    start_server(&sr, stores[k], until_stopped, until_stopped, NULL, k == 0);
    char *ids[3];
    start_three(&sr, ids);
    stop_server(&sr);
    for (int i = 0; i < 3; i++) {
      assert_int_equal(stored(stores[k], ids[i], msg, sizeof msg),
                       MCP_TASK_FAILED);
      assert_non_null(strstr(msg, "Interrupted: the server stopped"));
      free(ids[i]);
    }
    mcp_store_free(stores[k]);
  }
  remove_sqlite(path);
}

static int let_go; /* atomic */

/* Ignores the cancellation until the test lets it go. */
static mcp_status stubborn(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)call, (void)args, (void)ud;
  __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
  while (!__atomic_load_n(&let_go, __ATOMIC_SEQ_CST))
    usleep(2000);
  mcp_result_add_text(r, "late");
  return MCP_OK;
}

static void *free_server(void *arg) {
  stop_server(arg);
  return NULL;
}

/* The stop waits a bounded time (5 s) for handlers, then hands their tasks
 * over while they still run: a SIGKILL that a supervisor sends then finds
 * them right in the store. Fails without the bounded wait: the task stays
 * working with its old statusMessage for as long as the handler runs. */
static void test_stop_hands_over_a_stubborn_handler(void **state) {
  (void)state;
  char path[64], msg[256];
  mcp_store_t *store = open_sqlite(path);
  server_run sr;
  start_server(&sr, store, stubborn, stubborn, NULL, false);
  __atomic_store_n(&started, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&let_go, 0, __ATOMIC_SEQ_CST);
  char *id = tu_start_task(sr.server, sr.session, NULL, "once", "{}", "{}");
  for (int i = 0; i < 4000 && __atomic_load_n(&started, __ATOMIC_SEQ_CST) < 1;
       i++)
    usleep(5000);
  pthread_t stopper;
  assert_int_equal(pthread_create(&stopper, NULL, free_server, &sr), 0);
  bool handed = false;
  for (int i = 0; i < 300 && !handed; i++) { /* 30 s at most */
    stored(store, id, msg, sizeof msg);
    handed = strstr(msg, "Interrupted by a server stop") != NULL;
    if (!handed)
      usleep(100 * 1000);
  }
  __atomic_store_n(&let_go, 1, __ATOMIC_SEQ_CST);
  pthread_join(stopper, NULL);
  assert_true(handed);
  /* the late return does not undo it */
  assert_int_equal(stored(store, id, msg, sizeof msg), MCP_TASK_WORKING);
  assert_non_null(strstr(msg, "Interrupted by a server stop"));
  free(id);
  mcp_store_free(store);
  remove_sqlite(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stop_hands_over_and_start_takes_over),
      cmocka_unit_test(test_runs_are_bounded),
      cmocka_unit_test(test_stop_fails_with_option_or_memory_store),
      cmocka_unit_test(test_stop_hands_over_a_stubborn_handler),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
