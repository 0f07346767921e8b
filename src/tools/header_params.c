/* SPDX-License-Identifier: MIT */
/* header_params.c - tool arguments mirrored in HTTP headers (SEP-2243).
 *
 * A property of a tool's inputSchema marked "x-mcp-header": "Name" is sent
 * by 2026-07-28 clients as the header Mcp-Param-Name too, so proxies can
 * route on it. The server checks the marks once, when the tool is added
 * (top-level properties of type string, integer or boolean; a token name,
 * unique ignoring case), and on every 2026-07-28 HTTP call compares each
 * header with its argument: a value in the body without its header, a
 * header without its value, or a different value is -32020.
 */
#include "tools/header_params.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/feature.h"
#include "tools/tool_internal.h"
#include "util/header_value.h"

#define MARK "x-mcp-header"

/* RFC 9110 token characters. */
static bool is_token(const char *s) {
  if (*s == '\0')
    return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && strchr("!#$%&'*+-.^_`|~", *s) == NULL)
      return false;
  return true;
}

/* Any x-mcp-header below node other than on a top-level property. */
static bool mark_elsewhere(const json_t *node, bool top_property) {
  if (json_is_array(node)) {
    size_t i;
    json_t *v;
    json_array_foreach(node, i, v) {
      if (mark_elsewhere(v, false))
        return true;
    }
    return false;
  }
  if (!json_is_object(node))
    return false;
  if (!top_property && json_object_get(node, MARK))
    return true;
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)node, k, v) {
    if (mark_elsewhere(v, false))
      return true;
  }
  return false;
}

mcp_status mcp__header_params_check(mcp_tool_t *tool, mcp_error_t *err) {
  json_t *props = json_object_get(tool->input_schema, "properties");
  const char *k;
  json_t *v;
  size_t marked = 0;
  json_object_foreach(tool->input_schema, k, v) {
    if (strcmp(k, "properties") != 0 && mark_elsewhere(v, false))
      return mcp_error_set(err, MCP_ERR_SCHEMA,
                           "inputSchema: " MARK " is allowed only on "
                           "top-level properties");
  }
  json_object_foreach(props, k, v) {
    json_t *mark = json_object_get(v, MARK);
    const char *k2;
    json_t *v2;
    json_object_foreach(v, k2, v2) {
      if (mark_elsewhere(v2, false))
        return mcp_error_set(err, MCP_ERR_SCHEMA,
                             "inputSchema: " MARK " is allowed only on "
                             "top-level properties (found below '%s')",
                             k);
    }
    if (mark == NULL)
      continue;
    const char *type = json_string_value(json_object_get(v, "type"));
    if (!json_is_string(mark) || !is_token(json_string_value(mark)))
      return mcp_error_set(err, MCP_ERR_SCHEMA,
                           "inputSchema: property '%s': " MARK " must be an "
                           "HTTP token (letters, digits, !#$%%&'*+-.^_`|~)",
                           k);
    if (type == NULL ||
        (strcmp(type, "string") != 0 && strcmp(type, "integer") != 0 &&
         strcmp(type, "boolean") != 0))
      return mcp_error_set(err, MCP_ERR_SCHEMA,
                           "inputSchema: property '%s': " MARK " needs type "
                           "string, integer or boolean",
                           k);
    const char *k3;
    json_t *v3;
    json_object_foreach(props, k3, v3) {
      json_t *other = json_object_get(v3, MARK);
      if (v3 != v && json_is_string(other) &&
          strcasecmp(json_string_value(other), json_string_value(mark)) == 0)
        return mcp_error_set(err, MCP_ERR_SCHEMA,
                             "inputSchema: " MARK " '%s' is used twice",
                             json_string_value(mark));
    }
    marked++;
  }
  tool->header_params = marked;
  return MCP_OK;
}

/* The header's value, or NULL; *repeated when it came more than once. */
static const char *find_header(const mcp__peer *p, const char *name,
                               bool *repeated) {
  const char *found = NULL;
  *repeated = false;
  for (size_t i = 0; i < p->param_header_count; i++)
    if (strcasecmp(p->param_headers[i].name, name) == 0) {
      *repeated |= found != NULL;
      found = p->param_headers[i].value;
    }
  return found;
}

/* Whether decoded header text equals the argument (integers compared as
 * numbers, SEP-2243). */
static bool same_value(const char *text, const json_t *arg) {
  if (json_is_string(arg))
    return strcmp(text, json_string_value(arg)) == 0;
  if (json_is_boolean(arg))
    return strcmp(text, json_is_true(arg) ? "true" : "false") == 0;
  if (json_is_integer(arg)) {
    char *end;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' &&
           n == json_integer_value(arg);
  }
  return false;
}

mcp_status mcp__header_params_verify(mcp_call_t *call, mcp_tool_t *tool,
                                     const json_t *args) {
  if (!mcp_call_is_stateless(call) || !mcp__call_peer(call)->http)
    return MCP_OK;
  json_t *props = json_object_get(tool->input_schema, "properties");
  const char *k;
  json_t *v;
  json_object_foreach(props, k, v) {
    const char *name = json_string_value(json_object_get(v, MARK));
    if (name == NULL)
      continue;
    json_t *arg = json_object_get(args, k);
    if (json_is_null(arg))
      arg = NULL;
    bool repeated;
    const char *raw = find_header(mcp__call_peer(call), name, &repeated);
    const char *why = NULL;
    char *text = NULL;
    if (repeated)
      why = "is sent more than once";
    else if (arg && raw == NULL)
      why = "is missing";
    else if (arg == NULL && raw)
      why = "has no argument in the body";
    else if (raw && mcp__header_value_decode(raw, &text) != MCP_OK)
      why = "is not a valid header value";
    else if (raw && !same_value(text, arg))
      why = "does not match the argument";
    free(text);
    if (why) {
      char msg[200];
      snprintf(msg, sizeof msg, "Header mismatch: Mcp-Param-%.60s %s", name,
               why);
      return mcp__call_fail(call, MCP_RPC_HEADER_MISMATCH, msg);
    }
  }
  return MCP_OK;
}
