/* SPDX-License-Identifier: MIT */
/* demo_stdio_test.c - the demo server as a user runs it: spawned as a child
 * process and driven through pipes. Covers the demo tools and every file of
 * the JSONTestSuite: each n_ file must give -32700 or -32600 and leave the
 * server serving; each y_ file must parse (no -32700); i_ files must not
 * crash it. */
#include "demo_proc.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static json_t *read_msg(tu_proc *p) {
  char *line = tu_proc_read_line(p, 10000);
  assert_non_null(line);
  json_t *v = json_loads(line, 0, NULL);
  if (v == NULL)
    fprintf(stderr, "not JSON on stdout: %s\n", line);
  assert_non_null(v);
  free(line);
  return v;
}

static json_t *rpc(tu_proc *p, const char *line) {
  assert_int_equal(tu_proc_send_line(p, line), 0);
  return read_msg(p);
}

static void handshake(tu_proc *p) {
  json_t *r = rpc(p, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
                     "\"params\":{\"protocolVersion\":\"2025-11-25\","
                     "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
                     "\"version\":\"1\"}}}");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(r, "result"), "protocolVersion")),
                      "2025-11-25");
  json_decref(r);
  tu_proc_send_line(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                       "initialized\"}");
}

static json_t *call(tu_proc *p, const char *name, const char *args) {
  static int id = 100;
  char buf[1024];
  snprintf(
      buf, sizeof buf,
      "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
      "{\"name\":\"%s\",\"arguments\":%s}}",
      ++id, name, args);
  json_t *r = rpc(p, buf);
  assert_int_equal(json_integer_value(json_object_get(r, "id")), id);
  json_t *res = json_incref(json_object_get(r, "result"));
  json_decref(r);
  assert_non_null(res);
  return res;
}

static const char *first_text(json_t *res) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(res, "content"), 0), "text"));
}

static void test_demo_tools_behave_as_documented(void **state) {
  (void)state;
  tu_proc p;
  spawn_demo(&p, false);
  handshake(&p);
  json_t *r =
      rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
  json_t *tools = json_object_get(json_object_get(r, "result"), "tools");
  const char *names[] = {"get_server_time",
                         "get_customer_info",
                         "get_flight_details",
                         "update_customer",
                         "process_order",
                         "lookup_customer",
                         "build_report",
                         "add",
                         "divide",
                         "show_orders",
                         "start_long_export",
                         "export_orders",
                         "reindex_catalog",
                         "archive_orders"};
  assert_int_equal(json_array_size(tools), 14);
  for (size_t i = 0; i < 14; i++)
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(tools, i), "name")),
        names[i]);
  json_t *flight = json_array_get(tools, 2);
  json_t *props =
      json_object_get(json_object_get(flight, "inputSchema"), "properties");
  assert_int_equal(json_array_size(json_object_get(
                       json_object_get(props, "airline_code"), "enum")),
                   3);
  assert_non_null(json_object_get(flight, "icons"));
  json_t *upd_ann = json_object_get(json_array_get(tools, 3), "annotations");
  assert_true(json_is_true(json_object_get(upd_ann, "destructiveHint")));
  json_t *add_ann = json_object_get(json_array_get(tools, 7), "annotations");
  assert_true(json_is_false(json_object_get(add_ann, "openWorldHint")));
  json_decref(r);

  json_t *res = call(&p, "get_server_time", "{}");
  assert_non_null(strstr(first_text(res), "Current server time"));
  json_decref(res);

  res = call(&p, "get_flight_details",
             "{\"airline_code\":\"LH\",\"flight_number\":400}");
  assert_non_null(strstr(first_text(res), "| LH | 400 | 2026-12-02 |"));
  json_decref(res);
  res = call(&p, "get_flight_details",
             "{\"airline_code\":\"BA\",\"flight_number\":1}");
  assert_non_null(strstr(first_text(res), "No flights found"));
  json_decref(res);
  res = call(&p, "get_flight_details",
             "{\"airline_code\":\"XX\",\"flight_number\":1}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  json_decref(res);

  res = call(&p, "get_customer_info", "{\"customer_id\":\"C003\"}");
  assert_non_null(strstr(first_text(res), "Konrad Zuse"));
  json_decref(res);
  res = call(&p, "update_customer",
             "{\"customer_id\":\"C003\",\"city\":\"Hünfeld\"}");
  assert_null(json_object_get(res, "isError"));
  json_decref(res);
  res = call(&p, "lookup_customer", "{\"customer_id\":\"C003\"}");
  json_t *sc = json_object_get(res, "structuredContent");
  assert_string_equal(json_string_value(json_object_get(sc, "city")),
                      "Hünfeld");
  assert_true(json_is_number(json_object_get(sc, "balance")));
  json_decref(res);

  res = call(&p, "process_order", "{\"order_id\":\"O1002\"}");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(res, "structuredContent"), "status")),
                      "processed");
  json_decref(res);

  res = call(&p, "build_report", "{\"period\":\"2026-Q3\"}");
  json_t *link = json_array_get(json_object_get(res, "content"), 1);
  assert_string_equal(json_string_value(json_object_get(link, "type")),
                      "resource_link");
  assert_string_equal(json_string_value(json_object_get(link, "uri")),
                      "reports://sales/2026-Q3");
  json_decref(res);

  res = call(&p, "add", "{\"a\":10,\"b\":5}");
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(res, "structuredContent"), "sum")),
                   15);
  assert_string_equal(first_text(res), "{\"sum\":15}");
  json_decref(res);
  /* the task-optional export runs inline for clients without tasks */
  res = call(&p, "export_orders", "{\"seconds\":0,\"format\":\"json\"}");
  sc = json_object_get(res, "structuredContent");
  assert_int_equal(json_integer_value(json_object_get(sc, "rows")), 10000);
  assert_string_equal(json_string_value(json_object_get(sc, "uri")),
                      "file:///exports/export-inline.json");
  json_decref(res);
  res = call(&p, "divide", "{\"a\":1,\"b\":0}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(first_text(res), "Division by zero"));
  json_decref(res);
  res = call(&p, "add", "{\"a\":\"ten\",\"b\":5}");
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_non_null(strstr(first_text(res), "/a"));
  json_decref(res);

  int status = tu_proc_finish(&p, 5000);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Sends one JSONTestSuite file. n_ and y_ files may contain raw newlines:
 * for y_ files (valid JSON) newlines are only whitespace, so they are
 * replaced by spaces to keep one message per line; n_ files are sent as they
 * are and every resulting non-blank line must get its own error. */
static int send_case(tu_proc *p, const char *name, const char *data, size_t len,
                     bool *ok) {
  char kind = name[0];
  char *copy = malloc(len + 1);
  memcpy(copy, data, len);
  copy[len] = '\0';
  int expected = 0;
  if (kind == 'y')
    for (size_t i = 0; i < len; i++)
      if (copy[i] == '\n' || copy[i] == '\r')
        copy[i] = ' ';
  /* count non-blank lines the server will see */
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len || copy[i] == '\n') {
      bool blank = true;
      for (size_t k = start; k < i; k++)
        if (copy[k] != ' ' && copy[k] != '\t' && copy[k] != '\r')
          blank = false;
      if (!blank)
        expected++;
      start = i + 1;
    }
  }
  tu_proc_write(p, copy, len);
  tu_proc_write(p, "\n", 1);
  free(copy);
  *ok = true;
  for (int i = 0; i < expected; i++) {
    char *line = tu_proc_read_line(p, 10000);
    if (line == NULL) {
      fprintf(stderr, "%s: no answer\n", name);
      *ok = false;
      return expected;
    }
    json_t *m = json_loads(line, 0, NULL);
    int code = (int)json_integer_value(
        json_object_get(json_object_get(m, "error"), "code"));
    if (m == NULL) {
      fprintf(stderr, "%s: server wrote non-JSON: %.80s\n", name, line);
      *ok = false;
    } else if (kind == 'n' && code != MCP_RPC_PARSE_ERROR &&
               code != MCP_RPC_INVALID_REQUEST) {
      fprintf(stderr, "%s: expected -32700/-32600, got %.120s\n", name, line);
      *ok = false;
    } else if (kind == 'y' && code == MCP_RPC_PARSE_ERROR) {
      fprintf(stderr, "%s: valid JSON rejected: %.120s\n", name, line);
      *ok = false;
    }
    json_decref(m);
    free(line);
  }
  return expected;
}

static void test_json_test_suite_never_breaks_the_server(void **state) {
  (void)state;
  const char *shared = tu_shared_dir();
  if (shared == NULL) {
    fprintf(stderr, "JSONTestSuite: ../shared not present, skipping\n");
    skip();
  }
  char dir[512];
  snprintf(dir, sizeof dir, "%s/testdata/JSONTestSuite/test_parsing", shared);
  DIR *d = opendir(dir);
  assert_non_null(d);
  tu_proc p;
  spawn_demo(&p, false);
  handshake(&p);
  int files = 0, failures = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[1] != '_' || strchr("nyi", e->d_name[0]) == NULL)
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len;
    char *data = tu_read_file(path, &len);
    assert_non_null(data);
    bool ok;
    send_case(&p, e->d_name, data, len, &ok);
    free(data);
    files++;
    if (!ok)
      failures++;
    /* the server must still answer after every file */
    json_t *r = rpc(&p, "{\"jsonrpc\":\"2.0\",\"id\":\"alive\",\"method\":"
                        "\"ping\"}");
    assert_string_equal(json_string_value(json_object_get(r, "id")), "alive");
    json_decref(r);
  }
  closedir(d);
  fprintf(stderr, "JSONTestSuite: %d files, %d failures\n", files, failures);
  assert_true(files >= 300);
  assert_int_equal(failures, 0);
  int status = tu_proc_finish(&p, 5000);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int setup(void **state) {
  (void)state;
  snprintf(db_path, sizeof db_path, "/tmp/mcp-demo-test-%d.db", (int)getpid());
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
      cmocka_unit_test(test_demo_tools_behave_as_documented),
      cmocka_unit_test(test_json_test_suite_never_breaks_the_server),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
