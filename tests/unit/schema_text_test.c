/* SPDX-License-Identifier: MIT */
/* schema_text_test.c - mcp_schema_validate_text: the text parser accepts
 * exactly what it should (JSONTestSuite, and agreement with jansson), hostile
 * text fails cleanly, duplicate keys count once with their last value, and
 * verdicts match mcp_schema_is_valid on the same values. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/schema.h"
#include "json/load.h"

/* What json_loadb accepts with the flags the JSON-RPC layer uses. */
#define JANSSON_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

static mcp_schema_t *compile_ok(const char *text) {
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  mcp_status st = mcp_schema_compile_text(text, strlen(text), NULL, &s, &err);
  if (st != MCP_OK)
    fprintf(stderr, "compile: %s (%s)\n", err.message, err.pointer);
  assert_int_equal(st, MCP_OK);
  return s;
}

static mcp_status text_status(const mcp_schema_t *s, const char *json) {
  return mcp_schema_validate_text(s, json, strlen(json));
}

/* What json_loadb accepts, with the documented departures (json/load.h:
 * raw NUL bytes refused, integers beyond int64 read as reals) applied by
 * tu_loadb_rules. */
static bool jansson_accepts(const char *buf, size_t len) {
  json_t *j = tu_loadb_rules(buf, len, NULL);
  json_decref(j);
  return j != NULL;
}

/* The known difference left: jansson refuses "\u0000" in keys (its keys
 * are C strings); the tape accepts RFC 8259's JSON there. */
static bool known_difference(const char *buf, size_t len) {
  json_error_t e;
  json_t *j = tu_loadb_rules(buf, len, &e);
  json_decref(j);
  return j == NULL && strstr(e.text, "NUL byte in object key") != NULL;
}

typedef struct suite_tally {
  mcp_schema_t *any;
  size_t y, n, i, bad;
} suite_tally;

/* y_ files must be accepted, n_ rejected, i_ as jansson decides; y_ and
 * n_ must also agree with jansson, but for the known difference. */
static void check_file(const char *name, const char *text, size_t len,
                       void *ud) {
  suite_tally *t = ud;
  char kind = name[0];
  if ((kind != 'y' && kind != 'n' && kind != 'i') || name[1] != '_')
    return;
  mcp_status st = mcp_schema_validate_text(t->any, text, len);
  bool ok = st == MCP_OK;
  bool want;
  if (kind == 'y') {
    want = true;
    t->y++;
  } else if (kind == 'n') {
    want = false;
    t->n++;
  } else {
    want = jansson_accepts(text, len);
    t->i++;
  }
  if (ok != want) {
    printf("FAIL %s: %s, expected %s\n", name, mcp_status_name(st),
           want ? "accepted" : "rejected");
    t->bad++;
  } else if (ok != jansson_accepts(text, len) && !known_difference(text, len)) {
    printf("JANSSON %s: tape %s, jansson the opposite\n", name,
           mcp_status_name(st));
    t->bad++;
  }
}

static void test_json_test_suite(void **state) {
  (void)state;
  suite_tally t = {compile_ok("true"), 0, 0, 0, 0};
  if (tu_json_suite_each("test_parsing", check_file, &t) == 0) {
    mcp_schema_free(t.any);
    skip();
  }
  printf("JSONTestSuite: %zu y_, %zu n_, %zu i_ files, %zu failures\n", t.y,
         t.n, t.i, t.bad);
  assert_true(t.y > 90 && t.n > 180 && t.i > 30);
  assert_int_equal(t.bad, 0);
  mcp_schema_free(t.any);
}

static char *nested(size_t depth, char open, char close) {
  char *b = malloc(2 * depth + 1);
  assert_non_null(b);
  memset(b, open, depth);
  memset(b + depth, close, depth);
  b[2 * depth] = '\0';
  return b;
}

static void test_deep_nesting(void **state) {
  (void)state;
  mcp_schema_t *any = compile_ok("true");
  mcp_schema_t *rec = compile_ok("{\"items\":{\"$ref\":\"#\"}}");
  char *deep = nested(10000, '[', ']');
  assert_int_equal(text_status(any, deep), MCP_ERR_TOO_DEEP);
  free(deep);
  deep = nested(100000, '{', '}');
  assert_int_equal(text_status(any, deep), MCP_ERR_PARSE); /* {{ is bad */
  free(deep);
  /* jansson's limit, exactly: accepted; the evaluation depth limit (1000
   * schemas) then makes the recursive schema fail cleanly */
  deep = nested(2048, '[', ']');
  assert_int_equal(text_status(any, deep), MCP_OK);
  assert_int_equal(text_status(rec, deep), MCP_ERR_INVALID);
  json_t *j = json_loads(deep, 0, NULL);
  assert_non_null(j);
  assert_false(mcp_schema_is_valid(rec, j));
  json_decref(j);
  free(deep);
  deep = nested(2049, '[', ']');
  assert_int_equal(text_status(any, deep), MCP_ERR_TOO_DEEP);
  assert_false(jansson_accepts(deep, strlen(deep)));
  free(deep);
  deep = nested(500, '[', ']');
  assert_int_equal(text_status(rec, deep), MCP_OK);
  free(deep);
  mcp_schema_free(any);
  mcp_schema_free(rec);
}

static void test_huge_strings(void **state) {
  (void)state;
  size_t n = 8u << 20;
  char *b = malloc(n + 16);
  assert_non_null(b);
  b[0] = '"';
  for (size_t k = 1; k <= n; k++)
    b[k] = (char)('a' + k % 26);
  memcpy(b + 1 + n, "\"", 2);
  mcp_schema_t *s = compile_ok("{\"type\":\"string\",\"minLength\":8388608}");
  assert_int_equal(mcp_schema_validate_text(s, b, n + 2), MCP_OK);
  mcp_schema_free(s);
  s = compile_ok("{\"type\":\"string\",\"maxLength\":8388607}");
  assert_int_equal(mcp_schema_validate_text(s, b, n + 2), MCP_ERR_INVALID);
  /* escapes all along: the decoded copy path, 2 bytes of text each */
  for (size_t k = 1; k + 1 <= n; k += 2)
    memcpy(b + k, "\\n", 2);
  assert_int_equal(mcp_schema_validate_text(s, b, n + 2), MCP_OK);
  mcp_schema_free(s);
  s = compile_ok("{\"pattern\":\"^\\n+$\"}");
  assert_int_equal(mcp_schema_validate_text(s, b, n + 2), MCP_OK);
  b[n] = 'x';
  assert_int_equal(mcp_schema_validate_text(s, b, n + 2), MCP_ERR_PARSE);
  mcp_schema_free(s);
  free(b);
}

static void test_invalid_utf8(void **state) {
  (void)state;
  mcp_schema_t *any = compile_ok("true");
  static const char *const bad[] = {
      "\"\x80\"",             /* lone continuation */
      "\"\xC0\xAF\"",         /* overlong '/' */
      "\"\xC1\xBF\"",         /* overlong */
      "\"\xE0\x80\xAF\"",     /* overlong */
      "\"\xED\xA0\x80\"",     /* encoded surrogate U+D800 */
      "\"\xF4\x90\x80\x80\"", /* beyond U+10FFFF */
      "\"\xF5\x80\x80\x80\"",
      "\"\xFF\"",
      "\"\xE2\x82\"",  /* truncated sequence */
      "\"\xE2\x82\"x", /* truncated, then more */
      "\"\\uD800\"",   /* lone high surrogate */
      "\"\\uDC00\"",   /* lone low surrogate */
      "\"\\uD800\\u0041\"",
      "\"\\uD800\\\"",
      "{\"\xC3\":1}",   /* in a key */
      "\xEF\xBB\xBF{}", /* byte order mark */
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    assert_int_equal(text_status(any, bad[k]), MCP_ERR_PARSE);
    assert_false(jansson_accepts(bad[k], strlen(bad[k])));
  }
  static const char *const good[] = {
      "\"\xC3\xA9\"",       "\"\xE2\x82\xAC\"", "\"\xF0\x9F\x98\x80\"",
      "\"\\uD83D\\uDE00\"", "\"\xEF\xBF\xBF\"", "\"\\u0000\"",
  };
  for (size_t k = 0; k < sizeof good / sizeof good[0]; k++)
    assert_int_equal(text_status(any, good[k]), MCP_OK);
  /* the decoded escape equals the raw character */
  mcp_schema_t *s = compile_ok("{\"const\":\"\xF0\x9F\x98\x80\xC3\xA9\"}");
  assert_int_equal(text_status(s, "\"\\uD83D\\uDE00\\u00e9\""), MCP_OK);
  assert_int_equal(text_status(s, "\"\\uD83D\\uDE00\\u00e8\""),
                   MCP_ERR_INVALID);
  mcp_schema_free(s);
  mcp_schema_free(any);
}

/* Every prefix of a document: the same acceptance as jansson (most are
 * parse errors), and never a read past the given length (ASan). */
static void test_truncated(void **state) {
  (void)state;
  mcp_schema_t *any = compile_ok("true");
  static const char *const docs[] = {
      "{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\n\"], \"b\": {}}",
      "[123456789012345678, 0.1, -0, 1E+2, \"\xF0\x9F\x98\x80\"]",
      "-1234.5678e-12",
  };
  for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
    size_t len = strlen(docs[k]);
    for (size_t cut = 0; cut <= len; cut++) {
      char *b = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
      assert_non_null(b);
      memcpy(b, docs[k], cut);
      mcp_status st = mcp_schema_validate_text(any, b, cut);
      bool j = jansson_accepts(b, cut);
      if ((st == MCP_OK) != j)
        printf("prefix %zu of doc %zu: %s, jansson %d\n", cut, k,
               mcp_status_name(st), j);
      assert_int_equal(st == MCP_OK, j);
      if (st != MCP_OK)
        assert_int_equal(st, MCP_ERR_PARSE);
      free(b);
    }
  }
  assert_int_equal(mcp_schema_validate_text(any, NULL, 0), MCP_ERR_PARSE);
  assert_int_equal(mcp_schema_validate_text(any, NULL, 1), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_schema_validate_text(NULL, "1", 1), MCP_ERR_INVALID_ARG);
  mcp_schema_free(any);
}

/* Issue #16 item 15: schema.h promised json_loadb's acceptance, but
 * json_loadb takes "123\0" and validate_text refuses it. Both refuse now:
 * the text path and the loader requests go through. */
static void test_raw_nul_after_value(void **state) {
  (void)state;
  mcp_schema_t *any = compile_ok("true");
  static const struct {
    const char *text;
    size_t len;
  } docs[] = {{"123\0", 4}, {"true\0", 5}, {"[1\0]", 4}, {"\"a\"\0", 4}};
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    assert_int_equal(mcp_schema_validate_text(any, docs[i].text, docs[i].len),
                     MCP_ERR_PARSE);
    json_t *v = mcp__json_load(docs[i].text, docs[i].len, NULL);
    assert_null(v);
  }
  mcp_schema_free(any);
}

static void test_numbers(void **state) {
  (void)state;
  mcp_schema_t *any = compile_ok("true");
  assert_int_equal(text_status(any, "9223372036854775807"), MCP_OK);
  assert_int_equal(text_status(any, "-9223372036854775808"), MCP_OK);
  /* beyond int64: a real (issue #16 item 13), not a parse error */
  assert_int_equal(text_status(any, "9223372036854775808"), MCP_OK);
  assert_int_equal(text_status(any, "-9223372036854775809"), MCP_OK);
  assert_int_equal(text_status(any, "1e309"), MCP_ERR_PARSE);
  assert_int_equal(text_status(any, "1e-400"), MCP_OK); /* underflow: 0 */
  assert_int_equal(text_status(any, "01"), MCP_ERR_PARSE);
  assert_int_equal(text_status(any, "1."), MCP_ERR_PARSE);
  assert_int_equal(text_status(any, ".5"), MCP_ERR_PARSE);
  assert_int_equal(text_status(any, "+1"), MCP_ERR_PARSE);
  mcp_schema_t *s = compile_ok("{\"multipleOf\":0.01}");
  assert_int_equal(text_status(s, "19.99"), MCP_OK);
  assert_int_equal(text_status(s, "19.995"), MCP_ERR_INVALID);
  mcp_schema_free(s);
  s = compile_ok("{\"type\":\"integer\",\"maximum\":9007199254740993}");
  assert_int_equal(text_status(s, "9007199254740993"), MCP_OK);
  assert_int_equal(text_status(s, "9007199254740994"), MCP_ERR_INVALID);
  assert_int_equal(text_status(s, "1.0"), MCP_OK);
  assert_int_equal(text_status(s, "1.5"), MCP_ERR_INVALID);
  mcp_schema_free(s);
  /* the same verdicts as the values the request loader builds */
  s = compile_ok("{\"type\":\"integer\",\"minimum\":1e19}");
  assert_int_equal(text_status(s, "18446744073709551615"), MCP_OK);
  assert_int_equal(text_status(s, "-18446744073709551615"), MCP_ERR_INVALID);
  assert_int_equal(text_status(s, "{}"), MCP_ERR_INVALID);
  mcp_schema_free(s);
  s = compile_ok("{\"const\":18446744073709551615}"); /* schema text too */
  assert_int_equal(text_status(s, "18446744073709551615"), MCP_OK);
  assert_int_equal(text_status(s, "1.8446744073709552e19"), MCP_OK);
  assert_int_equal(text_status(s, "1"), MCP_ERR_INVALID);
  json_t *v = mcp__json_load("18446744073709551615", 20, NULL);
  assert_true(json_is_real(v));
  assert_true(mcp_schema_is_valid(s, v));
  json_decref(v);
  mcp_schema_free(s);
  s = compile_ok("{\"enum\":[1,[2.0],{\"a\":-0.0}]}");
  assert_int_equal(text_status(s, "1.0"), MCP_OK);
  assert_int_equal(text_status(s, "[2]"), MCP_OK);
  assert_int_equal(text_status(s, "{\"a\":0}"), MCP_OK);
  assert_int_equal(text_status(s, "{\"a\":0,\"b\":0}"), MCP_ERR_INVALID);
  mcp_schema_free(s);
  /* reals parsed by the exact fast path and by strtod agree with jansson */
  static const char *const reals[] = {"0.1",
                                      "123.456e-7",
                                      "1.7976931348623157e308",
                                      "4.9e-324",
                                      "9007199254740993.0",
                                      "0.30000000000000004",
                                      "-2.5E+21",
                                      "1e22",
                                      "1e23",
                                      "12345678901234567890.5",
                                      "0.000000000000000000001"};
  for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++) {
    json_t *j = json_loads(reals[k], JSON_DECODE_ANY, NULL);
    assert_non_null(j);
    char schema[128];
    snprintf(schema, sizeof schema, "{\"const\":%.17g}", json_real_value(j));
    mcp_schema_t *c = compile_ok(schema);
    assert_int_equal(text_status(c, reals[k]), MCP_OK);
    json_decref(j);
    mcp_schema_free(c);
  }
  mcp_schema_free(any);
}

static void test_duplicate_keys(void **state) {
  (void)state;
  /* the last value counts, as in jansson */
  mcp_schema_t *s = compile_ok(
      "{\"properties\":{\"a\":{\"type\":\"string\"}},\"maxProperties\":1}");
  assert_int_equal(text_status(s, "{\"a\":1,\"a\":\"x\"}"), MCP_OK);
  assert_int_equal(text_status(s, "{\"a\":\"x\",\"a\":1}"), MCP_ERR_INVALID);
  assert_int_equal(text_status(s, "{\"a\":\"x\",\"a\":\"y\",\"a\":\"z\"}"),
                   MCP_OK);
  assert_int_equal(text_status(s, "{\"a\":\"x\",\"\\u0061\":\"y\"}"), MCP_OK);
  mcp_schema_free(s);
  s = compile_ok("{\"minProperties\":2}");
  assert_int_equal(text_status(s, "{\"a\":1,\"a\":2}"), MCP_ERR_INVALID);
  mcp_schema_free(s);
  s = compile_ok("{\"uniqueItems\":true}");
  assert_int_equal(text_status(s, "[{\"a\":1,\"a\":2},{\"a\":2}]"),
                   MCP_ERR_INVALID);
  assert_int_equal(text_status(s, "[{\"a\":1,\"a\":2},{\"a\":1}]"), MCP_OK);
  mcp_schema_free(s);
  s = compile_ok("{\"const\":{\"a\":2}}");
  assert_int_equal(text_status(s, "{\"a\":1,\"a\":2}"), MCP_OK);
  mcp_schema_free(s);
  s = compile_ok("{\"properties\":{\"a\":true},\"unevaluatedProperties\":"
                 "false,\"propertyNames\":{\"maxLength\":1}}");
  assert_int_equal(text_status(s, "{\"a\":1,\"a\":2}"), MCP_OK);
  assert_int_equal(text_status(s, "{\"a\":1,\"b\":2,\"a\":3}"),
                   MCP_ERR_INVALID);
  mcp_schema_free(s);
  /* more than 16 members: the hashed duplicate check */
  char big[2048];
  size_t o = 0;
  o += (size_t)snprintf(big + o, sizeof big - o, "{");
  for (int k = 0; k < 40; k++)
    o += (size_t)snprintf(big + o, sizeof big - o, "\"k%d\":%d,", k % 20, k);
  snprintf(big + o - 1, sizeof big - o + 1, "}");
  s = compile_ok("{\"maxProperties\":20,\"minProperties\":20,"
                 "\"properties\":{\"k3\":{\"const\":23}}}");
  assert_int_equal(text_status(s, big), MCP_OK);
  json_t *j = json_loads(big, 0, NULL);
  assert_true(mcp_schema_is_valid(s, j));
  json_decref(j);
  mcp_schema_free(s);
}

/* Mutated documents: the tape accepts what jansson accepts and gives the
 * verdict mcp_schema_is_valid gives on jansson's value. */
static void test_differential(void **state) {
  (void)state;
  mcp_schema_t *s = compile_ok(
      "{\"type\":[\"object\",\"array\",\"string\",\"number\"],"
      "\"properties\":{\"a\":{\"type\":\"integer\",\"minimum\":-5},"
      "\"b\":{\"enum\":[\"x\",[1,2],{\"c\":null}]},"
      "\"c\":{\"type\":\"array\",\"uniqueItems\":true,\"maxItems\":4}},"
      "\"patternProperties\":{\"^d\":{\"type\":\"string\",\"maxLength\":3}},"
      "\"items\":{\"multipleOf\":0.5},\"maxLength\":5,"
      "\"dependentRequired\":{\"a\":[\"b\"]}}");
  static const char *const seeds[] = {
      "{\"a\": 1, \"b\": \"x\", \"c\": [1, 2, {\"x\": 1}], \"dd\": \"ab\"}",
      "[0.5, 1, 1.5e0, -2, 3.25]",
      "{\"b\": [1, 2], \"a\": -5, \"c\": [[1], [1.0]]}",
      "\"abc\\u00e9\"",
      "{\"b\": {\"c\": null}, \"d\\u00e9\": \"\xC3\xA9\", \"a\": 7}",
      "{\"a\": 9223372036854775807, \"c\": [18446744073709551615, 1]}",
  };
  uint64_t x = 0x9E3779B97F4A7C15ull;
  const char alphabet[] = "{}[],:\"\\0123456789.eE+-truefalsn \x80\xC3\xA9";
  size_t runs = 0;
  for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
    size_t len = strlen(seeds[k]);
    for (int m = 0; m < 3000; m++) {
      char b[256];
      memcpy(b, seeds[k], len);
      size_t n = len;
      tu_mutate(b, &n, sizeof b, alphabet, &x);
      json_t *j = tu_loadb_rules(b, n, NULL);
      mcp_status st = mcp_schema_validate_text(s, b, n);
      if (j == NULL) {
        if (st != MCP_ERR_PARSE && !known_difference(b, n)) {
          printf("accepted what jansson rejects: %.*s\n", (int)n, b);
          fail();
        }
        continue;
      }
      bool v = mcp_schema_is_valid(s, j);
      if (st != (v ? MCP_OK : MCP_ERR_INVALID)) {
        printf("verdict %s, jansson path %d: %.*s\n", mcp_status_name(st), v,
               (int)n, b);
        fail();
      }
      json_decref(j);
      runs++;
    }
  }
  printf("differential: %zu parsed mutants agree\n", runs);
  assert_true(runs > 100);
  mcp_schema_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_test_suite),
      cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_huge_strings),
      cmocka_unit_test(test_invalid_utf8),
      cmocka_unit_test(test_truncated),
      cmocka_unit_test(test_raw_nul_after_value),
      cmocka_unit_test(test_numbers),
      cmocka_unit_test(test_duplicate_keys),
      cmocka_unit_test(test_differential),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
