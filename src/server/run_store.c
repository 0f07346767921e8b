/* SPDX-License-Identifier: MIT */
/* run_store.c - the task store mcp_server_run opens for --store / MCP_STORE:
 * tasks enabled on it with the default options, the store kept by the server
 * until the task runner is down. A store nothing would use, or a second one
 * beside the program's own, is refused rather than ignored. */
#include "mcp/store.h"
#include "mcp/task.h"
#include "server/dispatch.h"
#include "server/internal.h"
#include "tools/tool_internal.h"

mcp_status mcp__server_tasks_on_store(mcp_server_t *s, const char *spec,
                                      mcp_error_t *err) {
  if (s->tasks != NULL) {
    mcp_error_set(err, MCP_ERR_STATE,
                  "the program enabled tasks on its own store already "
                  "(mcp_server_enable_tasks); a second store is not used");
    return MCP_ERR_STATE;
  }
  if (mcp__tools_task_count(s) == 0) {
    mcp_error_set(err, MCP_ERR_STATE,
                  "no tool runs as a task (taskSupport optional or "
                  "required), so there is nothing to store");
    return MCP_ERR_STATE;
  }
  mcp_store_t *store = NULL;
  mcp_status st = mcp_store_open(spec, &store, err);
  if (st != MCP_OK)
    return st;
  st = mcp_server_enable_tasks(s, store, NULL, err);
  if (st != MCP_OK) {
    mcp_store_free(store);
    return st;
  }
  s->run_store = store;
  return MCP_OK;
}

mcp_store_t *mcp__server_task_store(const mcp_server_t *s) {
  return s ? s->task_store : NULL;
}
