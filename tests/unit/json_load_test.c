/* SPDX-License-Identifier: MIT */
/* json_load_test.c - mcp__json_load (tape, then jansson values) is
 * json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL) but for the documented
 * differences of load.h: the same documents accepted, values identical down
 * to integer vs real, string bytes and key order, and on failure jansson's
 * own error text, line and column. Checked on every JSONTestSuite file and
 * on seeded random mutations. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/load.h"
#include "json/tape.h"

#define JANSSON_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

static void count_disagreement(const char *name, const char *text, size_t len,
                               void *ud) {
  *(size_t *)ud += !tu_json_load_agrees(text, len, name);
}

static void test_json_test_suite(void **state) {
  (void)state;
  size_t bad = 0;
  size_t files = tu_json_suite_each("test_parsing", count_disagreement, &bad) +
                 tu_json_suite_each("test_transform", count_disagreement, &bad);
  printf("JSONTestSuite: %zu files, %zu differences\n", files, bad);
  if (files == 0)
    skip();
  assert_true(files > 300);
  assert_int_equal(bad, 0);
}

static void test_cases_the_tape_hands_to_jansson(void **state) {
  (void)state;
  /* "\u0000" in a key: jansson refuses it, so must we, with its error */
  json_error_t e;
  const char *nul_key = "{\"a\\u0000b\": 1}";
  assert_null(mcp__json_load(nul_key, strlen(nul_key), &e));
  assert_int_equal(json_error_code(&e), json_error_null_byte_in_key);
  assert_true(tu_json_load_agrees(nul_key, strlen(nul_key), "NUL in key"));
  /* a raw NUL byte after the value: jansson skips it, we refuse */
  assert_true(tu_json_load_agrees("123\0", 4, "raw NUL after a value"));
  assert_true(
      tu_json_load_agrees("{\"a\":1}\0garbage", 15, "raw NUL then garbage"));
  /* errors keep jansson's text and position */
  assert_true(tu_json_load_agrees("{\"a\":}", 6, "missing value"));
  assert_true(tu_json_load_agrees("[1,2", 4, "truncated"));
  assert_true(
      tu_json_load_agrees("18446744073709551616", 20, "integer overflow"));
  assert_true(tu_json_load_agrees("[1,18446744073709551616,}", 25,
                                  "bigint, then error"));
  assert_true(tu_json_load_agrees("", 0, "empty"));
}

/* Issue #16 item 15: jansson's lexer skips a raw NUL byte that follows a
 * number or literal; the loader of requests refuses it, as the tape (and so
 * mcp_schema_validate_text) does. */
static void test_raw_nul_refused(void **state) {
  (void)state;
  static const struct {
    const char *text;
    size_t len;
  } docs[] = {{"123\0", 4},    {"true\0", 5}, {"1.5\0 ", 5},     {"[1\0]", 4},
              {"[null\0]", 7}, {"\0", 1},     {"{\"a\":1\0}", 8}};
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    json_error_t e;
    json_t *v = mcp__json_load(docs[i].text, docs[i].len, &e);
    if (v != NULL)
      printf("accepted: case %zu\n", i);
    assert_null(v);
    assert_true(e.text[0] != '\0'); /* an error message either way */
  }
  /* a request carrying one is a parse error, not a ping */
  static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1\0,\"method\":"
                            "\"ping\"}";
  assert_null(mcp__json_load(req, sizeof req - 1, NULL));
}

/* Issue #16 item 13: an integer beyond int64 is valid JSON; it loads as the
 * real nearest to it instead of failing the whole document. */
static void test_big_integers_are_reals(void **state) {
  (void)state;
  static const struct {
    const char *text;
    double value;
  } cases[] = {
      {"18446744073709551615", 18446744073709551615.0},
      {"9223372036854775808", 9223372036854775808.0},
      {"-9223372036854775809", -9223372036854775809.0},
      {"123456789012345678901234567890", 123456789012345678901234567890.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    json_error_t e;
    json_t *v = mcp__json_load(cases[i].text, strlen(cases[i].text), &e);
    assert_non_null(v);
    assert_true(json_is_real(v));
    assert_true(json_real_value(v) == cases[i].value);
    json_decref(v);
    assert_true(tu_json_load_agrees(cases[i].text, strlen(cases[i].text),
                                    cases[i].text));
  }
  /* the edges of int64 stay integers */
  json_t *v =
      mcp__json_load("[9223372036854775807,-9223372036854775808]", 42, NULL);
  assert_true(json_is_integer(json_array_get(v, 0)));
  assert_true(json_is_integer(json_array_get(v, 1)));
  json_decref(v);
  /* a request with one parses, id and all */
  const char *req = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                    "\"params\":{\"name\":\"add\",\"arguments\":{\"a\":"
                    "18446744073709551615,\"b\":1}}}";
  v = mcp__json_load(req, strlen(req), NULL);
  assert_non_null(v);
  assert_int_equal(json_integer_value(json_object_get(v, "id")), 3);
  json_decref(v);
  /* beyond a double's range: refused, as an overflowing real is */
  char huge[400];
  memset(huge, '9', sizeof huge - 1);
  huge[sizeof huge - 1] = '\0';
  assert_null(mcp__json_load(huge, strlen(huge), NULL));
  assert_true(tu_json_load_agrees(huge, strlen(huge), "huge"));
  /* a NUL key still reads as one, even after a big integer */
  json_error_t e;
  const char *nul_key = "{\"n\":18446744073709551616,\"a\\u0000\":1}";
  assert_null(mcp__json_load(nul_key, strlen(nul_key), &e));
  assert_int_equal(json_error_code(&e), json_error_null_byte_in_key);
}

static void test_values(void **state) {
  (void)state;
  static const char *const docs[] = {
      "{\"a\":1,\"b\":2,\"a\":3}", /* duplicate: last value, first position */
      "{\"\":\"\",\"x\":[]}",      /* empty key and string */
      /* empty keys repeated, and a one-byte escaped key that a NUL-free
       * key's bytes resemble: the key bits of tape.c see their quotes */
      "{\"\":1,\"x\":2,\"\":3,\"\\u0022\":4,\"\\\"\":5,\"\\u0000\":6}",
      "{\"\":{\"\":[]} , \"\" : {\"a\":{},\"\":0}}",
      "[1,1.0,-0,-0.0,1e2,1E-2,9223372036854775807,-9223372036854775808]",
      "[0.1,2.2250738585072014e-308,1.7976931348623157e308,5e-324]",
      "\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\\u0000x\"",
      "{\"k\":{\"k\":{\"k\":[null,true,false,{}]}}}",
      "  \t\r\n 42 \n",
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
    assert_true(tu_json_load_agrees(docs[i], strlen(docs[i]), docs[i]));
  /* nesting at and beyond jansson's limit of 2048 */
  for (size_t depth = 2047; depth <= 2049; depth++) {
    char *b = malloc(2 * depth);
    assert_non_null(b);
    memset(b, '[', depth);
    memset(b + depth, ']', depth);
    assert_true(tu_json_load_agrees(b, 2 * depth, "deep"));
    free(b);
  }
}

static void test_mutations(void **state) {
  (void)state;
  static const char *const seeds[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2.5e1},\"_meta\":{"
      "\"progressToken\":\"p\"}}}",
      "[0.5, 1, 1.5e0, -2, 3.25, true, null, \"s\\u00e9\"]",
      /* at and around the int64 edges, so mutants cross them both ways */
      "[9223372036854775807,-9223372036854775808,18446744073709551615]",
      "{\"b\": {\"c\": null}, \"d\\u00e9\": \"\xC3\xA9\", \"a\": 7, \"a\": 8}",
  };
  uint64_t x = 0x2545F4914F6CDD1Dull;
  const char alphabet[] = "{}[],:\"\\0123456789.eE+-truefalsnu \x80\xC3\xA9";
  size_t parsed = 0, total = 0;
  for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
    size_t len = strlen(seeds[k]);
    for (int m = 0; m < 5000; m++) {
      char b[512];
      memcpy(b, seeds[k], len);
      size_t n = len;
      tu_mutate(b, &n, sizeof b, alphabet, &x);
      json_t *j = json_loadb(b, n, JANSSON_FLAGS, NULL);
      parsed += j != NULL;
      json_decref(j);
      total++;
      if (!tu_json_load_agrees(b, n, "mutant")) {
        printf("mutant: %.*s\n", (int)n, b);
        fail();
      }
    }
  }
  printf("mutations: %zu documents, %zu parse\n", total, parsed);
  assert_true(parsed > 500);
}

/* The string scan steps 16 or 8 bytes at a time (tape.c): each byte that
 * stops it (quote, backslash, control character, the bytes of UTF-8, a
 * byte no UTF-8 has) at every offset of strings long enough for both
 * steps, and the same strings cut short at every length. */
static void test_string_scan_steps(void **state) {
  (void)state;
  static const char *const specials[] = {"\"", "\\n", "\\u00e9", "\x01",
                                         "\x1f", "\xC3\xA9", "\xE2\x82\xAC",
                                         "\xF0\x9F\x98\x80", "\xC3", "\xFF",
                                         "\x7f", " "};
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
    for (size_t at = 0; at < 40; at++) {
      char b[128];
      size_t n = 0;
      b[n++] = '[';
      b[n++] = '"';
      for (size_t i = 0; i < at; i++)
        b[n++] = (char)('a' + i % 26);
      size_t sl = strlen(specials[k]);
      memcpy(b + n, specials[k], sl);
      n += sl;
      for (size_t i = 0; i < 20; i++)
        b[n++] = 'z';
      b[n++] = '"';
      b[n++] = ']';
      for (size_t cut = 2; cut <= n; cut++)
        if (!tu_json_load_agrees(b, cut, "string scan")) {
          printf("string scan: %.*s\n", (int)cut, b);
          fail();
        }
    }
}

/* A kept subtree's strings are copies of the originals at every length
 * (tape_keep copies short ones with overlapping loads: 0-3, 4-7, 8-16 bytes
 * and memcpy above), as keys and as values, each next to the others so a
 * copy too long would show in its neighbour. */
static void test_keep_copies_every_length(void **state) {
  (void)state;
  char text[4096];
  size_t n = 0;
  text[n++] = '{';
  for (size_t len = 0; len <= 40; len++) {
    if (len > 0)
      text[n++] = ',';
    text[n++] = '"';
    for (size_t i = 0; i < len; i++)
      text[n++] = (char)('A' + (len + i) % 26);
    n += (size_t)sprintf(text + n, "%zu\":\"", len); /* keys distinct */
    for (size_t i = 0; i < len; i++)
      text[n++] = (char)('a' + (len * 7 + i) % 26);
    text[n++] = '"';
  }
  text[n++] = '}';
  mcp__tape t;
  assert_int_equal(mcp__tape_parse(&t, text, n), MCP_OK);
  mcp__kept_tape *k = mcp__tape_keep(t.nodes);
  assert_non_null(k);
  assert_int_equal(k->count, t.nodes[0].skip);
  char *copy = malloc(n); /* the text gone: the kept strings must not care */
  assert_non_null(copy);
  for (size_t i = 0; i < k->count; i++) {
    assert_int_equal(k->nodes[i].type, t.nodes[i].type);
    if (t.nodes[i].type != MCP__J_STRING)
      continue;
    assert_int_equal(k->nodes[i].n, t.nodes[i].n);
    assert_memory_equal(k->nodes[i].v.s, t.nodes[i].v.s, t.nodes[i].n);
  }
  memcpy(copy, text, n);
  memset(text, '#', n);
  for (size_t i = 1; i < k->count; i += 2) {
    const mcp__tnode *key = &k->nodes[i], *value = &k->nodes[i + 1];
    size_t len = value->n;
    for (size_t j = 0; j < len; j++) {
      assert_int_equal(key->v.s[j], (char)('A' + (len + j) % 26));
      assert_int_equal(value->v.s[j], (char)('a' + (len * 7 + j) % 26));
    }
  }
  free(copy);
  free(k);
  mcp__tape_release(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_test_suite),
      cmocka_unit_test(test_cases_the_tape_hands_to_jansson),
      cmocka_unit_test(test_raw_nul_refused),
      cmocka_unit_test(test_big_integers_are_reals),
      cmocka_unit_test(test_values),
      cmocka_unit_test(test_mutations),
      cmocka_unit_test(test_string_scan_steps),
      cmocka_unit_test(test_keep_copies_every_length),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
