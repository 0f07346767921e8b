/* SPDX-License-Identifier: MIT */
/* schema_builder_test.c - the builder emits the documented 2020-12 object
 * schemas, they pass the meta-schema, and they validate as intended. */
#include "testutil.h"

#include <string.h>

#include "mcp/schema.h"

static void assert_json_eq(json_t *got, const char *want_text) {
  json_t *want = json_loads(want_text, 0, NULL);
  assert_non_null(want);
  if (!json_equal(got, want)) {
    char *g = json_dumps(got, JSON_SORT_KEYS);
    fprintf(stderr, "got:  %s\nwant: %s\n", g, want_text);
    free(g);
  }
  assert_true(json_equal(got, want));
  json_decref(want);
}

static void assert_meta_ok(json_t *schema) {
  mcp_validation_t *v = NULL;
  mcp_status st = mcp_schema_check_meta(schema, &v);
  for (size_t i = 0; i < mcp_validation_count(v); i++)
    fprintf(stderr, "%s: %s (%s)\n", mcp_validation_instance_location(v, i),
            mcp_validation_message(v, i),
            mcp_validation_keyword_location(v, i));
  assert_int_equal(st, MCP_OK);
  assert_null(v);
}

static bool valid(mcp_schema_t *s, const char *text) {
  json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
  assert_non_null(j);
  bool ok = mcp_schema_is_valid(s, j);
  json_decref(j);
  return ok;
}

static void test_builder_flight_schema(void **state) {
  (void)state;
  mcp_schema_builder_t *b;
  assert_int_equal(mcp_schema_builder_new(&b), MCP_OK);
  const char *codes[] = {"AA", "LH", "BA"};
  mcp_schema_prop_set_enum(
      mcp_schema_builder_add_string(b, "airline_code", "Airline Code", true),
      codes, 3);
  mcp_schema_prop_t *fn =
      mcp_schema_builder_add_integer(b, "flight_number", "Flight Number", true);
  mcp_schema_prop_set_minimum(fn, 0);
  mcp_schema_prop_set_maximum(fn, 9999);
  json_t *schema;
  assert_int_equal(mcp_schema_builder_build(b, &schema), MCP_OK);
  assert_json_eq(
      schema,
      "{\"type\":\"object\",\"properties\":{"
      "\"airline_code\":{\"type\":\"string\",\"description\":\"Airline "
      "Code\",\"enum\":[\"AA\",\"LH\",\"BA\"]},"
      "\"flight_number\":{\"type\":\"integer\",\"description\":\"Flight "
      "Number\",\"minimum\":0,\"maximum\":9999}},"
      "\"required\":[\"airline_code\",\"flight_number\"]}");
  assert_meta_ok(schema);
  mcp_schema_t *s;
  assert_int_equal(mcp_schema_compile(schema, NULL, &s, NULL), MCP_OK);
  assert_true(valid(s, "{\"airline_code\":\"LH\",\"flight_number\":400}"));
  assert_false(valid(s, "{\"airline_code\":\"XX\",\"flight_number\":400}"));
  assert_false(valid(s, "{\"airline_code\":\"LH\",\"flight_number\":10000}"));
  assert_false(valid(s, "{\"airline_code\":\"LH\"}"));
  mcp_schema_free(s);
  json_decref(schema);
  mcp_schema_builder_free(b);
}

static void test_builder_every_refiner_and_nesting(void **state) {
  (void)state;
  mcp_schema_builder_t *b;
  assert_int_equal(mcp_schema_builder_new(&b), MCP_OK);
  mcp_schema_builder_set_description(b, "An order");
  mcp_schema_builder_set_additional_properties(b, false);
  mcp_schema_prop_t *id = mcp_schema_builder_add_string(b, "id", NULL, true);
  mcp_schema_prop_set_title(id, "Order id");
  mcp_schema_prop_set_min_length(id, 3);
  mcp_schema_prop_set_max_length(id, 12);
  mcp_schema_prop_set_pattern(id, "^[A-Z]+-\\d+$");
  mcp_schema_prop_t *when =
      mcp_schema_builder_add_string(b, "when", "Delivery time", false);
  mcp_schema_prop_set_format(when, "date-time");
  mcp_schema_prop_t *price =
      mcp_schema_builder_add_number(b, "price", NULL, false);
  mcp_schema_prop_set_minimum(price, 0.5);
  mcp_schema_prop_set_default(price, json_real(1.5));
  mcp_schema_builder_add_boolean(b, "gift", NULL, false);
  mcp_schema_prop_t *tags =
      mcp_schema_builder_add_array(b, "tags", NULL, false);
  mcp_schema_prop_set_min_items(tags, 1);
  mcp_schema_prop_set_max_items(tags, 5);
  mcp_schema_prop_set_max_length(mcp_schema_prop_items(tags, "string"), 10);
  mcp_schema_prop_t *lines =
      mcp_schema_builder_add_array(b, "lines", NULL, true);
  mcp_schema_builder_t *line = mcp_schema_prop_items_object(lines);
  mcp_schema_builder_add_string(line, "sku", NULL, true);
  mcp_schema_prop_set_minimum(
      mcp_schema_builder_add_integer(line, "qty", NULL, true), 1);
  mcp_schema_builder_t *addr =
      mcp_schema_builder_add_object(b, "address", "Ship to", false);
  mcp_schema_builder_add_string(addr, "city", NULL, true);
  json_t *schema;
  assert_int_equal(mcp_schema_builder_build(b, &schema), MCP_OK);
  assert_json_eq(
      schema,
      "{\"type\":\"object\",\"description\":\"An order\","
      "\"additionalProperties\":false,\"properties\":{"
      "\"id\":{\"type\":\"string\",\"title\":\"Order id\",\"minLength\":3,"
      "\"maxLength\":12,\"pattern\":\"^[A-Z]+-\\\\d+$\"},"
      "\"when\":{\"type\":\"string\",\"description\":\"Delivery time\","
      "\"format\":\"date-time\"},"
      "\"price\":{\"type\":\"number\",\"minimum\":0.5,\"default\":1.5},"
      "\"gift\":{\"type\":\"boolean\"},"
      "\"tags\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":5,"
      "\"items\":{\"type\":\"string\",\"maxLength\":10}},"
      "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
      "\"properties\":{\"sku\":{\"type\":\"string\"},\"qty\":{\"type\":"
      "\"integer\",\"minimum\":1}},\"required\":[\"sku\",\"qty\"]}},"
      "\"address\":{\"type\":\"object\",\"description\":\"Ship to\","
      "\"properties\":{\"city\":{\"type\":\"string\"}},"
      "\"required\":[\"city\"]}},"
      "\"required\":[\"id\",\"lines\"]}");
  assert_meta_ok(schema);
  mcp_schema_t *s;
  assert_int_equal(mcp_schema_compile(schema, NULL, &s, NULL), MCP_OK);
  assert_true(valid(s,
                    "{\"id\":\"AB-12\",\"lines\":[{\"sku\":\"x\",\"qty\":2}],"
                    "\"address\":{\"city\":\"Oslo\"},\"tags\":[\"a\"]}"));
  assert_false(valid(s, "{\"id\":\"ab-12\",\"lines\":[]}"));
  assert_false(
      valid(s, "{\"id\":\"AB-12\",\"lines\":[{\"sku\":\"x\",\"qty\":0}]}"));
  assert_false(valid(s, "{\"id\":\"AB-12\",\"lines\":[],\"extra\":1}"));
  mcp_schema_free(s);
  json_decref(schema);
  /* the builder stays usable after build */
  assert_int_equal(mcp_schema_builder_build(b, &schema), MCP_OK);
  json_decref(schema);
  mcp_schema_builder_free(b);
}

static void test_builder_rejects_duplicates_and_bad_item_type(void **state) {
  (void)state;
  mcp_schema_builder_t *b;
  json_t *schema = NULL;
  assert_int_equal(mcp_schema_builder_new(&b), MCP_OK);
  mcp_schema_builder_add_string(b, "a", NULL, false);
  mcp_schema_builder_add_integer(b, "a", NULL, false);
  assert_int_equal(mcp_schema_builder_build(b, &schema), MCP_ERR_INVALID_ARG);
  assert_null(schema);
  mcp_schema_builder_free(b);

  assert_int_equal(mcp_schema_builder_new(&b), MCP_OK);
  mcp_schema_prop_items(mcp_schema_builder_add_array(b, "x", NULL, false),
                        "colour");
  assert_int_equal(mcp_schema_builder_build(b, &schema), MCP_ERR_INVALID_ARG);
  mcp_schema_builder_free(b);

  /* NULL props are ignored by every refiner; a NULL default is NOMEM */
  mcp_schema_prop_set_minimum(NULL, 1);
  mcp_schema_prop_set_default(NULL, json_integer(3)); /* stolen: no leak */
  assert_int_equal(mcp_schema_builder_new(&b), MCP_OK);
  mcp_schema_prop_set_default(mcp_schema_builder_add_integer(b, "n", NULL, 0),
                              NULL);
  assert_int_equal(mcp_schema_builder_build(b, &schema), MCP_ERR_NOMEM);
  mcp_schema_builder_free(b);
}

static void test_builder_empty_object(void **state) {
  (void)state;
  mcp_schema_builder_t *b;
  json_t *schema;
  assert_int_equal(mcp_schema_builder_new(&b), MCP_OK);
  assert_int_equal(mcp_schema_builder_build(b, &schema), MCP_OK);
  assert_json_eq(schema, "{\"type\":\"object\",\"properties\":{}}");
  assert_meta_ok(schema);
  json_decref(schema);
  mcp_schema_builder_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builder_flight_schema),
      cmocka_unit_test(test_builder_every_refiner_and_nesting),
      cmocka_unit_test(test_builder_rejects_duplicates_and_bad_item_type),
      cmocka_unit_test(test_builder_empty_object),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
