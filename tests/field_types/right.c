/* SPDX-License-Identifier: MIT */
/* right.c - every member type the field-table macros accept: must compile
 * warning-free (C17) and, as C++20, with the C++ form of the check. */
#include <mcp/mcp.h>

typedef struct all_types {
  const char *s;
  char *mutable_s;
  const char *const fixed_s;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  long long ll;
  const int32_t fixed_i32;
  double d;
  float f;
  bool b;
  json_t *obj;
  const json_t *arr;
} all_types;

static const mcp_field all_fields[] = {
    MCP_STRING(all_types, s, "s"),
    MCP_STRING(all_types, mutable_s, "s"),
    MCP_STRING(all_types, fixed_s, "s"),
    MCP_INTEGER(all_types, i8, "i"),
    MCP_INTEGER(all_types, i16, "i"),
    MCP_INTEGER(all_types, i32, "i"),
    MCP_INTEGER(all_types, i64, "i"),
    MCP_INTEGER(all_types, ll, "i"),
    MCP_INTEGER(all_types, fixed_i32, "i"),
    MCP_NUMBER(all_types, d, "n"),
    MCP_NUMBER(all_types, f, "n"),
    MCP_BOOLEAN(all_types, b, "b"),
    MCP_OBJECT(all_types, obj, "o"),
    MCP_ARRAY(all_types, arr, "a"),
    MCP_FIELDS_END};

const mcp_field *right_fields(void);
const mcp_field *right_fields(void) {
  return all_fields;
}
