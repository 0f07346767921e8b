/* SPDX-License-Identifier: MIT */
/* read_result.c - the contents of a ReadResourceResult under construction:
 * TextResourceContents {uri, mimeType?, text} and BlobResourceContents
 * {uri, mimeType?, blob}. */
#include <stdlib.h>
#include <string.h>

#include "resources/resource_internal.h"
#include "util/base64.h"

static mcp_status append(mcp_read_result_t *r, json_t *entry) {
  if (entry == NULL || json_array_append_new(r->contents, entry) != 0) {
    r->failed = true;
    return MCP_ERR_NOMEM;
  }
  return MCP_OK;
}

static json_t *entry_head(mcp_read_result_t *r, const char *uri,
                          const char *mime_type) {
  json_t *e = json_pack("{s:s}", "uri", uri ? uri : r->uri);
  if (e && mime_type)
    json_object_set_new(e, "mimeType", json_string(mime_type));
  return e;
}

mcp_status mcp_read_result_add_text(mcp_read_result_t *r, const char *uri,
                                    const char *text, const char *mime_type) {
  if (r == NULL || text == NULL)
    return MCP_ERR_INVALID_ARG;
  json_t *e = entry_head(r, uri, mime_type);
  if (e && json_object_set_new(e, "text", json_string(text)) != 0) {
    json_decref(e); /* text was not valid UTF-8 */
    return MCP_ERR_INVALID_ARG;
  }
  return append(r, e);
}

mcp_status mcp_read_result_add_blob(mcp_read_result_t *r, const char *uri,
                                    const void *data, size_t len,
                                    const char *mime_type) {
  if (r == NULL || (data == NULL && len))
    return MCP_ERR_INVALID_ARG;
  char *b64 = mcp__base64_encode(data, len);
  json_t *e = b64 ? entry_head(r, uri, mime_type) : NULL;
  if (e)
    json_object_set_new(e, "blob", json_string(b64));
  free(b64);
  return append(r, e);
}

mcp_status mcp_read_result_set_entry_meta(mcp_read_result_t *r, json_t *meta) {
  size_t n = r ? json_array_size(r->contents) : 0;
  if (n == 0 || !json_is_object(meta)) {
    json_decref(meta);
    return MCP_ERR_INVALID_ARG;
  }
  return json_object_set_new(json_array_get(r->contents, n - 1), "_meta",
                             meta) == 0
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

mcp_status mcp_read_result_set_cache_hint(mcp_read_result_t *r, int64_t ttl_ms,
                                          mcp_cache_scope scope) {
  if (r == NULL || !mcp__cache_hint_valid(ttl_ms, scope))
    return MCP_ERR_INVALID_ARG;
  r->cache = (mcp__cache_hint){ttl_ms, scope, true};
  return MCP_OK;
}
