/* SPDX-License-Identifier: MIT */
/* hello_run_test.c - mcp_server_run through examples/hello (build/bin/
 * mcp-hello) as a child process: --help, --version, usage errors (exit 2),
 * --stdio, and --http on a free port answering real HTTP requests; the
 * same settings from MCP_HTTP and MCP_LOG_LEVEL, the command line winning. */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* the shared HTTP helpers; this test uses a few of them */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#pragma GCC diagnostic pop

static char hello_bin[512];

/* Reads all of fd (until EOF) into a malloc'd string. */
static char *read_all(int fd) {
  size_t len = 0, cap = 4096;
  char *s = malloc(cap);
  for (;;) {
    if (cap - len < 1024)
      s = realloc(s, cap *= 2);
    ssize_t n = read(fd, s + len, cap - len - 1);
    if (n <= 0)
      break;
    len += (size_t)n;
  }
  s[len] = '\0';
  return s;
}

/* Runs mcp-hello with args and input on stdin (NULL: /dev/null); returns
 * its exit code (-1 when it did not exit normally), stdout and stderr in
 * *out, *err. */
static int run_hello_with(const char *const args[], const char *input,
                          char **out, char **err) {
  char *argv[16] = {hello_bin};
  int n = 1;
  for (; args[n - 1] != NULL && n < 15; n++)
    argv[n] = (char *)args[n - 1];
  argv[n] = NULL;
  char opath[] = "/tmp/hello-out-XXXXXX", epath[] = "/tmp/hello-err-XXXXXX";
  int ofd = mkstemp(opath), efd = mkstemp(epath);
  assert_true(ofd >= 0 && efd >= 0);
  unlink(opath);
  unlink(epath);
  pid_t parent_ = getpid();
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    tu_child_dies_with(parent_);
    int nul = open("/dev/null", O_RDONLY);
    if (input != NULL) {
      char ipath[] = "/tmp/hello-in-XXXXXX";
      nul = mkstemp(ipath);
      unlink(ipath);
      if (nul < 0 || write(nul, input, strlen(input)) < 0 ||
          lseek(nul, 0, SEEK_SET) != 0)
        _exit(126);
    }
    dup2(nul, 0);
    dup2(ofd, 1);
    dup2(efd, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  lseek(ofd, 0, SEEK_SET);
  lseek(efd, 0, SEEK_SET);
  *out = read_all(ofd);
  *err = read_all(efd);
  close(ofd);
  close(efd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_hello(const char *const args[], char **out, char **err) {
  return run_hello_with(args, NULL, out, err);
}

static void assert_has(const char *text, const char *part) {
  if (strstr(text, part) == NULL)
    fail_msg("\"%s\" not in:\n%s", part, text);
}

#define HELLO_INIT                                                             \
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"      \
  "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{"   \
  "\"name\":\"t\",\"version\":\"1\"}}}\n"                                       \
  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
#define HELLO_GREET                                                            \
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"      \
  "\"name\":\"greet\",\"arguments\":{\"name\":\"secret-name\"}}}\n"

/* --log-level debug: one line per request on stderr (issue #26 item 1),
 * the arguments only with --log-params; warning (the default): none. */
static void test_request_log_stdio(void **state) {
  (void)state;
  char *out, *err;
  const char *debug[] = {"--log-level", "debug", NULL};
  assert_int_equal(run_hello_with(debug, HELLO_INIT HELLO_GREET, &out, &err),
                   0);
  assert_has(out, "Hello, secret-name!");
  assert_has(err, "libmcp debug: request time=");
  assert_has(err, " transport=stdio era=2025-11-25 method=initialize id=1 ");
  assert_has(err, " transport=stdio era=2025-11-25 method=tools/call "
                  "tool=greet id=2 duration_ms=");
  assert_has(err, " outcome=result bytes_in=");
  assert_null(strstr(err, "secret-name"));
  free(out);
  free(err);
  const char *params[] = {"--log-level=debug", "--log-params", NULL};
  assert_int_equal(run_hello_with(params, HELLO_INIT HELLO_GREET, &out, &err),
                   0);
  assert_has(err, "params={\"name\":\"greet\",\"arguments\":{\"name\":"
                  "\"secret-name\"}}");
  free(out);
  free(err);
  const char *quiet[] = {NULL};
  assert_int_equal(run_hello_with(quiet, HELLO_INIT HELLO_GREET, &out, &err),
                   0);
  assert_null(strstr(err, "request "));
  free(out);
  free(err);
}

static void test_help(void **state) {
  (void)state;
  char *out, *err;
  const char *args[] = {"--help", NULL};
  assert_int_equal(run_hello(args, &out, &err), 0);
  assert_non_null(strstr(out, "usage: mcp-hello [--stdio | --http HOST:PORT]"));
  assert_non_null(strstr(out, "--log-level LEVEL"));
  assert_non_null(strstr(out, "hello 1.0.0"));
  assert_string_equal(err, "");
  free(out);
  free(err);
}

static void test_version(void **state) {
  (void)state;
  char *out, *err;
  const char *args[] = {"--version", NULL};
  assert_int_equal(run_hello(args, &out, &err), 0);
  char want[128];
  snprintf(want, sizeof want, "hello 1.0.0 (libmcp %s)\n", MCP_VERSION_STRING);
  assert_string_equal(out, want);
  free(out);
  free(err);
}

static void expect_usage_error(const char *const args[], const char *msg) {
  char *out, *err;
  assert_int_equal(run_hello(args, &out, &err), 2);
  assert_string_equal(out, "");
  if (strstr(err, msg) == NULL || strstr(err, "usage: mcp-hello") == NULL)
    fail_msg("stderr lacks \"%s\" and the usage: %s", msg, err);
  free(out);
  free(err);
}

static void test_usage_errors(void **state) {
  (void)state;
  expect_usage_error((const char *[]){"--bogus", NULL},
                     "unknown option --bogus");
  expect_usage_error((const char *[]){"extra", NULL}, "unknown option extra");
  expect_usage_error((const char *[]){"--http", NULL},
                     "missing value for --http");
  expect_usage_error((const char *[]){"--http", "nocolon", NULL},
                     "--http wants HOST:PORT, not nocolon");
  expect_usage_error((const char *[]){"--http=127.0.0.1:99999", NULL},
                     "--http wants HOST:PORT");
  expect_usage_error((const char *[]){"--log-level", "loud", NULL},
                     "unknown log level loud");
}

/* --stdio (and the default): one ping, then EOF ends the server with 0. */
static void test_stdio(void **state) {
  (void)state;
  const char *modes[][3] = {{NULL}, {"--stdio", "--log-level=debug", NULL}};
  for (size_t m = 0; m < 2; m++) {
    char *argv[4] = {hello_bin};
    for (int i = 0; modes[m][i] != NULL; i++)
      argv[i + 1] = (char *)modes[m][i];
    tu_proc p;
    assert_int_equal(tu_proc_spawn(&p, argv), 0);
    assert_int_equal(
        tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
                              "\"ping\"}"),
        0);
    char *line = tu_proc_read_line(&p, 10000);
    assert_non_null(line);
    assert_non_null(strstr(line, "\"id\":7"));
    assert_non_null(strstr(line, "\"result\":{}"));
    free(line);
    int status = tu_proc_finish(&p, 10000);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
  }
}

/* --http 127.0.0.1:0 (or MCP_HTTP=127.0.0.1:0 when env): the URL with the
 * chosen port on stderr; initialize and tools/call greet over HTTP;
 * SIGTERM stops it with exit 0. */
static void serve_http_and_stop(bool env) {
  int errp[2];
  assert_int_equal(pipe(errp), 0);
  pid_t parent_ = getpid();
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    tu_child_dies_with(parent_);
    int nul = open("/dev/null", O_RDWR);
    dup2(nul, 0);
    dup2(nul, 1);
    dup2(errp[1], 2);
    close(errp[0]);
    if (env) {
      setenv("MCP_HTTP", "127.0.0.1:0", 1);
      execl(hello_bin, hello_bin, "--log-level", "debug", (char *)NULL);
    } else {
      execl(hello_bin, hello_bin, "--http", "127.0.0.1:0", "--log-level",
            "debug", (char *)NULL);
    }
    _exit(127);
  }
  close(errp[1]);
  tu_proc p = {.pid = pid, .in_fd = -1, .out_fd = errp[0]};
  char *line = tu_proc_read_line(&p, 10000);
  assert_non_null(line);
  const char *url = strstr(line, "http://127.0.0.1:");
  if (url == NULL)
    fail_msg("no URL on stderr: %s", line);
  int port = atoi(url + strlen("http://127.0.0.1:"));
  assert_true(port > 0 && port < 65536);
  assert_non_null(strstr(line, "/mcp"));
  free(line);

  char sid[64];
  open_session_expecting(port, "\"name\":\"hello\"", sid);
  char hdr[256], *body = NULL;
  session_hdr(hdr, sizeof hdr, sid);
  assert_int_equal(
      tc_do(port, "POST", hdr,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
            "\"params\":{\"name\":\"greet\",\"arguments\":{\"name\":\"run\"}}}",
            &body, NULL),
      200);
  assert_non_null(strstr(body, "Hello, run!"));
  free(body);
  /* the request log of that call (issue #26 item 1), on stderr */
  bool logged = false;
  while (!logged && (line = tu_proc_read_line(&p, 10000)) != NULL) {
    logged = strstr(line, "libmcp debug: request ") != NULL &&
             strstr(line, " transport=http era=2025-11-25 method=tools/call "
                          "tool=greet id=2 ") != NULL &&
             strstr(line, " outcome=result ") != NULL;
    free(line);
  }
  assert_true(logged);

  assert_int_equal(kill(pid, SIGTERM), 0);
  int status = tu_proc_finish(&p, 15000);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_http(void **state) {
  (void)state;
  serve_http_and_stop(false);
}

/* MCP_HTTP and MCP_LOG_LEVEL: used where the command line says nothing,
 * a bad value a usage error naming the variable, the command line wins. */
static void test_environment(void **state) {
  (void)state;
  serve_http_and_stop(true);
  char *out, *err;
  setenv("MCP_HTTP", "nocolon", 1);
  expect_usage_error((const char *[]){NULL},
                     "MCP_HTTP wants HOST:PORT, not nocolon");
  /* --stdio wins over MCP_HTTP: stdin is /dev/null, so it ends at once */
  assert_int_equal(run_hello((const char *[]){"--stdio", NULL}, &out, &err),
                   0);
  free(out);
  free(err);
  /* --help still works, and tells about the variables */
  assert_int_equal(run_hello((const char *[]){"--help", NULL}, &out, &err), 0);
  assert_non_null(strstr(out, "MCP_HTTP=HOST:PORT"));
  assert_non_null(strstr(out, "MCP_LOG_LEVEL=LEVEL"));
  free(out);
  free(err);
  unsetenv("MCP_HTTP");
  setenv("MCP_LOG_LEVEL", "loud", 1);
  expect_usage_error((const char *[]){NULL},
                     "unknown log level in MCP_LOG_LEVEL: loud");
  assert_int_equal(
      run_hello((const char *[]){"--log-level", "debug", NULL}, &out, &err), 0);
  free(out);
  free(err);
  setenv("MCP_LOG_LEVEL", "", 1); /* empty: unset */
  assert_int_equal(run_hello((const char *[]){NULL}, &out, &err), 0);
  free(out);
  free(err);
  unsetenv("MCP_LOG_LEVEL");
}

/* The port is taken: exit 1 with the reason on stderr. */
static void test_http_port_taken(void **state) {
  (void)state;
  fixture f;
  fixture_new_server(&f, "holder");
  fixture_serve(&f, base_options());
  char hp[64], *out, *err;
  snprintf(hp, sizeof hp, "127.0.0.1:%d", f.port);
  const char *args[] = {"--http", hp, NULL};
  assert_int_equal(run_hello(args, &out, &err), 1);
  assert_non_null(strstr(err, "mcp-hello: "));
  free(out);
  free(err);
  fixture_stop(&f);
}

int main(void) {
  snprintf(hello_bin, sizeof hello_bin, "%s/mcp-hello", MCP_BIN_DIR);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help),
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_usage_errors),
      cmocka_unit_test(test_stdio),
      cmocka_unit_test(test_request_log_stdio),
      cmocka_unit_test(test_http),
      cmocka_unit_test(test_environment),
      cmocka_unit_test(test_http_port_taken),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
