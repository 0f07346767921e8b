/* SPDX-License-Identifier: MIT */
/* buf_json_test.c - mcp__buf_append_json writes what jansson's
 * json_dumps(JSON_COMPACT | JSON_ENCODE_ANY) writes, byte for byte: on
 * every JSONTestSuite document jansson reads, on hand-made values (escapes,
 * NUL bytes, non-ASCII keys and strings, integer limits, reals, deep
 * nesting), and it fails where jansson fails (invalid UTF-8, cycles)
 * leaving the buffer as it was. */
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY)

/* Appends v after a prefix and compares with jansson; prints a difference. */
static bool agrees(const json_t *v, const char *label) {
  char *want = json_dumps(v, DUMP_FLAGS);
  mcp__buf b;
  mcp__buf_init(&b);
  assert_true(mcp__buf_append_str(&b, "x="));
  bool ok = mcp__buf_append_json(&b, v, 0);
  bool same = want ? ok && b.len == 2 + strlen(want) &&
                         memcmp(b.data + 2, want, b.len - 2) == 0 &&
                         b.data[b.len] == '\0'
                   : !ok && b.len == 2 && strcmp(b.data, "x=") == 0;
  if (!same)
    printf("DIFFERENT %s: jansson %s, mcp__buf_append_json %s\n", label,
           want ? want : "(fails)", ok ? b.data + 2 : "(fails)");
  free(want);
  mcp__buf_free(&b);
  return same;
}

static void test_hand_made(void **state) {
  (void)state;
  static const char *const docs[] = {
      "{}",
      "[]",
      "\"\"",
      "0",
      "-1",
      "9223372036854775807",
      "-9223372036854775808",
      "1.0",
      "-0.0",
      "1e300",
      "0.1",
      "true",
      "false",
      "null",
      "{\"a\":1,\"b\":[true,false,null,\"x\"],\"c\":{\"d\":{}}}",
      "{\"z\":1,\"a\":2,\"m\":3}",
      "\"quote \\\" backslash \\\\ slash / tab \\t nl \\n cr \\r\"",
      "\"\\b\\f\\u0001\\u001f\\u007f\"",
      "\"caf\\u00e9 \\u2603 \\ud83d\\ude00\"",
      "{\"caf\\u00e9\":1,\"plain\":\"\\u00e9\"}",
      "{\"key\":\"v\\u0000al\"}",
      "[1.5,{\"r\":2.25e-10},[0.5]]",
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    json_error_t e;
    json_t *v = json_loads(docs[i], JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    assert_non_null(v);
    assert_true(agrees(v, docs[i]));
    json_decref(v);
  }
  /* a key with a NUL byte (jansson's parser refuses one, its API not) */
  json_t *o = json_object();
  assert_int_equal(json_object_setn_new(o, "k\0ey", 4, json_integer(1)), 0);
  assert_true(agrees(o, "NUL in a key"));
  json_decref(o);
  /* nesting past the writer's own depth: jansson writes the rest */
  json_t *deep = json_integer(7);
  for (int i = 0; i < 200; i++)
    deep = json_pack("{s:o,s:[o]}", "n", deep, "i", json_integer(i));
  assert_non_null(deep);
  assert_true(agrees(deep, "deep"));
  json_decref(deep);
}

static void test_failures_leave_the_buffer(void **state) {
  (void)state;
  /* invalid UTF-8 that only the unchecked constructor lets in */
  json_t *bad = json_pack("[i,{s:o}]", 1, "s", json_stringn_nocheck("\xff", 1));
  assert_non_null(bad);
  assert_true(agrees(bad, "invalid UTF-8"));
  json_decref(bad);
  /* a cycle: jansson refuses it, and so does the writer */
  json_t *a = json_array(), *b = json_array();
  assert_int_equal(json_array_append(a, b), 0);
  assert_int_equal(json_array_append(b, a), 0);
  assert_true(agrees(a, "cycle"));
  json_array_clear(b);
  json_decref(b);
  json_decref(a);
  /* NULL writes nothing */
  mcp__buf buf;
  mcp__buf_init(&buf);
  assert_false(mcp__buf_append_json(&buf, NULL, 0));
  assert_int_equal(buf.len, 0);
  mcp__buf_free(&buf);
}

typedef struct suite_tally {
  size_t documents, bad;
} suite_tally;

/* Every document jansson reads is written the same by both writers. */
static void check_document(const char *name, const char *text, size_t len,
                           void *ud) {
  suite_tally *t = ud;
  json_error_t err;
  json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
  if (v == NULL)
    return;
  t->documents++;
  t->bad += !agrees(v, name);
  json_decref(v);
}

static void test_json_test_suite(void **state) {
  (void)state;
  if (tu_shared_dir() == NULL)
    skip();
  suite_tally t = {0, 0};
  tu_json_suite_each("test_parsing", check_document, &t);
  tu_json_suite_each("test_transform", check_document, &t);
  printf("JSONTestSuite: %zu documents, %zu differences\n", t.documents, t.bad);
  assert_true(t.documents > 50);
  assert_int_equal(t.bad, 0);
}

/* mcp__buf_append_escaped (a structured result's text mirror) writes what
 * jansson writes for the same string (with the hex digits of \\u escapes in
 * lower case, as it always wrote them): every ASCII byte (NUL and the other
 * controls, quote, backslash) at every position of strings on both sides
 * of the length written in place (64 bytes), into a buffer on the stack
 * and one on the heap. */
static void test_escaped(void **state) {
  (void)state;
  char text[130];
  for (size_t len = 0; len < sizeof text; len++) {
    for (unsigned c = 0; c < 0x80; c += len > 70 ? 7 : 1) {
      for (size_t i = 0; i < len; i++)
        text[i] = (char)('a' + i % 26);
      if (len)
        text[(c * 31) % len] = (char)c;
      if (len > 2)
        text[len - 1] = (char)c; /* and at the end */
      json_t *v = json_stringn_nocheck(text, len);
      char *want = json_dumps(v, DUMP_FLAGS);
      assert_non_null(want);
      for (char *w = want; *w; w++) /* its \\u00XX in lower case, as here */
        if (w[0] == '\\' && w[1] == 'u')
          for (int k = 2; k < 6; k++)
            w[k] = (char)(w[k] >= 'A' && w[k] <= 'F' ? w[k] + 32 : w[k]);
        else if (w[0] == '\\')
          w++;
      char small[16];
      mcp__buf on_stack, heap;
      mcp__buf_init_on(&on_stack, small, sizeof small);
      mcp__buf_init(&heap);
      for (mcp__buf *b = &on_stack; b; b = b == &on_stack ? &heap : NULL) {
        assert_true(mcp__buf_append_str(b, "x="));
        assert_true(mcp__buf_append_escaped(b, text, len));
        if (b->len != 2 + strlen(want) || strcmp(b->data + 2, want) != 0)
          fail_msg("length %zu, byte %u: %s, jansson %s", len, c, b->data + 2,
                   want);
        mcp__buf_free(b);
      }
      free(want);
      json_decref(v);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hand_made),
      cmocka_unit_test(test_escaped),
      cmocka_unit_test(test_failures_leave_the_buffer),
      cmocka_unit_test(test_json_test_suite),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
