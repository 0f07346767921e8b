/* SPDX-License-Identifier: MIT */
/* schema_vocab_test.c - the keyword tables of src/schema/vocab/ are switched
 * on and off by the dialect: $vocabulary of a custom meta-schema, draft-07,
 * the format-assertion vocabulary; both instance paths (jansson values and
 * text) agree. */
#include "testutil.h"

#include <string.h>

#include "mcp/schema.h"

#define VOCAB "https://json-schema.org/draft/2020-12/vocab/"

/* A registry with meta-schemas that list the vocabularies given. */
static mcp_schema_registry_t *registry(void) {
  static const struct {
    const char *uri, *vocabs;
  } metas[] = {
      {"https://example.com/meta/applicator-only",
       "\"" VOCAB "core\":true,\"" VOCAB "applicator\":true"},
      {"https://example.com/meta/no-unevaluated",
       "\"" VOCAB "core\":true,\"" VOCAB "applicator\":true,\"" VOCAB
       "validation\":true"},
      {"https://example.com/meta/full",
       "\"" VOCAB "core\":true,\"" VOCAB "applicator\":true,\"" VOCAB
       "validation\":true,\"" VOCAB "unevaluated\":true"},
      {"https://example.com/meta/format-assertion",
       "\"" VOCAB "core\":true,\"" VOCAB "format-assertion\":true"},
      {"https://example.com/meta/unknown-required",
       "\"" VOCAB "core\":true,\"https://example.com/vocab/mine\":true"},
      {"https://example.com/meta/unknown-optional",
       "\"" VOCAB "core\":true,\"" VOCAB
       "validation\":true,\"https://example.com/vocab/mine\":false"},
  };
  mcp_schema_registry_t *reg;
  assert_int_equal(mcp_schema_registry_new(&reg), MCP_OK);
  for (size_t i = 0; i < sizeof metas / sizeof metas[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text,
             "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
             "\"$id\":\"%s\",\"$vocabulary\":{%s}}",
             metas[i].uri, metas[i].vocabs);
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    assert_int_equal(mcp_schema_registry_add(reg, metas[i].uri, doc, NULL),
                     MCP_OK);
  }
  return reg;
}

static mcp_schema_t *compile_with(const char *text,
                                  const mcp_schema_registry_t *reg,
                                  mcp_status want, const char *msg) {
  mcp_schema_options_t *o;
  assert_int_equal(mcp_schema_options_new(&o), MCP_OK);
  mcp_schema_options_set_registry(o, reg);
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  mcp_status st = mcp_schema_compile_text(text, strlen(text), o, &s, &err);
  mcp_schema_options_free(o);
  if (st != want)
    fprintf(stderr, "compile: %s (%s)\n", err.message, err.pointer);
  assert_int_equal(st, want);
  if (msg != NULL)
    assert_string_equal(err.message, msg);
  return s;
}

/* Both paths agree; the verdict. */
static bool valid(const mcp_schema_t *s, const char *inst) {
  json_t *j = json_loads(inst, JSON_DECODE_ANY, NULL);
  assert_non_null(j);
  bool v = mcp_schema_is_valid(s, j);
  mcp_status detailed = mcp_schema_validate(s, j, NULL);
  assert_int_equal(detailed, v ? MCP_OK : MCP_ERR_INVALID);
  mcp_status text = mcp_schema_validate_text(s, inst, strlen(inst));
  assert_int_equal(text, v ? MCP_OK : MCP_ERR_INVALID);
  json_decref(j);
  return v;
}

#define SCHEMA(meta)                                                           \
  "{\"$schema\":\"" meta "\",\"type\":\"object\",\"properties\":{\"a\":"       \
  "{\"minimum\":5}},\"unevaluatedProperties\":false}"

static void test_vocabularies_switch_keywords(void **state) {
  (void)state;
  mcp_schema_registry_t *reg = registry();

  /* no validation, no unevaluated: type, minimum, unevaluatedProperties
   * compile to nothing; properties still applies */
  mcp_schema_t *s = compile_with(
      SCHEMA("https://example.com/meta/applicator-only"), reg, MCP_OK, NULL);
  assert_true(valid(s, "5"));
  assert_true(valid(s, "{\"a\":1,\"b\":2}"));
  mcp_schema_free(s);

  /* validation on: type and minimum assert; unevaluated still off */
  s = compile_with(SCHEMA("https://example.com/meta/no-unevaluated"), reg,
                   MCP_OK, NULL);
  assert_false(valid(s, "5"));
  assert_false(valid(s, "{\"a\":1}"));
  assert_true(valid(s, "{\"a\":6,\"b\":2}"));
  mcp_schema_free(s);

  /* everything on: the extra member is unevaluated */
  s = compile_with(SCHEMA("https://example.com/meta/full"), reg, MCP_OK, NULL);
  assert_true(valid(s, "{\"a\":6}"));
  assert_false(valid(s, "{\"a\":6,\"b\":2}"));
  mcp_schema_free(s);

  /* format-assertion: "format" asserts; without it, an annotation */
  s = compile_with("{\"$schema\":\"https://example.com/meta/format-assertion\","
                   "\"format\":\"email\"}",
                   reg, MCP_OK, NULL);
  assert_false(valid(s, "\"not an address\""));
  assert_true(valid(s, "\"a@example.com\""));
  mcp_schema_free(s);
  s = compile_with("{\"format\":\"email\"}", reg, MCP_OK, NULL);
  assert_true(valid(s, "\"not an address\""));
  mcp_schema_free(s);

  /* an unknown vocabulary: required is an error, optional is ignored */
  s = compile_with(
      "{\"$schema\":\"https://example.com/meta/unknown-required\"}", reg,
      MCP_ERR_SCHEMA,
      "unsupported required vocabulary "
      "\"https://example.com/vocab/mine\"");
  assert_null(s);
  s = compile_with("{\"$schema\":\"https://example.com/meta/unknown-optional\","
                   "\"maxLength\":2}",
                   reg, MCP_OK, NULL);
  assert_false(valid(s, "\"abc\""));
  mcp_schema_free(s);
  mcp_schema_registry_free(reg);
}

static void test_draft07_keyword_rows(void **state) {
  (void)state;
  /* 2019+ keywords are not keywords of draft-07; $ref hides its siblings */
  mcp_schema_t *s = compile_with(
      "{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
      "\"dependentRequired\":{\"a\":[\"b\"]},\"unevaluatedProperties\":false,"
      "\"properties\":{\"r\":{\"$ref\":\"#/definitions/n\",\"minimum\":10}},"
      "\"definitions\":{\"n\":{\"type\":\"number\"}}}",
      NULL, MCP_OK, NULL);
  assert_true(valid(s, "{\"a\":1,\"x\":2,\"r\":3}"));
  assert_false(valid(s, "{\"r\":\"3\"}"));
  mcp_schema_free(s);
  /* the same keywords in 2020-12 */
  s = compile_with("{\"dependentRequired\":{\"a\":[\"b\"]},"
                   "\"unevaluatedProperties\":false,\"properties\":{\"r\":{"
                   "\"$ref\":\"#/$defs/n\",\"minimum\":10},\"a\":true,"
                   "\"b\":true},\"$defs\":{\"n\":{\"type\":\"number\"}}}",
                   NULL, MCP_OK, NULL);
  assert_false(valid(s, "{\"a\":1}"));
  assert_false(valid(s, "{\"x\":2}"));
  assert_false(valid(s, "{\"r\":3}"));
  assert_true(valid(s, "{\"a\":1,\"b\":2,\"r\":30}"));
  mcp_schema_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vocabularies_switch_keywords),
      cmocka_unit_test(test_draft07_keyword_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
