/* SPDX-License-Identifier: MIT */
/* traceparent_test.c - W3C traceparent values as the server's request
 * spans and the client's spans read and write them: valid forms are read,
 * each invalid form the spec names is refused, and what is written reads
 * back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "telemetry/traceparent.h"

#define TRACE "4bf92f3577b34da6a3ce929d0e0e4736"
#define SPAN  "00f067aa0ba902b7"

static bool parses(const char *text, bool *sampled) {
  unsigned char trace[16], parent[8];
  return mcp__traceparent_parse(text, trace, parent, sampled);
}

static void test_valid(void **state) {
  (void)state;
  unsigned char trace[16], parent[8];
  bool sampled = false;
  assert_true(mcp__traceparent_parse("00-" TRACE "-" SPAN "-01", trace, parent,
                                     &sampled));
  assert_true(sampled);
  assert_int_equal(trace[0], 0x4b);
  assert_int_equal(trace[15], 0x36);
  assert_int_equal(parent[0], 0x00);
  assert_int_equal(parent[7], 0xb7);
  assert_true(parses("00-" TRACE "-" SPAN "-00", &sampled));
  assert_false(sampled);
  /* a later version is read by its version-00 prefix (3.2.4.1) */
  assert_true(parses("01-" TRACE "-" SPAN "-09-whatever", &sampled));
  assert_true(sampled);
}

static void test_invalid(void **state) {
  (void)state;
  bool sampled;
  static const char *const bad[] = {
      NULL,
      "",
      "00-" TRACE "-" SPAN,                            /* no flags */
      "00-" TRACE "-" SPAN "-01-more",                 /* 00 with more */
      "ff-" TRACE "-" SPAN "-01",                      /* version ff */
      "0g-" TRACE "-" SPAN "-01",                      /* version not hex */
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-" SPAN "-01", /* uppercase */
      "00-00000000000000000000000000000000-" SPAN "-01", /* zero trace id */
      "00-" TRACE "-0000000000000000-01",              /* zero parent id */
      "00-" TRACE "-" SPAN "-0x",                      /* flags not hex */
      "00_" TRACE "-" SPAN "-01",                      /* separator */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (parses(bad[i], &sampled))
      fail_msg("accepted: %s", bad[i] ? bad[i] : "(null)");
}

static void test_format_reads_back(void **state) {
  (void)state;
  unsigned char trace[16], span[8], t2[16], s2[8];
  for (int i = 0; i < 16; i++)
    trace[i] = (unsigned char)(0xf0 + i);
  for (int i = 0; i < 8; i++)
    span[i] = (unsigned char)(0x0a * i + 1);
  char text[MCP__TRACEPARENT_SIZE];
  mcp__traceparent_format(text, trace, span);
  assert_string_equal(text, "00-f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff-"
                            "010b151f29333d47-01");
  bool sampled = false;
  assert_true(mcp__traceparent_parse(text, t2, s2, &sampled));
  assert_true(sampled);
  assert_memory_equal(t2, trace, 16);
  assert_memory_equal(s2, span, 8);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid),
      cmocka_unit_test(test_invalid),
      cmocka_unit_test(test_format_reads_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
