/* SPDX-License-Identifier: MIT */
/* run_store.c - the task store mcp_server_run opens for --store / MCP_STORE:
 * tasks enabled on it with the default options, the store kept by the server
 * until the task runner is down. A store nothing would use, or a second one
 * beside the program's own, is refused rather than ignored. */
#include "mcp/store.h"
#include "mcp/task.h"
#include "server/dispatch.h"
#include "server/internal.h"
#include "tasks/tasks_internal.h"
#include "tools/tool_internal.h"

static void run_store_free(void *store) { mcp_store_free(store); }
/* The store opened here: the server module's feature slot. */
static const mcp__slot_key run_store_slot = {"run_store", run_store_free};

mcp_status mcp__server_tasks_on_store(mcp_server_t *s, const char *spec,
                                      mcp_error_t *err) {
  if (mcp__tasks_runner(s) != NULL) {
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
  /* freed with the server, after the task hooks' shutdown stopped the
   * runner that uses it */
  st = mcp__server_set_slot(s, &run_store_slot, store);
  if (st != MCP_OK) {
    mcp_error_set(err, st, "no slot to keep the store in");
    return st; /* the runner keeps using it: leaked rather than freed */
  }
  return MCP_OK;
}

mcp_store_t *mcp__server_task_store(const mcp_server_t *s) {
  return s ? mcp__tasks_store(s) : NULL;
}
