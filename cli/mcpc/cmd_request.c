/* SPDX-License-Identifier: MIT */
/* cmd_request.c - mcpc request METHOD [PARAMS_JSON]: one raw JSON-RPC
 * request in whichever era the connection speaks (the client adds what the
 * era needs: the session, or the 2026-07-28 _meta), its result printed as
 * JSON. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

int mcpc_cmd_request(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc < 1 || argc > 2)
    return mcpc_usage("request METHOD [PARAMS_JSON]");
  json_t *params = NULL;
  if (argc == 2) {
    json_error_t je;
    params = json_loads(argv[1], 0, &je);
    if (!json_is_object(params)) {
      json_decref(params);
      return mcpc_error(MCPC_USAGE, NULL,
                        "PARAMS_JSON must be a JSON object%s%s",
                        je.text[0] && !params ? ": " : "",
                        je.text[0] && !params ? je.text : "");
    }
  }
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL) {
    json_decref(params);
    return rc;
  }
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st =
      mcp_client_request(c, argv[0], params, NULL, NULL, &result, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail(argv[0], st, &err);
  } else {
    if (ctx->json) {
      char *text = json_dumps(result, JSON_COMPACT);
      if (text)
        printf("%s\n", text);
      free(text);
    } else {
      mcpc_print_json(result);
    }
    /* a tool's error, as for tools call */
    rc = json_is_true(json_object_get(result, "isError")) ? MCPC_FAIL
                                                          : MCPC_OK;
  }
  json_decref(result);
  mcp_client_close(c);
  return rc;
}
