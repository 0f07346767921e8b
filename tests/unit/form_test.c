/* SPDX-License-Identifier: MIT */
/* form_test.c - application/x-www-form-urlencoded fields as the client's
 * OAuth requests and the resource server's introspection send them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "util/form.h"

static void test_fields_joined_and_escaped(void **state) {
  (void)state;
  mcp__buf b;
  mcp__buf_init(&b);
  assert_true(mcp__form_append(&b, "grant_type", "client_credentials"));
  assert_true(mcp__form_append(&b, "skipped", NULL));
  assert_true(mcp__form_append(&b, "scope", "mcp:tools a+b/c~d_e.f-g"));
  assert_true(mcp__form_append(&b, "x", "\xc3\xbc=&%\x01 "));
  assert_true(mcp__form_append(&b, "empty", ""));
  assert_string_equal(b.data, "grant_type=client_credentials&"
                              "scope=mcp%3Atools%20a%2Bb%2Fc~d_e.f-g&"
                              "x=%C3%BC%3D%26%25%01%20&empty=");
  assert_int_equal(b.len, strlen(b.data));
  mcp__buf_free(&b);
}

static void test_nothing_appended_for_null(void **state) {
  (void)state;
  mcp__buf b;
  mcp__buf_init(&b);
  assert_true(mcp__form_append(&b, "a", NULL));
  assert_int_equal(b.len, 0);
  assert_true(mcp__form_append(&b, "a", "1"));
  assert_string_equal(b.data, "a=1"); /* no '&' first */
  mcp__buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fields_joined_and_escaped),
      cmocka_unit_test(test_nothing_appended_for_null),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
