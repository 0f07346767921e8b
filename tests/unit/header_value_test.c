/* SPDX-License-Identifier: MIT */
/* header_value_test.c - the 2026-07-28 standard headers (SEP-2243) as both
 * sides see them: what a client encodes the server decodes to the same
 * text, hostile values are refused, and Mcp-Name names one body field per
 * method for both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/header_value.h"

static void assert_round_trip(const char *text, size_t n, bool want_plain) {
  char *encoded = mcp__header_value_encode(text, n);
  assert_non_null(encoded);
  assert_int_equal(strncmp(encoded, "=?base64?", 9) != 0, want_plain);
  char *decoded = NULL;
  assert_int_equal(mcp__header_value_decode(encoded, &decoded), MCP_OK);
  assert_int_equal(strlen(decoded), n);
  assert_memory_equal(decoded, text, n);
  free(decoded);
  free(encoded);
}

static void test_round_trips(void **state) {
  (void)state;
  assert_round_trip("get_weather", 11, true);
  assert_round_trip("file:///tmp/a b.txt", 19, true);
  assert_round_trip("", 0, true);
  /* white space at either end would be trimmed as optional whitespace */
  assert_round_trip(" padded ", 8, false);
  assert_round_trip("caf\xc3\xa9", 5, false); /* non-ASCII */
  assert_round_trip("line\nbreak", 10, false);
  /* plain text that reads as the marker must not be taken for it */
  assert_round_trip("=?base64?aGk=?=", 15, false);
}

static void test_decode_refuses_what_is_no_field_value(void **state) {
  (void)state;
  char *out = (char *)"untouched";
  assert_int_equal(mcp__header_value_decode("a\x01z", &out), MCP_ERR_INVALID);
  assert_null(out);
  assert_int_equal(mcp__header_value_decode("caf\xc3\xa9", &out),
                   MCP_ERR_INVALID); /* obs-text */
  assert_int_equal(mcp__header_value_decode("=?base64?!!!?=", &out),
                   MCP_ERR_INVALID);
  /* valid base64 of bytes that are not UTF-8 */
  assert_int_equal(mcp__header_value_decode("=?base64?/w==?=", &out),
                   MCP_ERR_INVALID);
  assert_int_equal(mcp__header_value_decode(" \tplain\t ", &out), MCP_OK);
  assert_string_equal(out, "plain");
  free(out);
}

/* The in-place comparison agrees with decoding then comparing. */
static void test_equals_agrees_with_decode(void **state) {
  (void)state;
  assert_true(mcp__header_value_equals("add", "add"));
  assert_true(mcp__header_value_equals(" \tadd\t ", "add"));
  assert_false(mcp__header_value_equals("add", "ad"));
  assert_false(mcp__header_value_equals("ad", "add"));
  assert_false(mcp__header_value_equals("a\x01d", "a\x01d")); /* invalid */
  assert_false(mcp__header_value_equals("caf\xc3\xa9", "caf\xc3\xa9"));
  char *enc = mcp__header_value_encode("caf\xc3\xa9", 5);
  assert_true(mcp__header_value_equals(enc, "caf\xc3\xa9"));
  assert_false(mcp__header_value_equals(enc, "cafe"));
  free(enc);
  assert_false(mcp__header_value_equals("=?base64?!!?=", "!!"));
  /* a marker without its end is plain text */
  assert_true(mcp__header_value_equals("=?base64?abc", "=?base64?abc"));
  /* what the one-pass comparison leaves to the general one */
  assert_true(mcp__header_value_equals("a b", "a b"));
  assert_true(mcp__header_value_equals("=x", "=x"));
  assert_true(mcp__header_value_equals(" ", ""));
  assert_true(mcp__header_value_equals("", ""));
  assert_false(mcp__header_value_equals("ab ", "ab "));
  assert_false(mcp__header_value_equals("a\x7f", "a\x7f"));
  assert_false(mcp__header_value_equals("tools/call", "tools/cal"));
  assert_false(mcp__header_value_equals("tools/cal", "tools/call"));
  assert_true(mcp__header_value_equals("tools/call", "tools/call"));
}

/* The n-byte form: a body that is not NUL-terminated, values longer than
 * the eight-byte step with a byte that is no visible ASCII at each place,
 * a NUL among the body's bytes. */
static void test_equalsn_by_length(void **state) {
  (void)state;
  assert_true(mcp__header_value_equalsn("add", "addition", 3));
  assert_false(mcp__header_value_equalsn("add", "addition", 4));
  assert_false(mcp__header_value_equalsn("addi", "add", 3));
  assert_false(mcp__header_value_equalsn("a", "a\0b", 3));
  assert_true(mcp__header_value_equalsn(" add ", "add!", 3));
  static const unsigned char bad[] = {0x01, 0x20, 0x7f, 0x80, 0xc3, 0xff};
  for (size_t b = 0; b < sizeof bad; b++)
    for (size_t at = 0; at < 20; at++) {
      char v[24];
      for (size_t i = 0; i < 20; i++)
        v[i] = (char)('a' + i);
      v[at] = (char)bad[b];
      v[20] = '\0';
      /* never equal in the fast step; the general reading decides (a
       * space inside a value is kept, and compares equal) */
      char *decoded = NULL;
      bool same = mcp__header_value_decode(v, &decoded) == MCP_OK &&
                  strcmp(decoded, v) == 0;
      free(decoded);
      assert_int_equal(mcp__header_value_equalsn(v, v, 20), same);
      assert_int_equal(mcp__header_value_equals(v, v), same);
    }
  char long_value[] = "io.modelcontextprotocol/a-rather-long-name";
  assert_true(mcp__header_value_equalsn(long_value, long_value,
                                        strlen(long_value)));
}

static void test_name_field_per_method(void **state) {
  (void)state;
  assert_string_equal(mcp__header_name_field("tools/call"), "name");
  assert_string_equal(mcp__header_name_field("prompts/get"), "name");
  assert_string_equal(mcp__header_name_field("resources/read"), "uri");
  assert_string_equal(mcp__header_name_field("tasks/get"), "taskId");
  assert_string_equal(mcp__header_name_field("tasks/update"), "taskId");
  assert_string_equal(mcp__header_name_field("tasks/cancel"), "taskId");
  assert_null(mcp__header_name_field("tasks/result"));
  assert_null(mcp__header_name_field("tools/list"));
  assert_null(mcp__header_name_field("server/discover"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trips),
      cmocka_unit_test(test_decode_refuses_what_is_no_field_value),
      cmocka_unit_test(test_equals_agrees_with_decode),
      cmocka_unit_test(test_equalsn_by_length),
      cmocka_unit_test(test_name_field_per_method),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
