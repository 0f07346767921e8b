/* SPDX-License-Identifier: MIT */
/* otlp_exporter_test.c - the trace exporter's queue of span records
 * (telemetry/otlp.h): spans submitted in several rounds all reach a
 * collector on 127.0.0.1 in batches of max_batch (the records of one
 * exported batch are recycled for the next spans: ASan and TSan see every
 * reuse), a span too long for a recycled record travels in one of its
 * own, in http/protobuf and http/json, and the exporter's random ids
 * differ. */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "otlp_sink.h"
#include "telemetry/otlp.h"
#include "telemetry/span.h"

static void submit(mcp__otlp *e, const char *name, size_t name_len) {
  mcp__span_draft d;
  mcp__span_draft_init(&d);
  assert_int_equal(mcp__otlp_random_id(e, d.h.trace_id, 16), MCP_OK);
  assert_int_equal(mcp__otlp_random_id(e, d.h.span_id, 8), MCP_OK);
  mcp__span_draft_name(&d, "tools/call", name, name_len);
  d.h.kind = MCP__SPAN_KIND_SERVER;
  d.h.start_ns = 1;
  d.h.end_ns = 2;
  mcp__span_draft_cstr(&d, "mcp.method.name", "tools/call");
  mcp__span_draft_int(&d, "server.port", 8080);
  assert_true(mcp__otlp_submit(e, &d));
}

static void wait_exported(mcp__otlp *e, uint64_t n) {
  for (int i = 0; i < 500 && mcp__otlp_exported(e) < n; i++)
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  assert_int_equal(mcp__otlp_exported(e), n);
}

static void rounds(mcp__otlp_protocol protocol) {
  collector c = {0};
  collector_start(&c);
  char url[64], why[200] = "";
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/traces", c.port);
  mcp__otlp_config cfg = {.traces_url = url,
                          .resource_attributes_json = "",
                          .schedule_delay_ms = 20,
                          .max_queue = 16,
                          .max_batch = 4,
                          .protocol = protocol};
  mcp__otlp *e;
  if (mcp__otlp_start(&cfg, &e, why, sizeof why) != MCP_OK)
    fail_msg("start: %s", why);
  for (int round = 0; round < 3; round++) { /* rounds 2, 3: recycled */
    for (int i = 0; i < 4; i++) {
      char name[16];
      int n = snprintf(name, sizeof name, "t%d", 4 * round + i);
      submit(e, name, (size_t)n);
    }
    wait_exported(e, 4 * (uint64_t)(round + 1));
  }
  char longname[700]; /* past a recycled record's room */
  memset(longname, 'L', sizeof longname);
  submit(e, longname, sizeof longname);
  wait_exported(e, 13);
  unsigned char a[16], b[16];
  assert_int_equal(mcp__otlp_random_id(e, a, 16), MCP_OK);
  assert_int_equal(mcp__otlp_random_id(e, b, 16), MCP_OK);
  assert_memory_not_equal(a, b, 16);
  assert_int_equal(mcp__otlp_dropped(e), 0);
  mcp__otlp_stop(e);
  pthread_mutex_lock(&c.lock);
  assert_true(c.requests >= 4);
  /* every span's name arrived (in protobuf as raw bytes, too) */
  for (int i = 0; i < 12; i++) {
    char name[32];
    snprintf(name, sizeof name, "tools/call t%d", i);
    bool found = memmem(c.bodies, c.len, name, strlen(name)) != NULL;
    if (!found)
      fail_msg("%s missing", name);
  }
  assert_non_null(memmem(c.bodies, c.len, longname, sizeof longname));
  pthread_mutex_unlock(&c.lock);
  collector_stop(&c);
}

static void test_rounds_protobuf(void **state) {
  (void)state;
  rounds(MCP__OTLP_HTTP_PROTOBUF);
}

static void test_rounds_json(void **state) {
  (void)state;
  rounds(MCP__OTLP_HTTP_JSON);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rounds_protobuf),
      cmocka_unit_test(test_rounds_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
