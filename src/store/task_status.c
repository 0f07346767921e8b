/* SPDX-License-Identifier: MIT */
/* task_status.c - task status names, shared by the stores (which persist
 * them) and the task runner. */
#include <stdbool.h>
#include <string.h>

#include "mcp/task.h"

static const char *const status_names[] = {"working", "input_required",
                                           "completed", "failed", "cancelled"};

const char *mcp_task_status_name(mcp_task_status s) {
  return (unsigned)s <= MCP_TASK_CANCELLED ? status_names[s] : NULL;
}

mcp_status mcp_task_status_parse(const char *name, mcp_task_status *out) {
  for (int i = 0; name && i <= MCP_TASK_CANCELLED; i++)
    if (strcmp(name, status_names[i]) == 0) {
      *out = (mcp_task_status)i;
      return MCP_OK;
    }
  return MCP_ERR_INVALID_ARG;
}

bool mcp_task_status_is_terminal(mcp_task_status s) {
  return s == MCP_TASK_COMPLETED || s == MCP_TASK_FAILED ||
         s == MCP_TASK_CANCELLED;
}
