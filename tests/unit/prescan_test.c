/* SPDX-License-Identifier: MIT */
/* prescan_test.c - the one-pass look at a JSON-RPC message that transports
 * take before the dispatcher parses it: kind, depth, method, params.name,
 * the 2026-07-28 marker; strings never confuse it; and its depth agrees
 * with the depth scan it replaces on every file of JSONTestSuite. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsonrpc/prescan.h"
#include "testutil.h"
#include "json/scan.h"

static mcp__prescan scan(const char *text) {
  mcp__prescan p;
  mcp__jsonrpc_prescan(text, strlen(text), &p);
  return p;
}

static void assert_span(const char *s, size_t n, const char *want) {
  assert_non_null(s);
  assert_int_equal(n, strlen(want));
  assert_memory_equal(s, want, n);
}

static void test_kinds(void **state) {
  (void)state;
  assert_int_equal(
      scan("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}").kind,
      MCP__SCAN_REQUEST);
  assert_int_equal(scan(" {\"method\":\"notifications/initialized\"}").kind,
                   MCP__SCAN_NOTIFICATION);
  assert_int_equal(scan("{\"id\":3,\"result\":{}}").kind, MCP__SCAN_RESPONSE);
  assert_int_equal(scan("{\"id\":3,\"error\":{\"code\":1}}").kind,
                   MCP__SCAN_RESPONSE);
  assert_int_equal(scan("\n[{\"id\":1,\"method\":\"ping\"}]").kind,
                   MCP__SCAN_BATCH);
  assert_int_equal(scan("42").kind, MCP__SCAN_OTHER);
  assert_int_equal(scan("{\"id\":1}").kind, MCP__SCAN_OTHER);
  assert_int_equal(scan("").kind, MCP__SCAN_OTHER);
  /* Keys below the top level do not count. */
  assert_int_equal(scan("{\"params\":{\"method\":\"x\",\"id\":1}}").kind,
                   MCP__SCAN_OTHER);
}

static void test_fields(void **state) {
  (void)state;
  mcp__prescan p = scan(
      "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":"
      "{\"arguments\":{\"name\":\"not this\",\"_meta\":{"
      "\"io.modelcontextprotocol/protocolVersion\":\"x\"}},\"name\":\"add\"}}");
  assert_int_equal(p.kind, MCP__SCAN_REQUEST);
  assert_span(p.method, p.method_len, "tools/call");
  assert_span(p.name, p.name_len, "add");
  assert_false(p.modern); /* the marker inside arguments is not _meta */
  assert_int_equal(p.depth, 4);

  p = scan("{\"method\":\"tools/list\",\"id\":2,\"params\":{\"_meta\":{"
           "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
  assert_true(p.modern);
  assert_null(p.name);

  /* Escapes: the method is not taken (the parser decides). */
  p = scan("{\"id\":1,\"method\":\"initi\\u0061lize\"}");
  assert_int_equal(p.kind, MCP__SCAN_REQUEST);
  assert_null(p.method);
}

static void test_strings_do_not_confuse(void **state) {
  (void)state;
  mcp__prescan p =
      scan("{\"id\":1,\"method\":\"m\",\"params\":{\"s\":\"}}]]{{[[\\\"\","
           "\"t\":\"\\\\\",\"name\":\"n\"}}");
  assert_int_equal(p.kind, MCP__SCAN_REQUEST);
  assert_int_equal(p.depth, 2);
  assert_span(p.name, p.name_len, "n");
  /* An unterminated string ends the scan without reading past the end. */
  p = scan("{\"id\":1,\"method\":\"m");
  assert_int_equal(p.depth, 1);
}

/* Escapes at every offset of a string, across the eight-byte steps and the
 * 32-byte limit of the short-string loop: the string still ends where it
 * ends (a later key is found), and an escaped value is never reported. */
static void test_escapes_at_every_offset(void **state) {
  (void)state;
  static const char *const escapes[] = {"\\\"", "\\\\", "\\\\\\\"", "\\u0041",
                                        "\\n"};
  for (size_t e = 0; e < sizeof escapes / sizeof escapes[0]; e++)
    for (int at = 0; at < 48; at++) {
      char pad[64], text[512];
      memset(pad, 'x', (size_t)at);
      pad[at] = '\0';
      snprintf(text, sizeof text,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"x\":\"%s%s%s\",\"method\":"
               "\"tools/call\",\"params\":{\"note\":\"%s%s\",\"name\":"
               "\"add\"}}",
               pad, escapes[e], pad, pad, escapes[e]);
      mcp__prescan p = scan(text);
      assert_int_equal(p.kind, MCP__SCAN_REQUEST);
      assert_int_equal(p.depth, 2);
      assert_span(p.method, p.method_len, "tools/call");
      assert_span(p.name, p.name_len, "add");
      snprintf(text, sizeof text,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
               "\"params\":{\"name\":\"%s%s\"}}",
               pad, escapes[e]);
      p = scan(text);
      assert_null(p.name); /* written with an escape */
      assert_span(p.method, p.method_len, "tools/call");
    }
}

/* The depth agrees with mcp__json_too_deep on every JSONTestSuite file. */
static void check_depth(const char *name, const char *text, size_t len,
                        void *ud) {
  (void)ud;
  mcp__prescan p;
  mcp__jsonrpc_prescan(text, len, &p);
  for (size_t limit = 1; limit <= 4; limit++)
    if ((p.depth > limit) != mcp__json_too_deep(text, len, limit))
      fail_msg("%s: prescan depth %zu, limit %zu disagrees", name, p.depth,
               limit);
}

static void test_depth_matches_scan(void **state) {
  (void)state;
  size_t files = tu_json_suite_each("test_parsing", check_depth, NULL);
  if (files == 0)
    skip();
  assert_true(files > 300);
}

/* mcp__jsonrpc_scan (one parse) answers as the prescan does: kind, depth,
 * era marker, method and name (decoded where the prescan gives up on an
 * escape); on text that is not JSON it is the prescan. */
static void check_scan_agrees(const char *name, const char *text, size_t len,
                              void *ud) {
  size_t *parsed = ud;
  mcp__prescan p, q;
  mcp__tape t;
  mcp__jsonrpc_prescan(text, len, &p);
  mcp__jsonrpc_scan(text, len, &t, &q);
  if (q.tape != NULL)
    (*parsed)++;
  if (p.kind != q.kind || p.depth != q.depth || p.modern != q.modern ||
      (p.method && (q.method == NULL || p.method_len != q.method_len ||
                    memcmp(p.method, q.method, p.method_len) != 0)) ||
      (p.name && (q.name == NULL || p.name_len != q.name_len ||
                  memcmp(p.name, q.name, p.name_len) != 0)))
    fail_msg("%s: scan and prescan disagree", name);
  mcp__tape_release(&t);
}

static void test_scan_agrees_with_prescan(void **state) {
  (void)state;
  static const char *const messages[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
      " {\"method\":\"notifications/initialized\"}",
      "{\"id\":3,\"result\":{}}",
      "{\"id\":3,\"error\":{\"code\":1}}",
      "\n[{\"id\":1,\"method\":\"ping\"}]",
      "42",
      "{\"id\":1}",
      "{\"params\":{\"method\":\"x\",\"id\":1}}",
      "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":"
      "{\"arguments\":{\"name\":\"not this\",\"_meta\":{"
      "\"io.modelcontextprotocol/protocolVersion\":\"x\"}},\"name\":\"add\"}}",
      "{\"method\":\"tools/list\",\"id\":2,\"params\":{\"_meta\":{"
      "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}",
      "{\"id\":1,\"method\":\"m\",\"params\":{\"s\":\"}}]]{{[[\\\"\","
      "\"t\":\"\\\\\",\"name\":\"n\"}}",
      "{\"id\":1,\"method\":\"m", /* not JSON: the prescan's answers */
  };
  size_t parsed = 0;
  for (size_t i = 0; i < sizeof messages / sizeof messages[0]; i++)
    check_scan_agrees(messages[i], messages[i], strlen(messages[i]), &parsed);
  assert_int_equal(parsed, sizeof messages / sizeof messages[0] - 1);
  /* an escaped method is decoded, where the prescan gives up */
  const char *esc = "{\"id\":1,\"method\":\"initi\\u0061lize\"}";
  mcp__prescan q;
  mcp__tape t;
  mcp__jsonrpc_scan(esc, strlen(esc), &t, &q);
  assert_span(q.method, q.method_len, "initialize");
  mcp__tape_release(&t);
  parsed = 0;
  size_t files = tu_json_suite_each("test_parsing", check_scan_agrees, &parsed);
  if (files == 0)
    skip();
  assert_true(files > 300);
  assert_true(parsed > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kinds),
      cmocka_unit_test(test_fields),
      cmocka_unit_test(test_strings_do_not_confuse),
      cmocka_unit_test(test_escapes_at_every_offset),
      cmocka_unit_test(test_depth_matches_scan),
      cmocka_unit_test(test_scan_agrees_with_prescan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
