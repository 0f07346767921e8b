/* SPDX-License-Identifier: MIT */
/* tool_decl_test.c - tools declared from C struct field tables: the schemas
 * built for every type, defaults, constraints, the filled input struct, the
 * output struct as structuredContent checked against the output schema, and
 * definition errors collected and reported once by mcp_server_add_tool. */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <string.h>

static void assert_json_eq(json_t *got, const char *want_text) {
  json_t *want = json_loads(want_text, JSON_DECODE_ANY, NULL);
  assert_non_null(want);
  if (!json_equal(got, want)) {
    char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    char *w = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    fprintf(stderr, "got:  %s\nwant: %s\n", g, w);
    free(g);
    free(w);
    fail();
  }
  json_decref(want);
}

/* ---- every type ----------------------------------------------------------
 */
typedef struct all_in {
  const char *s;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  double d;
  float f;
  bool b;
  json_t *obj, *arr;
} all_in;

typedef struct all_out {
  const char *s, *maybe;
  int8_t i8;
  int32_t i32;
  int64_t i64;
  double d;
  float f;
  bool b;
  json_t *obj, *arr;
} all_out;

static int all_calls;

/* Echoes every input member to the output struct. */
MCP_TOOL_HANDLER(echo_all, all_in, all_out) {
  all_calls++;
  out->s = in->s;
  out->i8 = in->i8;
  out->i32 = in->i32 + in->i16;
  out->i64 = in->i64;
  out->d = in->d;
  out->f = in->f;
  out->b = in->b;
  out->obj = in->obj ? json_deep_copy(in->obj) : json_object();
  out->arr = in->arr ? json_incref(in->arr) : NULL;
  return MCP_OK;
}

static const mcp_field all_args[] = {
    MCP_STRING(all_in, s, "A string", .min_length = 1, .max_length = 8,
               .pattern = "^[a-z]+$", .title = "S"),
    MCP_INTEGER(all_in, i8, "Narrow", .optional = true),
    MCP_INTEGER(all_in, i16, "Defaulted", .default_value = MCP_DEFAULT(-7)),
    MCP_INTEGER(all_in, i32, "Bounded", .minimum = MCP_LIMIT(0),
                .maximum = MCP_LIMIT(100), .optional = true),
    MCP_INTEGER(all_in, i64, "Wide", .optional = true),
    MCP_NUMBER(all_in, d, "Double", .default_value = MCP_DEFAULT(2.5)),
    MCP_NUMBER(all_in, f, "Float", .optional = true),
    MCP_BOOLEAN(all_in, b, "Flag", .default_value = MCP_DEFAULT(true)),
    MCP_OBJECT(all_in, obj, "Object", .optional = true),
    MCP_ARRAY(all_in, arr, "Array", .optional = true, .max_length = 3),
    MCP_FIELDS_END};

static const mcp_field all_result[] = {
    MCP_STRING(all_out, s, "Echo"),
    MCP_STRING(all_out, maybe, "Never set", .optional = true),
    MCP_INTEGER(all_out, i8, NULL),
    MCP_INTEGER(all_out, i32, NULL),
    MCP_INTEGER(all_out, i64, NULL),
    MCP_NUMBER(all_out, d, NULL),
    MCP_NUMBER(all_out, f, NULL),
    MCP_BOOLEAN(all_out, b, NULL),
    MCP_OBJECT(all_out, obj, NULL),
    MCP_ARRAY(all_out, arr, NULL, .optional = true),
    MCP_FIELDS_END};

static mcp_server_t *server_with(const mcp_tool_decl *decl) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("decl", "1.0", &s), MCP_OK);
  mcp_error_t err;
  memset(&err, 0, sizeof err);
  mcp_status st = mcp_server_add_tool_decl(s, decl, &err);
  if (st != MCP_OK)
    fprintf(stderr, "add: %s\n", err.message);
  assert_int_equal(st, MCP_OK);
  return s;
}

/* tools/call name with arguments args_json; returns the result object. */
static json_t *call_tool(mcp_server_t *s, const char *name,
                         const char *args_json) {
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  char params[1024];
  snprintf(params, sizeof params, "{\"name\":\"%s\",\"arguments\":%s}", name,
           args_json);
  json_t *r = tu_request(s, se, "tools/call", params);
  mcp__session_release(se);
  assert_non_null(r);
  json_t *res = json_incref(json_object_get(r, "result"));
  if (res == NULL) {
    char *t = json_dumps(r, JSON_COMPACT);
    fprintf(stderr, "no result: %s\n", t);
    free(t);
  }
  json_decref(r);
  assert_non_null(res);
  return res;
}

static const char *first_text(json_t *res) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(res, "content"), 0), "text"));
}

static void test_schemas_for_every_type(void **state) {
  (void)state;
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new_decl(&(mcp_tool_decl){.name = "all",
                                                      .input = all_args,
                                                      .output = all_result,
                                                      .strict = true,
                                                      .fn = echo_all},
                                     &t),
                   MCP_OK);
  assert_null(mcp_tool_definition_errors(t));
  json_t *j = mcp_tool_to_json(t);
  assert_json_eq(
      json_object_get(j, "inputSchema"),
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"s\":{\"type\":\"string\",\"title\":\"S\",\"description\":\"A "
      "string\",\"minLength\":1,\"maxLength\":8,\"pattern\":\"^[a-z]+$\"},"
      "\"i8\":{\"type\":\"integer\",\"description\":\"Narrow\",\"minimum\":-"
      "128,\"maximum\":127},"
      "\"i16\":{\"type\":\"integer\",\"description\":\"Defaulted\","
      "\"minimum\":-32768,\"maximum\":32767,\"default\":-7},"
      "\"i32\":{\"type\":\"integer\",\"description\":\"Bounded\","
      "\"minimum\":0,\"maximum\":100},"
      "\"i64\":{\"type\":\"integer\",\"description\":\"Wide\"},"
      "\"d\":{\"type\":\"number\",\"description\":\"Double\",\"default\":2.5},"
      "\"f\":{\"type\":\"number\",\"description\":\"Float\",\"minimum\":-3."
      "4028234663852886e+38,\"maximum\":3.4028234663852886e+38},"
      "\"b\":{\"type\":\"boolean\",\"description\":\"Flag\",\"default\":true},"
      "\"obj\":{\"type\":\"object\",\"description\":\"Object\"},"
      "\"arr\":{\"type\":\"array\",\"description\":\"Array\",\"maxItems\":3}},"
      "\"required\":[\"s\"]}");
  assert_json_eq(
      json_object_get(j, "outputSchema"),
      "{\"type\":\"object\",\"properties\":{"
      "\"s\":{\"type\":\"string\",\"description\":\"Echo\"},"
      "\"maybe\":{\"type\":\"string\",\"description\":\"Never set\"},"
      "\"i8\":{\"type\":\"integer\",\"minimum\":-128,\"maximum\":127},"
      "\"i32\":{\"type\":\"integer\",\"minimum\":-2147483648,\"maximum\":"
      "2147483647},"
      "\"i64\":{\"type\":\"integer\"},\"d\":{\"type\":\"number\"},"
      "\"f\":{\"type\":\"number\",\"minimum\":-3.4028234663852886e+38,"
      "\"maximum\":3.4028234663852886e+38},"
      "\"b\":{\"type\":\"boolean\"},\"obj\":{\"type\":\"object\"},"
      "\"arr\":{\"type\":\"array\"}},"
      "\"required\":[\"s\",\"i8\",\"i32\",\"i64\",\"d\",\"f\",\"b\","
      "\"obj\"]}");
  json_decref(j);
  mcp_tool_free(t);
}

static void test_input_struct_filled_with_defaults(void **state) {
  (void)state;
  mcp_server_t *s = server_with(&(mcp_tool_decl){
      .name = "all", .input = all_args, .output = all_result, .fn = echo_all});
  /* only the required member: defaults fill i16, d and b; the rest zero */
  json_t *res = call_tool(s, "all", "{\"s\":\"abc\"}");
  assert_json_eq(json_object_get(res, "structuredContent"),
                 "{\"s\":\"abc\",\"i8\":0,\"i32\":-7,\"i64\":0,\"d\":2.5,"
                 "\"f\":0.0,\"b\":true,\"obj\":{}}");
  assert_false(json_is_true(json_object_get(res, "isError")));
  json_decref(res);
  /* every member given */
  res = call_tool(s, "all",
                  "{\"s\":\"xyz\",\"i8\":-5,\"i16\":3,\"i32\":40,"
                  "\"i64\":9007199254740993,\"d\":-1.25,\"f\":0.5,"
                  "\"b\":false,\"obj\":{\"k\":[1]},\"arr\":[1,\"two\"]}");
  assert_json_eq(json_object_get(res, "structuredContent"),
                 "{\"s\":\"xyz\",\"i8\":-5,\"i32\":43,"
                 "\"i64\":9007199254740993,\"d\":-1.25,\"f\":0.5,"
                 "\"b\":false,\"obj\":{\"k\":[1]},\"arr\":[1,\"two\"]}");
  json_decref(res);
  mcp_server_free(s);
}

static void test_constraints_refuse_before_the_handler(void **state) {
  (void)state;
  mcp_server_t *s = server_with(&(mcp_tool_decl){
      .name = "all", .input = all_args, .output = all_result, .fn = echo_all});
  const char *bad[] = {
      "{}",                              /* s required */
      "{\"s\":\"\"}",                    /* minLength */
      "{\"s\":\"abcdefghi\"}",           /* maxLength */
      "{\"s\":\"ABC\"}",                 /* pattern */
      "{\"s\":\"a\",\"i8\":128}",        /* int8 range */
      "{\"s\":\"a\",\"i32\":101}",       /* maximum */
      "{\"s\":\"a\",\"i32\":-1}",        /* minimum */
      "{\"s\":\"a\",\"i64\":1.5}",       /* integer */
      "{\"s\":\"a\",\"f\":1e39}",        /* float range */
      "{\"s\":\"a\",\"b\":1}",           /* boolean */
      "{\"s\":\"a\",\"obj\":[]}",        /* object */
      "{\"s\":\"a\",\"arr\":[1,2,3,4]}", /* maxItems */
  };
  int before = all_calls;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    json_t *res = call_tool(s, "all", bad[i]);
    if (!json_is_true(json_object_get(res, "isError")))
      fprintf(stderr, "accepted: %s\n", bad[i]);
    assert_true(json_is_true(json_object_get(res, "isError")));
    assert_non_null(strstr(first_text(res), "Invalid arguments"));
    json_decref(res);
  }
  assert_int_equal(all_calls, before);
  mcp_server_free(s);
}

/* ---- output --------------------------------------------------------------
 */
typedef struct out_in {
  const char *mode;
} out_in;
typedef struct out_out {
  const char *name;
  double value;
  json_t *extra;
} out_out;

static int freed;
static void count_free(void *p) {
  (void)p;
  freed++;
}

MCP_TOOL_CALL_HANDLER(produce, out_in, out_out) {
  assert_non_null(call);
  assert_ptr_equal(user_data, &freed);
  out->extra = json_pack("{s:i}", "n", 1); /* stolen whatever happens */
  if (strcmp(in->mode, "ok") == 0) {
    out->name = "fine";
    out->value = 1.5;
  } else if (strcmp(in->mode, "missing") == 0) {
    out->value = 2; /* name is required */
  } else if (strcmp(in->mode, "nan") == 0) {
    out->name = "x";
    out->value = NAN;
  } else if (strcmp(in->mode, "tool_error") == 0) {
    return mcp_result_set_error(result, "refused");
  } else if (strcmp(in->mode, "own") == 0) {
    return mcp_result_set_structured(
        result, json_pack("{s:s,s:f}", "name", "own", "value", 9.0));
  } else if (strcmp(in->mode, "fail") == 0) {
    return MCP_ERR_IO;
  } else if (strcmp(in->mode, "array_extra") == 0) {
    out->name = "x";
    json_decref(out->extra);
    out->extra = json_array(); /* declared an object */
  } else if (strcmp(in->mode, "long") == 0) {
    out->name = "longer than eight";
  }
  return MCP_OK;
}

static const mcp_field produce_args[] = {
    MCP_STRING(out_in, mode, "What to do",
               .enum_values = MCP_ENUM("ok", "missing", "nan", "tool_error",
                                       "own", "fail", "array_extra", "long")),
    MCP_FIELDS_END};
static const mcp_field produce_result[] = {
    MCP_STRING(out_out, name, "Name"), MCP_NUMBER(out_out, value, "Value"),
    MCP_OBJECT(out_out, extra, "Extra", .optional = true), MCP_FIELDS_END};

static void test_output_struct_checked_against_schema(void **state) {
  (void)state;
  freed = 0;
  mcp_server_t *s = server_with(&(mcp_tool_decl){.name = "produce",
                                                 .input = produce_args,
                                                 .output = produce_result,
                                                 .call_fn = produce,
                                                 .user_data = &freed,
                                                 .free_user_data = count_free});
  json_t *res = call_tool(s, "produce", "{\"mode\":\"ok\"}");
  assert_json_eq(json_object_get(res, "structuredContent"),
                 "{\"name\":\"fine\",\"value\":1.5,\"extra\":{\"n\":1}}");
  json_decref(res);

  res = call_tool(s, "produce", "{\"mode\":\"missing\"}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(first_text(res), "does not match its outputSchema"));
  json_decref(res);

  res = call_tool(s, "produce", "{\"mode\":\"nan\"}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(first_text(res), "output field 'value'"));
  json_decref(res);

  res = call_tool(s, "produce", "{\"mode\":\"tool_error\"}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_string_equal(first_text(res), "refused");
  assert_null(json_object_get(res, "structuredContent"));
  json_decref(res);

  res = call_tool(s, "produce", "{\"mode\":\"own\"}");
  assert_json_eq(json_object_get(res, "structuredContent"),
                 "{\"name\":\"own\",\"value\":9.0}");
  json_decref(res);

  res = call_tool(s, "produce", "{\"mode\":\"bogus\"}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  json_decref(res);

  /* a failure status is a JSON-RPC error; the output struct is released */
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_request(s, se, "tools/call",
                         "{\"name\":\"produce\",\"arguments\":{\"mode\":"
                         "\"fail\"}}");
  assert_int_not_equal(tu_error_code(r), 0);
  json_decref(r);
  mcp__session_release(se);

  assert_int_equal(freed, 0);
  mcp_server_free(s);
  assert_int_equal(freed, 1);
}

/* The output struct's text is trusted without validation only when the
 * schema is the table's own and says nothing the struct's C types do not:
 * a member of the wrong kind, a constraint the table declares, or an output
 * schema set after the declaration are all checked. */
static const mcp_field bounded_result[] = {
    MCP_STRING(out_out, name, "Name", .max_length = 8),
    MCP_NUMBER(out_out, value, "Value"),
    MCP_OBJECT(out_out, extra, "Extra", .optional = true), MCP_FIELDS_END};

static void test_output_trusted_only_when_made_so(void **state) {
  (void)state;
  mcp_server_t *s = server_with(&(mcp_tool_decl){.name = "produce",
                                                 .input = produce_args,
                                                 .output = produce_result,
                                                 .call_fn = produce,
                                                 .user_data = &freed});
  json_t *res = call_tool(s, "produce", "{\"mode\":\"array_extra\"}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(first_text(res), "does not match its outputSchema"));
  json_decref(res);
  res = call_tool(s, "produce", "{\"mode\":\"long\"}"); /* no bound */
  assert_null(json_object_get(res, "isError"));
  json_decref(res);
  mcp_server_free(s);

  s = server_with(&(mcp_tool_decl){.name = "produce",
                                   .input = produce_args,
                                   .output = bounded_result,
                                   .call_fn = produce,
                                   .user_data = &freed});
  res = call_tool(s, "produce", "{\"mode\":\"long\"}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  json_decref(res);
  res = call_tool(s, "produce", "{\"mode\":\"ok\"}");
  assert_null(json_object_get(res, "isError"));
  json_decref(res);
  mcp_server_free(s);

  /* the same declaration with an output schema of the server's own */
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new_decl(&(mcp_tool_decl){.name = "produce",
                                                      .input = produce_args,
                                                      .output = produce_result,
                                                      .call_fn = produce,
                                                      .user_data = &freed},
                                     &t),
                   MCP_OK);
  assert_int_equal(
      mcp_tool_set_output_schema_text(
          t, "{\"type\":\"object\",\"required\":[\"name\",\"serial\"]}"),
      MCP_OK);
  assert_int_equal(mcp_server_new("decl", "1.0", &s), MCP_OK);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
  res = call_tool(s, "produce", "{\"mode\":\"ok\"}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(first_text(res), "does not match its outputSchema"));
  json_decref(res);
  mcp_server_free(s);
}

/* A string argument with U+0000 cannot become a C string: the call's result
 * names the argument, the handler never acts on a cut string. */
MCP_TOOL_HANDLER(takes_string, out_in, void) {
  return mcp_result_add_textf(result, "got %s", in->mode ? in->mode : "-")
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

static const mcp_field any_mode[] = {MCP_STRING(out_in, mode, NULL),
                                     MCP_FIELDS_END};

static void test_argument_fault_names_the_field(void **state) {
  (void)state;
  mcp_server_t *s = server_with(
      &(mcp_tool_decl){.name = "t", .input = any_mode, .fn = takes_string});
  json_t *res = call_tool(s, "t", "{\"mode\":\"a\\u0000b\"}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(first_text(res), "'mode'"));
  json_decref(res);
  res = call_tool(s, "t", "{\"mode\":\"ab\"}");
  assert_string_equal(first_text(res), "got ab");
  assert_null(json_object_get(res, "structuredContent"));
  json_decref(res);
  mcp_server_free(s);
}

/* No arguments, no output, no call, no user_data. */
MCP_TOOL_HANDLER(ping, void, void) {
  return mcp_result_add_text(result, "pong") ? MCP_OK : MCP_ERR_NOMEM;
}

static void test_metadata_and_no_fields(void **state) {
  (void)state;
  mcp_server_t *s =
      server_with(&(mcp_tool_decl){.name = "ping",
                                   .title = "Ping",
                                   .description = "Answers pong",
                                   .fn = ping,
                                   .strict = true,
                                   .read_only = MCP_HINT_YES,
                                   .open_world = MCP_HINT_NO,
                                   .task_support = MCP_TASK_OPTIONAL,
                                   .icon = "data:image/svg+xml,%3Csvg/%3E"});
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_request(s, se, "tools/list", NULL);
  json_t *tool =
      json_array_get(json_object_get(json_object_get(r, "result"), "tools"), 0);
  assert_json_eq(tool,
                 "{\"name\":\"ping\",\"title\":\"Ping\",\"description\":"
                 "\"Answers pong\",\"inputSchema\":{\"type\":\"object\","
                 "\"properties\":{},\"additionalProperties\":false},"
                 "\"annotations\":{\"readOnlyHint\":true,\"openWorldHint\":"
                 "false},\"execution\":{\"taskSupport\":\"optional\"},"
                 "\"icons\":[{\"src\":\"data:image/svg+xml,%3Csvg/%3E\","
                 "\"mimeType\":\"image/svg+xml\",\"sizes\":[\"any\"]}]}");
  json_decref(r);
  mcp__session_release(se);
  json_t *res = call_tool(s, "ping", "{}");
  assert_string_equal(first_text(res), "pong");
  json_decref(res);
  res = call_tool(s, "ping", "{\"x\":1}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  json_decref(res);
  mcp_server_free(s);
}

/* ---- definition errors ---------------------------------------------------
 */
typedef struct bad_in {
  int count; /* declared as a string below */
  const char *name;
  double ratio;
  bool flag;
  int8_t small;
  const char *code;
  const char *word;
  int64_t n;
} bad_in;

static const mcp_field bad_args[] = {
    /* the macros refuse this pairing at compile time (tests/field_types);
     * a table filled by hand is checked by size at registration */
    {.name = "count",
     .type = MCP_FIELD_STRING,
     .offset = offsetof(bad_in, count),
     .size = sizeof(int),
     .description = "wrong size"},
    MCP_STRING(bad_in, name, "min on a string", .minimum = MCP_LIMIT(1)),
    MCP_NUMBER(bad_in, ratio, "default out of range", .maximum = MCP_LIMIT(1),
               .default_value = MCP_DEFAULT(2)),
    MCP_BOOLEAN(bad_in, flag, "string default",
                .default_value = MCP_DEFAULT_STRING("yes")),
    MCP_INTEGER(bad_in, small, "bound beyond int8", .maximum = MCP_LIMIT(300)),
    MCP_STRING(bad_in, code, "bad pattern", .pattern = "(["),
    MCP_STRING(bad_in, word, "duplicate"),
    MCP_STRING(bad_in, word, "duplicate"),
    MCP_INTEGER(bad_in, n, "min above max", .minimum = MCP_LIMIT(5),
                .maximum = MCP_LIMIT(1)),
    {.name = "alias",
     .type = MCP_FIELD_INTEGER,
     .offset = offsetof(bad_in, n),
     .size = sizeof(int64_t)},
    MCP_FIELDS_END};

typedef struct bad_out {
  const char *text;
} bad_out;
static const mcp_field bad_result[] = {
    MCP_STRING(bad_out, text, "defaulted output",
               .default_value = MCP_DEFAULT_STRING("x")),
    MCP_FIELDS_END};

MCP_TOOL_HANDLER(never, bad_in, bad_out) {
  return MCP_OK;
}

static void collect_log(mcp_log_level level, const char *message, void *ud) {
  (void)level;
  if (strstr(message, "definition error"))
    snprintf(ud, 4096, "%s", message);
}

static void test_definition_errors_reported_once(void **state) {
  (void)state;
  mcp_tool_t *t;
  const mcp_tool_decl decl = {
      .name = "bad", .input = bad_args, .output = bad_result, .fn = never};
  assert_int_equal(mcp_tool_new_decl(&decl, &t), MCP_OK);
  const char *all = mcp_tool_definition_errors(t);
  assert_non_null(all);
  const char *expect[] = {
      "input field 'count': a string field needs a member of type const "
      "char *, not one of 4 bytes",
      "input field 'name': minimum/maximum apply to integer and number",
      "input field 'ratio': its default does not satisfy its own constraints",
      "input field 'flag': default is a string, the field is boolean",
      "input field 'small': a bound lies outside the range",
      "input field 'code': ",
      "input field 'word': declared twice",
      "input field 'n': minimum 5 is above maximum 1",
      "input field 'alias': shares bytes with field 'n'",
      "output field 'text': output fields take no default"};
  size_t lines = 1;
  for (const char *c = all; *c; c++)
    lines += *c == '\n';
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
    if (strstr(all, expect[i]) == NULL)
      fprintf(stderr, "missing '%s' in:\n%s\n", expect[i], all);
    assert_non_null(strstr(all, expect[i]));
  }
  if (lines != sizeof expect / sizeof expect[0])
    fprintf(stderr, "%s\n", all);
  assert_int_equal(lines, sizeof expect / sizeof expect[0]);

  mcp_server_t *s;
  assert_int_equal(mcp_server_new("decl", "1.0", &s), MCP_OK);
  char logged[4096] = "";
  mcp_server_set_log_handler(s, collect_log, logged);
  mcp_error_t err;
  memset(&err, 0, sizeof err);
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "tool 'bad': 10 definition errors: "
                                      "input field 'count'"));
  assert_string_equal(err.pointer, "/inputSchema/properties/count");
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
    assert_non_null(strstr(logged, expect[i]));
  assert_int_equal(mcp_server_tool_count(s), 0);

  /* the one-call form; handler missing; both handlers */
  memset(&err, 0, sizeof err);
  assert_int_equal(
      mcp_server_add_tool_decl(s, &(mcp_tool_decl){.name = "none"}, &err),
      MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "exactly one of fn and call_fn"));
  assert_int_equal(
      mcp_server_add_tool_decl(
          s, &(mcp_tool_decl){.name = "both", .fn = ping, .call_fn = produce},
          &err),
      MCP_ERR_INVALID_ARG);
  assert_int_equal(
      mcp_server_add_tool_decl(
          s, &(mcp_tool_decl){.name = "bad name", .fn = ping}, &err),
      MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "bad name"));
  assert_int_equal(mcp_tool_new_decl(NULL, &t), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_tool_count(s), 0);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_schemas_for_every_type),
      cmocka_unit_test(test_input_struct_filled_with_defaults),
      cmocka_unit_test(test_constraints_refuse_before_the_handler),
      cmocka_unit_test(test_output_struct_checked_against_schema),
      cmocka_unit_test(test_output_trusted_only_when_made_so),
      cmocka_unit_test(test_argument_fault_names_the_field),
      cmocka_unit_test(test_metadata_and_no_fields),
      cmocka_unit_test(test_definition_errors_reported_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
