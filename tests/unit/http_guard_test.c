/* SPDX-License-Identifier: MIT */
/* http_guard_test.c - Accept negotiation of the HTTP transport
 * (http_guard.c): mcp__http_accepts per media type, and
 * mcp__http_accepts_each, which answers for several types in one pass over
 * the header, agreeing with it on every row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "transport/http_guard.h"

typedef struct accept_row {
  const char *accept; /* NULL: no Accept header */
  bool json, sse;     /* application/json, text/event-stream admitted */
} accept_row;

static const accept_row rows[] = {
    {NULL, false, false},
    {"", false, false},
    {"application/json, text/event-stream", true, true},
    {"text/event-stream,application/json", true, true},
    {"APPLICATION/JSON ,  Text/Event-Stream ", true, true},
    {"application/json", true, false},
    {"text/event-stream", false, true},
    {"*/*", true, true},
    {"application/*", true, false},
    {"text/*;q=0.5, application/json", true, true},
    {"application/json;q=0, text/event-stream", false, true},
    {"application/json; q=0.0, */*", true, true},
    {"*/*;q=0", false, false},
    {"application/jsonx, text/event-streams", false, false},
    {"application/json;charset=utf-8;q=1", true, false},
    {",,, application/json ,,", true, false},
    {"text/html, image/*", false, false},
    {"application/json-seq", false, false},
};

static void test_accept_rows(void **state) {
  (void)state;
  static const char *const types[] = {"application/json",
                                      "text/event-stream"};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    const accept_row *r = &rows[i];
    bool json = mcp__http_accepts(r->accept, types[0]);
    bool sse = mcp__http_accepts(r->accept, types[1]);
    if (json != r->json || sse != r->sse)
      fail_msg("row %zu (%s): json %d sse %d", i,
               r->accept ? r->accept : "(none)", json, sse);
    unsigned both = mcp__http_accepts_each(r->accept, types, 2);
    if (both != ((unsigned)r->json | (unsigned)r->sse << 1))
      fail_msg("row %zu (%s): each gave %u", i,
               r->accept ? r->accept : "(none)", both);
    /* the order of the types is the order of the bits */
    static const char *const reversed[] = {"text/event-stream",
                                           "application/json"};
    unsigned back = mcp__http_accepts_each(r->accept, reversed, 2);
    assert_int_equal(back, (unsigned)r->sse | (unsigned)r->json << 1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_accept_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
