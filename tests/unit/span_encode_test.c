/* SPDX-License-Identifier: MIT */
/* span_encode_test.c - spans as the trace exporter queues them
 * (telemetry/span.h) and the bodies it posts (telemetry/span_encode.h):
 * the http/json body is the OTLP/JSON text expected below, member for
 * member in trace.proto's order (ids in hex, times and intValue as decimal
 * strings, strings escaped); the http/protobuf body is byte for byte what
 * the OTLP/JSON transcoder (telemetry/otlp_pb.h, checked against
 * hand-assembled bytes in otlp_pb_test and the official classes in
 * otel_traces_test) makes of that text; attributes past the record's room
 * are counted as dropped; and the exporter's bulk random ids
 * (util/rand.h's pool) never repeat and do not stay in the pool. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/otlp_pb.h"
#include "telemetry/span.h"
#include "telemetry/span_encode.h"
#include "util/rand.h"

static const unsigned char TRACE[16] = {0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd,
                                        0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21,
                                        0x1c, 0x80, 0x31, 0x9c};
static const unsigned char SPAN[8] = {0x80, 0x90, 0x88, 0x96,
                                      0xdf, 0x09, 0x9a, 0x3d};
static const unsigned char PARENT[8] = {0xb7, 0xad, 0x6b, 0x71,
                                        0x69, 0x20, 0x33, 0x31};

static const mcp__span_batch_head HEAD = {
    .resource_json =
        "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"s\"}}",
    .scope_name = "libmcp",
    .scope_version = "1"};

/* A SERVER span with everything a request's can carry. */
static mcp__span *full_span(void) {
  mcp__span_draft d;
  mcp__span_draft_init(&d);
  memcpy(d.h.trace_id, TRACE, 16);
  memcpy(d.h.span_id, SPAN, 8);
  memcpy(d.h.parent_id, PARENT, 8);
  d.h.has_parent = true;
  mcp__span_draft_trace_state(&d, "v=1");
  mcp__span_draft_name(&d, "tools/call", "add", 3);
  d.h.kind = MCP__SPAN_KIND_SERVER;
  d.h.start_ns = 1796413892629776310;
  d.h.end_ns = 1796413892630073332;
  mcp__span_draft_cstr(&d, "mcp.method.name", "tools/call");
  mcp__span_draft_str(&d, "gen_ai.tool.name", "add", 3);
  mcp__span_draft_cstr(&d, "jsonrpc.request.id", "q\"1\n");
  mcp__span_draft_cstr(&d, "empty", "");
  mcp__span_draft_int(&d, "server.port", 8080);
  mcp__span_draft_int(&d, "negative", -1);
  d.h.has_link = true;
  memcpy(d.h.link_trace_id, TRACE, 16);
  memcpy(d.h.link_span_id, PARENT, 8);
  d.h.error = true;
  return mcp__span_draft_finish(&d);
}

/* A CLIENT span with the least: no parent, state, link or status. */
static mcp__span *bare_span(void) {
  mcp__span_draft d;
  mcp__span_draft_init(&d);
  memcpy(d.h.trace_id, TRACE, 16);
  memcpy(d.h.span_id, PARENT, 8);
  mcp__span_draft_name(&d, "ping", NULL, 0);
  d.h.kind = MCP__SPAN_KIND_CLIENT;
  d.h.start_ns = 1;
  d.h.end_ns = 2;
  return mcp__span_draft_finish(&d);
}

#define TRACE_HEX "0af7651916cd43dd8448eb211c80319c"
static const char WANT_JSON[] =
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":"
    "\"service.name\",\"value\":{\"stringValue\":\"s\"}}]},\"scopeSpans\":[{"
    "\"scope\":{\"name\":\"libmcp\",\"version\":\"1\"},\"spans\":["
    "{\"traceId\":\"" TRACE_HEX "\",\"spanId\":\"80908896df099a3d\","
    "\"parentSpanId\":\"b7ad6b7169203331\",\"traceState\":\"v=1\","
    "\"name\":\"tools/call add\",\"kind\":2,"
    "\"startTimeUnixNano\":\"1796413892629776310\","
    "\"endTimeUnixNano\":\"1796413892630073332\",\"attributes\":["
    "{\"key\":\"mcp.method.name\",\"value\":{\"stringValue\":\"tools/call\"}},"
    "{\"key\":\"gen_ai.tool.name\",\"value\":{\"stringValue\":\"add\"}},"
    "{\"key\":\"jsonrpc.request.id\",\"value\":{\"stringValue\":"
    "\"q\\\"1\\n\"}},"
    "{\"key\":\"empty\",\"value\":{\"stringValue\":\"\"}},"
    "{\"key\":\"server.port\",\"value\":{\"intValue\":\"8080\"}},"
    "{\"key\":\"negative\",\"value\":{\"intValue\":\"-1\"}}],"
    "\"links\":[{\"traceId\":\"" TRACE_HEX "\",\"spanId\":"
    "\"b7ad6b7169203331\"}],\"status\":{\"code\":2}},"
    "{\"traceId\":\"" TRACE_HEX "\",\"spanId\":\"b7ad6b7169203331\","
    "\"name\":\"ping\",\"kind\":3,\"startTimeUnixNano\":\"1\","
    "\"endTimeUnixNano\":\"2\",\"attributes\":[]}]}]}]}";

/* The protobuf body must be what the transcoder makes of the JSON one. */
static void assert_pb_matches_json(const mcp__span_batch_head *head,
                                   mcp__span *const *spans, size_t n,
                                   const char *json, size_t json_len) {
  mcp__buf want;
  mcp__buf_init(&want);
  char why[200] = "";
  if (!mcp__otlp_json_to_pb(json, json_len, &want, why, sizeof why))
    fail_msg("the JSON body does not transcode: %s", why);
  mcp__buf resource;
  mcp__buf_init(&resource);
  assert_true(mcp__otlp_resource_json_to_pb(head->resource_json, &resource,
                                            why, sizeof why));
  mcp__span_batch_head with_pb = *head;
  with_pb.resource_pb = resource.data ? resource.data : "";
  with_pb.resource_pb_len = resource.len;
  mcp__buf got;
  mcp__buf_init(&got);
  assert_true(mcp__spans_to_pb(&with_pb, spans, n, MCP__OTLP_PB_MAX_BYTES,
                               &got));
  assert_int_equal(got.len, want.len);
  assert_memory_equal(got.data, want.data, want.len);
  /* over a limit: refused, nothing written */
  mcp__buf_reset(&got);
  assert_false(mcp__spans_to_pb(&with_pb, spans, n, want.len - 1, &got));
  assert_int_equal(got.len, 0);
  mcp__buf_free(&got);
  mcp__buf_free(&resource);
  mcp__buf_free(&want);
}

static void test_batch_both_encodings(void **state) {
  (void)state;
  mcp__span *spans[2] = {full_span(), bare_span()};
  assert_non_null(spans[0]);
  assert_non_null(spans[1]);
  mcp__buf json;
  mcp__buf_init(&json);
  assert_true(mcp__spans_to_json(&HEAD, spans, 2, &json));
  if (strcmp(json.data, WANT_JSON) != 0)
    printf("got  %s\nwant %s\n", json.data, WANT_JSON);
  assert_string_equal(json.data, WANT_JSON);
  assert_pb_matches_json(&HEAD, spans, 2, json.data, json.len);
  mcp__buf_free(&json);
  free(spans[0]);
  free(spans[1]);
}

/* No resource attributes, an empty trace state (written in JSON, left out
 * of the protobuf as its default), and more attributes than a record
 * holds: the rest counted as dropped in both. */
static void test_dropped_attributes_and_defaults(void **state) {
  (void)state;
  mcp__span_draft d;
  mcp__span_draft_init(&d);
  memcpy(d.h.trace_id, TRACE, 16);
  memcpy(d.h.span_id, SPAN, 8);
  mcp__span_draft_trace_state(&d, "");
  mcp__span_draft_name(&d, "tools/list", NULL, 0);
  d.h.kind = MCP__SPAN_KIND_SERVER;
  d.h.start_ns = 5;
  d.h.end_ns = 6;
  /* past the draft's own storage too: its strings move to the heap */
  char big[300];
  memset(big, 'x', sizeof big);
  for (int i = 0; i < MCP__SPAN_MAX_ATTRS + 3; i++)
    mcp__span_draft_str(&d, "k", big, sizeof big);
  mcp__span *sp = mcp__span_draft_finish(&d);
  assert_non_null(sp);
  assert_int_equal(sp->h.attr_count, MCP__SPAN_MAX_ATTRS);
  assert_int_equal(sp->h.dropped_attrs, 3);
  mcp__span_batch_head head = HEAD;
  head.resource_json = "";
  mcp__buf json;
  mcp__buf_init(&json);
  assert_true(mcp__spans_to_json(&head, &sp, 1, &json));
  assert_non_null(strstr(json.data, "\"traceState\":\"\","));
  assert_non_null(strstr(json.data, "],\"droppedAttributesCount\":3}"));
  assert_non_null(strstr(json.data, "{\"attributes\":[]}"));
  assert_pb_matches_json(&head, &sp, 1, json.data, json.len);
  mcp__buf_free(&json);
  free(sp);
}

/* Attributes around 128 bytes, where a KeyValue's lengths stop fitting
 * one byte (the encoder writes the shorter ones without varints): the
 * protobuf still matches the transcoder's, byte for byte. */
static void test_attribute_length_edges(void **state) {
  (void)state;
  char v[140];
  memset(v, 'v', sizeof v);
  static const struct {
    const char *key;
    size_t key_len;
  } keys[] = {{"k", 1}, {"mcp.protocol.version", 20}};
  for (size_t k = 0; k < 2; k++) {
    for (size_t first = 96; first <= 128; first += 16) {
      mcp__span_draft d;
      mcp__span_draft_init(&d);
      memcpy(d.h.trace_id, TRACE, 16);
      memcpy(d.h.span_id, SPAN, 8);
      mcp__span_draft_name(&d, "tools/call", "edge", 4);
      d.h.kind = MCP__SPAN_KIND_SERVER;
      d.h.start_ns = 5;
      d.h.end_ns = 6;
      for (size_t n = first; n < first + 16 && n <= sizeof v; n++)
        mcp__span_draft_attr_str(&d, keys[k].key, keys[k].key_len, v, n);
      mcp__span *sp = mcp__span_draft_finish(&d);
      assert_non_null(sp);
      mcp__span_batch_head head = HEAD;
      mcp__buf json;
      mcp__buf_init(&json);
      assert_true(mcp__spans_to_json(&head, &sp, 1, &json));
      assert_pb_matches_json(&head, &sp, 1, json.data, json.len);
      mcp__buf_free(&json);
      free(sp);
    }
  }
}

/* A span whose strings cannot all be kept is not made; finish frees the
 * draft's heap either way (ASan checks). */
static void test_draft_finish_frees(void **state) {
  (void)state;
  mcp__span_draft d;
  mcp__span_draft_init(&d);
  char big[2000];
  memset(big, 'y', sizeof big);
  mcp__span_draft_name(&d, "a", big, sizeof big);
  mcp__span *sp = mcp__span_draft_finish(&d);
  assert_non_null(sp);
  assert_int_equal(sp->h.name_len, 2 + sizeof big);
  assert_int_equal(sp->text[1], ' ');
  free(sp);
}

static void test_random_pool(void **state) {
  (void)state;
  mcp__random_pool p;
  mcp__random_pool_init(&p);
  enum { IDS = 3 * MCP__RANDOM_POOL_BYTES / 8 }; /* two refills and more */
  unsigned char(*ids)[8] = calloc(IDS, 8);
  assert_non_null(ids);
  for (size_t i = 0; i < IDS; i++) {
    assert_int_equal(mcp__random_pool_take(&p, ids[i], 8), MCP_OK);
    /* what was handed out is wiped from the pool */
    for (size_t k = 0; k < p.used; k++)
      assert_int_equal(p.buf[k], 0);
  }
  for (size_t i = 0; i < IDS; i++)
    for (size_t j = i + 1; j < IDS; j++)
      assert_memory_not_equal(ids[i], ids[j], 8);
  /* an odd size past what is left: a refill, never the old bytes again */
  unsigned char tail[MCP__RANDOM_POOL_BYTES];
  assert_int_equal(mcp__random_pool_take(&p, tail, 12), MCP_OK);
  assert_int_equal(mcp__random_pool_take(&p, tail, sizeof tail), MCP_OK);
  assert_int_equal(p.used, sizeof p.buf);
  assert_int_equal(mcp__random_pool_take(&p, tail, sizeof tail + 1),
                   MCP_ERR_INVALID_ARG);
  free(ids);
  mcp__random_pool_destroy(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_batch_both_encodings),
      cmocka_unit_test(test_dropped_attributes_and_defaults),
      cmocka_unit_test(test_attribute_length_edges),
      cmocka_unit_test(test_draft_finish_frees),
      cmocka_unit_test(test_random_pool),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
