/* SPDX-License-Identifier: MIT */
/* cmd_tasks.c - tasks list | get ID | result ID | cancel ID. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static void print_task_line(const json_t *t) {
  const char *msg = json_string_value(json_object_get(t, "statusMessage"));
  printf("%s %s%s%s\n", json_string_value(json_object_get(t, "taskId")),
         json_string_value(json_object_get(t, "status")), msg ? " " : "",
         msg ? msg : "");
}

int mcpc_cmd_tasks_list(mcpc_ctx *ctx, int argc, char **argv) {
  return mcpc_list(ctx, argc, "tasks list", "tasks/list", "tasks",
                   print_task_line);
}

/* tasks get | cancel ID: one request, the task it answers printed. */
static int one_task(mcpc_ctx *ctx, int argc, char **argv, const char *syn,
                    const char *method,
                    mcp_status (*op)(mcp_client_t *, const char *, json_t **,
                                     mcp_error_t *)) {
  if (argc != 1)
    return mcpc_usage(syn);
  int rc;
  mcp_client_t *c = mcpc_connect_tasks(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *task = NULL;
  mcp_error_t err;
  mcp_status st = op(c, argv[0], &task, &err);
  if (st != MCP_OK)
    rc = mcpc_fail(method, st, &err);
  else if (ctx->json)
    mcpc_print_json(task);
  else
    print_task_line(task);
  json_decref(task);
  mcp_client_close(c);
  return rc;
}

int mcpc_cmd_tasks_get(mcpc_ctx *ctx, int argc, char **argv) {
  return one_task(ctx, argc, argv, "tasks get ID", "tasks/get",
                  mcp_client_task_get);
}

/* tasks/cancel, the same in both eras for the user: 2025-11-25 refuses
 * to cancel an ended task (-32602), 2026-07-28 acknowledges it anyway, so
 * there the task's status is read first and an ended task is refused the
 * same way (exit 3). */
static mcp_status cancel(mcp_client_t *c, const char *id, json_t **task,
                         mcp_error_t *err) {
  if (strcmp(mcp_client_protocol_version(c), "2026-07-28") >= 0) {
    json_t *now = NULL;
    mcp_status st = mcp_client_task_get(c, id, &now, err);
    if (st != MCP_OK)
      return st;
    const char *status = json_string_value(json_object_get(now, "status"));
    bool ended = status != NULL && (strcmp(status, "completed") == 0 ||
                                    strcmp(status, "failed") == 0 ||
                                    strcmp(status, "cancelled") == 0);
    if (ended) {
      st = mcp_error_set(err, MCP_ERR_STATE,
                         "cannot cancel task %s: already in terminal status "
                         "'%s'",
                         id, status);
      json_decref(now);
      return st;
    }
    json_decref(now);
  }
  return mcp_client_task_cancel(c, id, task, err);
}

int mcpc_cmd_tasks_cancel(mcpc_ctx *ctx, int argc, char **argv) {
  return one_task(ctx, argc, argv, "tasks cancel ID", "tasks/cancel", cancel);
}

int mcpc_cmd_tasks_result(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 1)
    return mcpc_usage("tasks result ID");
  int rc;
  mcpc_task_display_install(ctx);
  mcp_client_t *c = mcpc_connect_tasks(ctx, &rc);
  if (c == NULL)
    return rc;
  /* waits with a status display: 2025-11-25 blocked in tasks/result,
   * 2026-07-28 on a listen stream (cmd_tools.c) */
  rc = mcpc_wait_task(ctx, c, argv[0]);
  mcp_client_close(c);
  return rc;
}
