/* SPDX-License-Identifier: MIT */
/* args.c - typed getters over a tool's arguments object.
 *
 * "missing", "null" and "wrong type" are distinct results so a handler can
 * tell an omitted optional argument from an explicit null. A value of the
 * right JSON type that C cannot hold as asked is an argument fault (see
 * tool_internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mcp/tool.h"
#include "tools/tool_internal.h"

/* The recorder of the handler running on this thread (tool_internal.h). A
 * thread-local because the getters see only the arguments object, and
 * their signatures are public. */
static _Thread_local mcp__arg_fault *recorder;

mcp__arg_fault *mcp__arg_fault_begin(mcp__arg_fault *f) {
  mcp__arg_fault *previous = recorder;
  f->set = false;
  f->message[0] = '\0';
  recorder = f;
  return previous;
}

void mcp__arg_fault_end(mcp__arg_fault *previous) {
  recorder = previous;
}

/* Records the first fault of the running handler; returns
 * MCP_ERR_ARG_TYPE for the getter to return. */
static mcp_status fault(const char *name, const char *what) {
  if (recorder != NULL && !recorder->set) {
    recorder->set = true;
    snprintf(recorder->message, sizeof recorder->message,
             "Invalid argument '%.80s': %s", name, what);
  }
  return MCP_ERR_ARG_TYPE;
}

#define NUL_FAULT                                                              \
  "the string contains U+0000 (a NUL character), which this tool cannot "      \
  "accept"
#define RANGE_FAULT                                                            \
  "the integer is outside the range this tool accepts "                        \
  "(-9223372036854775808 to 9223372036854775807)"

mcp_status mcp__arg_fault_nul(const char *name) {
  return fault(name, NUL_FAULT);
}

mcp_status mcp__arg_integer_of_real(const char *name, double d, int64_t *out) {
  if (d != floor(d))
    return MCP_ERR_ARG_TYPE;
  /* 2^63 is exactly representable; anything at or beyond it overflows.
   * Such a value is an integer to JSON Schema (the request loader reads
   * integer literals beyond int64 as reals), so it passed the schema:
   * a fault, not just a status the handler might ignore. */
  if (d < -9223372036854775808.0 || d >= 9223372036854775808.0)
    return fault(name, RANGE_FAULT);
  *out = (int64_t)d;
  return MCP_OK;
}

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
  /* A C string would end at the NUL: the handler would act on a prefix of
   * what the schema checked ("a\0b.exe" passing a "\\.exe$" pattern as
   * "a"). */
  if (memchr(json_string_value(v), '\0', json_string_length(v)) != NULL)
    return fault(name, NUL_FAULT);
  if (out)
    *out = json_string_value(v);
  return MCP_OK;
}

mcp_status mcp_arg_string_len(const json_t *args, const char *name,
                              const char **out, size_t *len) {
  json_t *v;
  mcp_status st = lookup(args, name, &v);
  if (st != MCP_OK)
    return st;
  if (!json_is_string(v))
    return MCP_ERR_ARG_TYPE;
  if (out)
    *out = json_string_value(v);
  if (len)
    *len = json_string_length(v);
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
    st = mcp__arg_integer_of_real(name, json_real_value(v), &n);
    if (st != MCP_OK)
      return st;
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
  /* a string with a NUL gives fallback, and the fault is recorded */
  return mcp_arg_string(args, name, &s) == MCP_OK ? s : fallback;
}
