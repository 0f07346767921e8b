/* SPDX-License-Identifier: MIT */
/* codec_test.c - the shared encoders of src/util: base64 (padded) and
 * base64url (unpadded, strict) from one encoder, and the hex-digit reader
 * every parser uses. RFC 4648 section 10 vectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/base64.h"
#include "util/hex.h"

static void expect_encodings(const char *in, const char *std, const char *url) {
  char *s = mcp__base64_encode(in, strlen(in));
  char *u = mcp__base64url_encode(in, strlen(in));
  assert_string_equal(s, std);
  assert_string_equal(u, url);
  free(s);
  free(u);
}

static void test_rfc4648_vectors(void **state) {
  (void)state;
  expect_encodings("", "", "");
  expect_encodings("f", "Zg==", "Zg");
  expect_encodings("fo", "Zm8=", "Zm8");
  expect_encodings("foo", "Zm9v", "Zm9v");
  expect_encodings("foob", "Zm9vYg==", "Zm9vYg");
  expect_encodings("fooba", "Zm9vYmE=", "Zm9vYmE");
  expect_encodings("foobar", "Zm9vYmFy", "Zm9vYmFy");
}

static void test_url_alphabet(void **state) {
  (void)state;
  const unsigned char raw[] = {0xfb, 0xff, 0xbf};
  char *s = mcp__base64_encode(raw, sizeof raw);
  char *u = mcp__base64url_encode(raw, sizeof raw);
  assert_string_equal(s, "+/+/");
  assert_string_equal(u, "-_-_");
  size_t n = 0;
  unsigned char *d = mcp__base64url_decode(u, strlen(u), &n);
  assert_non_null(d);
  assert_int_equal(n, sizeof raw);
  assert_memory_equal(d, raw, sizeof raw);
  free(d);
  free(s);
  free(u);
}

static void test_url_decode_is_strict(void **state) {
  (void)state;
  size_t n = 0;
  unsigned char *d = mcp__base64url_decode("Zm9vYg", 6, &n);
  assert_non_null(d);
  assert_int_equal(n, 4);
  assert_string_equal((char *)d, "foob");
  free(d);
  assert_null(mcp__base64url_decode("Zg==", 4, &n)); /* no padding */
  assert_null(mcp__base64url_decode("Zm9vY", 5, &n)); /* 1 mod 4 */
  assert_null(mcp__base64url_decode("Zh", 2, &n));    /* trailing bits */
  assert_null(mcp__base64url_decode("+/+/", 4, &n));  /* std alphabet */
  assert_null(mcp__base64_decode("-_-_", 4, &n));     /* and the reverse */
}

static void test_hex_digit(void **state) {
  (void)state;
  const char *digits = "0123456789abcdef";
  for (int i = 0; i < 16; i++) {
    assert_int_equal(mcp__hex_digit(digits[i]), i);
    if (i >= 10)
      assert_int_equal(mcp__hex_digit(digits[i] - 'a' + 'A'), i);
  }
  assert_int_equal(mcp__hex_digit('g'), -1);
  assert_int_equal(mcp__hex_digit('G'), -1);
  assert_int_equal(mcp__hex_digit('/'), -1);
  assert_int_equal(mcp__hex_digit(':'), -1);
  assert_int_equal(mcp__hex_digit('@'), -1);
  assert_int_equal(mcp__hex_digit('`'), -1);
  assert_int_equal(mcp__hex_digit(0), -1);
  assert_int_equal(mcp__hex_digit(-1), -1);
  assert_int_equal(mcp__hex_digit(0xff), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4648_vectors),
      cmocka_unit_test(test_url_alphabet),
      cmocka_unit_test(test_url_decode_is_strict),
      cmocka_unit_test(test_hex_digit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
