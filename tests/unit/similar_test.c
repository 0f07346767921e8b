/* SPDX-License-Identifier: MIT */
/* similar_test.c - the "did you mean" of unknown tools and prompts
 * (util/similar.h): edit distance with swaps, the bound, the few closest
 * names in order, the text. */
#include "testutil.h"

#include <string.h>

#include "util/similar.h"

static size_t dist(const char *a, const char *b, size_t max) {
  return mcp__edit_distance(a, strlen(a), b, strlen(b), max);
}

static void test_distance(void **state) {
  (void)state;
  assert_int_equal(dist("get_flight", "get_flight", 3), 0);
  assert_int_equal(dist("get_fligth", "get_flight", 3), 1); /* a swap */
  assert_int_equal(dist("GET_Flight", "get_flight", 3), 0); /* case */
  assert_int_equal(dist("get_flights", "get_flight", 3), 1);
  assert_int_equal(dist("gt_flght", "get_flight", 3), 2);
  assert_int_equal(dist("", "abc", 3), 3);
  assert_int_equal(dist("kitten", "sitting", 5), 3);
  /* beyond max: max + 1, also when the lengths alone say so */
  assert_int_equal(dist("kitten", "sitting", 2), 3);
  assert_int_equal(dist("a", "abcdef", 2), 3);
}

static void test_closest_names(void **state) {
  (void)state;
  const char *names[] = {"list_customers", "get_flight",   "get_flights",
                         "book_flight",    "get_fleet",    "cancel_flight",
                         "get_light",      "export_orders"};
  mcp__similar s;
  const char *want = "get_fligth";
  mcp__similar_init(&s, want, strlen(want));
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    assert_false(mcp__similar_offer(&s, names[i]));
  char text[300];
  mcp__similar_text(&s, text, sizeof text);
  /* distance 1, 2, 2 (get_light ties with get_flights, offered earlier) */
  assert_string_equal(text,
                      "; did you mean 'get_flight', 'get_flights' or "
                      "'get_light'?");

  mcp__similar_init(&s, "zzz_nothing", 11);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    mcp__similar_offer(&s, names[i]);
  mcp__similar_text(&s, text, sizeof text);
  assert_string_equal(text, "");

  mcp__similar_init(&s, "fligt", 5);
  mcp__similar_offer(&s, "flight");
  mcp__similar_offer(&s, "flighty");
  mcp__similar_text(&s, text, sizeof text);
  assert_string_equal(text, "; did you mean 'flight' or 'flighty'?");
}

/* Long names: a name beyond the rules is never offered, a long unknown name
 * costs nothing, and a small buffer is cut, not overrun. */
static void test_bounds(void **state) {
  (void)state;
  char huge[600];
  memset(huge, 'a', sizeof huge - 1);
  huge[sizeof huge - 1] = '\0';
  mcp__similar s;
  mcp__similar_init(&s, huge, strlen(huge));
  mcp__similar_offer(&s, huge);
  assert_int_equal(s.n, 0);
  mcp__similar_init(&s, "abc", 3);
  mcp__similar_offer(&s, huge);
  mcp__similar_offer(&s, "abd");
  assert_int_equal(s.n, 1);
  char small[8];
  mcp__similar_text(&s, small, sizeof small);
  assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_distance),
      cmocka_unit_test(test_closest_names),
      cmocka_unit_test(test_bounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
