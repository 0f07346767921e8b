/* SPDX-License-Identifier: MIT */
/* mcpc_conformance_test.c - mcpc against the conformance server
 * (examples/conformance) over stdio and over Streamable HTTP: resources
 * (text, binary, template), prompts with key=value arguments, completion of
 * a prompt argument and of a template variable, log-level, progress lines,
 * isError, elicitation answered per --elicit, sampling refused cleanly
 * (mcpc declares no sampling), subscribe, and the exit codes. */
#include "mcpc_run.h"

static char stdio_cmd[1200];

/* Every check, with W ("-c" or "-u") and where (command or URL). */
static void exercise(const char *w, const char *where) {
  char *out = NULL, *err = NULL;
  json_t *j;

  MR_RUN(0, &out, w, where, "resources", "list");
  assert_non_null(strstr(out, "test://static-text"));
  assert_non_null(strstr(out, "test://static-binary"));
  assert_non_null(strstr(out, "test://watched-resource"));
  free(out);
  MR_RUN(0, &out, w, where, "resources", "read", "test://static-text");
  assert_string_equal(out,
                      "This is the content of the static text resource.\n");
  free(out);
  MR_RUN(0, &out, w, where, "resources", "read", "test://static-binary");
  assert_string_equal(out, "[blob test://static-binary, 96 bytes of base64]\n");
  free(out);
  MR_RUN(0, &out, w, where, "--format", "json", "resources", "read",
         "test://static-binary");
  j = json_loads(out, 0, NULL);
  json_t *c0 = json_array_get(json_object_get(j, "contents"), 0);
  assert_string_equal(json_string_value(json_object_get(c0, "mimeType")),
                      "image/png");
  assert_true(strncmp(json_string_value(json_object_get(c0, "blob")),
                      "iVBORw0KGgo", 11) == 0);
  json_decref(j);
  free(out);
  MR_RUN(0, &out, w, where, "resources", "templates");
  assert_non_null(strstr(out, "test://template/{id}/data"));
  free(out);
  MR_RUN(0, &out, w, where, "--format", "json", "resources", "templates");
  j = json_loads(out, 0, NULL);
  assert_int_equal(json_array_size(json_object_get(j, "resourceTemplates")), 1);
  json_decref(j);
  free(out);
  MR_RUN(0, &out, w, where, "resources", "read", "test://template/42/data");
  assert_non_null(strstr(out, "\"Data for ID: 42\""));
  free(out);
  MR_RUN(3, NULL, w, where, "resources", "read", "test://missing");
  MR_RUN(2, NULL, w, where, "resources", "read");

  /* subscribe: the server accepts; it never changes the resource */
  MR_RUN(0, &out, w, where, "resources", "subscribe", "test://watched-resource",
         "--wait-ms", "100");
  assert_string_equal(out, "subscribed to test://watched-resource\n");
  free(out);
  MR_RUN(2, NULL, w, where, "resources", "subscribe", "--wait-ms", "x", "u");

  MR_RUN(0, &out, w, where, "prompts", "list");
  assert_non_null(strstr(out, "test_simple_prompt"));
  assert_non_null(strstr(out, "test_prompt_with_image"));
  free(out);
  MR_RUN(0, &out, w, where, "prompts", "get", "test_simple_prompt");
  assert_non_null(strstr(out, "user: This is a simple prompt for testing."));
  free(out);
  MR_RUN(0, &out, w, where, "prompts", "get", "test_prompt_with_arguments",
         "arg1=hello", "arg2=42");
  /* prompt arguments stay strings: 42 is not turned into a number */
  assert_non_null(strstr(out, "arg1='hello', arg2='42'"));
  free(out);
  MR_RUN(0, &out, w, where, "--format", "json", "prompts", "get",
         "test_prompt_with_arguments", "arg1=a", "arg2=b");
  j = json_loads(out, 0, NULL);
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(json_array_get(json_object_get(j, "messages"), 0),
                          "content"),
          "type")),
      "text");
  json_decref(j);
  free(out);
  /* a missing required argument is a JSON-RPC error: exit 3 */
  MR_RUN2(3, NULL, &err, w, where, "prompts", "get",
          "test_prompt_with_arguments", "arg1=a");
  assert_non_null(strstr(err, "arg2"));
  assert_non_null(strstr(err, "-32602"));
  free(err);
  MR_RUN(0, &out, w, where, "prompts", "get", "test_prompt_with_image");
  assert_non_null(strstr(out, "user: [image image/png, "));
  free(out);
  MR_RUN(0, &out, w, where, "prompts", "get",
         "test_prompt_with_embedded_resource", "resourceUri=test://doc");
  assert_non_null(strstr(out, "user: [resource test://doc]"));
  free(out);
  MR_RUN(3, NULL, w, where, "prompts", "get", "no_such_prompt");
  MR_RUN(2, NULL, w, where, "prompts", "get", "test_simple_prompt", "novalue");

  MR_RUN(0, &out, w, where, "complete", "--prompt",
         "test_prompt_with_arguments", "arg1", "pa");
  assert_string_equal(out, "paris\npark\nparty\n");
  free(out);
  MR_RUN(0, &out, w, where, "complete", "--resource",
         "test://template/{id}/data", "id", "1");
  assert_string_equal(out, "1\n123\n");
  free(out);
  MR_RUN(0, &out, w, where, "--format", "json", "complete", "--resource",
         "test://template/{id}/data", "id", "4");
  j = json_loads(out, 0, NULL);
  json_t *values = json_object_get(json_object_get(j, "completion"), "values");
  assert_int_equal(json_array_size(values), 1);
  assert_string_equal(json_string_value(json_array_get(values, 0)), "456");
  json_decref(j);
  free(out);
  MR_RUN(2, NULL, w, where, "complete", "arg1", "pa");

  MR_RUN(0, &out, w, where, "log-level", "warning");
  assert_string_equal(out, "log level set to warning\n");
  free(out);
  MR_RUN(0, &out, w, where, "--format", "json", "log-level", "debug");
  assert_non_null(strstr(out, "\"level\": \"debug\""));
  free(out);
  MR_RUN(3, NULL, w, where, "log-level", "loud");
  MR_RUN(2, NULL, w, where, "log-level");

  /* progress: plain lines on stderr when not a terminal */
  MR_RUN2(0, &out, &err, w, where, "tools", "call", "test_tool_with_progress");
  assert_string_equal(out, "Tool with progress executed successfully\n");
  assert_non_null(strstr(err, "progress 0/100 ("));
  assert_non_null(strstr(err, "progress 50/100 ("));
  assert_non_null(strstr(err, "progress 100/100 ("));
  free(out);
  free(err);
  /* log notifications on stderr */
  MR_RUN2(0, NULL, &err, w, where, "tools", "call", "test_tool_with_logging");
  assert_non_null(strstr(err, "[info] conformance Tool execution started"));
  free(err);
  /* isError: exit 1, the text still printed */
  MR_RUN(1, &out, w, where, "tools", "call", "test_error_handling");
  assert_non_null(strstr(out, "intentionally returns an error"));
  free(out);
  MR_RUN(3, NULL, w, where, "tools", "call", "no_such_tool");

#define L "--protocol", "2025-11-25"
  /* elicitation: decline (default), cancel, accept with defaults, accept
   * with --elicit-content, accept without values for required fields.
   * 2025-11-25: these fixture tools ask with a server-to-client request
   * and turn a 2026-07-28 multi-round status into an isError result */
  MR_RUN2(0, &out, &err, L, w, where, "tools", "call", "test_elicitation",
          "message=Who are you?");
  assert_non_null(strstr(out, "action=decline"));
  assert_non_null(strstr(err, "the server asks: Who are you? (answer: "
                              "decline)"));
  free(out);
  free(err);
  MR_RUN(0, &out, L, w, where, "--elicit", "cancel", "tools", "call",
         "test_elicitation", "message=m");
  assert_non_null(strstr(out, "action=cancel"));
  free(out);
  MR_RUN(0, &out, L, w, where, "--elicit", "accept", "tools", "call",
         "test_elicitation_sep1034_defaults");
  assert_non_null(strstr(out, "action=accept"));
  assert_non_null(strstr(out, "\"name\":\"John Doe\""));
  assert_non_null(strstr(out, "\"verified\":true"));
  free(out);
  MR_RUN(0, &out, L, w, where, "--elicit", "accept", "--elicit-content",
         "{\"username\":\"ada\",\"email\":\"ada@example.com\"}", "tools",
         "call", "test_elicitation", "message=m");
  assert_non_null(strstr(out, "action=accept"));
  assert_non_null(strstr(out, "\"username\":\"ada\""));
  free(out);
  /* mcpc invents nothing: the server rejects the incomplete answer */
  MR_RUN(1, &out, L, w, where, "--elicit", "accept", "tools", "call",
         "test_elicitation", "message=m");
  assert_non_null(strstr(out, "username"));
  free(out);
#undef L
  MR_RUN(2, NULL, w, where, "--elicit", "maybe", "ping");
  MR_RUN(2, NULL, w, where, "--elicit-content", "[1]", "ping");

  /* sampling: mcpc declares no sampling capability, so the server's tool
   * cannot ask and reports an error result: exit 1, nothing hangs */
  MR_RUN2(1, &out, &err, w, where, "tools", "call", "test_sampling",
          "prompt=hi");
  assert_non_null(strstr(out, "sampling"));
  assert_non_null(strstr(err, "isError: true"));
  free(out);
  free(err);
  MR_RUN(0, &out, w, where, "--format", "json", "info");
  j = json_loads(out, 0, NULL);
  assert_non_null(json_object_get(
      json_object_get(json_object_get(j, "capabilities"), "resources"),
      "subscribe"));
  json_decref(j);
  free(out);
}

static void test_conformance_stdio(void **state) {
  exercise("-c", stdio_cmd);
}

static void test_conformance_http(void **state) {
  char hp[64], url[128], bin[1024];
  int port = mr_free_port();
  assert_true(port > 0);
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://%s/mcp", hp);
  snprintf(bin, sizeof bin, "%s/mcp-conformance-server", MCP_BIN_DIR);
  char *argv[] = {bin, "--http", hp, NULL};
  pid_t pid = mr_start_http(argv, url);
  assert_true(pid > 0);
  exercise("-u", url);
  char *out = NULL;
  MR_RUN(0, &out, "-u", url, "info");
  assert_non_null(strstr(out, "session: "));
  free(out);
  mr_stop(pid);
  MR_RUN(3, NULL, "-u", url, "resources", "list");
}

int main(void) {
  if (mr_setup("mcpc-conformance-test") != 0)
    return 1;
  snprintf(stdio_cmd, sizeof stdio_cmd, "%s/mcp-conformance-server --stdio",
           MCP_BIN_DIR);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conformance_stdio),
      cmocka_unit_test(test_conformance_http),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  mr_teardown();
  return rc;
}
