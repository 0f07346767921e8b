/* SPDX-License-Identifier: MIT */
/* schema_hostile_test.c - hostile schemas and data never crash, hang or
 * leak: $ref cycles, 10,000-deep nesting, huge enums, catastrophic regexes,
 * invalid UTF-8. */
#include "testutil.h"

#include <string.h>
#include <time.h>

#include "mcp/schema.h"

static mcp_schema_t *compile_ok(const char *text) {
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  mcp_status st = mcp_schema_compile_text(text, strlen(text), NULL, &s, &err);
  if (st != MCP_OK)
    fprintf(stderr, "compile: %s (%s)\n", err.message, err.pointer);
  assert_int_equal(st, MCP_OK);
  return s;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_ref_cycles_are_bounded(void **state) {
  (void)state;
  static const char *const cycles[] = {
      "{\"$ref\":\"#\"}",
      "{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"$ref\":\"#/$defs/"
      "a\"}},\"$ref\":\"#/$defs/a\"}",
      "{\"anyOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#\"}]}",
      "{\"$dynamicAnchor\":\"x\",\"oneOf\":[{\"$dynamicRef\":\"#x\"},"
      "{\"$dynamicRef\":\"#x\"}]}",
  };
  json_t *inst = json_loads("{\"a\":[1,2,3]}", 0, NULL);
  for (size_t i = 0; i < sizeof cycles / sizeof cycles[0]; i++) {
    mcp_schema_t *s = compile_ok(cycles[i]);
    double t0 = now_s();
    assert_false(mcp_schema_is_valid(s, inst));
    mcp_validation_t *v = NULL;
    assert_int_equal(mcp_schema_validate(s, inst, &v), MCP_ERR_INVALID);
    assert_non_null(strstr(mcp_validation_message(v, 0), "infinite $ref"));
    assert_true(now_s() - t0 < 1.0);
    mcp_validation_free(v);
    mcp_schema_free(s);
  }
  json_decref(inst);
  /* recursion that consumes the instance is fine */
  mcp_schema_t *s = compile_ok(
      "{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#\"}}}");
  json_t *list = json_loads("{\"next\":{\"next\":{\"next\":{}}}}", 0, NULL);
  assert_true(mcp_schema_is_valid(s, list));
  json_decref(list);
  mcp_schema_free(s);
}

static json_t *deep_array(size_t depth) {
  json_t *v = json_array();
  for (size_t i = 0; i < depth; i++) {
    json_t *outer = json_array();
    json_array_append_new(outer, v);
    v = outer;
  }
  return v;
}

static void test_deep_nesting_gives_errors(void **state) {
  (void)state;
  /* a 10,000-deep schema: compile refuses it */
  json_t *schema = json_object();
  for (int i = 0; i < 10000; i++) {
    json_t *outer = json_object();
    json_object_set_new(outer, "items", schema);
    schema = outer;
  }
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_schema_compile(schema, NULL, &s, &err), MCP_ERR_SCHEMA);
  assert_non_null(strstr(err.message, "depth limit"));
  assert_null(s);
  mcp_validation_t *v = NULL;
  assert_int_not_equal(mcp_schema_check_meta(schema, &v), MCP_OK);
  mcp_validation_free(v);
  json_decref(schema);

  /* a 10,000-deep instance against a recursive schema: an error, no crash */
  s = compile_ok("{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}");
  json_t *inst = deep_array(10000);
  assert_false(mcp_schema_is_valid(s, inst));
  v = NULL;
  assert_int_equal(mcp_schema_validate(s, inst, &v), MCP_ERR_INVALID);
  assert_non_null(strstr(mcp_validation_message(v, 0), "nesting limit"));
  mcp_validation_free(v);
  mcp_schema_free(s);
  /* ... and against schemas that do not descend, or compare whole values */
  s = compile_ok(
      "{\"type\":\"array\",\"uniqueItems\":true,\"not\":{\"const\":1}}");
  assert_true(mcp_schema_is_valid(s, inst));
  mcp_schema_free(s);
  json_decref(inst);

  /* the depth limit is an option */
  mcp_schema_options_t *o;
  assert_int_equal(mcp_schema_options_new(&o), MCP_OK);
  assert_int_equal(mcp_schema_options_set_max_depth(o, 5), MCP_OK);
  const char *t = "{\"items\":{\"items\":{\"items\":{\"items\":{\"items\":"
                  "{\"items\":{}}}}}}}";
  assert_int_equal(mcp_schema_compile_text(t, strlen(t), o, &s, &err),
                   MCP_ERR_SCHEMA);
  mcp_schema_options_free(o);
}

static void test_huge_enum(void **state) {
  (void)state;
  json_t *values = json_array();
  for (int i = 0; i < 100000; i++)
    json_array_append_new(values, i % 2 ? json_integer(i)
                                        : json_sprintf("value-%d", i));
  json_t *schema = json_pack("{s:o}", "enum", values);
  mcp_schema_t *s = NULL;
  assert_int_equal(mcp_schema_compile(schema, NULL, &s, NULL), MCP_OK);
  json_t *hit = json_string("value-99998"), *miss = json_string("value-1");
  json_t *num = json_real(99999.0);
  assert_true(mcp_schema_is_valid(s, hit));
  assert_false(mcp_schema_is_valid(s, miss));
  assert_true(mcp_schema_is_valid(s, num)); /* 99999.0 == 99999 */
  json_decref(hit);
  json_decref(miss);
  json_decref(num);
  json_decref(schema);
  mcp_schema_free(s);
}

static void test_catastrophic_regex_is_bounded(void **state) {
  (void)state;
  mcp_schema_t *s = compile_ok("{\"pattern\":\"^(a+)+$\"}");
  char text[4096];
  memset(text, 'a', sizeof text - 2);
  text[sizeof text - 2] = '!';
  text[sizeof text - 1] = '\0';
  json_t *inst = json_string(text);
  double t0 = now_s();
  assert_false(mcp_schema_is_valid(s, inst));
  mcp_validation_t *v = NULL;
  assert_int_equal(mcp_schema_validate(s, inst, &v), MCP_ERR_INVALID);
  assert_true(now_s() - t0 < 5.0);
  mcp_validation_free(v);
  json_decref(inst);
  mcp_schema_free(s);

  /* a tight limit turns a backtracking blow-up into a reported error */
  mcp_schema_options_t *o;
  assert_int_equal(mcp_schema_options_new(&o), MCP_OK);
  assert_int_equal(mcp_schema_options_set_regex_match_limit(o, 1000), MCP_OK);
  const char *t = "{\"pattern\":\"^(\\\\w+\\\\s?)*$\"}";
  assert_int_equal(mcp_schema_compile_text(t, strlen(t), o, &s, NULL), MCP_OK);
  inst = json_string("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!");
  v = NULL;
  assert_int_equal(mcp_schema_validate(s, inst, &v), MCP_ERR_INVALID);
  assert_non_null(strstr(mcp_validation_message(v, 0), "match limit"));
  mcp_validation_free(v);
  json_decref(inst);
  mcp_schema_free(s);
  mcp_schema_options_free(o);
}

static void test_invalid_utf8(void **state) {
  (void)state;
  /* in a pattern: a schema error */
  json_t *schema = json_object();
  json_object_set_new(schema, "pattern", json_stringn_nocheck("a\xff(", 3));
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_schema_compile(schema, NULL, &s, &err), MCP_ERR_SCHEMA);
  assert_string_equal(err.pointer, "/pattern");
  json_decref(schema);
  /* in patternProperties names and in data: no crash, not valid */
  s = compile_ok("{\"pattern\":\"^a\",\"maxLength\":3,"
                 "\"patternProperties\":{\"^x\":{}},\"format\":\"email\"}");
  json_t *bad = json_stringn_nocheck("a\xc3\x28\xff", 4);
  assert_false(mcp_schema_is_valid(s, bad));
  mcp_validation_t *v = NULL;
  assert_int_equal(mcp_schema_validate(s, bad, &v), MCP_ERR_INVALID);
  mcp_validation_free(v);
  json_decref(bad);
  json_t *obj = json_object();
  json_object_set_new_nocheck(obj, "x\xfe", json_null());
  assert_false(mcp_schema_is_valid(s, obj));
  json_decref(obj);
  mcp_schema_free(s);
  /* truncated UTF-8 in schema text: a parse error */
  assert_int_equal(
      mcp_schema_compile_text("{\"const\":\"\xe2\x82\"}", 13, NULL, &s, &err),
      MCP_ERR_PARSE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ref_cycles_are_bounded),
      cmocka_unit_test(test_deep_nesting_gives_errors),
      cmocka_unit_test(test_huge_enum),
      cmocka_unit_test(test_catastrophic_regex_is_bounded),
      cmocka_unit_test(test_invalid_utf8),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
