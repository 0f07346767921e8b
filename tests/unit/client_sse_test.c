/* SPDX-License-Identifier: MIT */
/* client_sse_test.c - the client's SSE parser: multi-line data, id, event,
 * retry, comments, CR/CRLF line ends, bytes split anywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/sse.h"
#include "testutil.h"

typedef struct seen {
  char log[2048];
  int n;
} seen;

static void on_event(const char *event, const char *id, const char *data,
                     size_t len, void *ud) {
  seen *s = ud;
  size_t used = strlen(s->log);
  snprintf(s->log + used, sizeof s->log - used, "[%s|%s|%.*s]", event, id,
           (int)len, data);
  s->n++;
}

static const char STREAM[] = "\xEF\xBB\xBF: a comment\n"
                             "retry: 500\n"
                             "id: 1\n"
                             "data: \n\n" /* priming: id + empty data */
                             "event: message\r\n"
                             "data: {\"a\":\r\n"
                             "data:1}\r\n"
                             "id: 2\r\n\r\n"
                             "data: no id here\r\r"
                             "retry: x1\n"
                             "id\n"
                             "data: after reset\n\n"
                             "data: unterminated";

static void test_whole_and_split(void **state) {
  for (size_t chunk = 1; chunk <= sizeof STREAM; chunk++) {
    seen s = {{0}, 0};
    mcp__sse p;
    mcp__sse_init(&p, on_event, &s);
    size_t n = sizeof STREAM - 1;
    /* the BOM must arrive in one piece (see sse.h) */
    size_t first = chunk < 3 ? 3 : chunk;
    assert_true(mcp__sse_feed(&p, STREAM, first < n ? first : n));
    for (size_t i = first; i < n; i += chunk)
      assert_true(mcp__sse_feed(&p, STREAM + i, n - i < chunk ? n - i : chunk));
    assert_string_equal(s.log, "[message|1|][message|2|{\"a\":\n1}]"
                               "[message|2|no id here][message||after reset]");
    assert_int_equal(p.retry_ms, 500); /* "x1" is ignored */
    assert_string_equal(mcp__sse_last_id(&p), "");
    mcp__sse_free(&p);
  }
}

static void test_named_event_and_unknown_field(void **state) {
  seen s = {{0}, 0};
  mcp__sse p;
  mcp__sse_init(&p, on_event, &s);
  const char *in = "event: ping\nfoo: bar\ndata:x\n\ndata:y\n\n";
  assert_true(mcp__sse_feed(&p, in, strlen(in)));
  assert_string_equal(s.log, "[ping||x][message||y]");
  assert_int_equal(p.retry_ms, -1);
  mcp__sse_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_whole_and_split),
      cmocka_unit_test(test_named_event_and_unknown_field),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
