/* SPDX-License-Identifier: MIT */
/* wrong.c - one wrong pairing of a field-table macro and a member per case.
 * check-field-types.sh compiles the file once per "#if CASE == n" line
 * (-DCASE=n) and requires the compiler to refuse it with the message after
 * "expect:", which names the macro, the struct and the member. */
#include <mcp/mcp.h>

typedef struct wrong_in {
  const char *name;
  int64_t count;
  double ratio;
  int n;
  uint32_t unsigned_n;
  char code[8];
  bool flag;
  json_t *extra;
  long double precise;
  int32_t *counter;
} wrong_in;

static const mcp_field fields[] = {
#if CASE == 1 /* expect: MCP_STRING(wrong_in, count): the member must be const char * */
    MCP_STRING(wrong_in, count, "string on int64_t"),
#elif CASE == 2 /* expect: MCP_INTEGER(wrong_in, name): the member must be int8_t */
    MCP_INTEGER(wrong_in, name, "integer on const char *"),
#elif CASE == 3 /* expect: MCP_INTEGER(wrong_in, ratio): the member must be int8_t */
    MCP_INTEGER(wrong_in, ratio, "integer on double"),
#elif CASE == 4 /* expect: MCP_NUMBER(wrong_in, n): the member must be double or float */
    MCP_NUMBER(wrong_in, n, "number on int"),
#elif CASE == 5 /* expect: MCP_BOOLEAN(wrong_in, name): the member must be bool */
    MCP_BOOLEAN(wrong_in, name, "boolean on a string"),
#elif CASE == 6 /* expect: MCP_INTEGER(wrong_in, unsigned_n): the member must be int8_t */
    MCP_INTEGER(wrong_in, unsigned_n, "integer on uint32_t"),
#elif CASE == 7 /* expect: MCP_STRING(wrong_in, code): the member must be const char * */
    MCP_STRING(wrong_in, code, "string on char[8], the size of a pointer"),
#elif CASE == 8 /* expect: MCP_OBJECT(wrong_in, name): the member must be json_t * */
    MCP_OBJECT(wrong_in, name, "object on a string"),
#elif CASE == 9 /* expect: MCP_ARRAY(wrong_in, flag): the member must be json_t * */
    MCP_ARRAY(wrong_in, flag, "array on bool"),
#elif CASE == 10 /* expect: MCP_STRING(wrong_in, extra): the member must be const char * */
    MCP_STRING(wrong_in, extra, "string on json_t *"),
#elif CASE == 11 /* expect: MCP_NUMBER(wrong_in, precise): the member must be double or float */
    MCP_NUMBER(wrong_in, precise, "number on long double"),
#elif CASE == 12 /* expect: MCP_INTEGER(wrong_in, counter): the member must be int8_t */
    MCP_INTEGER(wrong_in, counter, "integer on int32_t *"),
#elif CASE == 13 /* expect: MCP_BOOLEAN(wrong_in, n): the member must be bool */
    MCP_BOOLEAN(wrong_in, n, "boolean on int"),
#endif
    MCP_FIELDS_END};

const mcp_field *wrong_fields(void);
const mcp_field *wrong_fields(void) {
  return fields;
}
