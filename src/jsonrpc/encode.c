/* SPDX-License-Identifier: MIT */
/* encode.c - JSON-RPC envelopes written straight into a buffer.
 *
 * The envelope is assembled as text around the dumped payload, so the payload
 * is never copied into a wrapper object (no json_deep_copy, no incref dance on
 * the hot path).
 */
#include "jsonrpc/jsonrpc.h"

#include <stdio.h>

static bool put_id(mcp__buf *out, const json_t *id) {
  return mcp__buf_append_str(out, ",\"id\":") &&
         mcp__buf_append_json(out, id, 0);
}

bool mcp__jsonrpc_encode_result(mcp__buf *out, const json_t *id,
                                const json_t *result) {
  return mcp__buf_append_str(out, "{\"jsonrpc\":\"2.0\"") && put_id(out, id) &&
         mcp__buf_append_str(out, ",\"result\":") &&
         mcp__buf_append_json(out, result, 0) && mcp__buf_append_char(out, '}');
}

bool mcp__jsonrpc_encode_error(mcp__buf *out, const json_t *id, int code,
                               const char *message, const json_t *data) {
  char num[32];
  snprintf(num, sizeof num, "%d", code);
  if (!mcp__buf_append_str(out, "{\"jsonrpc\":\"2.0\""))
    return false;
  if (id != NULL && !put_id(out, id))
    return false;
  if (!mcp__buf_append_str(out, ",\"error\":{\"code\":") ||
      !mcp__buf_append_str(out, num) ||
      !mcp__buf_append_str(out, ",\"message\":") ||
      !mcp__buf_append_json_string(out, message ? message : ""))
    return false;
  if (data != NULL && (!mcp__buf_append_str(out, ",\"data\":") ||
                       !mcp__buf_append_json(out, data, 0)))
    return false;
  return mcp__buf_append_str(out, "}}");
}

bool mcp__jsonrpc_encode_notification(mcp__buf *out, const char *method,
                                      const json_t *params) {
  if (!mcp__buf_append_str(out, "{\"jsonrpc\":\"2.0\",\"method\":") ||
      !mcp__buf_append_json_string(out, method))
    return false;
  if (params != NULL && (!mcp__buf_append_str(out, ",\"params\":") ||
                         !mcp__buf_append_json(out, params, 0)))
    return false;
  return mcp__buf_append_char(out, '}');
}

bool mcp__jsonrpc_encode_request(mcp__buf *out, const json_t *id,
                                 const char *method, const json_t *params) {
  if (!mcp__buf_append_str(out, "{\"jsonrpc\":\"2.0\"") || !put_id(out, id) ||
      !mcp__buf_append_str(out, ",\"method\":") ||
      !mcp__buf_append_json_string(out, method))
    return false;
  if (params != NULL && (!mcp__buf_append_str(out, ",\"params\":") ||
                         !mcp__buf_append_json(out, params, 0)))
    return false;
  return mcp__buf_append_char(out, '}');
}
