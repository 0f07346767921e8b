/* SPDX-License-Identifier: MIT */
/* stdout_guard_test.c - a stdio server whose tool prints to stdout (printf,
 * write(1, ...), a child process) keeps its protocol stream clean: every
 * line the client reads is JSON-RPC, the printed text arrives on stderr,
 * and fd 1 is the protocol's again once serving ends (issue #26 item 2).
 * With --no-stdout-guard the noise reaches the client, as before.
 *
 * The server is this program itself, run as "stdout_guard_test serve ...".
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static mcp_status noisy(mcp_call_t *call, json_t *args, mcp_result_t *r,
                        void *ud) {
  (void)call, (void)args, (void)ud;
  printf("printf-noise from the handler\n");
  printf("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"forged\":true}}\n");
  if (write(STDOUT_FILENO, "write-noise\n", 12) != 12)
    return MCP_ERR_IO;
  if (system("echo child-noise") != 0)
    return MCP_ERR_IO;
  mcp_result_add_text(r, "done");
  return MCP_OK;
}

static int serve(int argc, char **argv) {
  mcp_server_t *s;
  if (mcp_server_new("noisy", "1", &s) != MCP_OK)
    return 1;
  mcp_tool_t *t;
  mcp_tool_new("noisy", &t);
  mcp_tool_set_handler(t, noisy, NULL, NULL);
  mcp_server_add_tool(s, t, NULL);
  printf("before-serving\n"); /* still the process's stdout */
  int rc = mcp_server_run(s, argc, argv);
  mcp_server_free(s);
  printf("after-serving\n"); /* fd 1 restored */
  return rc;
}

/* Runs this program as a server with extra (NULL-terminated), sends
 * initialize and a call of the noisy tool, closes its input; returns every
 * stdout line (array of strings) and stderr in *err. */
static json_t *run_server(const char *extra, char **err) {
  int in[2], out[2], errp[2];
  assert_int_equal(pipe(in), 0);
  assert_int_equal(pipe(out), 0);
  assert_int_equal(pipe(errp), 0);
  pid_t parent = getpid();
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    tu_child_dies_with(parent);
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(errp[1], 2);
    for (int fd = 3; fd < 64; fd++)
      close(fd);
    execl("/proc/self/exe", "stdout_guard_test", "serve", "--stdio", extra,
          (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(errp[1]);
  const char *input =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
      "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{"
      "\"name\":\"t\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"noisy\"}}\n";
  tu_proc p = {.pid = pid, .in_fd = in[1], .out_fd = out[0]};
  assert_int_equal(tu_proc_write(&p, input, strlen(input)), 0);
  json_t *lines = json_array();
  /* read until the real answer to id 2 (then end the input) */
  bool answered = false;
  char *line;
  while (!answered && (line = tu_proc_read_line(&p, 20000)) != NULL) {
    answered = strstr(line, "\"done\"") != NULL;
    json_array_append_new(lines, json_string(line));
    free(line);
  }
  assert_true(answered);
  close(in[1]);
  p.in_fd = -1;
  while ((line = tu_proc_read_line(&p, 20000)) != NULL) {
    json_array_append_new(lines, json_string(line));
    free(line);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  size_t len = 0, cap = 1 << 16;
  *err = malloc(cap);
  ssize_t n;
  while ((n = read(errp[0], *err + len, cap - len - 1)) > 0)
    len += (size_t)n;
  (*err)[len] = '\0';
  close(errp[0]);
  close(out[0]);
  free(p.buf);
  return lines;
}

static void test_printing_tool_keeps_the_stream_clean(void **state) {
  (void)state;
  char *err;
  json_t *lines = run_server(NULL, &err);
  size_t n = json_array_size(lines);
  /* first what was printed before serving, last what after: fd 1 was the
   * process's stdout then; in between only JSON-RPC */
  assert_true(n >= 4);
  assert_string_equal(json_string_value(json_array_get(lines, 0)),
                      "before-serving");
  assert_string_equal(json_string_value(json_array_get(lines, n - 1)),
                      "after-serving");
  int answers_to_2 = 0;
  for (size_t i = 1; i + 1 < n; i++) {
    const char *text = json_string_value(json_array_get(lines, i));
    json_t *m = json_loads(text, 0, NULL);
    if (m == NULL || !json_is_string(json_object_get(m, "jsonrpc")))
      fail_msg("line %zu read by the client is not JSON-RPC: %s", i, text);
    if (json_integer_value(json_object_get(m, "id")) == 2)
      answers_to_2++;
    json_decref(m);
  }
  assert_int_equal(answers_to_2, 1); /* the forged line did not get through */
  /* what the handler printed arrives on stderr */
  const char *printed[] = {"printf-noise from the handler\n",
                           "{\"forged\":true}", "write-noise\n",
                           "child-noise\n"};
  for (size_t i = 0; i < sizeof printed / sizeof printed[0]; i++)
    if (strstr(err, printed[i]) == NULL)
      fail_msg("\"%s\" not on stderr:\n%s", printed[i], err);
  json_decref(lines);
  free(err);
}

/* The opt-out: the protocol stays on fd 1, and so does the noise. */
static void test_opt_out_leaves_fd_1_alone(void **state) {
  (void)state;
  char *err;
  json_t *lines = run_server("--no-stdout-guard", &err);
  bool noise = false;
  for (size_t i = 0; i < json_array_size(lines); i++)
    noise |= strcmp(json_string_value(json_array_get(lines, i)),
                    "write-noise") == 0;
  assert_true(noise);
  assert_null(strstr(err, "write-noise"));
  json_decref(lines);
  free(err);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "serve") == 0)
    return serve(argc - 1, argv + 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_printing_tool_keeps_the_stream_clean),
      cmocka_unit_test(test_opt_out_leaves_fd_1_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
