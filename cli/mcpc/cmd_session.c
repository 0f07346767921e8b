/* SPDX-License-Identifier: MIT */
/* cmd_session.c - commands about the session itself: info, ping,
 * log-level, complete. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"

int mcpc_cmd_info(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 0)
    return mcpc_usage("info");
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *init = mcp_client_initialize_result(c);
  if (ctx->json) {
    mcpc_print_json(init);
  } else {
    json_t *si = mcp_client_server_info(c);
    const char *title = json_string_value(json_object_get(si, "title"));
    printf("server: %s %s%s%s%s\n",
           json_string_value(json_object_get(si, "name")),
           json_string_value(json_object_get(si, "version")), title ? " (" : "",
           title ? title : "", title ? ")" : "");
    printf("protocol: %s\n", mcp_client_protocol_version(c));
    printf("capabilities:");
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(init, "capabilities"), key, v)
        printf(" %s", key);
    printf("\n");
    if (mcp_client_session_id(c) != NULL)
      printf("session: %s\n", mcp_client_session_id(c));
    else if (strcmp(mcp_client_protocol_version(c), "2026-07-28") >= 0)
      printf("session: none (each 2026-07-28 request stands alone)\n");
    const char *instr =
        json_string_value(json_object_get(init, "instructions"));
    if (instr != NULL)
      printf("instructions: %s\n", instr);
  }
  mcp_client_close(c);
  return MCPC_OK;
}

int mcpc_cmd_ping(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 0)
    return mcpc_usage("ping");
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  mcp_error_t err;
  mcp_status st = mcp_client_ping(c, &err);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 +
              (double)(b.tv_nsec - a.tv_nsec) / 1e6;
  if (st != MCP_OK) {
    rc = mcpc_fail("ping", st, &err);
  } else if (ctx->json) {
    json_t *o = json_pack("{s:b,s:f}", "ok", 1, "ms", ms);
    mcpc_print_json(o);
    json_decref(o);
  } else {
    printf("pong in %.1f ms\n", ms);
  }
  mcp_client_close(c);
  return rc;
}

int mcpc_cmd_log_level(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 1)
    return mcpc_usage("log-level LEVEL");
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  /* logging/setLevel sets a session's level: 2025-11-25 (in 2026-07-28 the
   * level rides on each request) */
  if (c != NULL && mcpc_can_fall_back(ctx, c))
    c = mcpc_reconnect_legacy(ctx, c, &rc);
  if (c == NULL)
    return rc;
  mcp_error_t err;
  mcp_status st = mcp_client_set_log_level(c, argv[0], &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("log-level", st, &err);
  } else if (ctx->json) {
    json_t *o = json_pack("{s:s}", "level", argv[0]);
    mcpc_print_json(o);
    json_decref(o);
  } else {
    printf("log level set to %s\n", argv[0]);
  }
  mcp_client_close(c);
  return rc;
}

int mcpc_cmd_complete(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "complete (--prompt NAME | --resource URI) ARGUMENT VALUE "
                    "[key=value ...]";
  const char *prompt = NULL, *resource = NULL;
  int i = 0;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--prompt") == 0 && i + 1 < argc)
      prompt = argv[++i];
    else if (strcmp(argv[i], "--resource") == 0 && i + 1 < argc)
      resource = argv[++i];
    else
      return mcpc_usage(syn);
  }
  if ((prompt == NULL) == (resource == NULL) || argc - i < 2)
    return mcpc_usage(syn);
  json_t *context =
      argc - i > 2 ? mcpc_parse_kv(argc - i - 2, argv + i + 2, true) : NULL;
  if (argc - i > 2 && context == NULL)
    return mcpc_usage(syn);
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL) {
    json_decref(context);
    return rc;
  }
  json_t *ref =
      prompt ? json_pack("{s:s,s:s}", "type", "ref/prompt", "name", prompt)
             : json_pack("{s:s,s:s}", "type", "ref/resource", "uri", resource);
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st =
      mcp_client_complete(c, ref, argv[i], argv[i + 1], context, &result, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("complete", st, &err);
  } else if (ctx->json) {
    mcpc_print_json(result);
  } else {
    size_t k;
    json_t *v;
    json_t *comp = json_object_get(result, "completion");
    json_array_foreach(json_object_get(comp, "values"), k, v)
        printf("%s\n", json_string_value(v));
    if (json_is_true(json_object_get(comp, "hasMore")))
      printf("... (more)\n");
  }
  json_decref(result);
  json_decref(ref);
  json_decref(context);
  mcp_client_close(c);
  return rc;
}
