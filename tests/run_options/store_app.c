/* SPDX-License-Identifier: MIT */
/* store_app.c - a server for check-store.sh (mcp_server_run --store /
 * MCP_STORE). STORE_APP_TOOLS says what it registers: "none" (no tool),
 * "plain" (a tool that never runs as a task), "task" (a tool with
 * taskSupport optional), "own" (that tool, with tasks enabled by the
 * program on its own memory store). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcp/mcp.h>

static mcp_status noop(mcp_call_t *call, json_t *args, mcp_result_t *result,
                       void *user_data) {
  (void)call, (void)args, (void)result, (void)user_data;
  return MCP_OK;
}

static int add(mcp_server_t *s, const char *name, mcp_task_support support) {
  mcp_tool_t *t = NULL;
  if (mcp_tool_new(name, &t) != MCP_OK ||
      mcp_tool_set_handler(t, noop, NULL, NULL) != MCP_OK ||
      mcp_tool_set_task_support(t, support) != MCP_OK)
    return 1;
  return mcp_server_add_tool(s, t, NULL) == MCP_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *tools = getenv("STORE_APP_TOOLS");
  if (tools == NULL)
    tools = "task";
  mcp_server_t *s = NULL;
  mcp_store_t *own = NULL;
  if (mcp_server_new("store-app", "1.0.0", &s) != MCP_OK)
    return 1;
  int bad = 0;
  if (strcmp(tools, "plain") == 0)
    bad = add(s, "plain", MCP_TASK_FORBIDDEN);
  else if (strcmp(tools, "none") != 0)
    bad = add(s, "slow", MCP_TASK_OPTIONAL);
  if (!bad && strcmp(tools, "own") == 0)
    bad = mcp_store_open("memory", &own, NULL) != MCP_OK ||
          mcp_server_enable_tasks(s, own, NULL, NULL) != MCP_OK;
  int rc = bad ? 1 : mcp_server_run(s, argc, argv);
  mcp_server_free(s);
  mcp_store_free(own);
  return rc;
}
