/* SPDX-License-Identifier: MIT */
/* registry.c - documents reachable through $ref, and compile options.
 * The registry only stores (URI, document) pairs; compile indexes a
 * document, including its embedded $id resources, the first time a $ref
 * needs it. */
#include "schema/internal.h"

#include <stdlib.h>
#include <string.h>

#include "schema/uri.h"

mcp_status mcp_schema_registry_new(mcp_schema_registry_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = calloc(1, sizeof **out);
  return *out ? MCP_OK : MCP_ERR_NOMEM;
}

void mcp_schema_registry_free(mcp_schema_registry_t *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->count; i++) {
    free(r->docs[i].uri);
    json_decref(r->docs[i].doc);
  }
  free(r->docs);
  free(r);
}

mcp_status mcp_schema_registry_add(mcp_schema_registry_t *r, const char *uri,
                                   json_t *document, mcp_error_t *err) {
  if (document == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "document is NULL");
  if (r == NULL || uri == NULL) {
    json_decref(document);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "registry or uri is NULL");
  }
  size_t ul = mcp__uri_strip_len(uri);
  for (size_t i = 0; i < r->count; i++) {
    if (strlen(r->docs[i].uri) == ul && strncmp(r->docs[i].uri, uri, ul) == 0) {
      json_decref(document);
      return mcp_error_set(err, MCP_ERR_EXISTS, "\"%s\" is already registered",
                           uri);
    }
  }
  if (r->count == r->cap) {
    size_t nc = r->cap ? r->cap * 2 : 8;
    struct reg_doc *nd = realloc(r->docs, nc * sizeof *nd);
    if (nd == NULL) {
      json_decref(document);
      return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    }
    r->docs = nd;
    r->cap = nc;
  }
  char *u = strndup(uri, ul);
  if (u == NULL) {
    json_decref(document);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  r->docs[r->count].uri = u;
  r->docs[r->count].doc = document;
  r->count++;
  return MCP_OK;
}

mcp_status mcp_schema_options_new(mcp_schema_options_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = calloc(1, sizeof **out);
  return *out ? MCP_OK : MCP_ERR_NOMEM;
}

void mcp_schema_options_free(mcp_schema_options_t *o) {
  if (o == NULL)
    return;
  free(o->base_uri);
  free(o);
}

mcp_status mcp_schema_options_set_format_assertion(mcp_schema_options_t *o,
                                                   bool assert_formats) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->assert_formats = assert_formats;
  return MCP_OK;
}

mcp_status mcp_schema_options_set_registry(mcp_schema_options_t *o,
                                           const mcp_schema_registry_t *r) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->registry = r;
  return MCP_OK;
}

mcp_status mcp_schema_options_set_base_uri(mcp_schema_options_t *o,
                                           const char *uri) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  char *u = NULL;
  if (uri != NULL && (u = strndup(uri, mcp__uri_strip_len(uri))) == NULL)
    return MCP_ERR_NOMEM;
  free(o->base_uri);
  o->base_uri = u;
  return MCP_OK;
}

mcp_status mcp_schema_options_set_regex_match_limit(mcp_schema_options_t *o,
                                                    uint32_t limit) {
  if (o == NULL || limit == 0)
    return MCP_ERR_INVALID_ARG;
  o->match_limit = limit;
  return MCP_OK;
}

mcp_status mcp_schema_options_set_max_depth(mcp_schema_options_t *o,
                                            unsigned depth) {
  if (o == NULL || depth == 0)
    return MCP_ERR_INVALID_ARG;
  o->max_depth = depth;
  return MCP_OK;
}
