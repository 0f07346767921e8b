/* SPDX-License-Identifier: MIT */
/* mcpc_exit_codes_test.c - every cause of every exit code that
 * docs/mcpc.1.scd (EXIT STATUS) and docs/mcpc.md name, one mcpc run each,
 * in both eras where the era changes what the server answers:
 *   0 success;
 *   1 isError, a task failed or was cancelled, an inspect MUST failed, a
 *     profile not found for removal, the config not writable;
 *   2 unknown command, bad option, bad URL, bad JSON in --args, nowhere to
 *     connect, unknown profile, --task on a tool whose taskSupport is
 *     forbidden;
 *   3 a JSON-RPC error answer (unknown tool, missing prompt argument,
 *     cancelling an ended task), undeclared capability, timeout, HTTP
 *     error, server not reachable, not starting, dying, unsupported
 *     protocol version.
 * Servers: tests/client_fixture (task_fixture_server.c, fixture_server.c
 * --raw) and the conformance server (a prompt with a required argument). */
#include "mcpc_run.h"

static char fixture[1100], stdio_cmd[1400], url[128], config[400];

/* Runs mcpc and checks its exit code and that stderr names why. */
#define EXPECT(code, why, ...)                                                 \
  do {                                                                         \
    char *e__ = NULL;                                                          \
    MR_RUN2(code, NULL, &e__, __VA_ARGS__);                                    \
    if (strstr(e__, why) == NULL)                                              \
      fprintf(stderr, "stderr lacks \"%s\": %s\n", why, e__);                  \
    assert_non_null(strstr(e__, why));                                         \
    free(e__);                                                                 \
  } while (0)

static const char *const eras[] = {"auto", "2025-11-25"};

static void test_exit_0(void **state) {
  (void)state;
  for (size_t i = 0; i < 2; i++) {
    MR_RUN(0, NULL, "--protocol", eras[i], "-c", stdio_cmd, "ping");
    MR_RUN(0, NULL, "--protocol", eras[i], "-u", url, "tools", "call", "work");
  }
}

static void test_exit_1(void **state) {
  (void)state;
  for (size_t i = 0; i < 2; i++) {
    const char *era = eras[i];
    /* the tool returned isError */
    EXPECT(1, "isError", "--protocol", era, "-u", url, "tools", "call",
           "fail");
    /* a task failed (2025-11-25: status failed; 2026-07-28: completed with
     * an isError result) */
    EXPECT(1, "isError", "--protocol", era, "-u", url, "tools", "call", "fail",
           "--task", "--wait");
    /* a task was cancelled */
    char *out = NULL, id[128];
    MR_RUN(0, &out, "--protocol", era, "-u", url, "tools", "call", "elsewhere",
           "--task");
    assert_int_equal(sscanf(out, "task %127s", id), 1);
    free(out);
    MR_RUN(0, NULL, "--protocol", era, "-u", url, "tasks", "cancel", id);
    EXPECT(1, "was cancelled", "--protocol", era, "-u", url, "tasks", "result",
           id);
  }
  /* an inspect MUST failed */
  char raw[1200];
  snprintf(raw, sizeof raw, "%s/mcp-client-fixture --raw", MCP_BIN_DIR);
  MR_RUN(1, NULL, "-c", raw, "inspect");
  /* a profile not found for removal */
  EXPECT(1, "no profile \"nope\"", "--config", config, "profile", "remove",
         "nope");
  /* the config could not be written */
  EXPECT(1, "cannot write", "--config", "/dev/null/mcpc.json", "profile", "add",
         "x", "-u", "http://127.0.0.1:1/mcp");
}

static void test_exit_2(void **state) {
  (void)state;
  EXPECT(2, "unknown command", "frobnicate");
  EXPECT(2, "usage:", "-u", url, "tools", "list", "--nope");
  EXPECT(2, "only http:// and https://", "-u", "ftp://x", "ping");
  EXPECT(2, "--args needs a JSON object", "-u", url, "tools", "call", "work",
         "--args", "{");
  EXPECT(2, "say where the server is", "ping");
  EXPECT(2, "no profile \"nope\"", "--config", config, "--servers", "/dev/null",
         "-p", "nope", "ping");
  for (size_t i = 0; i < 2; i++)
    EXPECT(2, "taskSupport", "--protocol", eras[i], "-u", url, "tools", "call",
           "plain", "--task");
}

static void test_exit_3(void **state) {
  (void)state;
  for (size_t i = 0; i < 2; i++) {
    const char *era = eras[i];
    /* JSON-RPC errors: an unknown tool, cancelling an ended task */
    EXPECT(3, "JSON-RPC error", "--protocol", era, "-u", url, "tools", "call",
           "nope");
    char *out = NULL, id[128];
    MR_RUN(0, &out, "--protocol", era, "-u", url, "tools", "call", "work",
           "--task");
    assert_int_equal(sscanf(out, "task %127s", id), 1);
    free(out);
    MR_RUN(0, NULL, "--protocol", era, "-u", url, "tasks", "result", id);
    /* 2026-07-28 acknowledges any cancel: mcpc refuses it the same way */
    EXPECT(3, "already in terminal status 'completed'", "--protocol", era,
           "-u", url, "tasks", "cancel", id);
    /* an undeclared capability (the fixture has no resources) */
    EXPECT(3, "\"resources\" capability", "--protocol", era, "-u", url,
           "resources", "read", "file:///x");
    /* a timeout: work takes 180 ms */
    EXPECT(3, "timed out", "--protocol", era, "--timeout", "60", "-u", url,
           "tools", "call", "work");
  }
  /* a missing prompt argument (JSON-RPC error) */
  char conf[1200];
  snprintf(conf, sizeof conf, "%s/mcp-conformance-server --stdio", MCP_BIN_DIR);
  EXPECT(3, "JSON-RPC error -32602", "-c", conf, "prompts", "get",
         "test_prompt_with_arguments");
  /* an HTTP error */
  char wrong[160];
  snprintf(wrong, sizeof wrong, "%sx", url);
  EXPECT(3, "HTTP 404", "-u", wrong, "ping");
  /* the server is not reachable */
  EXPECT(3, "is the server running", "-u", "http://127.0.0.1:1/mcp", "ping");
  /* the server does not start, or dies */
  EXPECT(3, "cannot connect", "-c", "/nonexistent/mcp-server", "ping");
  EXPECT(3, "exited with status 1", "-c", "exit 1", "ping");
  /* an unsupported protocol version: --raw speaks no 2026-07-28 */
  char raw[1200];
  snprintf(raw, sizeof raw, "%s/mcp-client-fixture --raw", MCP_BIN_DIR);
  EXPECT(3, "does not speak 2026-07-28", "--protocol", "2026-07-28", "-c", raw,
         "ping");
}

int main(void) {
  if (mr_setup("mcpc-exit-codes-test") != 0)
    return 1;
  snprintf(fixture, sizeof fixture, "%s/mcp-task-fixture", MCP_BIN_DIR);
  snprintf(stdio_cmd, sizeof stdio_cmd, "%s --stdio --store sqlite:%s/s.db",
           fixture, mr_tmpdir);
  snprintf(config, sizeof config, "%s/config.json", mr_tmpdir);
  /* the HTTP fixture; its stdin is this process's pipe: it ends with us */
  char spec[400];
  snprintf(spec, sizeof spec, "sqlite:%s/h.db", mr_tmpdir);
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0)
    return 1;
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    tu_child_dies_with(parent);
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execl(fixture, fixture, "--http", "--store", spec, (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  FILE *f = fdopen(out[0], "r");
  char line[64] = "";
  unsigned port = 0;
  if (f == NULL || fgets(line, sizeof line, f) == NULL ||
      sscanf(line, "PORT %u", &port) != 1)
    return 1;
  fclose(f);
  snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", port);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exit_0),
      cmocka_unit_test(test_exit_1),
      cmocka_unit_test(test_exit_2),
      cmocka_unit_test(test_exit_3),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  close(in[1]);
  waitpid(pid, NULL, 0);
  mr_teardown();
  return rc;
}
