/* SPDX-License-Identifier: MIT */
/* features_stdio_test.c - mcp-conformance-server spawned over stdio:
 * progress notifications strictly increasing and ending before the
 * response, cancellation of a running call (no response, server keeps
 * serving), log level filtering, a sampling request answered by the test,
 * and resources/prompts end to end. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static void spawn(tu_proc *p) {
  char bin[512];
  snprintf(bin, sizeof bin, "%s/mcp-conformance-server", MCP_BIN_DIR);
  char *argv[] = {bin, "--stdio", NULL};
  assert_int_equal(tu_proc_spawn(p, argv), 0);
}

static json_t *read_msg(tu_proc *p, int timeout_ms) {
  char *line = tu_proc_read_line(p, timeout_ms);
  if (line == NULL)
    return NULL;
  json_t *v = json_loads(line, 0, NULL);
  if (v == NULL)
    fail_msg("not JSON on stdout: %s", line);
  free(line);
  return v;
}

static void handshake(tu_proc *p, const char *caps) {
  char buf[512];
  snprintf(
      buf, sizeof buf,
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
      "\"protocolVersion\":\"2025-11-25\",\"capabilities\":%s,"
      "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
      caps);
  tu_proc_send_line(p, buf);
  json_t *r = read_msg(p, 10000);
  json_t *sc = json_object_get(json_object_get(r, "result"), "capabilities");
  assert_non_null(json_object_get(sc, "resources"));
  assert_non_null(json_object_get(sc, "prompts"));
  assert_non_null(json_object_get(sc, "completions"));
  json_decref(r);
  tu_proc_send_line(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                       "initialized\"}");
}

static void finish(tu_proc *p) {
  int status = tu_proc_finish(p, 10000);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_progress_strictly_increases(void **state) {
  (void)state;
  tu_proc p;
  spawn(&p);
  handshake(&p, "{}");
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/"
                        "call\",\"params\":{\"name\":\"test_tool_with_"
                        "progress\",\"_meta\":{\"progressToken\":\"tok\"}}}");
  double last = -1;
  int notes = 0;
  for (;;) {
    json_t *m = read_msg(&p, 10000);
    assert_non_null(m);
    if (json_object_get(m, "id")) {
      assert_int_equal(json_integer_value(json_object_get(m, "id")), 7);
      assert_non_null(json_object_get(m, "result"));
      json_decref(m);
      break;
    }
    json_t *params = json_object_get(m, "params");
    assert_string_equal(json_string_value(json_object_get(m, "method")),
                        "notifications/progress");
    assert_string_equal(
        json_string_value(json_object_get(params, "progressToken")), "tok");
    double v = json_number_value(json_object_get(params, "progress"));
    assert_true(v > last);
    last = v;
    notes++;
    json_decref(m);
  }
  assert_int_equal(notes, 3);
  assert_true(last == 100);
  finish(&p);
}

static void test_cancel_running_call(void **state) {
  (void)state;
  tu_proc p;
  spawn(&p);
  handshake(&p, "{}");
  /* test_reconnection takes about 500 ms: cancel it while it runs */
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":\"slow\",\"method\":"
                        "\"tools/call\",\"params\":{\"name\":\"test_"
                        "reconnection\"}}");
  json_t *none = read_msg(&p, 100);
  assert_null(none);
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                        "cancelled\",\"params\":{\"requestId\":\"slow\","
                        "\"reason\":\"test\"}}");
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  json_t *m = read_msg(&p, 5000);
  assert_int_equal(json_integer_value(json_object_get(m, "id")), 2);
  json_decref(m);
  /* nothing for "slow", ever (well past its natural end) */
  assert_null(read_msg(&p, 1000));
  finish(&p);
}

static size_t count_logs(tu_proc *p, int id) {
  char buf[256];
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
           "\"params\":{\"name\":\"test_tool_with_logging\"}}",
           id);
  tu_proc_send_line(p, buf);
  size_t n = 0;
  for (;;) {
    json_t *m = read_msg(p, 10000);
    assert_non_null(m);
    bool done = json_object_get(m, "id") != NULL;
    if (!done) {
      assert_string_equal(json_string_value(json_object_get(m, "method")),
                          "notifications/message");
      n++;
    }
    json_decref(m);
    if (done)
      return n;
  }
}

static void test_logging_levels(void **state) {
  (void)state;
  tu_proc p;
  spawn(&p);
  handshake(&p, "{}");
  assert_int_equal(count_logs(&p, 1), 3);
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/"
                        "setLevel\",\"params\":{\"level\":\"warning\"}}");
  json_decref(read_msg(&p, 5000));
  assert_int_equal(count_logs(&p, 3), 0);
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"logging/"
                        "setLevel\",\"params\":{\"level\":\"info\"}}");
  json_decref(read_msg(&p, 5000));
  assert_int_equal(count_logs(&p, 5), 3);
  finish(&p);
}

static void test_sampling_and_resources(void **state) {
  (void)state;
  tu_proc p;
  spawn(&p);
  handshake(&p, "{\"sampling\":{}}");
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
                        "call\",\"params\":{\"name\":\"test_sampling\","
                        "\"arguments\":{\"prompt\":\"hi\"}}}");
  json_t *req = read_msg(&p, 5000);
  assert_string_equal(json_string_value(json_object_get(req, "method")),
                      "sampling/createMessage");
  char buf[512];
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"role\":"
           "\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"pong\"},"
           "\"model\":\"m\"}}",
           (long long)json_integer_value(json_object_get(req, "id")));
  json_decref(req);
  tu_proc_send_line(&p, buf);
  json_t *r = read_msg(&p, 5000);
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(
              json_object_get(json_object_get(r, "result"), "content"), 0),
          "text")),
      "LLM response: pong");
  json_decref(r);
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/"
                        "read\",\"params\":{\"uri\":\"test://template/7/"
                        "data\"}}");
  r = read_msg(&p, 5000);
  const char *text = json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(r, "result"), "contents"),
                     0),
      "text"));
  assert_non_null(strstr(text, "Data for ID: 7"));
  json_decref(r);
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/"
                        "get\",\"params\":{\"name\":\"test_prompt_with_"
                        "arguments\",\"arguments\":{\"arg1\":\"a\"}}}");
  r = read_msg(&p, 5000);
  assert_int_equal(
      json_integer_value(json_object_get(json_object_get(r, "error"), "code")),
      MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  finish(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_progress_strictly_increases),
      cmocka_unit_test(test_cancel_running_call),
      cmocka_unit_test(test_logging_levels),
      cmocka_unit_test(test_sampling_and_resources),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
