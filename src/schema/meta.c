/* SPDX-License-Identifier: MIT */
/* meta.c - mcp_schema_check_meta: validates a schema document against the
 * built-in meta-schema of its dialect. The meta-schema is compiled per call:
 * no global cache, hence no global mutable state. */
#include "schema/internal.h"

#include <string.h>

#include "schema/uri.h"

mcp_status mcp_schema_check_meta(const json_t *schema,
                                  mcp_validation_t **out) {
  if (out != NULL)
    *out = NULL;
  if (schema == NULL)
    return MCP_ERR_INVALID_ARG;
  const char *uri = "https://json-schema.org/draft/2020-12/schema";
  json_t *ms =
      json_is_object(schema) ? json_object_get(schema, "$schema") : NULL;
  if (json_is_string(ms))
    uri = json_string_value(ms);
  size_t n;
  const mcp__builtin_doc *docs = mcp__metaschemas(&n);
  const mcp__builtin_doc *found = NULL;
  for (size_t i = 0; i < n; i++)
    if (mcp__uri_same(docs[i].uri, uri))
      found = &docs[i];
  if (found == NULL || strstr(found->uri, "/meta/") != NULL)
    return MCP_ERR_UNSUPPORTED;
  mcp_schema_t *meta = NULL;
  mcp_status st = mcp_schema_compile_text(found->text, strlen(found->text),
                                          NULL, &meta, NULL);
  if (st != MCP_OK)
    return st == MCP_ERR_NOMEM ? st : MCP_ERR_INTERNAL;
  st = mcp_schema_validate(meta, schema, out);
  mcp_schema_free(meta);
  return st;
}
