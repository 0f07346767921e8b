/* SPDX-License-Identifier: MIT */
/* prometheus_test.c - the pure parts of the Prometheus endpoint: the
 * client address allow-list (transport/http_cidr.h: IPv4 and IPv6 blocks,
 * prefixes on and off byte boundaries, IPv4-mapped peers, malformed
 * entries), the OpenTelemetry to Prometheus name mapping, and the
 * exposition of recorded series (telemetry/prometheus.h): cumulative
 * buckets, labels read back from their OTLP JSON with escapes (the
 * series' and the resource's: \u escapes, a value that is no string). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "telemetry/metrics.h"
#include "telemetry/prometheus.h"
#include "transport/http_cidr.h"

/* Whether address text is in the list text. */
static bool in_list(const char *list, const char *address) {
  mcp__cidr *l = NULL;
  size_t n, bad, bad_len;
  const char *why;
  assert_true(mcp__cidr_parse_list(list, &l, &n, &bad, &bad_len, &why));
  struct sockaddr_storage ss = {0};
  if (strchr(address, ':')) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    a->sin6_family = AF_INET6;
    assert_int_equal(inet_pton(AF_INET6, address, &a->sin6_addr), 1);
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    a->sin_family = AF_INET;
    assert_int_equal(inet_pton(AF_INET, address, &a->sin_addr), 1);
  }
  bool has = mcp__cidr_list_has(l, n, (struct sockaddr *)&ss);
  free(l);
  return has;
}

static void test_matching(void **state) {
  (void)state;
  assert_true(in_list("127.0.0.1/32", "127.0.0.1"));
  assert_false(in_list("127.0.0.1/32", "127.0.0.2"));
  assert_true(in_list("127.0.0.1", "127.0.0.1"));
  assert_true(in_list("127.0.0.0/8", "127.255.0.9"));
  assert_false(in_list("127.0.0.0/8", "128.0.0.1"));
  assert_true(in_list("10.0.0.0/8 192.168.4.0/22", "192.168.7.255"));
  assert_false(in_list("10.0.0.0/8,192.168.4.0/22", "192.168.8.0"));
  assert_true(in_list("0.0.0.0/0", "203.0.113.7"));
  assert_false(in_list("0.0.0.0/0", "::1")); /* families do not mix */
  assert_true(in_list("::1", "::1"));
  assert_false(in_list("::1", "::2"));
  assert_true(in_list("fd00::/8", "fdab::1"));
  assert_true(in_list("2001:db8::/33", "2001:db8:7fff::1"));
  assert_false(in_list("2001:db8::/33", "2001:db8:8000::1"));
  /* an IPv4-mapped peer (a dual-stack socket) is its IPv4 address */
  assert_true(in_list("127.0.0.1/32", "::ffff:127.0.0.1"));
  assert_false(in_list("::1", "::ffff:127.0.0.1"));
  assert_false(mcp__cidr_list_has(NULL, 0, NULL));
}

/* list is refused with culprit at its offset and why containing needle. */
static void refused(const char *list, const char *culprit,
                    const char *needle) {
  mcp__cidr *l = (mcp__cidr *)1;
  size_t n = 9, bad, bad_len;
  const char *why = NULL;
  assert_false(mcp__cidr_parse_list(list, &l, &n, &bad, &bad_len, &why));
  assert_null(l);
  assert_int_equal(n, 0);
  assert_non_null(why);
  assert_int_equal(bad_len, strlen(culprit));
  assert_memory_equal(list + bad, culprit, bad_len);
  if (strstr(why, needle) == NULL)
    fail_msg("%s: %s", list, why);
}

static void test_malformed(void **state) {
  (void)state;
  refused("10.0.0.0/33", "10.0.0.0/33", "longer");
  refused("::/129", "::/129", "longer");
  refused("10.0.0.1/8", "10.0.0.1/8", "beyond");
  refused("::1, fd00::1/8", "fd00::1/8", "beyond");
  refused("127.0.0.1 localhost", "localhost", "not an IPv4");
  refused("1.2.3", "1.2.3", "not an IPv4");
  refused("10.0.0.0/", "10.0.0.0/", "prefix");
  refused("10.0.0.0/-1", "10.0.0.0/-1", "prefix");
  refused("10.0.0.0/0x8", "10.0.0.0/0x8", "prefix");
  refused("/8", "/8", "address");
  refused("", "", "empty");
  refused(" ,, ", "", "empty");
}

static void test_names(void **state) {
  (void)state;
  static const struct {
    const char *otel, *metric, *label;
  } cases[] = {{"mcp.method.name", "mcp_method_name", "mcp_method_name"},
               {"gen_ai.tool.name", "gen_ai_tool_name", "gen_ai_tool_name"},
               {"a:b-c", "a:b_c", "a_b_c"},
               {"9lives", "_9lives", "_9lives"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int metric = 0; metric < 2; metric++) {
      mcp__buf b;
      mcp__buf_init(&b);
      assert_true(mcp__prometheus_name(&b, cases[i].otel,
                                       strlen(cases[i].otel), metric));
      assert_string_equal(b.data, metric ? cases[i].metric : cases[i].label);
      mcp__buf_free(&b);
    }
  }
}

static void test_exposition(void **state) {
  (void)state;
  /* the resource's KeyValue text as given: \u escapes (a surrogate pair
   * too) read back as UTF-8, an int attribute left out */
  mcp__metrics_config cfg = {
      .resource_attributes_json =
          "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"svc\"}},"
          "{\"key\":\"host.name\",\"value\":{\"stringValue\":"
          "\"h\\u00e9\\ud83d\\ude00\"}},{\"key\":\"n\",\"value\":{"
          "\"intValue\":\"7\"}}"};
  mcp__metrics *m = NULL;
  char why[100];
  assert_int_equal(mcp__metrics_start(&cfg, &m, why, sizeof why), MCP_OK);
  /* a series' values, escaped in its KeyValue text and read back */
  const char tool[] = "q\"\\\n\xc3\xa9\xf0\x9f\x98\x80";
  mcp__metrics_attr attrs[] = {
      MCP__METRICS_ATTR("mcp.method.name", "tools/call", 10),
      MCP__METRICS_ATTR("gen_ai.tool.name", tool, sizeof tool - 1)};
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, attrs, 2, 0.015);
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, attrs, 2, 0.02);
  mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, attrs, 2, 400);
  mcp__metrics_record_attrs(m, MCP__METRIC_SESSION, NULL, 0, 1.5);
  /* series come in label order, whatever their hashes */
  static const char *const names[] = {"zeta", "alpha", "mu"};
  for (size_t i = 0; i < 3; i++) {
    mcp__metrics_attr one[] = {
        MCP__METRICS_ATTR("mcp.method.name", names[i], strlen(names[i]))};
    mcp__metrics_record_attrs(m, MCP__METRIC_OPERATION, one, 1, 1);
  }
  mcp__buf b;
  mcp__buf_init(&b);
  assert_true(mcp__prometheus_text(m, &b));
  mcp__metrics_stop(m);
#define L "mcp_method_name=\"tools/call\",gen_ai_tool_name=\"q\\\"\\\\\\n\xc3\xa9" \
          "\xf0\x9f\x98\x80\""
  static const char *const lines[] = {
      "# HELP mcp_server_operation_duration_seconds Duration of an MCP "
      "request as the server saw it\n"
      "# TYPE mcp_server_operation_duration_seconds histogram\n",
      "mcp_server_operation_duration_seconds_bucket{" L ",le=\"0.01\"} 0\n",
      /* a value on a bound is in its bucket */
      "mcp_server_operation_duration_seconds_bucket{" L ",le=\"0.02\"} 2\n",
      "mcp_server_operation_duration_seconds_bucket{" L ",le=\"300\"} 2\n",
      "mcp_server_operation_duration_seconds_bucket{" L ",le=\"+Inf\"} 3\n",
      "mcp_server_operation_duration_seconds_sum{" L "} 400.035\n",
      "mcp_server_operation_duration_seconds_count{" L "} 3\n",
      "mcp_server_session_duration_seconds_bucket{le=\"2\"} 1\n",
      "mcp_server_session_duration_seconds_sum 1.5\n",
      "mcp_server_session_duration_seconds_count 1\n",
      "# TYPE libmcp_telemetry_dropped_total counter\n"
      "libmcp_telemetry_dropped_total 0\n",
      "# TYPE target_info gauge\ntarget_info{service_name=\"svc\","
      "host_name=\"h\xc3\xa9\xf0\x9f\x98\x80\"} 1\n"};
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
    if (strstr(b.data, lines[i]) == NULL)
      fail_msg("missing:\n%s\nin:\n%s", lines[i], b.data);
  const char *alpha = strstr(b.data, "{mcp_method_name=\"alpha\"");
  const char *mu = strstr(b.data, "{mcp_method_name=\"mu\"");
  const char *tools = strstr(b.data, "{mcp_method_name=\"tools/call\"");
  const char *zeta = strstr(b.data, "{mcp_method_name=\"zeta\"");
  assert_true(alpha && mu && tools && zeta);
  assert_true(alpha < mu && mu < tools && tools < zeta);
  mcp__buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matching),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_exposition),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
