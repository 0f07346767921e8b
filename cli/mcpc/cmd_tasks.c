/* cmd_tasks.c - tasks list | get ID | result ID | cancel ID. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static void print_task(const mcpc_ctx *ctx, json_t *t) {
  if (ctx->json) {
    mcpc_print_json(t);
    return;
  }
  const char *msg = json_string_value(json_object_get(t, "statusMessage"));
  printf("%s %s%s%s\n", json_string_value(json_object_get(t, "taskId")),
         json_string_value(json_object_get(t, "status")), msg ? " " : "",
         msg ? msg : "");
}

int mcpc_cmd_tasks_list(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 0)
    return mcpc_usage("tasks list");
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *tasks = NULL;
  mcp_error_t err;
  mcp_status st =
      mcp_client_list_all(c, "tasks/list", "tasks", 0, &tasks, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("tasks/list", st, &err);
  } else if (ctx->json) {
    json_t *o = json_pack("{s:O}", "tasks", tasks);
    mcpc_print_json(o);
    json_decref(o);
  } else {
    size_t i;
    json_t *t;
    json_array_foreach(tasks, i, t) print_task(ctx, t);
  }
  json_decref(tasks);
  mcp_client_close(c);
  return rc;
}

static int one_task(mcpc_ctx *ctx, int argc, char **argv, const char *what) {
  char syn[64];
  snprintf(syn, sizeof syn, "tasks %s ID", what);
  if (argc != 1)
    return mcpc_usage(syn);
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *out = NULL;
  mcp_error_t err;
  mcp_status st;
  if (strcmp(what, "result") == 0) {
    /* poll first so a long task shows progress instead of a silent block */
    rc = mcpc_wait_task(ctx, c, argv[0]);
    mcp_client_close(c);
    return rc;
  }
  st = strcmp(what, "get") == 0
           ? mcp_client_task_get(c, argv[0], &out, &err)
           : mcp_client_task_cancel(c, argv[0], &out, &err);
  if (st != MCP_OK)
    rc = mcpc_fail(strcmp(what, "get") == 0 ? "tasks/get" : "tasks/cancel", st,
                   &err);
  else
    print_task(ctx, out);
  json_decref(out);
  mcp_client_close(c);
  return rc;
}

int mcpc_cmd_tasks_get(mcpc_ctx *ctx, int argc, char **argv) {
  return one_task(ctx, argc, argv, "get");
}
int mcpc_cmd_tasks_result(mcpc_ctx *ctx, int argc, char **argv) {
  return one_task(ctx, argc, argv, "result");
}
int mcpc_cmd_tasks_cancel(mcpc_ctx *ctx, int argc, char **argv) {
  return one_task(ctx, argc, argv, "cancel");
}
