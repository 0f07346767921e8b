/* SPDX-License-Identifier: MIT */
/* mcpc_trace_test.c - mcpc's view of the wire (issue #26 item 3): -v (the
 * era chosen, the URL, each HTTP exchange's status and time, each
 * request's outcome and time), --trace (every JSON-RPC message both ways
 * with direction and timestamp; pretty, or JSON lines with --format json)
 * and "mcpc request METHOD [PARAMS_JSON]" in both eras, over stdio and
 * HTTP, against examples/hello. */
#include "mcpc_run.h"

static char hello_cmd[1100];

#define GREET "{\"name\":\"greet\",\"arguments\":{\"name\":\"trace\"}}"

static int setup(void **state) {
  (void)state;
  snprintf(hello_cmd, sizeof hello_cmd, "%s/mcp-hello", MCP_BIN_DIR);
  return mr_setup("mcpc-trace");
}

static int teardown(void **state) {
  (void)state;
  mr_teardown();
  return 0;
}

static void assert_has(const char *text, const char *part) {
  if (text == NULL || strstr(text, part) == NULL)
    fail_msg("\"%s\" not in:\n%s", part, text ? text : "(null)");
}

static void test_request_in_both_eras(void **state) {
  (void)state;
  char *out = NULL, *err = NULL;
  /* 2026-07-28 (auto): the result carries resultType */
  MR_RUN(0, &out, "-c", hello_cmd, "request", "tools/call", GREET);
  json_t *r = json_loads(out, 0, NULL);
  assert_non_null(r);
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(json_object_get(r, "content"), 0),
                          "text")),
                      "Hello, trace!");
  assert_string_equal(json_string_value(json_object_get(r, "resultType")),
                      "complete");
  json_decref(r);
  free(out);
  /* 2025-11-25: a session, no resultType; ping exists there */
  MR_RUN(0, &out, "--protocol", "2025-11-25", "-c", hello_cmd, "request",
         "tools/call", GREET);
  assert_has(out, "Hello, trace!");
  assert_null(strstr(out, "resultType"));
  free(out);
  MR_RUN(0, &out, "--protocol", "2025-11-25", "-c", hello_cmd, "--format",
         "json", "request", "ping");
  assert_string_equal(out, "{}\n");
  free(out);
  /* a JSON-RPC error: on stderr with its code, exit 3 */
  MR_RUN2(3, &out, &err, "-c", hello_cmd, "request", "no/such");
  assert_has(err, "(JSON-RPC error -32601)");
  free(out);
  free(err);
  /* an isError result: printed, exit 1 (as tools call) */
  MR_RUN(1, &out, "-c", hello_cmd, "request", "tools/call",
         "{\"name\":\"greet\",\"arguments\":{}}");
  assert_has(out, "\"isError\": true");
  free(out);
  /* usage: params that are not an object, no method */
  MR_RUN2(2, NULL, &err, "-c", hello_cmd, "request", "tools/call", "[1]");
  assert_has(err, "PARAMS_JSON must be a JSON object");
  free(err);
  MR_RUN2(2, NULL, &err, "-c", hello_cmd, "request");
  assert_has(err, "request METHOD [PARAMS_JSON]");
  free(err);
}

static void test_trace_pretty_and_json(void **state) {
  (void)state;
  char *out = NULL, *err = NULL;
  MR_RUN2(0, &out, &err, "--trace", "-c", hello_cmd, "request", "tools/call",
          GREET);
  /* stdout holds only the result */
  json_t *r = json_loads(out, 0, NULL);
  assert_non_null(r);
  json_decref(r);
  assert_has(err, "--> ");
  assert_has(err, "<-- ");
  assert_has(err, "\"method\": \"server/discover\"");
  assert_has(err, "\"method\": \"tools/call\"");
  assert_has(err, "\"text\": \"Hello, trace!\"");
  free(out);
  free(err);

  MR_RUN2(0, &out, &err, "--trace", "--format", "json", "--protocol",
          "2025-11-25", "-c", hello_cmd, "request", "tools/call", GREET);
  /* one JSON object per line: direction, UTC time, the message */
  int sent = 0, received = 0;
  bool call_sent = false, call_answered = false;
  for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n")) {
    json_t *m = json_loads(line, 0, NULL);
    if (m == NULL)
      fail_msg("not a JSON line on stderr: %s", line);
    const char *dir = json_string_value(json_object_get(m, "trace"));
    const char *time = json_string_value(json_object_get(m, "time"));
    json_t *msg = json_object_get(m, "message");
    assert_non_null(dir);
    assert_true(time != NULL && strlen(time) == 24 && time[23] == 'Z');
    assert_true(json_is_object(msg));
    const char *method = json_string_value(json_object_get(msg, "method"));
    if (strcmp(dir, "send") == 0) {
      sent++;
      call_sent |= method != NULL && strcmp(method, "tools/call") == 0;
    } else {
      assert_string_equal(dir, "receive");
      received++;
      call_answered |= json_object_get(msg, "result") != NULL &&
                       strstr(line, "Hello, trace!") != NULL;
    }
    json_decref(m);
  }
  /* initialize, notifications/initialized, tools/call; two answers */
  assert_true(sent >= 3);
  assert_true(received >= 2);
  assert_true(call_sent && call_answered);
  free(out);
  free(err);
}

static void test_verbose_over_http(void **state) {
  (void)state;
  int port = mr_free_port();
  assert_true(port > 0);
  char hp[64], url[128];
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://%s/mcp", hp);
  char *argv[] = {hello_cmd, "--http", hp, NULL};
  pid_t pid = mr_start_http(argv, url);
  assert_true(pid > 0);
  char *out = NULL, *err = NULL, expect[256];
  MR_RUN2(0, &out, &err, "-v", "-u", url, "request", "tools/list");
  assert_has(out, "\"greet\"");
  snprintf(expect, sizeof expect,
           "mcpc: connecting to %s over Streamable HTTP (--protocol auto", url);
  assert_has(err, expect);
  snprintf(expect, sizeof expect, "mcpc: POST %s -> HTTP 200 in ", url);
  assert_has(err, expect);
  assert_has(err, "mcpc: server/discover (id 1): result in ");
  assert_has(err, "mcpc: era 2026-07-28 (server/discover");
  assert_has(err, "mcpc: tools/list (id 2): result in ");
  free(out);
  free(err);
  /* 2025-11-25: the session; a 2026-07-28-only refusal shows its status */
  MR_RUN2(0, &out, &err, "--verbose", "--protocol", "2025-11-25", "-u", url,
          "request", "ping");
  assert_has(err, "mcpc: era 2025-11-25 (initialize, a session), session ");
  assert_has(err, "mcpc: ping (id 2): result in ");
  free(out);
  free(err);
  MR_RUN2(3, &out, &err, "-v", "-u", url, "request", "no/such");
  snprintf(expect, sizeof expect, "mcpc: POST %s -> HTTP 404 in ", url);
  assert_has(err, expect);
  assert_has(err, "mcpc: no/such (id 2): error -32601 in ");
  free(out);
  free(err);
  assert_true(mr_stop(pid));
}

/* The options and the command are in --help and the man page. */
static void test_documented(void **state) {
  (void)state;
  char *out = NULL;
  char *scd = tu_read_file(MCP_SOURCE_DIR "/docs/mcpc.1.scd", NULL);
  assert_non_null(scd);
  MR_RUN(0, &out, "--help");
  const char *words[] = {"-v, --verbose", "--trace", "request"};
  for (size_t i = 0; i < 3; i++)
    assert_has(out, words[i]);
  free(out);
  assert_has(scd, "*-v*, *--verbose*");
  assert_has(scd, "*--trace*");
  assert_has(scd, "mcpc request");
  free(scd);
  MR_RUN(0, &out, "request", "--help");
  assert_has(out, "usage: mcpc request METHOD [PARAMS_JSON]");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_request_in_both_eras),
      cmocka_unit_test(test_trace_pretty_and_json),
      cmocka_unit_test(test_verbose_over_http),
      cmocka_unit_test(test_documented),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
