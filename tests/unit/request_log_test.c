/* SPDX-License-Identifier: MIT */
/* request_log_test.c - the request log (issue #26 item 1): at debug, one
 * line per request through the log handler, with era, method, target, id,
 * duration, outcome and sizes, never the params unless asked; nothing above
 * debug. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct lines {
  char *text[64];
  mcp_log_level level[64];
  size_t n;
} lines;

static void capture(mcp_log_level level, const char *message, void *ud) {
  lines *l = ud;
  if (l->n < 64) {
    l->level[l->n] = level;
    l->text[l->n++] = strdup(message);
  }
}

static void lines_clear(lines *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->text[i]);
  l->n = 0;
}

/* The request lines logged so far, joined by newlines (static buffer). */
static const char *requests(const lines *l) {
  static char all[8192];
  all[0] = '\0';
  for (size_t i = 0; i < l->n; i++)
    if (strncmp(l->text[i], "request ", 8) == 0) {
      strncat(all, l->text[i], sizeof all - strlen(all) - 2);
      strcat(all, "\n");
    }
  return all;
}

static size_t request_count(const lines *l) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++)
    n += strncmp(l->text[i], "request ", 8) == 0;
  return n;
}

static mcp_status echo(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)ud;
  mcp_result_add_text(r, mcp_arg_string_or(args, "text", ""));
  return MCP_OK;
}

static mcp_status refuse(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_result_set_error(r, "no");
}

static lines captured;

static int setup(void **state) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("log-test", "1", &s), MCP_OK);
  mcp_server_set_log_handler(s, capture, &captured);
  mcp_server_set_log_level(s, MCP_LOG_DEBUG);
  const struct {
    const char *name;
    mcp_tool_fn fn;
  } tools[] = {{"echo", echo}, {"refuser", refuse}};
  for (size_t i = 0; i < 2; i++) {
    mcp_tool_t *t;
    assert_int_equal(mcp_tool_new(tools[i].name, &t), MCP_OK);
    assert_int_equal(mcp_tool_set_handler(t, tools[i].fn, NULL, NULL), MCP_OK);
    mcp_error_t err;
    assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_OK);
  }
  *state = s;
  return 0;
}

static int teardown(void **state) {
  lines_clear(&captured);
  return tu_free_server(state);
}

static void assert_has(const char *text, const char *part) {
  if (strstr(text, part) == NULL)
    fail_msg("\"%s\" not in:\n%s", part, text);
}

static void test_session_request_gets_one_line(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  lines_clear(&captured);
  const char *req = "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\","
                    "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":"
                    "\"secret-value\"}}}";
  json_t *r = tu_rpc(s, se, req);
  assert_non_null(json_object_get(r, "result"));
  char *sent = json_dumps(r, JSON_COMPACT);
  json_decref(r);
  assert_int_equal(request_count(&captured), 1);
  const char *line = requests(&captured);
  assert_has(line, "request time=20");
  assert_has(line, " transport=stdio era=2025-11-25 method=tools/call"
                   " tool=echo id=11 duration_ms=");
  assert_has(line, " outcome=result bytes_in=");
  char in[64], out[64];
  snprintf(in, sizeof in, "bytes_in=%zu ", strlen(req));
  snprintf(out, sizeof out, "bytes_out=%zu", strlen(sent));
  free(sent);
  assert_has(line, in);
  assert_has(line, out);
  /* never the arguments unless asked */
  assert_null(strstr(line, "secret-value"));
  assert_null(strstr(line, "params="));
  /* debug lines: the level the handler was told */
  for (size_t i = 0; i < captured.n; i++)
    if (strncmp(captured.text[i], "request ", 8) == 0)
      assert_int_equal(captured.level[i], MCP_LOG_DEBUG);
  mcp__session_release(se);
}

static void test_outcomes(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  /* refused while bound: before initialize */
  json_decref(tu_request(s, se, "tools/list", NULL));
  assert_has(requests(&captured), "method=tools/list id=1 duration_ms=");
  assert_has(requests(&captured), "outcome=error code=-32600");
  tu_initialize(s, se, NULL);
  lines_clear(&captured);
  /* isError result, a string id */
  json_decref(tu_rpc(s, se,
                     "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/"
                     "call\",\"params\":{\"name\":\"refuser\"}}"));
  assert_has(requests(&captured),
             "tool=refuser id=\"a\" duration_ms=");
  assert_has(requests(&captured), "outcome=tool_error bytes_in=");
  lines_clear(&captured);
  /* unknown method, unknown tool */
  json_decref(tu_request(s, se, "no/such", NULL));
  assert_has(requests(&captured),
             "method=no/such id=1 duration_ms=");
  assert_has(requests(&captured), "outcome=error code=-32601");
  lines_clear(&captured);
  /* not JSON: answered before it is a call */
  json_decref(tu_rpc(s, se, "{nope"));
  assert_has(requests(&captured), "method=- outcome=error code=-32700 "
                                  "bytes_in=5 bytes_out=");
  assert_int_equal(request_count(&captured), 1);
  mcp__session_release(se);
}

static void test_stateless_era(void **state) {
  mcp_server_t *s = *state;
  lines_clear(&captured);
  json_t *r = tu_modern_request(s, "tools/call", "{\"name\":\"echo\"}", NULL);
  assert_non_null(json_object_get(r, "result"));
  json_decref(r);
  assert_int_equal(request_count(&captured), 1);
  assert_has(requests(&captured), " era=2026-07-28 mode=stateless "
                                  "method=tools/call tool=echo id=1 ");
  assert_has(requests(&captured), "outcome=result");
}

static void test_params_only_when_asked(void **state) {
  mcp_server_t *s = *state;
  mcp_server_set_log_params(s, true);
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  lines_clear(&captured);
  json_decref(tu_rpc(s, se,
                     "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":"
                     "\"shown\"}}}"));
  assert_has(requests(&captured),
             " params={\"name\":\"echo\",\"arguments\":{\"text\":\"shown\"}}");
  mcp__session_release(se);
}

static void test_nothing_above_debug(void **state) {
  mcp_server_t *s = *state;
  mcp_server_set_log_level(s, MCP_LOG_INFO);
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_decref(tu_request(s, se, "tools/list", NULL));
  json_decref(tu_rpc(s, se, "{nope"));
  json_decref(tu_modern_request(s, "tools/list", NULL, NULL));
  assert_int_equal(request_count(&captured), 0);
  mcp__session_release(se);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_session_request_gets_one_line,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_outcomes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stateless_era, setup, teardown),
      cmocka_unit_test_setup_teardown(test_params_only_when_asked, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_nothing_above_debug, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
