/* SPDX-License-Identifier: MIT */
/* otlp_pb_test.c - the OTLP http/protobuf encoding (telemetry/otlp_pb.h,
 * telemetry/pb.h): a fixed span as the exporter builds it in OTLP/JSON
 * becomes, byte for byte, the ExportTraceServiceRequest assembled by hand
 * below from the field numbers of opentelemetry-proto (the same bytes are
 * decoded by the official Python classes in otel_traces_test); a
 * histogram data point and the dropped counter likewise; a member the
 * tables do not know, a malformed id, and a body over the writer's cap
 * are refused, never written partially; the varint and nested-length
 * edges. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/otlp_pb.h"
#include "telemetry/pb.h"

#define TRACE "0af7651916cd43dd8448eb211c80319c"
#define SPAN "80908896df099a3d"
#define PARENT "b7ad6b7169203331"

static const char SPAN_JSON[] =
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":"
    "\"service.name\",\"value\":{\"stringValue\":\"s\"}}]},\"scopeSpans\":[{"
    "\"scope\":{\"name\":\"libmcp\",\"version\":\"1\"},\"spans\":[{"
    "\"traceId\":\"" TRACE "\",\"spanId\":\"" SPAN "\","
    "\"parentSpanId\":\"" PARENT "\",\"traceState\":\"v=1\","
    "\"name\":\"tools/call add\",\"kind\":2,"
    "\"startTimeUnixNano\":\"1796413892629776310\","
    "\"endTimeUnixNano\":\"1796413892630073332\",\"attributes\":["
    "{\"key\":\"n\",\"value\":{\"intValue\":\"-1\"}},"
    "{\"key\":\"b\",\"value\":{\"boolValue\":true}},"
    "{\"key\":\"d\",\"value\":{\"doubleValue\":0.5}},"
    "{\"key\":\"s\",\"value\":{\"stringValue\":\"x\"}}],"
    "\"status\":{\"code\":2}}]}]}]}";

/* ExportTraceServiceRequest, hand-assembled: tag = field << 3 | wire type
 * (0 varint, 1 fixed64, 2 length-delimited). */
static const char SPAN_PB[] =
    "0ab201"       /* resource_spans = 1, LEN 178 */
    "0a15"         /* . resource = 1, LEN 21 */
    "0a13"         /* . . attributes = 1, KeyValue, LEN 19 */
    "0a0c" "736572766963652e6e616d65" /* key = 1 "service.name" */
    "1203" "0a0173"                   /* value = 2: string_value = 1 "s" */
    "129801"       /* . scope_spans = 2, LEN 152 */
    "0a0b"         /* . . scope = 1, LEN 11 */
    "0a06" "6c69626d6370" /* name = 1 "libmcp" */
    "1201" "31"           /* version = 2 "1" */
    "128801"       /* . . spans = 2, LEN 136 */
    "0a10" TRACE   /* trace_id = 1, 16 bytes */
    "1208" SPAN    /* span_id = 2, 8 bytes */
    "1a03" "763d31" /* trace_state = 3 "v=1" */
    "2208" PARENT  /* parent_span_id = 4 */
    "2a0e" "746f6f6c732f63616c6c20616464" /* name = 5 "tools/call add" */
    "3002"         /* kind = 6: SPAN_KIND_SERVER */
    "39" "b647c6e3ea24ee18" /* start_time_unix_nano = 7, fixed64 LE */
    "41" "f4cfcae3ea24ee18" /* end_time_unix_nano = 8 */
    "4a10" "0a016e" "120b" "18ffffffffffffffffff01" /* n: int_value=3 -1 */
    "4a07" "0a0162" "1202" "1001"                   /* b: bool_value=2 */
    "4a0e" "0a0164" "1209" "21000000000000e03f"     /* d: double_value=4 */
    "4a08" "0a0173" "1203" "0a0178"                 /* s: string_value=1 */
    "7a02" "1802"; /* status = 15: code = 3 STATUS_CODE_ERROR */

static char *to_hex(const char *p, size_t n) {
  char *h = malloc(2 * n + 1);
  for (size_t i = 0; i < n; i++)
    snprintf(h + 2 * i, 3, "%02x", (unsigned char)p[i]);
  h[2 * n] = '\0';
  return h;
}

static char *encode_hex(const char *json, char *why, size_t n) {
  mcp__buf out;
  mcp__buf_init(&out);
  bool ok = mcp__otlp_json_to_pb(json, strlen(json), &out, why, n);
  char *h = ok ? to_hex(out.data, out.len) : NULL;
  mcp__buf_free(&out);
  return h;
}

static void test_span_bytes(void **state) {
  (void)state;
  char why[200] = "";
  char *got = encode_hex(SPAN_JSON, why, sizeof why);
  if (got == NULL)
    fail_msg("refused: %s", why);
  if (strcmp(got, SPAN_PB) != 0)
    printf("got  %s\nwant %s\n", got, SPAN_PB);
  bool same = strcmp(got, SPAN_PB) == 0;
  free(got);
  assert_true(same);
}

static void test_metrics_bytes(void **state) {
  (void)state;
  /* one histogram point with two bounds (sum, min, max written even when
   * zero: proto3 optional) and the dropped counter's sum (as_int written
   * at zero: a oneof member; is_monotonic) */
  static const char json[] =
      "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[]},"
      "\"scopeMetrics\":[{\"scope\":{\"name\":\"l\"},\"metrics\":["
      "{\"name\":\"h\",\"unit\":\"s\",\"histogram\":{"
      "\"aggregationTemporality\":2,\"dataPoints\":[{\"attributes\":[],"
      "\"startTimeUnixNano\":\"1\",\"timeUnixNano\":\"2\",\"count\":\"3\","
      "\"sum\":0,\"bucketCounts\":[\"1\",\"0\",\"2\"],"
      "\"explicitBounds\":[0.5,1],\"min\":0,\"max\":2}]}},"
      "{\"name\":\"c\",\"sum\":{\"aggregationTemporality\":2,"
      "\"isMonotonic\":true,\"dataPoints\":[{\"startTimeUnixNano\":\"1\","
      "\"timeUnixNano\":\"2\",\"asInt\":\"0\"}]}}]}]}]}";
  static const char want[] =
      "0a" "a201"   /* resource_metrics = 1, LEN 162 */
      "0a00"        /* . resource = 1, empty */
      "129d01"      /* . scope_metrics = 2, LEN 157 */
      "0a03" "0a016c" /* . . scope: name "l" */
      "126e"        /* . . metrics = 2, LEN 110 */
      "0a0168" "1a0173" /* name "h", unit = 3 "s" */
      "4a66"        /* histogram = 9, LEN 102 */
      "0a62"        /* data_points = 1, LEN 98 */
      "11" "0100000000000000" /* start_time_unix_nano = 2 */
      "19" "0200000000000000" /* time_unix_nano = 3 */
      "21" "0300000000000000" /* count = 4 */
      "29" "0000000000000000" /* sum = 5 (optional: written at 0) */
      "3218" "0100000000000000" "0000000000000000" "0200000000000000"
                              /* bucket_counts = 6, packed fixed64 */
      "3a10" "000000000000e03f" "000000000000f03f" /* explicit_bounds = 7 */
      "59" "0000000000000000" /* min = 11 */
      "61" "0000000000000040" /* max = 12 */
      "1002"        /* aggregation_temporality = 2: CUMULATIVE */
      "1226"        /* . . metrics = 2, LEN 38 */
      "0a0163"      /* name "c" */
      "3a21"        /* sum = 7, LEN 33 */
      "0a1b"        /* data_points = 1, LEN 27 */
      "11" "0100000000000000" "19" "0200000000000000"
      "31" "0000000000000000" /* as_int = 6, sfixed64 (a oneof: at 0) */
      "1002" "1801"; /* aggregation_temporality, is_monotonic = 3 */
  char why[200] = "";
  char *got = encode_hex(json, why, sizeof why);
  if (got == NULL)
    fail_msg("refused: %s", why);
  if (strcmp(got, want) != 0)
    printf("got  %s\nwant %s\n", got, want);
  bool same = strcmp(got, want) == 0;
  free(got);
  assert_true(same);
}

static void test_refusals(void **state) {
  (void)state;
  char why[200] = "";
  /* a member without a row: the reason names it */
  assert_null(encode_hex("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":"
                         "[{\"name\":\"x\",\"newField\":1}]}]}]}",
                         why, sizeof why));
  assert_non_null(strstr(why, "Span.newField"));
  assert_null(encode_hex("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":"
                         "[{\"traceId\":\"0g\"}]}]}]}",
                         why, sizeof why));
  assert_non_null(strstr(why, "Span.traceId"));
  assert_null(encode_hex("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":"
                         "[{\"startTimeUnixNano\":\"-1\"}]}]}]}",
                         why, sizeof why));
  assert_non_null(strstr(why, "startTimeUnixNano"));
  assert_null(encode_hex("{\"resourceSpans\":", why, sizeof why));
  /* a string holding NUL (a tool name may) is written whole */
  char *nul = encode_hex("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":"
                         "[{\"name\":\"a\\u0000b\"}]}]}]}",
                         why, sizeof why);
  assert_non_null(nul);
  assert_string_equal(nul, "0a09" "1207" "1205" "2a03" "610062");
  free(nul);
  /* proto3 defaults are not written; an empty message is */
  char *got = encode_hex("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":"
                         "[{\"name\":\"\",\"kind\":0}]}]}]}",
                         why, sizeof why);
  assert_non_null(got);
  /* resource_spans { scope_spans = 2 { spans = 2 {} } } */
  assert_string_equal(got, "0a04" "1202" "1200");
  free(got);
}

static void test_writer_edges(void **state) {
  (void)state;
  mcp__pb w;
  mcp__pb_init(&w, 64);
  mcp__pb_varint(&w, 1, 0);
  mcp__pb_varint(&w, 1, 127);
  mcp__pb_varint(&w, 1, 128);
  mcp__pb_varint(&w, 1, UINT64_MAX);
  mcp__pb_begin(&w, 536870911); /* the largest field number */
  mcp__pb_end(&w);
  assert_false(w.failed);
  char *h = to_hex(w.out.data, w.out.len);
  assert_string_equal(h, "0800" "087f" "088001" "08ffffffffffffffffff01"
                         "faffffff0f00");
  free(h);
  mcp__pb_free(&w);
  /* a nested message whose length needs two bytes moves its contents */
  mcp__pb_init(&w, 1000);
  mcp__pb_begin(&w, 2);
  char filler[200];
  memset(filler, 'a', sizeof filler);
  mcp__pb_bytes(&w, 1, filler, sizeof filler);
  mcp__pb_end(&w);
  assert_false(w.failed);
  assert_int_equal(w.out.len, 1 + 2 + 1 + 2 + 200);
  assert_memory_equal(w.out.data, "\x12\xcb\x01\x0a\xc8\x01", 6);
  mcp__pb_free(&w);
  /* the cap: a write past it fails the writer, nothing more is added */
  mcp__pb_init(&w, 100);
  mcp__pb_bytes(&w, 1, filler, sizeof filler);
  assert_true(w.failed);
  size_t len = w.out.len;
  mcp__pb_varint(&w, 1, 1);
  assert_int_equal(w.out.len, len);
  assert_true(len <= 100);
  mcp__pb_free(&w);
  /* the length of a message at the cap does not fit: failed too */
  mcp__pb_init(&w, 10);
  mcp__pb_begin(&w, 1);
  mcp__pb_bytes(&w, 1, filler, 7);
  mcp__pb_end(&w);
  assert_true(w.failed);
  mcp__pb_free(&w);
  /* unbalanced ends and too deep nesting fail instead of corrupting */
  mcp__pb_init(&w, 1000);
  mcp__pb_end(&w);
  assert_true(w.failed);
  mcp__pb_free(&w);
  mcp__pb_init(&w, 1000);
  for (int i = 0; i < MCP__PB_MAX_DEPTH + 1; i++)
    mcp__pb_begin(&w, 1);
  assert_true(w.failed);
  mcp__pb_free(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_span_bytes),
      cmocka_unit_test(test_metrics_bytes),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_writer_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
