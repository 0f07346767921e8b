/* SPDX-License-Identifier: MIT */
/* cmd_tasks.c - tasks list | get ID | result ID | cancel ID. */
#include <stdio.h>

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

int mcpc_cmd_tasks_cancel(mcpc_ctx *ctx, int argc, char **argv) {
  return one_task(ctx, argc, argv, "tasks cancel ID", "tasks/cancel",
                  mcp_client_task_cancel);
}

int mcpc_cmd_tasks_result(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 1)
    return mcpc_usage("tasks result ID");
  int rc;
  mcpc_task_display_install(ctx);
  mcp_client_t *c = mcpc_connect_tasks(ctx, &rc);
  if (c == NULL)
    return rc;
  /* poll first so a long task shows progress instead of a silent block */
  rc = mcpc_wait_task(ctx, c, argv[0]);
  mcp_client_close(c);
  return rc;
}
