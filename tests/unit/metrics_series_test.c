/* SPDX-License-Identifier: MIT */
/* metrics_series_test.c - the series of telemetry/metrics.h recorded by
 * their attributes as bytes (mcp__metrics_record_attrs, a server's and a
 * client's requests and sessions): one series per attribute set (values
 * and keys both tell sets apart), its OTLP/JSON KeyValue text written
 * once (escapes included), the series limit and the dropped counter
 * kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "telemetry/metrics.h"

typedef struct seen {
  size_t n;
  char text[8][400];
  uint64_t count[8];
  double sum[8];
} seen;

static void collect(void *ctx, const mcp__metrics_series *s) {
  seen *w = ctx;
  if (w->n < 8) {
    snprintf(w->text[w->n], sizeof w->text[w->n], "%.*s", (int)s->len,
             s->attrs);
    w->count[w->n] = s->count;
    w->sum[w->n] = s->sum;
  }
  w->n++;
}

static mcp__metrics *start(size_t max_series) {
  mcp__metrics_config cfg = {.max_series = max_series};
  mcp__metrics *m = NULL;
  char why[100];
  assert_int_equal(mcp__metrics_start(&cfg, &m, why, sizeof why), MCP_OK);
  return m;
}

static void test_one_series_per_set(void **state) {
  (void)state;
  mcp__metrics *m = start(0);
  char name[] = "add";
  mcp__metrics_attr a[] = {
      MCP__METRICS_ATTR("mcp.method.name", "tools/call", 10),
      MCP__METRICS_ATTR("gen_ai.tool.name", name, 3),
      MCP__METRICS_ATTR("network.transport", "tcp", 3)};
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, a, 3, 0.5);
  /* the same bytes from other storage: the same series */
  char again[] = "add";
  a[1].value = again;
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, a, 3, 0.25);
  /* a value of the same length: another series */
  a[1].value = "sub";
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, a, 3, 1);
  /* the same value under another key of the same length: another */
  a[1] = MCP__METRICS_ATTR("gen_ai.tool.nam_", "add", 3);
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, a, 3, 1);
  /* one attribute fewer: another */
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, a, 2, 1);
  /* the same set on the other instrument: its own */
  a[1] = MCP__METRICS_ATTR("gen_ai.tool.name", "add", 3);
  mcp__metrics_record_attrs(m, MCP__METRIC_SESSION, a, 3, 2);
  seen w = {0};
  assert_int_equal(mcp__metrics_each(m, MCP__METRIC_OPERATION, collect, &w,
                                     NULL),
                   0);
  assert_int_equal(w.n, 4);
  const char *want =
      "{\"key\":\"mcp.method.name\",\"value\":{\"stringValue\":\"tools/call\"}"
      "},{\"key\":\"gen_ai.tool.name\",\"value\":{\"stringValue\":\"add\"}},{"
      "\"key\":\"network.transport\",\"value\":{\"stringValue\":\"tcp\"}}";
  bool found = false;
  for (size_t i = 0; i < w.n; i++) {
    if (strcmp(w.text[i], want) == 0) {
      found = true;
      assert_int_equal(w.count[i], 2);
      assert_true(w.sum[i] == 0.75);
    } else {
      assert_int_equal(w.count[i], 1);
    }
  }
  assert_true(found);
  seen ws = {0};
  (void)mcp__metrics_each(m, MCP__METRIC_SESSION, collect, &ws, NULL);
  assert_int_equal(ws.n, 1);
  assert_string_equal(ws.text[0], want);
  mcp__metrics_stop(m);
}

static void test_text_escaped_once(void **state) {
  (void)state;
  mcp__metrics *m = start(0);
  const char v[] = "q\"\\\n\xc3\xa9";
  mcp__metrics_attr a[] = {
      MCP__METRICS_ATTR("gen_ai.prompt.name", v, sizeof v - 1)};
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, a, 1, 0.1);
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, a, 1, 0.1);
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, NULL, 0, 0.1);
  seen w = {0};
  (void)mcp__metrics_each(m, MCP__METRIC_OPERATION, collect, &w, NULL);
  assert_int_equal(w.n, 2);
  bool escaped = false, empty = false;
  for (size_t i = 0; i < w.n; i++) {
    if (strcmp(w.text[i], "{\"key\":\"gen_ai.prompt.name\",\"value\":{"
                          "\"stringValue\":\"q\\\"\\\\\\n\xc3\xa9\"}}") == 0) {
      escaped = true;
      assert_int_equal(w.count[i], 2);
    }
    if (w.text[i][0] == '\0')
      empty = true;
  }
  assert_true(escaped);
  assert_true(empty);
  mcp__metrics_stop(m);
}

static void test_limit_and_dropped(void **state) {
  (void)state;
  mcp__metrics *m = start(2);
  static const char *const names[] = {"a", "b", "c", "d"};
  for (int round = 0; round < 2; round++)
    for (size_t i = 0; i < 4; i++) {
      mcp__metrics_attr a[] = {
          MCP__METRICS_ATTR("mcp.method.name", names[i], 1)};
      mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, a, 1, 0.1);
    }
  seen w = {0};
  /* two series kept (their values counted both rounds), the other two
   * sets dropped each time */
  assert_int_equal(mcp__metrics_each(m, MCP__METRIC_OPERATION, collect, &w,
                                     NULL),
                   4);
  assert_int_equal(w.n, 2);
  assert_int_equal(w.count[0], 2);
  assert_int_equal(w.count[1], 2);
  mcp__metrics_stop(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_series_per_set),
      cmocka_unit_test(test_text_escaped_once),
      cmocka_unit_test(test_limit_and_dropped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
