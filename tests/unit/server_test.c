/* SPDX-License-Identifier: MIT */
/* server_test.c - the server in-process: lifecycle and version negotiation,
 * pagination, tools/call error split (SEP-1303), progress, logging,
 * cancellation, list_changed, server-to-client requests, the stateless era. */
#include "testutil.h"

#include <string.h>
#include <unistd.h>

static int handler_calls;

static mcp_status echo_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)call, (void)ud;
  handler_calls++;
  mcp_result_add_text(r, mcp_arg_string_or(args, "text", "(none)"));
  return MCP_OK;
}

static mcp_status bad_output_tool(mcp_call_t *call, json_t *args,
                                  mcp_result_t *r, void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_result_set_structured(r, json_pack("{s:s}", "n", "not a number"));
}

static mcp_status failing_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)r, (void)ud;
  if (json_object_get(args, "custom")) {
    mcp_call_set_error(call, -32099, "custom failure",
                       json_pack("{s:i}", "detail", 1));
    return MCP_ERR_INTERNAL;
  }
  return MCP_ERR_IO;
}

static mcp_status progress_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                                void *ud) {
  (void)args, (void)ud;
  assert_int_equal(mcp_call_progress(call, 1, 2, "half"), MCP_OK);
  assert_int_equal(mcp_call_progress(call, 1, 2, "again"), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_call_progress(call, 2, 2, NULL), MCP_OK);
  mcp_call_logf(call, MCP_LOG_INFO, "tool", "info %d", 1);
  mcp_call_logf(call, MCP_LOG_ERROR, "tool", "error %d", 2);
  mcp_result_add_text(r, "done");
  return MCP_OK;
}

/* Handlers of wait_cancel that have started. */
static int wait_cancel_started;

/* Waits until cancelled (at most 60 s, far beyond any wait of the tests). */
static mcp_status wait_cancel_tool(mcp_call_t *call, json_t *args,
                                   mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  __atomic_add_fetch(&wait_cancel_started, 1, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 30000 && !mcp_call_is_cancelled(call); i++)
    usleep(2000);
  mcp_result_add_text(r, mcp_call_is_cancelled(call) ? "cancelled" : "timeout");
  return MCP_OK;
}

static mcp_status roots_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)args, (void)ud;
  json_t *res = NULL;
  mcp_error_t err;
  mcp_status st = mcp_call_request(call, "roots/list", NULL, 2000, &res, &err);
  if (st != MCP_OK) {
    mcp_result_set_error(r, "%s|%s", mcp_status_name(st), err.message);
    return MCP_OK;
  }
  mcp_result_add_text(
      r, json_string_value(json_object_get(
             json_array_get(json_object_get(res, "roots"), 0), "uri")));
  json_decref(res);
  return MCP_OK;
}

/* Says what JSON type and value the argument "n" reached the handler as. */
static mcp_status number_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)call, (void)ud;
  json_t *n = json_object_get(args, "n");
  mcp_result_add_textf(r, "%s %.17g", json_is_integer(n) ? "integer" : "real",
                       json_number_value(n));
  return MCP_OK;
}

/* Reads its arguments the usual, careless way: fallbacks, statuses
 * ignored. */
static int careless_calls;
static mcp_status careless_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                                void *ud) {
  (void)call, (void)ud;
  careless_calls++;
  int64_t n = 0;
  mcp_arg_integer(args, "n", &n);
  mcp_result_add_textf(r, "file=%s n=%lld", mcp_arg_string_or(args, "file", ""),
                       (long long)n);
  return MCP_OK;
}

/* Passes a getter's status on as its own. */
static mcp_status strict_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)call, (void)ud;
  const char *file;
  mcp_status st = mcp_arg_string(args, "file", &file);
  if (st != MCP_OK)
    return st;
  mcp_result_add_text(r, file);
  return MCP_OK;
}

/* Takes NULs on purpose, through the length-aware getter. */
static mcp_status binary_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)call, (void)ud;
  const char *file;
  size_t len;
  if (mcp_arg_string_len(args, "file", &file, &len) != MCP_OK)
    return MCP_ERR_INVALID_ARG;
  mcp_result_add_textf(r, "%zu bytes", len);
  return MCP_OK;
}

/* The demo's divide without its own checks: 1e308 / 0.1 is Infinity. */
static mcp_status divide_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)call, (void)ud;
  double a = 0, b = 1;
  mcp_arg_number(args, "a", &a);
  mcp_arg_number(args, "b", &b);
  return mcp_result_set_structured(r, json_pack("{s:f}", "quotient", a / b));
}

static void add_tool(mcp_server_t *s, const char *name, mcp_tool_fn fn,
                     const char *input, const char *output) {
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  if (input)
    assert_int_equal(mcp_tool_set_input_schema_text(t, input), MCP_OK);
  if (output)
    assert_int_equal(mcp_tool_set_output_schema_text(t, output), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, fn, NULL, NULL), MCP_OK);
  mcp_error_t err;
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_OK);
}

static void quiet_log(mcp_log_level l, const char *m, void *ud) {
  (void)l, (void)m;
  (*(int *)ud)++;
}

static int logged;

static int setup(void **state) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("test-server", "1.2.3", &s), MCP_OK);
  mcp_server_set_title(s, "Test Server");
  mcp_server_set_instructions(s, "Be nice");
  mcp_server_add_icon(s, "https://example.com/icon.png", "image/png", "48x48",
                      NULL);
  logged = 0;
  mcp_server_set_log_handler(s, quiet_log, &logged);
  add_tool(s, "echo", echo_tool,
           "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}"
           "},\"required\":[\"text\"]}",
           NULL);
  add_tool(
      s, "bad_output", bad_output_tool, NULL,
      "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}}}");
  add_tool(s, "failing", failing_tool, NULL, NULL);
  add_tool(s, "progress", progress_tool, NULL, NULL);
  add_tool(s, "wait_cancel", wait_cancel_tool, NULL, NULL);
  add_tool(s, "roots", roots_tool, NULL, NULL);
  *state = s;
  return 0;
}

static int teardown(void **state) {
  mcp_server_free(*state);
  return 0;
}

static json_t *call_tool(mcp_server_t *s, mcp_session_t *se, const char *name,
                         const char *args) {
  char buf[1024];
  snprintf(
      buf, sizeof buf,
      "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":"
      "{\"name\":\"%s\",\"arguments\":%s}}",
      name, args);
  return tu_rpc(s, se, buf);
}

static int error_code(json_t *msg) {
  return (int)json_integer_value(
      json_object_get(json_object_get(msg, "error"), "code"));
}

/* The text of the first content item of a tools/call result. */
static const char *text_of(json_t *result) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(result, "content"), 0), "text"));
}

static void test_initialize_negotiates_versions(void **state) {
  mcp_server_t *s = *state;
  const char *cases[][2] = {
      {"2025-11-25", "2025-11-25"}, {"2025-06-18", "2025-06-18"},
      {"2025-03-26", "2025-03-26"}, {"2024-11-05", "2024-11-05"},
      {"1999-01-01", "2025-11-25"}, {"2026-07-28", "2025-11-25"}};
  for (size_t i = 0; i < 6; i++) {
    mcp_session_t *se = tu_session(s, NULL);
    char buf[512];
    snprintf(
        buf, sizeof buf,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
        "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{"
        "\"name\":\"c\",\"version\":\"1\"}}}",
        cases[i][0]);
    json_t *r = tu_rpc(s, se, buf);
    json_t *res = json_object_get(r, "result");
    assert_string_equal(
        json_string_value(json_object_get(res, "protocolVersion")),
        cases[i][1]);
    json_t *info = json_object_get(res, "serverInfo");
    assert_string_equal(json_string_value(json_object_get(info, "name")),
                        "test-server");
    assert_string_equal(json_string_value(json_object_get(info, "version")),
                        "1.2.3");
    assert_string_equal(json_string_value(json_object_get(info, "title")),
                        "Test Server");
    assert_non_null(json_object_get(info, "icons"));
    assert_string_equal(json_string_value(json_object_get(res, "instructions")),
                        "Be nice");
    assert_true(json_is_true(json_object_get(
        json_object_get(json_object_get(res, "capabilities"), "tools"),
        "listChanged")));
    json_decref(r);
    mcp__session_release(se);
  }
}

static void test_lifecycle_rules(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  /* ping works before initialize; other requests do not */
  json_t *r =
      tu_rpc(s, se, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  assert_true(json_is_object(json_object_get(r, "result")));
  assert_int_equal(json_object_size(json_object_get(r, "result")), 0);
  json_decref(r);
  r = tu_rpc(s, se, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
  assert_int_equal(error_code(r), MCP_RPC_INVALID_REQUEST);
  json_decref(r);
  /* malformed initialize */
  r = tu_rpc(s, se,
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\","
             "\"params\":{\"capabilities\":{}}}");
  assert_int_equal(error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  tu_initialize(s, se, NULL);
  r = tu_rpc(s, se,
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\","
             "\"params\":{\"protocolVersion\":\"2025-11-25\"}}");
  assert_int_equal(error_code(r), MCP_RPC_INVALID_REQUEST);
  json_decref(r);
  r = tu_rpc(s, se, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"nope/nope\"}");
  assert_int_equal(error_code(r), MCP_RPC_METHOD_NOT_FOUND);
  assert_int_equal(json_integer_value(json_object_get(r, "id")), 5);
  json_decref(r);
  /* notifications are never answered, not even unknown or broken ones */
  assert_null(tu_rpc(s, se, "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}"));
  assert_null(
      tu_rpc(s, se, "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":1}"));
  /* a client response to nothing we asked is ignored */
  assert_null(tu_rpc(s, se, "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}"));
  mcp__session_release(se);
}

static void check_pagination(mcp_server_t *s, size_t page) {
  mcp_server_set_page_size(s, page);
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  const char *expected[] = {"echo",     "bad_output",  "failing",
                            "progress", "wait_cancel", "roots"};
  size_t seen = 0, pages = 0;
  json_t *cursor = NULL;
  do {
    char buf[256];
    if (cursor)
      snprintf(buf, sizeof buf,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
               "\"params\":{\"cursor\":\"%s\"}}",
               json_string_value(cursor));
    else
      snprintf(buf, sizeof buf,
               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    json_decref(cursor);
    json_t *r = tu_rpc(s, se, buf);
    json_t *res = json_object_get(r, "result");
    json_t *tools = json_object_get(res, "tools");
    assert_true(json_array_size(tools) <= page);
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) {
      assert_true(seen < 6);
      assert_string_equal(json_string_value(json_object_get(t, "name")),
                          expected[seen++]);
    }
    cursor = json_incref(json_object_get(res, "nextCursor"));
    pages++;
    json_decref(r);
  } while (cursor);
  assert_int_equal(seen, 6);
  assert_int_equal(pages, (6 + page - 1) / page);
  mcp__session_release(se);
}

static void test_pagination_page_sizes_one_and_two(void **state) {
  check_pagination(*state, 1);
  check_pagination(*state, 2);
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_rpc(s, se,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
                     "list\",\"params\":{\"cursor\":\"bogus\"}}");
  assert_int_equal(error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  mcp_server_set_page_size(s, 50);
  mcp__session_release(se);
}

static void test_tools_call_error_split(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  /* unknown tool: protocol error */
  json_t *r = call_tool(s, se, "missing", "{}");
  assert_int_equal(error_code(r), MCP_RPC_INVALID_PARAMS);
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(r, "error"), "message")),
                      "Unknown tool: missing");
  json_decref(r);
  /* a misspelt name gets the closest registered names, best first */
  r = call_tool(s, se, "ecoh", "{}");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(r, "error"), "message")),
                      "Unknown tool: ecoh; did you mean 'echo'?");
  json_decref(r);
  r = call_tool(s, se, "Failng", "{}");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(r, "error"), "message")),
                      "Unknown tool: Failng; did you mean 'failing'?");
  json_decref(r);
  /* arguments not an object: protocol error */
  r = call_tool(s, se, "echo", "[1]");
  assert_int_equal(error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  /* SEP-1303: schema violation is an isError result; handler not called */
  handler_calls = 0;
  r = call_tool(s, se, "echo", "{\"text\":5}");
  json_t *res = json_object_get(r, "result");
  assert_true(json_is_true(json_object_get(res, "isError")));
  const char *text = text_of(res);
  assert_non_null(strstr(text, "Invalid arguments for tool 'echo'"));
  assert_non_null(strstr(text, "/text"));
  assert_int_equal(handler_calls, 0);
  json_decref(r);
  r = call_tool(s, se, "echo", "{\"text\":\"hi\"}");
  res = json_object_get(r, "result");
  assert_null(json_object_get(res, "isError"));
  assert_int_equal(handler_calls, 1);
  json_decref(r);
  /* output schema violation: isError result, logged as a server bug */
  int before = logged;
  r = call_tool(s, se, "bad_output", "{}");
  res = json_object_get(r, "result");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_null(json_object_get(res, "structuredContent"));
  assert_true(logged > before);
  json_decref(r);
  /* handler failure status: JSON-RPC error, internal details not leaked */
  r = call_tool(s, se, "failing", "{}");
  assert_int_equal(error_code(r), MCP_RPC_INTERNAL_ERROR);
  json_decref(r);
  r = call_tool(s, se, "failing", "{\"custom\":true}");
  assert_int_equal(error_code(r), -32099);
  assert_int_equal(
      json_integer_value(json_object_get(
          json_object_get(json_object_get(r, "error"), "data"), "detail")),
      1);
  json_decref(r);
  mcp__session_release(se);
}

/* Issue #16 item 13: a valid request with an integer beyond int64 was
 * answered -32700 without id; the number now reaches schema and tool as a
 * real. */
static void test_big_integer_arguments(void **state) {
  mcp_server_t *s = *state;
  /* here, not in setup: the pagination test counts tools */
  add_tool(s, "number", number_tool,
           "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":"
           "\"integer\",\"maximum\":18446744073709551615}}}",
           NULL);
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = call_tool(s, se, "number", "{\"n\":18446744073709551615}");
  assert_int_equal(json_integer_value(json_object_get(r, "id")), 11);
  json_t *res = json_object_get(r, "result");
  assert_non_null(res);
  assert_null(json_object_get(res, "isError"));
  assert_string_equal(text_of(res), "real 1.8446744073709552e+19");
  json_decref(r);
  /* the schema sees the number: beyond its maximum is a tool error */
  r = call_tool(s, se, "number", "{\"n\":36893488147419103232}");
  res = json_object_get(r, "result");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(text_of(res), "/n"));
  json_decref(r);
  /* the edge of int64 is still an integer */
  r = call_tool(s, se, "number", "{\"n\":-9223372036854775808}");
  assert_string_equal(text_of(json_object_get(r, "result")),
                      "integer -9.2233720368547758e+18");
  json_decref(r);
  mcp__session_release(se);
}

/* Issue #16 item 12: "a\u0000b.txt" passes a "\\.txt$" pattern but a
 * C-string getter would hand the handler "a". The getters refuse it and the
 * call becomes an isError result naming the argument, whatever the handler
 * made of it; the same for an integer beyond int64 (item 13). */
static void test_argument_faults_become_tool_errors(void **state) {
  mcp_server_t *s = *state;
  static const char schema[] =
      "{\"type\":\"object\",\"properties\":{\"file\":{\"type\":"
      "\"string\",\"pattern\":\"\\\\.txt$\"},\"n\":{\"type\":"
      "\"integer\"}}}";
  add_tool(s, "careless", careless_tool, schema, NULL);
  add_tool(s, "strict", strict_tool, schema, NULL);
  add_tool(s, "binary", binary_tool, schema, NULL);
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  static const char *const tools[] = {"careless", "strict"};
  for (size_t i = 0; i < 2; i++) {
    json_t *r = call_tool(s, se, tools[i], "{\"file\":\"a\\u0000b.txt\"}");
    json_t *res = json_object_get(r, "result");
    assert_non_null(res);
    assert_true(json_is_true(json_object_get(res, "isError")));
    const char *text = text_of(res);
    assert_non_null(strstr(text, "'file'"));
    assert_non_null(strstr(text, "U+0000"));
    json_decref(r);
  }
  careless_calls = 0;
  json_t *r = call_tool(s, se, "careless", "{\"n\":18446744073709551615}");
  json_t *res = json_object_get(r, "result");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(text_of(res), "'n'"));
  assert_int_equal(careless_calls, 1);
  json_decref(r);
  /* what is representable goes through unchanged */
  r = call_tool(s, se, "careless", "{\"file\":\"b.txt\",\"n\":5}");
  assert_string_equal(text_of(json_object_get(r, "result")), "file=b.txt n=5");
  json_decref(r);
  r = call_tool(s, se, "binary", "{\"file\":\"a\\u0000b.txt\"}");
  res = json_object_get(r, "result");
  assert_null(json_object_get(res, "isError"));
  assert_string_equal(text_of(res), "7 bytes");
  json_decref(r);
  mcp__session_release(se);
}

/* Issue #16 item 11: a non-finite number in a result was -32603; it is an
 * isError result that says why. */
static void test_non_finite_result_is_a_tool_error(void **state) {
  mcp_server_t *s = *state;
  add_tool(s, "divide", divide_tool, NULL, NULL);
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  int before = logged;
  json_t *r = call_tool(s, se, "divide", "{\"a\":1e308,\"b\":0.1}");
  assert_int_equal(error_code(r), 0);
  json_t *res = json_object_get(r, "result");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_null(json_object_get(res, "structuredContent"));
  const char *text = text_of(res);
  assert_non_null(strstr(text, "structuredContent"));
  assert_non_null(strstr(text, "non-finite"));
  assert_true(logged > before); /* a server bug, logged as such */
  json_decref(r);
  r = call_tool(s, se, "divide", "{\"a\":1,\"b\":4}");
  res = json_object_get(r, "result");
  assert_null(json_object_get(res, "isError"));
  assert_true(
      json_real_value(json_object_get(json_object_get(res, "structuredContent"),
                                      "quotient")) == 0.25);
  json_decref(r);
  mcp__session_release(se);
}

static void test_progress_and_logging_are_tied_to_the_request(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_rpc(s, se,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/"
                     "setLevel\",\"params\":{\"level\":\"verbose\"}}");
  assert_int_equal(error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  r = tu_rpc(s, se,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/"
             "setLevel\",\"params\":{\"level\":\"warning\"}}");
  assert_non_null(json_object_get(r, "result"));
  json_decref(r);
  tu_capture c;
  tu_capture_init(&c);
  tu_send(
      s, se, &c,
      "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"tools/call\",\"params\":"
      "{\"name\":\"progress\",\"_meta\":{\"progressToken\":\"tok\"}}}");
  /* progress 1, progress 2, the error log (info filtered), the response */
  assert_int_equal(json_array_size(c.messages), 4);
  json_t *p1 = json_array_get(c.messages, 0);
  assert_string_equal(json_string_value(json_object_get(p1, "method")),
                      "notifications/progress");
  json_t *pp = json_object_get(p1, "params");
  assert_string_equal(json_string_value(json_object_get(pp, "progressToken")),
                      "tok");
  assert_true(json_number_value(json_object_get(pp, "progress")) == 1.0);
  assert_true(json_number_value(json_object_get(pp, "total")) == 2.0);
  assert_string_equal(json_string_value(json_object_get(pp, "message")),
                      "half");
  json_t *log = json_array_get(c.messages, 2);
  assert_string_equal(json_string_value(json_object_get(log, "method")),
                      "notifications/message");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(log, "params"), "level")),
                      "error");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(log, "params"), "data")),
                      "error 2");
  assert_non_null(json_object_get(json_array_get(c.messages, 3), "result"));
  assert_int_equal(c.finals, 1);
  tu_capture_destroy(&c);
  mcp__session_release(se);
}

typedef struct run_arg {
  mcp_server_t *s;
  mcp_session_t *se;
  tu_capture *c;
  const char *text;
} run_arg;

static void *run_thread(void *p) {
  run_arg *a = p;
  tu_send(a->s, a->se, a->c, a->text);
  return NULL;
}

static void test_cancelled_request_gets_no_response(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  tu_capture c;
  tu_capture_init(&c);
  run_arg a = {s, se, &c,
               "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"tools/call\","
               "\"params\":{\"name\":\"wait_cancel\"}}"};
  int before = __atomic_load_n(&wait_cancel_started, __ATOMIC_SEQ_CST);
  pthread_t th;
  pthread_create(&th, NULL, run_thread, &a);
  /* the call is in flight once its handler runs (at most 20 s) */
  for (int i = 0; i < 2000 && __atomic_load_n(&wait_cancel_started,
                                              __ATOMIC_SEQ_CST) == before;
       i++)
    usleep(10000);
  assert_int_equal(__atomic_load_n(&wait_cancel_started, __ATOMIC_SEQ_CST),
                   before + 1);
  assert_null(tu_rpc(s, se,
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                     "cancelled\",\"params\":{\"requestId\":77,"
                     "\"reason\":\"user\"}}"));
  pthread_join(th, NULL);
  assert_int_equal(json_array_size(c.messages), 0);
  assert_int_equal(c.done_calls, 1); /* the transport still learns it ended */
  tu_capture_destroy(&c);
  mcp__session_release(se);
}

static void test_list_changed_goes_to_ready_sessions(void **state) {
  mcp_server_t *s = *state;
  tu_capture notify;
  tu_capture_init(&notify);
  mcp_session_t *se = tu_session(s, &notify);
  add_tool(s, "early", echo_tool, NULL, NULL); /* before init: not told */
  tu_initialize(s, se, NULL);
  add_tool(s, "late", echo_tool, NULL, NULL);
  assert_int_equal(mcp_server_remove_tool(s, "late"), MCP_OK);
  assert_int_equal(mcp_server_remove_tool(s, "late"), MCP_ERR_NOT_FOUND);
  assert_int_equal(mcp_server_remove_tool(s, "early"), MCP_OK);
  assert_int_equal(json_array_size(notify.messages), 3);
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(notify.messages, 0), "method")),
                      "notifications/tools/list_changed");
  /* duplicate names are refused and the tool is freed */
  mcp_tool_t *t;
  mcp_tool_new("echo", &t);
  mcp_tool_set_handler(t, echo_tool, NULL, NULL);
  mcp_error_t err;
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_ERR_EXISTS);
  mcp_tool_new("nohandler", &t);
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_ERR_STATE);
  mcp__session_release(se);
  tu_capture_destroy(&notify);
}

static void test_server_to_client_request_round_trip(void **state) {
  mcp_server_t *s = *state;
  /* without the capability: a clear error for the handler */
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = call_tool(s, se, "roots", "{}");
  const char *text = text_of(json_object_get(r, "result"));
  assert_non_null(strstr(text, "MCP_ERR_CAPABILITY"));
  json_decref(r);
  mcp__session_release(se);

  se = tu_session(s, NULL);
  tu_initialize(s, se, "{\"roots\":{}}");
  tu_capture c;
  tu_capture_init(&c);
  run_arg a = {s, se, &c,
               "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
               "\"params\":{\"name\":\"roots\"}}"};
  pthread_t th;
  pthread_create(&th, NULL, run_thread, &a);
  assert_int_equal(tu_capture_wait(&c, 1, 2000), 1);
  pthread_mutex_lock(&c.lock);
  json_t *req = json_incref(json_array_get(c.messages, 0));
  pthread_mutex_unlock(&c.lock);
  assert_string_equal(json_string_value(json_object_get(req, "method")),
                      "roots/list");
  char answer[256];
  snprintf(answer, sizeof answer,
           "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"roots\":[{\"uri\":"
           "\"file:///home/x\"}]}}",
           (long long)json_integer_value(json_object_get(req, "id")));
  json_decref(req);
  assert_null(tu_rpc(s, se, answer));
  pthread_join(th, NULL);
  assert_int_equal(json_array_size(c.messages), 2);
  json_t *resp = json_array_get(c.messages, 1);
  assert_string_equal(text_of(json_object_get(resp, "result")),
                      "file:///home/x");
  tu_capture_destroy(&c);

  /* a client that never answers: the handler gets a timeout */
  r = call_tool(s, se, "roots", "{}");
  text = text_of(json_object_get(r, "result"));
  assert_non_null(strstr(text, "MCP_ERR_TIMEOUT"));
  json_decref(r);
  mcp__session_release(se);
}

static void test_stateless_requests_carry_their_own_version(void **state) {
  mcp_server_t *s = *state;
  json_t *r = tu_rpc(
      s, NULL,
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"echo\",\"arguments\":{\"text\":\"m\"},\"_meta\":{"
      "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
  json_t *res = json_object_get(r, "result");
  assert_string_equal(json_string_value(json_object_get(res, "resultType")),
                      "complete");
  json_decref(r);
  r = tu_rpc(
      s, NULL,
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":"
      "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"v999\","
      "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
  assert_int_equal(error_code(r), MCP_RPC_UNSUPPORTED_PROTOCOL_VERSION);
  json_t *data = json_object_get(json_object_get(r, "error"), "data");
  assert_string_equal(json_string_value(json_object_get(data, "requested")),
                      "v999");
  assert_true(json_array_size(json_object_get(data, "supported")) >= 2);
  json_decref(r);
  r = tu_rpc(
      s, NULL,
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":"
      "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      "\"2026-07-28\"}}}");
  assert_int_equal(error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  r = tu_rpc(
      s, NULL,
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":"
      "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
  assert_int_equal(error_code(r), MCP_RPC_METHOD_NOT_FOUND);
  json_decref(r);
  r = tu_rpc(
      s, NULL,
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"server/discover\","
      "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
  res = json_object_get(r, "result");
  assert_non_null(json_object_get(res, "supportedVersions"));
  assert_non_null(
      json_object_get(json_object_get(res, "capabilities"), "tools"));
  json_decref(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_initialize_negotiates_versions,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_lifecycle_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pagination_page_sizes_one_and_two,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_big_integer_arguments, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_argument_faults_become_tool_errors,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_non_finite_result_is_a_tool_error,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_tools_call_error_split, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_progress_and_logging_are_tied_to_the_request, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cancelled_request_gets_no_response,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_changed_goes_to_ready_sessions,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_server_to_client_request_round_trip,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_stateless_requests_carry_their_own_version, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
