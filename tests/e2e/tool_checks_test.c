/* SPDX-License-Identifier: MIT */
/* tool_checks_test.c - what a tool asks for is either done or refused:
 * a tool that needs tasks is not served by a server without them (the
 * transports refuse to start, naming every such tool; once serving,
 * mcp_server_add_tool refuses it), and "format" is checked when the server
 * or the tool asks for it (an annotation otherwise, as documented). */
#include "testutil.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "mcp/http.h"
#include "mcp/stdio.h"
#include "mcp/store.h"
#include "mcp/task.h"

static mcp_status ok_tool(mcp_call_t *call, json_t *args, mcp_result_t *result,
                          void *user_data) {
  (void)call, (void)args, (void)user_data;
  mcp_result_add_text(result, "ran");
  return MCP_OK;
}

static void keep_log(mcp_log_level level, const char *message, void *ud) {
  (void)level;
  snprintf(ud, 1024, "%s", message);
}

static mcp_status add_tool(mcp_server_t *s, const char *name,
                           mcp_task_support support, mcp_error_t *err) {
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, ok_tool, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_tool_set_task_support(t, support), MCP_OK);
  if (err)
    memset(err, 0, sizeof *err);
  return mcp_server_add_tool(s, t, err);
}

/* Serves s over stdio on a closed input: returns at once, MCP_OK when it
 * served (and met the end of input). */
static mcp_status serve_closed_stdio(mcp_server_t *s) {
  int in[2];
  assert_int_equal(pipe(in), 0);
  close(in[1]);
  int out = open("/dev/null", O_WRONLY);
  assert_true(out >= 0);
  mcp_status st = mcp_server_serve_fds(s, in[0], out);
  close(in[0]);
  close(out);
  return st;
}

static void test_task_tools_without_tasks_are_not_served(void **state) {
  (void)state;
  mcp_server_t *s;
  char logged[1024] = "";
  assert_int_equal(mcp_server_new("checks", "1", &s), MCP_OK);
  mcp_server_set_log_handler(s, keep_log, logged);
  /* before serving they are accepted: tasks may still be enabled */
  assert_int_equal(add_tool(s, "export", MCP_TASK_REQUIRED, NULL), MCP_OK);
  assert_int_equal(add_tool(s, "report", MCP_TASK_OPTIONAL, NULL), MCP_OK);
  assert_int_equal(add_tool(s, "plain", MCP_TASK_FORBIDDEN, NULL), MCP_OK);

  /* stdio does not start, and the log names every such tool */
  assert_int_equal(serve_closed_stdio(s), MCP_ERR_STATE);
  assert_non_null(strstr(logged, "not serving: 2 tools need tasks"));
  assert_non_null(strstr(logged, "'export' (taskSupport required)"));
  assert_non_null(strstr(logged, "'report' (taskSupport optional)"));
  assert_null(strstr(logged, "'plain'"));

  /* nor does HTTP, which says so in err */
  mcp_http_options_t *o;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  assert_int_equal(mcp_http_options_set_bind(o, "127.0.0.1", 0), MCP_OK);
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  memset(&err, 0, sizeof err);
  assert_int_equal(mcp_http_server_start(s, o, &h, &err), MCP_ERR_STATE);
  assert_null(h);
  assert_non_null(strstr(err.message, "2 tools need tasks"));
  assert_non_null(strstr(err.message, "'export' (taskSupport required)"));
  assert_non_null(strstr(err.message, "'report' (taskSupport optional)"));

  /* tasks enabled after the tools: served, and task tools still added */
  mcp_store_t *store;
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(s, store, NULL, NULL), MCP_OK);
  assert_int_equal(serve_closed_stdio(s), MCP_OK);
  assert_int_equal(add_tool(s, "later", MCP_TASK_OPTIONAL, NULL), MCP_OK);
  assert_int_equal(mcp_server_tool_count(s), 4);
  mcp_http_options_free(o);
  mcp_server_free(s);
  mcp_store_free(store);
}

static void test_task_tool_added_while_serving_without_tasks(void **state) {
  (void)state;
  mcp_server_t *s;
  char logged[1024] = "";
  assert_int_equal(mcp_server_new("checks", "1", &s), MCP_OK);
  mcp_server_set_log_handler(s, keep_log, logged);
  assert_int_equal(add_tool(s, "plain", MCP_TASK_FORBIDDEN, NULL), MCP_OK);
  assert_int_equal(serve_closed_stdio(s), MCP_OK); /* it has served */
  mcp_error_t err;
  assert_int_equal(add_tool(s, "late", MCP_TASK_OPTIONAL, &err), MCP_ERR_STATE);
  assert_non_null(strstr(err.message, "tool 'late' needs tasks (taskSupport "
                                      "optional), which are not enabled"));
  assert_non_null(strstr(logged, "tool 'late' not added"));
  assert_int_equal(add_tool(s, "later", MCP_TASK_FORBIDDEN, NULL), MCP_OK);
  assert_int_equal(mcp_server_tool_count(s), 2);
  mcp_server_free(s);
}

/* ---- format ---------------------------------------------------------------
 */
typedef struct contact_in {
  const char *email;
} contact_in;
static const mcp_field contact_args[] = {
    MCP_STRING(contact_in, email, "Where to write", .format = "email"),
    MCP_FIELDS_END};

MCP_TOOL_HANDLER(contact, contact_in, void) {
  mcp_result_add_textf(result, "wrote to %s", in->email);
  return MCP_OK;
}

static const mcp_tool_decl contact_tool = {
    .name = "contact", .input = contact_args, .fn = contact};

/* A tool from a JSON Schema of its own (arguments as jansson values). */
static mcp_tool_t *schema_tool(void) {
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new("visit", &t), MCP_OK);
  assert_int_equal(mcp_tool_set_input_schema_text(
                       t, "{\"type\":\"object\",\"properties\":{\"when\":"
                          "{\"type\":\"string\",\"format\":\"date\"}}}"),
                   MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, ok_tool, NULL, NULL), MCP_OK);
  return t;
}

/* Whether tools/call of name with args_json came back as isError. */
static bool call_is_error(mcp_server_t *s, const char *name,
                          const char *args_json) {
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  char params[512];
  snprintf(params, sizeof params, "{\"name\":\"%s\",\"arguments\":%s}", name,
           args_json);
  json_t *r = tu_request(s, se, "tools/call", params);
  mcp__session_release(se);
  json_t *res = json_object_get(r, "result");
  assert_non_null(res);
  bool is_error = json_is_true(json_object_get(res, "isError"));
  json_decref(r);
  return is_error;
}

/* server_assert: mcp_server_set_format_assertion before the tools (-1: not
 * called); tool_assert: mcp_tool_set_format_assertion (-1: not called). */
static mcp_server_t *format_server(int server_assert, int tool_assert) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("formats", "1", &s), MCP_OK);
  if (server_assert >= 0)
    assert_int_equal(mcp_server_set_format_assertion(s, server_assert == 1),
                     MCP_OK);
  mcp_tool_t *decl, *plain = schema_tool();
  assert_int_equal(mcp_tool_new_decl(&contact_tool, &decl), MCP_OK);
  if (tool_assert >= 0) {
    assert_int_equal(mcp_tool_set_format_assertion(decl, tool_assert == 1),
                     MCP_OK);
    assert_int_equal(mcp_tool_set_format_assertion(plain, tool_assert == 1),
                     MCP_OK);
  }
  assert_int_equal(mcp_server_add_tool(s, decl, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_tool(s, plain, NULL), MCP_OK);
  return s;
}

static void test_format_is_asserted_only_when_asked(void **state) {
  (void)state;
  const char *bad_mail = "{\"email\":\"not a mailbox\"}";
  const char *good_mail = "{\"email\":\"ann@example.com\"}";
  const char *bad_date = "{\"when\":\"2026-02-30\"}";
  const char *good_date = "{\"when\":\"2026-02-28\"}";
  struct {
    int server_assert, tool_assert;
    bool asserted;
  } cases[] = {
      {-1, -1, false}, /* the default: an annotation */
      {1, -1, true},   /* server-wide */
      {-1, 1, true},   /* per tool */
      {1, 0, false},   /* the tool's own setting wins */
      {0, -1, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mcp_server_t *s = format_server(cases[i].server_assert,
                                    cases[i].tool_assert);
    assert_int_equal(call_is_error(s, "contact", bad_mail), cases[i].asserted);
    assert_false(call_is_error(s, "contact", good_mail));
    assert_int_equal(call_is_error(s, "visit", bad_date), cases[i].asserted);
    assert_false(call_is_error(s, "visit", good_date));
    mcp_server_free(s);
  }
}

static void test_format_switch_after_tools_is_refused(void **state) {
  (void)state;
  mcp_server_t *s;
  char logged[1024] = "";
  assert_int_equal(mcp_server_new("formats", "1", &s), MCP_OK);
  mcp_server_set_log_handler(s, keep_log, logged);
  assert_int_equal(mcp_server_add_tool(s, schema_tool(), NULL), MCP_OK);
  /* the tool's schema was compiled already: it would keep the old rule */
  assert_int_equal(mcp_server_set_format_assertion(s, true), MCP_ERR_STATE);
  assert_non_null(strstr(logged, "mcp_server_set_format_assertion(true) "
                                 "refused: 1 tool was added before it"));
  assert_int_equal(mcp_server_set_format_assertion(s, false), MCP_OK);
  assert_false(call_is_error(s, "visit", "{\"when\":\"2026-02-30\"}"));
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_task_tools_without_tasks_are_not_served),
      cmocka_unit_test(test_task_tool_added_while_serving_without_tasks),
      cmocka_unit_test(test_format_is_asserted_only_when_asked),
      cmocka_unit_test(test_format_switch_after_tools_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
