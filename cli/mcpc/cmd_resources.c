/* cmd_resources.c - resources list | read URI | templates, prompts list |
 * get NAME [key=value ...]. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

/* A paginated list printed as {"<key>": [...]} or one line per item. */
static int list(mcpc_ctx *ctx, int argc, const char *syn, const char *method,
                const char *key, const char *id_field) {
  if (argc != 0)
    return mcpc_usage(syn);
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *items = NULL;
  mcp_error_t err;
  mcp_status st = mcp_client_list_all(c, method, key, 0, &items, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail(method, st, &err);
  } else if (ctx->json) {
    json_t *o = json_pack("{s:O}", key, items);
    mcpc_print_json(o);
    json_decref(o);
  } else {
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it) {
      const char *id = json_string_value(json_object_get(it, id_field));
      const char *name = json_string_value(json_object_get(it, "name"));
      const char *d = json_string_value(json_object_get(it, "description"));
      int len = d ? (int)strcspn(d, "\n") : 0;
      if (strcmp(id_field, "name") == 0)
        printf("%-28s %.*s\n", id ? id : "?", len, d ? d : "");
      else
        printf("%-36s %-20s %.*s\n", id ? id : "?", name ? name : "", len,
               d ? d : "");
    }
  }
  json_decref(items);
  mcp_client_close(c);
  return rc;
}

int mcpc_cmd_resources_list(mcpc_ctx *ctx, int argc, char **argv) {
  return list(ctx, argc, "resources list", "resources/list", "resources",
              "uri");
}

int mcpc_cmd_resources_templates(mcpc_ctx *ctx, int argc, char **argv) {
  return list(ctx, argc, "resources templates", "resources/templates/list",
              "resourceTemplates", "uriTemplate");
}

int mcpc_cmd_prompts_list(mcpc_ctx *ctx, int argc, char **argv) {
  return list(ctx, argc, "prompts list", "prompts/list", "prompts", "name");
}

int mcpc_cmd_resources_read(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 1)
    return mcpc_usage("resources read URI");
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st = mcp_client_read_resource(c, argv[0], &result, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("resources/read", st, &err);
  } else if (ctx->json) {
    mcpc_print_json(result);
  } else {
    size_t i;
    json_t *ct;
    json_array_foreach(json_object_get(result, "contents"), i, ct) {
      const char *text = json_string_value(json_object_get(ct, "text"));
      const char *blob = json_string_value(json_object_get(ct, "blob"));
      if (text != NULL)
        printf("%s\n", text);
      else
        printf("[blob %s, %zu bytes of base64]\n",
               json_string_value(json_object_get(ct, "uri")),
               blob ? strlen(blob) : 0);
    }
  }
  json_decref(result);
  mcp_client_close(c);
  return rc;
}

int mcpc_cmd_prompts_get(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "prompts get NAME [key=value ...]";
  if (argc < 1)
    return mcpc_usage(syn);
  json_t *args = mcpc_parse_kv(argc - 1, argv + 1, true);
  if (args == NULL)
    return mcpc_usage(syn);
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL) {
    json_decref(args);
    return rc;
  }
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st = mcp_client_get_prompt(c, argv[0], args, &result, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("prompts/get", st, &err);
  } else if (ctx->json) {
    mcpc_print_json(result);
  } else {
    const char *d = json_string_value(json_object_get(result, "description"));
    if (d != NULL)
      printf("# %s\n", d);
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(result, "messages"), i, m) {
      json_t *content = json_object_get(m, "content");
      const char *text = json_string_value(json_object_get(content, "text"));
      printf("%s: %s\n", json_string_value(json_object_get(m, "role")),
             text ? text : "[non-text content]");
    }
  }
  json_decref(result);
  json_decref(args);
  mcp_client_close(c);
  return rc;
}
