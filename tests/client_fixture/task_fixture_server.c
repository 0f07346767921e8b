/* SPDX-License-Identifier: MIT */
/* task_fixture_server.c - a server for the mcpc task tests, one tool per
 * task support, and a task that another process completes:
 *
 *   mcp-task-fixture --store SPEC (--stdio | --http)
 *   mcp-task-fixture --store SPEC --complete TASK_ID
 *
 * Tools: "work" (taskSupport optional) and "must" (required) report three
 * progress steps with a message and log each step at info, then answer
 * "worked"; "plain" (forbidden) answers "plain"; "fail" (optional)
 * answers an isError result; "elsewhere" (required)
 * leaves its task working (mcp_call_task_defer) for --complete, run as
 * another process on the same store, to end. The tasks' pollInterval is
 * 5 s, so a client that learns of an end only by polling is seen to.
 * --http serves on a free port of 127.0.0.1, prints "PORT n" on stdout and
 * runs until its stdin ends (the test holds the other end: the server dies
 * with the test). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mcp/mcp.h>

#define SCOPE "task-fixture"

static mcp_status work(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)args, (void)ud;
  for (int i = 1; i <= 3; i++) {
    struct timespec ts = {0, 60 * 1000000L};
    nanosleep(&ts, NULL);
    char step[32];
    snprintf(step, sizeof step, "step %d", i);
    mcp_call_progress(call, i, 3, step);
    mcp_call_logf(call, MCP_LOG_INFO, "fixture", "working on step %d", i);
  }
  mcp_result_add_text(r, "worked");
  return MCP_OK;
}

static mcp_status plain(mcp_call_t *call, json_t *args, mcp_result_t *r,
                        void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "plain");
  return MCP_OK;
}

static mcp_status fail(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_result_set_error(r, "this tool always fails");
}

static mcp_status elsewhere(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)args, (void)r, (void)ud;
  return mcp_call_task_defer(call);
}

static mcp_status add(mcp_server_t *s, const char *name, mcp_tool_fn fn,
                      mcp_task_support support) {
  mcp_tool_t *t = NULL;
  mcp_status st = mcp_tool_new(name, &t);
  if (st != MCP_OK)
    return st;
  mcp_tool_set_task_support(t, support);
  mcp_tool_set_handler(t, fn, NULL, NULL);
  return mcp_server_add_tool(s, t, NULL);
}

static int complete(mcp_store_t *store, const char *id) {
  mcp_tasks_t *tasks = NULL;
  mcp_status st = mcp_tasks_open(store, SCOPE, &tasks);
  if (st == MCP_OK)
    st = mcp_task_complete_json(
        tasks, id,
        json_pack("{s:[{s:s,s:s}]}", "content", "type", "text", "text",
                  "completed by another process"));
  mcp_tasks_free(tasks);
  if (st != MCP_OK)
    fprintf(stderr, "mcp-task-fixture: complete %s: %s\n", id,
            mcp_strerror(st));
  return st == MCP_OK ? 0 : 1;
}

static mcp_status serve_http(mcp_server_t *s) {
  mcp_http_options_t *o = NULL;
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  mcp_status st = mcp_http_options_new(&o);
  if (st == MCP_OK)
    st = mcp_http_options_set_bind(o, "127.0.0.1", 0);
  if (st == MCP_OK)
    st = mcp_http_server_start(s, o, &h, &err);
  mcp_http_options_free(o);
  if (st != MCP_OK)
    return st;
  printf("PORT %u\n", (unsigned)mcp_http_server_port(h));
  fflush(stdout);
  char buf[256];
  while (fgets(buf, sizeof buf, stdin) != NULL) {
  }
  mcp_http_server_stop(h);
  return MCP_OK;
}

int main(int argc, char **argv) {
  const char *spec = NULL, *done = NULL;
  bool http = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--store") == 0 && i + 1 < argc)
      spec = argv[++i];
    else if (strcmp(argv[i], "--complete") == 0 && i + 1 < argc)
      done = argv[++i];
    else if (strcmp(argv[i], "--http") == 0)
      http = true;
    else if (strcmp(argv[i], "--stdio") != 0) {
      fprintf(stderr, "usage: mcp-task-fixture --store SPEC (--stdio | --http "
                      "| --complete ID)\n");
      return 2;
    }
  }
  mcp_store_t *store = NULL;
  mcp_error_t err;
  if (spec == NULL || mcp_store_open(spec, &store, &err) != MCP_OK) {
    fprintf(stderr, "mcp-task-fixture: no store (--store SPEC)\n");
    return 2;
  }
  if (done != NULL) {
    int rc = complete(store, done);
    mcp_store_free(store);
    return rc;
  }
  mcp_server_t *s = NULL;
  mcp_task_options_t *opts = NULL;
  mcp_status st = mcp_server_new(SCOPE, "1.0", &s);
  if (st == MCP_OK)
    st = add(s, "work", work, MCP_TASK_OPTIONAL);
  if (st == MCP_OK)
    st = add(s, "must", work, MCP_TASK_REQUIRED);
  if (st == MCP_OK)
    st = add(s, "plain", plain, MCP_TASK_FORBIDDEN);
  if (st == MCP_OK)
    st = add(s, "fail", fail, MCP_TASK_OPTIONAL);
  if (st == MCP_OK)
    st = add(s, "elsewhere", elsewhere, MCP_TASK_REQUIRED);
  if (st == MCP_OK)
    st = mcp_task_options_new(&opts);
  if (st == MCP_OK)
    st = mcp_task_options_set_poll_interval(opts, 5000);
  if (st == MCP_OK)
    st = mcp_server_enable_tasks(s, store, opts, &err);
  mcp_task_options_free(opts);
  if (st == MCP_OK)
    st = http ? serve_http(s) : mcp_server_serve_stdio(s);
  mcp_server_free(s);
  mcp_store_free(store);
  return st == MCP_OK ? 0 : 1;
}
