/* SPDX-License-Identifier: MIT */
/* sigkill_test.c - issue #16 item 9: SIGKILL at random moments during a
 * stream of task completions loses no acknowledged result. This program is
 * also the server: "sigkill_test --serve DB" serves stdio with tasks on the
 * SQLite store DB. The test drives one server at a time: task-augmented
 * tools/call, then tasks/result; a result that arrived is acknowledged. At a
 * random point the server is killed (SIGKILL) and a new one started on the
 * same database, which must still answer every acknowledged result, the
 * same. Bounded: KILLS rounds (about a minute in all under ASan at most). */
#include "acked.h"
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILLS       6
#define MAX_ACKED   4096
#define ROUND_CALLS 400 /* at most per round; the kill comes earlier */

static int serve(const char *db) {
  mcp_server_t *s;
  mcp_store_t *store;
  mcp_error_t err;
  if (mcp_server_new("sigkill", "1", &s) != MCP_OK ||
      mcp_store_sqlite_open(db, &store, &err) != MCP_OK)
    return 2;
  mcp_server_set_log_level(s, MCP_LOG_EMERGENCY);
  mcp_tool_t *t;
  mcp_tool_new("square", &t);
  mcp_tool_set_input_schema_text(
      t, "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}");
  mcp_tool_set_task_support(t, MCP_TASK_REQUIRED);
  mcp_tool_set_handler(t, tu_square_tool, NULL, NULL);
  mcp_server_add_tool(s, t, NULL);
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_max_stored(o, 100000, 100000);
  mcp_task_options_set_max_per_caller(o, 1024);
  if (mcp_server_enable_tasks(s, store, o, &err) != MCP_OK)
    return 3;
  mcp_task_options_free(o);
  mcp_status st = mcp_server_serve_stdio(s);
  mcp_server_free(s);
  mcp_store_free(store);
  return st == MCP_OK ? 0 : 1;
}

static char self[4096];

static void start(tu_proc *p, const char *db) {
  char *argv[] = {self, "--serve", (char *)db, NULL};
  assert_int_equal(tu_proc_spawn(p, argv), 0);
  tu_proc_send_line(
      p, "{\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\","
         "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
         "\"clientInfo\":{\"name\":\"k\",\"version\":\"1\"}}}");
  char *l = tu_proc_read_line(p, 30000);
  assert_non_null(l);
  free(l);
  tu_proc_send_line(
      p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static void test_sigkill_loses_no_acknowledged_result(void **state) {
  (void)state;
  char dir[] = "/tmp/mcp-sigkill-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char db[128];
  snprintf(db, sizeof db, "%s/tasks.db", dir);
  tu_ledger acks;
  assert_int_equal(tu_ledger_init(&acks, MAX_ACKED), 0);
  unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
  print_message("seed %u\n", seed);
  long long next = 1;
  for (int round = 0; round <= KILLS; round++) {
    tu_proc p;
    start(&p, db);
    /* everything acknowledged so far is still there, the same */
    size_t lost =
        tu_ledger_verify(&acks, TU_LEDGER_ALL, 0, tu_ledger_check_stdio, &p);
    if (lost > 0)
      fail_msg("round %d: %zu acknowledged results lost", round, lost);
    if (round == KILLS) {
      assert_int_equal(tu_proc_finish(&p, 10000), 0);
      break;
    }
    /* a stream of completions, killed after a random number of them */
    int calls = 5 + (int)(rand_r(&seed) % 60);
    for (int c = 0; c < calls && tu_ledger_count(&acks) < MAX_ACKED; c++) {
      long long n = next++;
      char req[256], rid[48];
      snprintf(rid, sizeof rid, "c%lld", n);
      snprintf(req, sizeof req,
               "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"tools/call\","
               "\"params\":{\"name\":\"square\",\"arguments\":{\"n\":%lld},"
               "\"task\":{}}}",
               rid, n);
      tu_proc_send_line(&p, req);
      json_t *m = tu_proc_response(&p, rid, 30000);
      const char *id = json_string_value(json_object_get(
          json_object_get(json_object_get(m, "result"), "task"), "taskId"));
      assert_non_null(id);
      char tid[40];
      snprintf(tid, sizeof tid, "%s", id);
      json_decref(m);
      snprintf(rid, sizeof rid, "r%lld", n);
      snprintf(req, sizeof req,
               "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"tasks/result\","
               "\"params\":{\"taskId\":\"%s\"}}",
               rid, tid);
      tu_proc_send_line(&p, req);
      if (c == calls - 1) {
        /* the kill lands while this result is on its way: not acknowledged
         * unless it arrived */
        usleep((useconds_t)(rand_r(&seed) % 3000));
        kill(p.pid, SIGKILL);
      }
      m = tu_proc_response(&p, rid, c == calls - 1 ? 2000 : 30000);
      const char *txt = tu_result_text(m);
      if (txt) { /* acknowledged */
        tu_ledger_add(&acks, tid, n);
      } else if (c < calls - 1) {
        fail_msg("no result for task %s before the kill", tid);
      }
      json_decref(m);
    }
    tu_proc_finish(&p, 5000);
  }
  size_t nacked = tu_ledger_count(&acks);
  print_message("%zu acknowledged results over %d SIGKILLs, 0 lost\n", nacked,
                KILLS);
  assert_true(nacked > 0);
  tu_ledger_destroy(&acks);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--serve") == 0)
    return serve(argv[2]);
  snprintf(self, sizeof self, "%s", argv[0]);
  if (strchr(self, '/') == NULL)
    snprintf(self, sizeof self, "./%s", argv[0]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sigkill_loses_no_acknowledged_result),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
