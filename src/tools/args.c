/* SPDX-License-Identifier: MIT */
/* args.c - typed getters over a tool's arguments object.
 *
 * "missing", "null" and "wrong type" are distinct results so a handler can
 * tell an omitted optional argument from an explicit null.
 */
#include <math.h>

#include "mcp/tool.h"

static mcp_status lookup(const json_t *args, const char *name, json_t **v) {
  if (!json_is_object(args) || name == NULL)
    return MCP_ERR_INVALID_ARG;
  *v = json_object_get(args, name);
  if (*v == NULL)
    return MCP_ERR_ARG_MISSING;
  if (json_is_null(*v))
    return MCP_ERR_ARG_NULL;
  return MCP_OK;
}

mcp_status mcp_arg_string(const json_t *args, const char *name,
                          const char **out) {
  json_t *v;
  mcp_status st = lookup(args, name, &v);
  if (st != MCP_OK)
    return st;
  if (!json_is_string(v))
    return MCP_ERR_ARG_TYPE;
  if (out)
    *out = json_string_value(v);
  return MCP_OK;
}

mcp_status mcp_arg_integer(const json_t *args, const char *name, int64_t *out) {
  json_t *v;
  mcp_status st = lookup(args, name, &v);
  if (st != MCP_OK)
    return st;
  int64_t n;
  if (json_is_integer(v))
    n = (int64_t)json_integer_value(v);
  else if (json_is_real(v)) {
    double d = json_real_value(v);
    /* 2^63 is exactly representable; anything at or beyond it overflows. */
    if (d != floor(d) || d < -9223372036854775808.0 ||
        d >= 9223372036854775808.0)
      return MCP_ERR_ARG_TYPE;
    n = (int64_t)d;
  } else
    return MCP_ERR_ARG_TYPE;
  if (out)
    *out = n;
  return MCP_OK;
}

mcp_status mcp_arg_number(const json_t *args, const char *name, double *out) {
  json_t *v;
  mcp_status st = lookup(args, name, &v);
  if (st != MCP_OK)
    return st;
  if (!json_is_number(v))
    return MCP_ERR_ARG_TYPE;
  if (out)
    *out = json_number_value(v);
  return MCP_OK;
}

mcp_status mcp_arg_boolean(const json_t *args, const char *name, bool *out) {
  json_t *v;
  mcp_status st = lookup(args, name, &v);
  if (st != MCP_OK)
    return st;
  if (!json_is_boolean(v))
    return MCP_ERR_ARG_TYPE;
  if (out)
    *out = json_is_true(v);
  return MCP_OK;
}

mcp_status mcp_arg_object(const json_t *args, const char *name, json_t **out) {
  json_t *v;
  mcp_status st = lookup(args, name, &v);
  if (st != MCP_OK)
    return st;
  if (!json_is_object(v))
    return MCP_ERR_ARG_TYPE;
  if (out)
    *out = v;
  return MCP_OK;
}

mcp_status mcp_arg_array(const json_t *args, const char *name, json_t **out) {
  json_t *v;
  mcp_status st = lookup(args, name, &v);
  if (st != MCP_OK)
    return st;
  if (!json_is_array(v))
    return MCP_ERR_ARG_TYPE;
  if (out)
    *out = v;
  return MCP_OK;
}

const char *mcp_arg_string_or(const json_t *args, const char *name,
                              const char *fallback) {
  const char *s;
  return mcp_arg_string(args, name, &s) == MCP_OK ? s : fallback;
}
