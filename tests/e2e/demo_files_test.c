/* SPDX-License-Identifier: MIT */
/* demo_files_test.c - `--db` moves every file the demo server writes: started
 * from another working directory with --db /abs/dir/x.db (and no --store),
 * serving tools and a task, it creates nothing in its working directory and
 * keeps data and tasks in x.db. */
#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static size_t entries(const char *dir, const char *must_have) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  size_t n = 0;
  bool found = must_have == NULL;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    fprintf(stderr, "%s: %s\n", dir, e->d_name);
    if (must_have && strcmp(e->d_name, must_have) == 0)
      found = true;
    n++;
  }
  closedir(d);
  assert_true(found);
  return n;
}

static json_t *rpc(tu_proc *p, const char *line) {
  assert_int_equal(tu_proc_send_line(p, line), 0);
  char *text = tu_proc_read_line(p, 10000);
  assert_non_null(text);
  json_t *v = json_loads(text, 0, NULL);
  free(text);
  assert_non_null(v);
  return v;
}

static void rmtree(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return;
  struct dirent *e;
  char path[600];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

static void test_db_moves_every_file(void **state) {
  (void)state;
  char cwd[] = "/tmp/mcp-demo-cwd-XXXXXX", data[] = "/tmp/mcp-demo-data-XXXXXX";
  assert_non_null(mkdtemp(cwd));
  assert_non_null(mkdtemp(data));
  char old_cwd[1024];
  assert_non_null(getcwd(old_cwd, sizeof old_cwd));
  assert_int_equal(chdir(cwd), 0);

  char bin[512], db[600];
  snprintf(bin, sizeof bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  snprintf(db, sizeof db, "%s/x.db", data);
  char *argv[] = {bin, "--stdio", "--banner", "--db", db, NULL};
  tu_proc p;
  assert_int_equal(tu_proc_spawn(&p, argv), 0);
  json_t *r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                      "\"params\":{\"protocolVersion\":\"2025-11-25\","
                      "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
                      "\"version\":\"1\"}}}");
  assert_non_null(json_object_get(json_object_get(r, "result"), "serverInfo"));
  json_decref(r);
  tu_proc_send_line(&p, "{\"jsonrpc\":\"2.0\",\"method\":"
                        "\"notifications/initialized\"}");
  /* a write to the business data */
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"update_customer\",\"arguments\":{"
              "\"customer_id\":\"C001\",\"city\":\"Fulda\"}}}");
  assert_null(json_object_get(json_object_get(r, "result"), "isError"));
  json_decref(r);
  /* a task, which the task store keeps */
  r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"export_orders\",\"arguments\":{"
              "\"seconds\":0},\"task\":{\"ttl\":60000}}}");
  json_t *task = json_object_get(json_object_get(r, "result"), "task");
  assert_non_null(json_object_get(task, "taskId"));
  json_decref(r);
  int status = tu_proc_finish(&p, 10000);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  /* nothing in the working directory; the data directory has x.db */
  assert_int_equal(entries(cwd, NULL), 0);
  assert_true(entries(data, "x.db") >= 1);
  /* the task went into x.db too: a restart finds it (--cleanup-tasks
   * reads the same default store) */
  char *clean[] = {bin, "--db", db, "--cleanup-tasks", NULL};
  assert_int_equal(tu_proc_spawn(&p, clean), 0);
  char *line = tu_proc_read_line(&p, 10000);
  assert_non_null(line);
  free(line);
  status = tu_proc_finish(&p, 10000);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  assert_int_equal(entries(cwd, NULL), 0);

  assert_int_equal(chdir(old_cwd), 0);
  rmtree(cwd);
  rmtree(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_db_moves_every_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
