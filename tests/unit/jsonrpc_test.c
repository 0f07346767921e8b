/* SPDX-License-Identifier: MIT */
/* jsonrpc_test.c - JSON-RPC 2.0 framing: classification, the exact error a
 * malformed message gets, and envelope encoding. */
#include "testutil.h"

#include <string.h>

#include "jsonrpc/jsonrpc.h"
#include "json/load.h"

static mcp_status decode(const char *text, mcp__message *m,
                         mcp__decode_error *e) {
  return mcp__jsonrpc_decode(text, strlen(text), 64, m, e);
}

static void expect_error(const char *text, int code, bool reply,
                         const char *id_json) {
  mcp__message m;
  mcp__decode_error e;
  assert_int_not_equal(decode(text, &m, &e), MCP_OK);
  assert_int_equal(e.code, code);
  assert_int_equal(e.reply, reply);
  if (id_json == NULL)
    assert_null(e.id);
  else {
    json_t *want = json_loads(id_json, JSON_DECODE_ANY, NULL);
    assert_true(json_equal(want, e.id));
    json_decref(want);
  }
  mcp__decode_error_clear(&e);
}

static void test_classifies_the_four_message_kinds(void **state) {
  (void)state;
  mcp__message m;
  mcp__decode_error e;
  assert_int_equal(
      decode("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", &m, &e),
      MCP_OK);
  assert_int_equal(m.kind, MCP__MSG_REQUEST);
  assert_string_equal(m.method, "ping");
  assert_int_equal(json_integer_value(m.id), 7);
  assert_null(m.params);
  mcp__message_clear(&m);

  assert_int_equal(
      decode("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
             &m, &e),
      MCP_OK);
  assert_int_equal(m.kind, MCP__MSG_NOTIFICATION);
  assert_null(m.id);
  mcp__message_clear(&m);

  assert_int_equal(
      decode("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}", &m, &e),
      MCP_OK);
  assert_int_equal(m.kind, MCP__MSG_RESULT);
  mcp__message_clear(&m);

  assert_int_equal(
      decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,"
             "\"message\":\"no\"}}",
             &m, &e),
      MCP_OK);
  assert_int_equal(m.kind, MCP__MSG_ERROR);
  mcp__message_clear(&m);
}

/* Envelope members are matched by their whole name: "ID" and "params_"
 * are other members; keys holding a NUL are refused before (Invalid
 * Request, answered without an id). */
static void test_members_match_whole_names(void **state) {
  (void)state;
  mcp__message m;
  mcp__decode_error e;
  assert_int_equal(decode("{\"jsonrpc\":\"2.0\",\"ID\":7,\"id\":8,"
                          "\"params_\":1,\"method\":\"ping\"}",
                          &m, &e),
                   MCP_OK);
  assert_int_equal(m.kind, MCP__MSG_REQUEST);
  assert_int_equal(json_integer_value(m.id), 8);
  assert_null(m.params);
  mcp__message_clear(&m);
  assert_int_equal(decode("{\"jsonrpc\":\"2.0\",\"ids\":7,"
                          "\"method\":\"ping\"}",
                          &m, &e),
                   MCP_OK);
  assert_int_equal(m.kind, MCP__MSG_NOTIFICATION);
  mcp__message_clear(&m);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\\u0000\":7,\"method\":\"ping\"}",
               MCP_RPC_INVALID_REQUEST, true, NULL);
  /* "JSONRPC" is not the version member */
  expect_error("{\"JSONRPC\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
               MCP_RPC_INVALID_REQUEST, true, "1");
}

static void test_rejects_malformed_messages_with_exact_codes(void **state) {
  (void)state;
  expect_error("{", MCP_RPC_PARSE_ERROR, true, NULL);
  expect_error("", MCP_RPC_PARSE_ERROR, true, NULL);
  expect_error("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
               MCP_RPC_INVALID_REQUEST, true, NULL);
  expect_error("42", MCP_RPC_INVALID_REQUEST, true, NULL);
  expect_error("{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}",
               MCP_RPC_INVALID_REQUEST, true, "3");
  expect_error("{\"id\":3,\"method\":\"ping\"}", MCP_RPC_INVALID_REQUEST, true,
               "3");
  /* null, fractional and boolean ids are not valid MCP ids: the id cannot be
   * echoed, so the error carries none */
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
               MCP_RPC_INVALID_REQUEST, true, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
               MCP_RPC_INVALID_REQUEST, true, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
               MCP_RPC_INVALID_REQUEST, true, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":5}",
               MCP_RPC_INVALID_REQUEST, true, "\"x\"");
  expect_error(
      "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":[1]}",
      MCP_RPC_INVALID_PARAMS, true, "9");
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":9}", MCP_RPC_INVALID_REQUEST, true,
               "9");
  /* a broken notification is never answered */
  expect_error("{\"jsonrpc\":\"1.0\",\"method\":\"notifications/x\"}",
               MCP_RPC_INVALID_REQUEST, false, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":3}",
               MCP_RPC_INVALID_PARAMS, false, NULL);
  /* invalid UTF-8 is a parse error */
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
               MCP_RPC_PARSE_ERROR, true, NULL);
}

static void test_depth_limit_refuses_before_parsing(void **state) {
  (void)state;
  char deep[400];
  memset(deep, '[', 200);
  memset(deep + 200, ']', 200);
  mcp__message m;
  mcp__decode_error e;
  assert_int_equal(mcp__jsonrpc_decode(deep, sizeof deep, 64, &m, &e),
                   MCP_ERR_TOO_DEEP);
  assert_int_equal(e.code, MCP_RPC_PARSE_ERROR);
  /* brackets inside strings do not count */
  const char *s = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"[[[[[[[[[[[[\"}";
  assert_int_equal(mcp__jsonrpc_decode(s, strlen(s), 4, &m, &e), MCP_OK);
  mcp__message_clear(&m);
}

static void test_encoders_write_exact_envelopes(void **state) {
  (void)state;
  mcp__buf b;
  mcp__buf_init(&b);
  json_t *id = json_integer(5);
  json_t *res = json_pack("{s:i}", "x", 1);
  assert_true(mcp__jsonrpc_encode_result(&b, id, res));
  assert_string_equal(b.data,
                      "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"x\":1}}");
  mcp__buf_reset(&b);
  assert_true(
      mcp__jsonrpc_encode_error(&b, NULL, -32700, "Parse \"error\"", NULL));
  assert_string_equal(b.data, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,"
                              "\"message\":\"Parse \\\"error\\\"\"}}");
  mcp__buf_reset(&b);
  assert_true(mcp__jsonrpc_encode_error(&b, id, -32602, "bad", res));
  assert_string_equal(b.data,
                      "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":"
                      "-32602,\"message\":\"bad\",\"data\":{\"x\":1}}}");
  mcp__buf_reset(&b);
  assert_true(mcp__jsonrpc_encode_notification(&b, "notifications/x", NULL));
  assert_string_equal(b.data,
                      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}");
  mcp__buf_reset(&b);
  assert_true(mcp__jsonrpc_encode_request(&b, id, "roots/list", res));
  assert_string_equal(b.data,
                      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"roots/"
                      "list\",\"params\":{\"x\":1}}");
  json_decref(id);
  json_decref(res);
  mcp__buf_free(&b);
}

/* The server's decoder (envelope from a tape, params kept as one) gives
 * the general decoder's verdict on every message: the same status, error
 * code, text, id and reply flag, or the same kind, id, method and params. */
/* Methods the server decoder points at instead of copying. */
static const char *const interned[] = {"a/b", "x", NULL};

static void check_server_decoder(const char *name, const char *text, size_t len,
                                 void *ud) {
  size_t *fast = ud;
  mcp__message a, b;
  mcp__decode_error ea, eb;
  mcp__prescan scan;
  mcp__tape t;
  mcp__jsonrpc_scan(text, len, &t, &scan);
  mcp_status sa = mcp__jsonrpc_decode(text, len, 64, &a, &ea);
  /* once from the scan's tape, once parsing itself */
  for (int from_scan = 0; from_scan < 2; from_scan++) {
    mcp_status sb = mcp__jsonrpc_decode_server(
        text, len, 64, from_scan ? &scan : NULL, interned, &b, &eb);
    if (sa != sb)
      fail_msg("%s: status %d vs %d", name, sa, sb);
    if (sa != MCP_OK) {
      if (ea.code != eb.code || ea.reply != eb.reply ||
          strcmp(ea.message, eb.message) != 0 ||
          (ea.id != NULL) != (eb.id != NULL) ||
          (ea.id && !json_equal(ea.id, eb.id)))
        fail_msg("%s: errors differ: %s / %s", name, ea.message, eb.message);
      mcp__decode_error_clear(&eb);
      continue;
    }
    json_t *pb = b.params;
    if (b.params_tape) {
      (*fast)++;
      pb = mcp__json_from_tnode(b.params_tape->nodes);
    } else
      json_incref(pb);
    if (a.kind != b.kind ||
        strcmp(a.method ? a.method : "", b.method ? b.method : "") != 0 ||
        (a.id != NULL) != (b.id != NULL) || (a.id && !json_equal(a.id, b.id)) ||
        (a.params != NULL) != (pb != NULL) ||
        (a.params && !json_equal(a.params, pb)))
      fail_msg("%s: messages differ", name);
    json_decref(pb);
    mcp__message_clear(&b);
  }
  if (sa == MCP_OK)
    mcp__message_clear(&a);
  else
    mcp__decode_error_clear(&ea);
  mcp__tape_release(&t);
}

static void test_server_decoder_agrees(void **state) {
  (void)state;
  static const char *const messages[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":"
      "{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":[1,{\"c\":null}]},"
      "\"_meta\":{\"progressToken\":3}}}",
      "{\"method\":\"tools/list\",\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{}}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
      "\"params\":{\"requestId\":4}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"x\"}"
      "}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\",\"id\":2}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\\u00e9\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\\u0000x\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\\u0000\":"
      "1}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"v\":"
      "\"\\u0000\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"result\":1}",
      "{\"jsonrpc\":\"2.0\",\"id\":99999999999999999999,\"method\":\"m\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":null}",
      "{\"jsonrpc\":\"2.0\\u0000\",\"id\":1,\"method\":\"m\"}",
      "{",
      "",
      "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
      "42",
      "{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}",
      "{\"id\":3,\"method\":\"ping\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":5}",
      "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":[1]}",
      "{\"jsonrpc\":\"1.0\",\"method\":\"notifications/x\"}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":3}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
  };
  size_t fast = 0;
  for (size_t i = 0; i < sizeof messages / sizeof messages[0]; i++)
    check_server_decoder(messages[i], messages[i], strlen(messages[i]), &fast);
  assert_int_equal(fast, 2 * 2); /* the two requests with params kept them */
  size_t files =
      tu_json_suite_each("test_parsing", check_server_decoder, &fast);
  if (files == 0)
    skip();
  assert_true(files > 300);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_classifies_the_four_message_kinds),
      cmocka_unit_test(test_members_match_whole_names),
      cmocka_unit_test(test_rejects_malformed_messages_with_exact_codes),
      cmocka_unit_test(test_depth_limit_refuses_before_parsing),
      cmocka_unit_test(test_encoders_write_exact_envelopes),
      cmocka_unit_test(test_server_decoder_agrees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
