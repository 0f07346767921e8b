/* SPDX-License-Identifier: MIT */
/* tasks_bench.c - tasks created and completed per second, per store.
 *
 *   tasks_bench --store memory|sqlite:PATH|postgres://... [-n N]
 *               [--mode api|server|modern] [-c CLIENTS] [-t THREADS]
 *
 * api:    mcp_task_create + mcp_task_complete, one thread (the store's write
 *         path: two transactions per task on SQLite).
 * server: task-augmented tools/call through the in-process dispatcher; the
 *         engine's executor runs a handler that returns at once and stores
 *         the result; timed until every task is terminal. CLIENTS threads
 *         (default 1) each send their share one after the other, each with
 *         its own session, as CLIENTS connections served by as many
 *         transport workers; THREADS task executors (default 4). Every
 *         run uses a new scope and checks that all N tasks are stored.
 * modern: the same in 2026-07-28: stateless tools/call requests whose
 *         clientCapabilities declare the tasks extension (SEP-2663), so
 *         the server creates the task itself (no session, no task param).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mcp/mcp.h>

#include "server/dispatch.h"
#include "store/pg_batch.h"

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

static bool count_visit(const mcp_task_record *rec, void *ud) {
  (void)rec;
  (*(size_t *)ud)++;
  return true;
}

/* One client: its own session (2025-11-25) or none (2026-07-28), sending
 * its share of the requests one after the other, as a connection served by
 * one transport worker does. */
typedef struct client {
  pthread_t thread;
  mcp_server_t *s;
  bool modern;
  int first, count;
} client;

static void *client_main(void *arg) {
  client *c = arg;
  mcp__channel ch = {noop_send, NULL, NULL, NULL, false};
  mcp_session_t *se = NULL;
  mcp_call_t *call;
  if (!c->modern) {
    mcp__session_new(c->s, ch, &se);
    const char *init =
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
        "{\"name\":\"b\",\"version\":\"1\"}}}";
    if (mcp__server_accept(c->s, se, NULL, init, strlen(init), ch, &call) ==
        MCP__ACCEPT_REQUEST)
      mcp__call_run(call);
  }
  char line[256];
  for (int i = c->first; i < c->first + c->count; i++) {
    int len =
        c->modern
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
    if (mcp__server_accept(c->s, se, NULL, line, (size_t)len, ch, &call) ==
        MCP__ACCEPT_REQUEST)
      mcp__call_run(call);
  }
  if (se) {
    mcp__session_close(se);
    mcp__session_release(se);
  }
  return NULL;
}

/* clients: concurrent clients; threads: the task engine's executors. The
 * scope (server name) is new for each run, so runs never see each
 * other's tasks; every task must end completed. */
static double run_server(mcp_store_t *store, int n, bool modern, int clients,
                         unsigned threads) {
  char name[64];
  snprintf(name, sizeof name, "bench-%d-%ld", (int)getpid(),
           (long)(now_s() * 1000));
  mcp_server_t *s;
  mcp_server_new(name, "1", &s);
  mcp_tool_t *t;
  mcp_tool_new("quick", &t);
  mcp_tool_set_handler(t, quick, NULL, NULL);
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  mcp_server_add_tool(s, t, NULL);
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_threads(o, threads);
  mcp_task_options_set_max_running_per_caller(o, threads);
  mcp_task_options_set_max_per_caller(o, (unsigned)n + 1);
  mcp_task_options_set_max_stored(o, (size_t)n + 1, (size_t)n + 1);
  mcp_task_options_set_cleanup(o, -1, 86400000, 0);
  mcp_server_enable_tasks(s, store, o, NULL);
  mcp_task_options_free(o);
  client *cs = calloc((size_t)clients, sizeof *cs);
  double t0 = now_s();
  for (int i = 0, first = 0; i < clients; i++) {
    int share = n / clients + (i < n % clients);
    cs[i] = (client){.s = s, .modern = modern, .first = first, .count = share};
    first += share;
    pthread_create(&cs[i].thread, NULL, client_main, &cs[i]);
  }
  for (int i = 0; i < clients; i++)
    pthread_join(cs[i].thread, NULL);
  mcp_task_filter f = {0};
  f.active_only = true;
  for (;;) {
    size_t active = 0;
    mcp_store_task_list(store, name, &f, 1, count_visit, &active, NULL);
    if (active == 0)
      break;
    usleep(1000);
  }
  double dt = now_s() - t0;
  free(cs);
  mcp_server_free(s);
  size_t done = 0;
  mcp_store_task_list(store, name, NULL, 0, count_visit, &done, NULL);
  if (done != (size_t)n) {
    fprintf(stderr, "tasks_bench: %zu of %d tasks stored\n", done, n);
    exit(1);
  }
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
  int n = 20000, clients = 1;
  unsigned threads = 4;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--store") == 0 && i + 1 < argc)
      spec = argv[++i];
    else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
      mode = argv[++i];
    else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
      clients = atoi(argv[++i]);
    else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
      threads = (unsigned)atoi(argv[++i]);
  }
  mcp_store_t *store;
  mcp_error_t err;
  if (mcp_store_open(spec, &store, &err) != MCP_OK) {
    fprintf(stderr, "tasks_bench: %s\n", err.message);
    return 1;
  }
  if (n < 1 || clients < 1 || clients > 1024 || threads < 1 || threads > 1024) {
    fprintf(stderr, "tasks_bench: bad -n, -c or -t\n");
    return 2;
  }
  bool modern = strcmp(mode, "modern") == 0;
  double dt = strcmp(mode, "api") == 0
                  ? run_api(store, n)
                  : run_server(store, n, modern, clients, threads);
  printf("tasks %s %s: %d tasks in %.3f s = %.0f tasks/s (%d clients, %u "
         "task threads)\n",
         mcp_store_name(store), mode, n, dt, n / dt, clients, threads);
  mcp__pg_batch_counts c;
  if (mcp__store_postgres_batch_stats(store, &c) && c.transactions > 0)
    printf("  group commit: %llu writes in %llu transactions (%.1f per "
           "transaction)\n",
           c.writes, c.transactions, (double)c.writes / (double)c.transactions);
  mcp_store_free(store);
  return 0;
}
