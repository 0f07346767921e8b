/* SPDX-License-Identifier: MIT */
/* demo_lazy_libs_test.c - libpq is loaded with dlopen only when needed
 * (src/store/pq.c) and libmicrohttpd not at all (removed, docs/http.md): a
 * demo server serving over stdio must map neither, and --store postgres://
 * without libpq must fail at start with a message saying what to install. */
#include "demo_proc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether /proc/pid/maps names a file whose name contains what. */
static bool maps_name(pid_t pid, const char *what) {
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  bool found = false, any = false;
  while (fgets(line, sizeof line, f)) {
    any = true;
    if (strstr(line, what))
      found = true;
  }
  fclose(f);
  assert_true(any);
  return found;
}

static void
test_stdio_server_maps_neither_libpq_nor_libmicrohttpd(void **state) {
  (void)state;
  tu_proc p;
  spawn_demo(&p, false);
  assert_int_equal(
      tu_proc_send_line(
          &p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
              "\"params\":{\"protocolVersion\":\"2025-11-25\","
              "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
              "\"version\":\"1\"}}}"),
      0);
  char *line = tu_proc_read_line(&p, 10000);
  assert_non_null(line);
  assert_non_null(strstr(line, "\"protocolVersion\""));
  free(line);
  /* the process is serving: every library it needs is mapped; libc is the
   * sanity check that the maps were read */
  assert_true(maps_name(p.pid, "libc.so"));
  assert_false(maps_name(p.pid, "libpq.so"));
  assert_false(maps_name(p.pid, "libmicrohttpd.so"));
  int status = tu_proc_finish(&p, 5000);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_postgres_store_without_libpq_is_a_clear_error(void **state) {
  (void)state;
  char cmd[1024];
  /* MCP_PQ_LIBRARY replaces the library's name: here one that does not
   * exist, as on a machine without libpq5 */
  snprintf(cmd, sizeof cmd,
           "MCP_PQ_LIBRARY=/nonexistent/libpq.so.5 %s/mcp-demo-server "
           "--stdio --db %s --store 'postgres:///x?host=/nonexistent' "
           "</dev/null 2>&1",
           MCP_BIN_DIR, db_path);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  char out[4096];
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = '\0';
  int status = pclose(f);
  fprintf(stderr, "demo said: %s", out);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
  assert_non_null(strstr(out, "PostgreSQL stores need libpq"));
  assert_non_null(strstr(out, "install libpq5"));
  assert_non_null(strstr(out, "/nonexistent/libpq.so.5"));
}

static int setup(void **state) {
  (void)state;
  snprintf(db_path, sizeof db_path, "/tmp/mcp-lazy-libs-test-%d.db",
           (int)getpid());
  unlink(db_path);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  remove_db();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stdio_server_maps_neither_libpq_nor_libmicrohttpd),
      cmocka_unit_test(test_postgres_store_without_libpq_is_a_clear_error),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
