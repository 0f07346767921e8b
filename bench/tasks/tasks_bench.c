/* SPDX-License-Identifier: MIT */
/* tasks_bench.c - tasks created and completed per second, per store.
 *
 *   tasks_bench --store memory|sqlite:PATH [-n N]
 *               [--mode api|server|modern]
 *
 * api:    mcp_task_create + mcp_task_complete, one thread (the store's write
 *         path: two transactions per task on SQLite).
 * server: task-augmented tools/call through the in-process dispatcher; the
 *         engine's executor runs a handler that returns at once and stores
 *         the result; timed until every task is terminal.
 * modern: the same in 2026-07-28: stateless tools/call requests whose
 *         clientCapabilities declare the tasks extension (SEP-2663), so
 *         the server creates the task itself (no session, no task param).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mcp/mcp.h>

#include "server/dispatch.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static mcp_status noop_send(void *ctx, const char *m, size_t l, unsigned f) {
  (void)ctx, (void)m, (void)l, (void)f;
  return MCP_OK;
}

static mcp_status quick(mcp_call_t *c, json_t *a, mcp_result_t *r, void *u) {
  (void)c, (void)a, (void)u;
  mcp_result_add_text(r, "ok");
  return MCP_OK;
}

static bool any_active(const mcp_task_record *rec, void *ud) {
  (void)rec;
  *(bool *)ud = true;
  return false;
}

static double run_server(mcp_store_t *store, int n, bool modern) {
  mcp_server_t *s;
  mcp_server_new("bench", "1", &s);
  mcp_tool_t *t;
  mcp_tool_new("quick", &t);
  mcp_tool_set_handler(t, quick, NULL, NULL);
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  mcp_server_add_tool(s, t, NULL);
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_max_per_caller(o, (unsigned)n + 1);
  mcp_task_options_set_max_stored(o, (size_t)n + 1, (size_t)n + 1);
  mcp_task_options_set_cleanup(o, -1, 86400000, 0);
  mcp_server_enable_tasks(s, store, o, NULL);
  mcp_task_options_free(o);
  mcp__channel ch = {noop_send, NULL, NULL, NULL};
  mcp_session_t *se;
  mcp__session_new(s, ch, &se);
  const char *init =
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
      "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
      "{\"name\":\"b\",\"version\":\"1\"}}}";
  mcp_call_t *call;
  if (mcp__server_accept(s, se, NULL, init, strlen(init), ch, &call) ==
      MCP__ACCEPT_REQUEST)
    mcp__call_run(call);
  double t0 = now_s();
  char line[256];
  for (int i = 0; i < n; i++) {
    int len =
        modern
            ? snprintf(line, sizeof line,
                       "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
                       "\"tools/call\",\"params\":{\"name\":\"quick\","
                       "\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/"
                       "protocolVersion\":\"2026-07-28\",\"io."
                       "modelcontextprotocol/clientCapabilities\":{"
                       "\"extensions\":{\"io.modelcontextprotocol/tasks\":"
                       "{}}}}}}",
                       i + 1)
            : snprintf(line, sizeof line,
                       "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
                       "\"tools/call\",\"params\":{\"name\":\"quick\","
                       "\"arguments\":{},\"task\":{}}}",
                       i + 1);
    if (mcp__server_accept(s, modern ? NULL : se, NULL, line, (size_t)len, ch,
                           &call) == MCP__ACCEPT_REQUEST)
      mcp__call_run(call);
  }
  mcp_task_filter f = {0};
  f.active_only = true;
  for (;;) {
    bool active = false;
    mcp_store_task_list(store, "bench", &f, 1, any_active, &active, NULL);
    if (!active)
      break;
    usleep(1000);
  }
  double dt = now_s() - t0;
  mcp__session_close(se);
  mcp__session_release(se);
  mcp_server_free(s);
  return dt;
}

static double run_api(mcp_store_t *store, int n) {
  mcp_tasks_t *t;
  mcp_tasks_open(store, "bench-api", &t);
  mcp_result_t *r;
  mcp_result_new(&r);
  mcp_result_add_text(r, "ok");
  char id[MCP_TASK_ID_SIZE];
  double t0 = now_s();
  for (int i = 0; i < n; i++) {
    if (mcp_task_create(t, "quick", 3600000, 1000, id) != MCP_OK ||
        mcp_task_complete(t, id, r) != MCP_OK) {
      fprintf(stderr, "tasks_bench: store error\n");
      exit(1);
    }
  }
  double dt = now_s() - t0;
  mcp_result_free(r);
  mcp_tasks_free(t);
  return dt;
}

int main(int argc, char **argv) {
  const char *spec = "memory", *mode = "server";
  int n = 20000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--store") == 0 && i + 1 < argc)
      spec = argv[++i];
    else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
      mode = argv[++i];
    else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      n = atoi(argv[++i]);
  }
  mcp_store_t *store;
  mcp_error_t err;
  if (mcp_store_open(spec, &store, &err) != MCP_OK) {
    fprintf(stderr, "tasks_bench: %s\n", err.message);
    return 1;
  }
  double dt = strcmp(mode, "api") == 0      ? run_api(store, n)
              : strcmp(mode, "modern") == 0 ? run_server(store, n, true)
                                            : run_server(store, n, false);
  printf("tasks %s %s: %d tasks in %.3f s = %.0f tasks/s\n",
         mcp_store_name(store), mode, n, dt, n / dt);
  mcp_store_free(store);
  return 0;
}
