/* SPDX-License-Identifier: MIT */
/* schema_errors_test.c - the detailed path lists every error with instance
 * location, keyword location and a sentence; compile errors name the spot;
 * dialect selection and the registry behave as documented. */
#include "testutil.h"

#include <string.h>

#include "mcp/schema.h"

static mcp_schema_t *compile(const char *text, const mcp_schema_options_t *o) {
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  mcp_status st = mcp_schema_compile_text(text, strlen(text), o, &s, &err);
  if (st != MCP_OK)
    fprintf(stderr, "compile: %s (%s)\n", err.message, err.pointer);
  assert_int_equal(st, MCP_OK);
  return s;
}

static mcp_validation_t *errors_of(mcp_schema_t *s, const char *inst) {
  json_t *j = json_loads(inst, JSON_DECODE_ANY, NULL);
  assert_non_null(j);
  mcp_validation_t *v = NULL;
  assert_int_equal(mcp_schema_validate(s, j, &v), MCP_ERR_INVALID);
  assert_false(mcp_schema_is_valid(s, j));
  json_decref(j);
  assert_non_null(v);
  return v;
}

static void assert_error(const mcp_validation_t *v, size_t i, const char *ip,
                         const char *kl, const char *msg) {
  assert_true(i < mcp_validation_count(v));
  assert_string_equal(mcp_validation_instance_location(v, i), ip);
  assert_string_equal(mcp_validation_keyword_location(v, i), kl);
  assert_string_equal(mcp_validation_message(v, i), msg);
}

static void test_errors_list_every_failure(void **state) {
  (void)state;
  mcp_schema_t *s = compile(
      "{\"type\":\"object\",\"properties\":{"
      "\"name\":{\"type\":\"string\",\"minLength\":2},"
      "\"tags\":{\"type\":\"array\",\"items\":{\"enum\":[\"a\",\"b\"]}},"
      "\"a/b\":{\"$ref\":\"#/$defs/pos\"},\"id\":{}},"
      "\"required\":[\"name\",\"id\"],\"additionalProperties\":false,"
      "\"$defs\":{\"pos\":{\"type\":\"integer\",\"exclusiveMinimum\":0}}}",
      NULL);
  mcp_validation_t *v = errors_of(
      s, "{\"name\":\"\xc3\xa9\",\"tags\":[\"a\",\"z\"],\"a/b\":-1,\"x\":1}");
  assert_int_equal(mcp_validation_count(v), 5);
  assert_error(v, 0, "/name", "/properties/name/minLength",
               "string is 1 characters long, at least 2");
  assert_error(v, 1, "/tags/1", "/properties/tags/items/enum",
               "value is not one of the 2 allowed values: \"a\", \"b\"");
  assert_error(v, 2, "/a~1b", "/properties/a~1b/$ref/exclusiveMinimum",
               "-1 must be greater than 0");
  assert_error(v, 3, "/x", "/additionalProperties",
               "property \"x\" is not allowed");
  /* "required" names also in "properties" are checked in the same pass */
  assert_error(v, 4, "", "/required", "required property \"id\" is missing");
  mcp_validation_free(v);

  v = errors_of(s, "[1]");
  assert_int_equal(mcp_validation_count(v), 1);
  assert_error(v, 0, "", "/type", "expected object, got array");
  mcp_validation_free(v);

  json_t *ok = json_loads("{\"name\":\"ab\",\"id\":1}", 0, NULL);
  v = (mcp_validation_t *)1;
  assert_int_equal(mcp_schema_validate(s, ok, &v), MCP_OK);
  assert_null(v);
  assert_true(mcp_schema_is_valid(s, ok));
  json_decref(ok);
  mcp_schema_free(s);
}

/* An enum violation names the allowed values (a model cannot pick one from
 * a count): the first ten as JSON, each cut at 48 bytes, then an ellipsis. */
static void test_enum_violation_names_the_values(void **state) {
  (void)state;
  mcp_schema_t *s =
      compile("{\"enum\":[\"AA\",\"LH\",3,null,{\"b\":1,\"a\":[2]}]}", NULL);
  mcp_validation_t *v = errors_of(s, "\"XX\"");
  assert_error(v, 0, "", "/enum",
               "value is not one of the 5 allowed values: \"AA\", \"LH\", 3, "
               "null, {\"a\":[2],\"b\":1}");
  mcp_validation_free(v);
  mcp_schema_free(s);

  s = compile("{\"enum\":[\"a0\",\"a1\",\"a2\",\"a3\",\"a4\",\"a5\",\"a6\","
              "\"a7\",\"a8\",\"a9\",\"a10\",\"a11\"]}",
              NULL);
  v = errors_of(s, "7");
  assert_error(v, 0, "", "/enum",
               "value is not one of the 12 allowed values: \"a0\", \"a1\", "
               "\"a2\", \"a3\", \"a4\", \"a5\", \"a6\", \"a7\", \"a8\", "
               "\"a9\", \u2026");
  mcp_validation_free(v);
  mcp_schema_free(s);

  /* const names its value the same way */
  s = compile("{\"const\":{\"mode\":\"fast\"}}", NULL);
  v = errors_of(s, "{\"mode\":\"slow\"}");
  assert_error(v, 0, "", "/const",
               "value does not equal the constant: {\"mode\":\"fast\"}");
  mcp_validation_free(v);
  mcp_schema_free(s);

  /* a long value is cut at a character boundary (\u00e9 is two bytes) */
  s = compile("{\"enum\":[\"abcdefghijklmnopqrstuvwxyz0123456789"
              "abcdefghij\u00e9\u00e9\"]}",
              NULL);
  v = errors_of(s, "1");
  assert_error(v, 0, "", "/enum",
               "value is not one of the 1 allowed values: "
               "\"abcdefghijklmnopqrstuvwxyz0123456789abcdefghij\u2026");
  mcp_validation_free(v);
  mcp_schema_free(s);
}

static void test_errors_of_combinators(void **state) {
  (void)state;
  mcp_schema_t *s = compile(
      "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}],"
      "\"not\":{\"const\":3},\"oneOf\":[{\"minimum\":0},{\"maximum\":10}]}",
      NULL);
  mcp_validation_t *v = errors_of(s, "3");
  /* 3 matches both oneOf branches and the "not" schema */
  assert_int_equal(mcp_validation_count(v), 2);
  assert_error(v, 0, "", "/oneOf",
               "value matches more than one schema in oneOf (0 and 1)");
  assert_error(v, 1, "", "/not", "value must not match the \"not\" schema");
  mcp_validation_free(v);
  v = errors_of(s, "1.5");
  /* anyOf failed: both branch errors, then the summary */
  assert_int_equal(mcp_validation_count(v), 4);
  assert_error(v, 0, "", "/anyOf/0/type", "expected string, got number");
  assert_error(v, 1, "", "/anyOf/1/type", "expected integer, got number");
  assert_error(v, 2, "", "/anyOf", "value does not match any schema in anyOf");
  mcp_validation_free(v);
  mcp_schema_free(s);
}

static void test_compile_errors_name_the_spot(void **state) {
  (void)state;
  static const struct {
    const char *schema, *msg, *pointer;
  } cases[] = {
      {"{\"$schema\":\"https://example.com/my-dialect\"}",
       "unsupported JSON Schema dialect \"https://example.com/my-dialect\"",
       "/$schema"},
      {"{\"properties\":{\"a\":{\"$ref\":\"other.json\"}}}",
       "cannot resolve $ref \"other.json\": unknown resource \"other.json\"",
       "/properties/a/$ref"},
      {"{\"minLength\":-1}", "\"minLength\" must be a non-negative integer",
       "/minLength"},
      {"{\"items\":{\"pattern\":\"(unclosed\"}}", NULL, "/items/pattern"},
      {"{\"type\":\"strange\"}", "\"type\" must name JSON types", "/type"},
      /* the pointer names "items" itself (it was the previous keyword's) */
      {"{\"minimum\":1,\"items\":[true]}",
       "\"items\" must be a schema in draft 2020-12", "/items"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mcp_schema_t *s = NULL;
    mcp_error_t err;
    assert_int_equal(mcp_schema_compile_text(cases[i].schema,
                                             strlen(cases[i].schema), NULL, &s,
                                             &err),
                     MCP_ERR_SCHEMA);
    assert_null(s);
    assert_int_equal(err.status, MCP_ERR_SCHEMA);
    if (cases[i].msg)
      assert_string_equal(err.message, cases[i].msg);
    assert_string_equal(err.pointer, cases[i].pointer);
  }
}

static void test_draft07_and_registry(void **state) {
  (void)state;
  mcp_schema_registry_t *reg;
  mcp_schema_options_t *o;
  assert_int_equal(mcp_schema_registry_new(&reg), MCP_OK);
  assert_int_equal(mcp_schema_options_new(&o), MCP_OK);
  assert_int_equal(mcp_schema_registry_add(
                       reg, "https://example.com/defs.json",
                       json_loads("{\"$defs\":{\"pos\":{\"minimum\":0}},"
                                  "\"$id\":\"https://example.com/defs.json\"}",
                                  0, NULL),
                       NULL),
                   MCP_OK);
  assert_int_equal(mcp_schema_registry_add(reg, "https://example.com/defs.json",
                                           json_object(), NULL),
                   MCP_ERR_EXISTS);
  mcp_schema_options_set_registry(o, reg);
  mcp_schema_t *s =
      compile("{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
              "\"items\":[{\"type\":\"string\"}],\"additionalItems\":"
              "{\"$ref\":\"https://example.com/defs.json#/$defs/pos\"},"
              "\"definitions\":{\"x\":{}},\"dependencies\":{\"a\":[\"b\"]}}",
              o);
  mcp_schema_registry_free(reg); /* compiled schemas keep what they need */
  mcp_schema_options_free(o);
  json_t *good = json_loads("[\"s\", 1, 2]", 0, NULL);
  json_t *bad = json_loads("[\"s\", -1]", 0, NULL);
  assert_true(mcp_schema_is_valid(s, good));
  assert_false(mcp_schema_is_valid(s, bad));
  mcp_validation_t *v = NULL;
  assert_int_equal(mcp_schema_validate(s, bad, &v), MCP_ERR_INVALID);
  assert_error(v, 0, "/1", "/additionalItems/$ref/minimum",
               "-1 must be greater than or equal to 0");
  mcp_validation_free(v);
  json_decref(good);
  json_decref(bad);
  mcp_schema_free(s);
}

static void test_check_meta_reports_bad_keywords(void **state) {
  (void)state;
  json_t *bad = json_loads(
      "{\"type\":\"strange\",\"minLength\":-1,\"properties\":{\"a\":3}}", 0,
      NULL);
  mcp_validation_t *v = NULL;
  assert_int_equal(mcp_schema_check_meta(bad, &v), MCP_ERR_INVALID);
  assert_true(mcp_validation_count(v) >= 3);
  bool saw_min = false, saw_prop = false;
  for (size_t i = 0; i < mcp_validation_count(v); i++) {
    if (strcmp(mcp_validation_instance_location(v, i), "/minLength") == 0)
      saw_min = true;
    if (strcmp(mcp_validation_instance_location(v, i), "/properties/a") == 0)
      saw_prop = true;
  }
  assert_true(saw_min && saw_prop);
  mcp_validation_free(v);
  json_decref(bad);
  json_t *d7 = json_loads("{\"$schema\":\"http://json-schema.org/draft-07/"
                          "schema#\",\"items\":[{}],\"dependencies\":{}}",
                          0, NULL);
  assert_int_equal(mcp_schema_check_meta(d7, NULL), MCP_OK);
  json_decref(d7);
  json_t *other = json_loads("{\"$schema\":\"urn:x\"}", 0, NULL);
  assert_int_equal(mcp_schema_check_meta(other, NULL), MCP_ERR_UNSUPPORTED);
  json_decref(other);
}

static void test_format_annotation_by_default(void **state) {
  (void)state;
  const char *schema = "{\"format\":\"email\"}";
  mcp_schema_t *s = compile(schema, NULL);
  json_t *j = json_string("not an email");
  assert_true(mcp_schema_is_valid(s, j));
  mcp_schema_free(s);
  mcp_schema_options_t *o;
  assert_int_equal(mcp_schema_options_new(&o), MCP_OK);
  mcp_schema_options_set_format_assertion(o, true);
  s = compile(schema, o);
  assert_false(mcp_schema_is_valid(s, j));
  mcp_validation_t *v = NULL;
  assert_int_equal(mcp_schema_validate(s, j, &v), MCP_ERR_INVALID);
  assert_error(v, 0, "", "/format", "string is not a valid email");
  mcp_validation_free(v);
  mcp_schema_free(s);
  mcp_schema_options_free(o);
  json_decref(j);
}

/* Property matching takes several routes (perfect hash of names, FNV table
 * when names share length and first/middle/last bytes or are many, schema-
 * order lookups for large instances, member lists under
 * unevaluatedProperties) and leaf values are settled by quick checks; both
 * paths must agree on every route. */
static bool valid_both(mcp_schema_t *s, const char *inst) {
  json_t *j = json_loads(inst, JSON_DECODE_ANY, NULL);
  assert_non_null(j);
  bool fast = mcp_schema_is_valid(s, j);
  mcp_status st = mcp_schema_validate(s, j, NULL);
  json_decref(j);
  assert_int_equal(st, fast ? MCP_OK : MCP_ERR_INVALID);
  return fast;
}

static void test_property_matching_routes(void **state) {
  (void)state;
  /* same length, first, middle and last byte: no perfect hash */
  mcp_schema_t *s =
      compile("{\"properties\":{\"a1x2b\":{\"type\":\"integer\"},"
              "\"a3x4b\":{\"type\":\"string\"},\"\":{\"const\":0}},"
              "\"required\":[\"a1x2b\"],\"additionalProperties\":false}",
              NULL);
  assert_true(valid_both(s, "{\"a1x2b\":1,\"a3x4b\":\"x\",\"\":0}"));
  assert_false(valid_both(s, "{\"a1x2b\":1,\"a3x4b\":2}"));
  assert_false(valid_both(s, "{\"a3x4b\":\"x\"}"));
  assert_false(valid_both(s, "{\"a1x2b\":1,\"a5x6b\":1}"));
  assert_false(valid_both(s, "{\"a1x2b\":1,\"\":1}"));
  assert_true(valid_both(s, "{\"a1x2b\":2.0}")); /* integral real */
  mcp_schema_free(s);

  /* 70 names: beyond the perfect-hash size; instance larger than 4x + 8 */
  char text[8192], inst[8192];
  size_t o = (size_t)snprintf(text, sizeof text, "{\"properties\":{");
  for (int i = 0; i < 70; i++)
    o += (size_t)snprintf(text + o, sizeof text - o,
                          "%s\"p%d\":{\"type\":\"integer\",\"maximum\":%d}",
                          i ? "," : "", i, i);
  snprintf(text + o, sizeof text - o, "},\"required\":[\"p69\"]}");
  s = compile(text, NULL);
  o = (size_t)snprintf(inst, sizeof inst, "{");
  for (int i = 0; i < 70; i++)
    o += (size_t)snprintf(inst + o, sizeof inst - o, "%s\"p%d\":%d",
                          i ? "," : "", i, i);
  snprintf(inst + o, sizeof inst - o, "}");
  assert_true(valid_both(s, inst));
  inst[o - 2] = '7'; /* p69: 79 > 69 */
  assert_false(valid_both(s, inst));
  mcp_schema_free(s);

  s = compile("{\"properties\":{\"k\":{\"enum\":[\"a\",1,\"bb\"]},"
              "\"n\":{\"minimum\":1.5,\"exclusiveMaximum\":3}},"
              "\"required\":[\"k\"]}",
              NULL);
  o = (size_t)snprintf(inst, sizeof inst, "{");
  for (int i = 0; i < 40; i++)
    o += (size_t)snprintf(inst + o, sizeof inst - o, "\"x%d\":%d,", i, i);
  snprintf(inst + o, sizeof inst - o, "\"k\":\"bb\",\"n\":2}");
  assert_true(valid_both(s, inst)); /* schema-order lookups */
  assert_true(valid_both(s, "{\"k\":1.0,\"n\":1.5}"));
  assert_false(valid_both(s, "{\"k\":\"b\"}"));
  assert_false(valid_both(s, "{\"k\":\"a\",\"n\":3}"));
  assert_false(valid_both(s, "{\"k\":\"a\",\"n\":1}"));
  assert_false(valid_both(s, "{\"n\":2}"));
  mcp_schema_free(s);

  /* member lists under unevaluatedProperties, more than 16 members */
  s = compile("{\"allOf\":[{\"properties\":{\"a\":true}},"
              "{\"patternProperties\":{\"^x\":{\"type\":\"integer\"}}}],"
              "\"unevaluatedProperties\":false}",
              NULL);
  o = (size_t)snprintf(inst, sizeof inst, "{\"a\":1");
  for (int i = 0; i < 20; i++)
    o += (size_t)snprintf(inst + o, sizeof inst - o, ",\"x%d\":%d", i, i);
  snprintf(inst + o, sizeof inst - o, "}");
  assert_true(valid_both(s, inst));
  snprintf(inst + o, sizeof inst - o, ",\"y\":0}");
  assert_false(valid_both(s, inst));
  mcp_validation_t *v = errors_of(s, inst);
  assert_int_equal(mcp_validation_count(v), 1);
  assert_error(v, 0, "/y", "/unevaluatedProperties",
               "unevaluated property \"y\" is not allowed");
  mcp_validation_free(v);
  mcp_schema_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errors_list_every_failure),
      cmocka_unit_test(test_enum_violation_names_the_values),
      cmocka_unit_test(test_errors_of_combinators),
      cmocka_unit_test(test_compile_errors_name_the_spot),
      cmocka_unit_test(test_draft07_and_registry),
      cmocka_unit_test(test_check_meta_reports_bad_keywords),
      cmocka_unit_test(test_format_annotation_by_default),
      cmocka_unit_test(test_property_matching_routes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
