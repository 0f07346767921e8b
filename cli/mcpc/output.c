/* SPDX-License-Identifier: MIT */
/* output.c - how mcpc prints results: JSON (the MCP result object, indented,
 * one document per command) or text for people. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

void mcpc_print_json(const json_t *value) {
  char *text = json_dumps(value, JSON_INDENT(2) | JSON_ENCODE_ANY);
  if (text != NULL)
    printf("%s\n", text);
  free(text);
}

void mcpc_print_content(const json_t *block) {
  const char *type = json_string_value(json_object_get(block, "type"));
  const char *mime = json_string_value(json_object_get(block, "mimeType"));
  if (type == NULL)
    type = "?";
  if (strcmp(type, "text") == 0) {
    printf("%s\n", json_string_value(json_object_get(block, "text")));
  } else if (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0) {
    const char *data = json_string_value(json_object_get(block, "data"));
    printf("[%s %s, %zu bytes of base64]\n", type, mime ? mime : "?",
           data ? strlen(data) : 0);
  } else if (strcmp(type, "resource_link") == 0) {
    const char *uri = json_string_value(json_object_get(block, "uri"));
    const char *name = json_string_value(json_object_get(block, "name"));
    printf("[resource_link %s %s]\n", uri ? uri : "?", name ? name : "");
  } else if (strcmp(type, "resource") == 0) {
    json_t *r = json_object_get(block, "resource");
    const char *uri = json_string_value(json_object_get(r, "uri"));
    const char *text = json_string_value(json_object_get(r, "text"));
    if (text != NULL)
      printf("[resource %s]\n%s\n", uri ? uri : "?", text);
    else
      printf("[resource %s, blob]\n", uri ? uri : "?");
  } else {
    printf("[%s content]\n", type);
  }
}

int mcpc_print_tool_result(const mcpc_ctx *ctx, json_t *result) {
  bool is_error = json_is_true(json_object_get(result, "isError"));
  if (ctx->json) {
    mcpc_print_json(result);
  } else {
    size_t i;
    json_t *block;
    json_array_foreach(json_object_get(result, "content"), i, block)
        mcpc_print_content(block);
    json_t *sc = json_object_get(result, "structuredContent");
    if (sc != NULL) {
      char *text = json_dumps(sc, JSON_COMPACT | JSON_ENCODE_ANY);
      printf("structuredContent: %s\n", text ? text : "");
      free(text);
    }
  }
  if (is_error)
    fprintf(stderr, "mcpc: the tool reported an error (isError: true)\n");
  return is_error ? MCPC_FAIL : MCPC_OK;
}

int mcpc_list(mcpc_ctx *ctx, int argc, const char *syn, const char *method,
              const char *key, void (*print_item)(const json_t *item)) {
  if (argc != 0)
    return mcpc_usage(syn);
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  bool tasks = strcmp(method, "tasks/list") == 0;
  if (c != NULL && tasks && mcpc_can_fall_back(ctx, c))
    c = mcpc_reconnect_legacy(ctx, c, &rc); /* tasks/list is 2025-11-25 */
  if (c == NULL)
    return rc;
  if (tasks && strcmp(mcp_client_protocol_version(c), "2026-07-28") >= 0) {
    mcp_client_close(c);
    return mcpc_error(MCPC_PROTOCOL, NULL,
                      "2026-07-28 has no tasks/list (task ids are not "
                      "enumerable): use tasks get ID");
  }
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
    json_array_foreach(items, i, it) print_item(it);
  }
  json_decref(items);
  mcp_client_close(c);
  return rc;
}

void mcpc_print_named(const json_t *item) {
  const char *name = json_string_value(json_object_get(item, "name"));
  const char *d = json_string_value(json_object_get(item, "description"));
  printf("%-28s %.*s\n", name ? name : "?", d ? (int)strcspn(d, "\n") : 0,
         d ? d : "");
}

json_t *mcpc_parse_kv(int argc, char **argv, bool strings_only) {
  json_t *obj = json_object();
  for (int i = 0; obj != NULL && i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    if (eq == NULL || eq == argv[i]) {
      mcpc_error(MCPC_USAGE, NULL, "expected key=value, got \"%s\"", argv[i]);
      json_decref(obj);
      return NULL;
    }
    char *key = strndup(argv[i], (size_t)(eq - argv[i]));
    json_t *v = NULL;
    if (!strings_only)
      v = json_loads(eq + 1, JSON_DECODE_ANY, NULL);
    if (v == NULL)
      v = json_string(eq + 1);
    if (key == NULL || v == NULL || json_object_set_new(obj, key, v) != 0) {
      json_decref(obj);
      obj = NULL;
    }
    free(key);
  }
  return obj;
}
