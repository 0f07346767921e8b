/* SPDX-License-Identifier: MIT */
/* metrics_stop_test.c - stopping the metrics exporter (telemetry/metrics.h)
 * while an export is on its way: what was recorded after that export's
 * snapshot still goes out, in one more export, before the stop returns
 * (the thread once ended without it, and a short-lived client lost its
 * last data points). */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "otlp_sink.h"
#include "telemetry/metrics.h"

static void test_stop_during_export(void **state) {
  (void)state;
  collector c = {.hold_first_ms = 300};
  collector_start(&c);
  char url[80];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/metrics", c.port);
  mcp__metrics_config cfg = {.metrics_url = url,
                             .interval_ms = 20,
                             .protocol = MCP__OTLP_HTTP_JSON};
  mcp__metrics *m = NULL;
  char why[200];
  assert_int_equal(mcp__metrics_start(&cfg, &m, why, sizeof why), MCP_OK);
  mcp__metrics_attr early[] = {
      MCP__METRICS_ATTR("mcp.method.name", "early/one", 9)};
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, early, 1, 0.5);
  /* the first export is in and its answer held back */
  bool holding = false;
  for (int i = 0; i < 300 && !holding; i++) {
    pthread_mutex_lock(&c.lock);
    holding = c.holding;
    pthread_mutex_unlock(&c.lock);
    if (!holding)
      nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
  assert_true(holding);
  mcp__metrics_attr late[] = {
      MCP__METRICS_ATTR("mcp.method.name", "late/one", 8)};
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, late, 1, 0.25);
  mcp__metrics_stop(m); /* while that export waits for its answer */
  pthread_mutex_lock(&c.lock);
  int requests = c.requests;
  bool first_early = strstr(c.bodies, "early/one") != NULL;
  bool late_sent = strstr(c.bodies, "late/one") != NULL;
  pthread_mutex_unlock(&c.lock);
  print_message("exports received: %d\n", requests);
  assert_true(first_early);
  assert_true(requests >= 2);
  assert_true(late_sent);
  collector_stop(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stop_during_export),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
