/* SPDX-License-Identifier: MIT */
/* test_client_test.c - a user's tools tested with the in-process client of
 * testing.h, only through the public API, in both eras: a tool that asks
 * the user (elicitation in 2025-11-25, input_required rounds in
 * 2026-07-28), the same tool as a task whose question is answered by
 * tasks/update, a plain task, validation errors as a real client sees them,
 * resources and prompts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <mcp/mcp.h>

/* ---- the user's server ---------------------------------------------------- */
typedef struct book_in { int64_t seats; } book_in;
static const mcp_field book_args[] = {
    MCP_INTEGER(book_in, seats, "Seats", .minimum = MCP_LIMIT(1)),
    MCP_FIELDS_END};

/* Asks for a confirmation before booking. */
MCP_TOOL_CALL_HANDLER(book, book_in, void) {
  mcp_elicit_action action = MCP_ELICIT_DECLINE;
  json_t *content = NULL;
  mcp_status st = mcp_call_elicit(
      call, "Book these seats?",
      json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties",
                "confirm", "type", "boolean", "required", "confirm"),
      0, &action, &content, NULL);
  if (st != MCP_OK) /* MCP_ERR_INPUT_REQUIRED in 2026-07-28: pass it up */
    return st;
  bool yes = action == MCP_ELICIT_ACCEPT &&
             json_is_true(json_object_get(content, "confirm"));
  json_decref(content);
  mcp_result_add_textf(result, yes ? "booked %lld seats" : "not booked",
                       (long long)in->seats);
  return MCP_OK;
}

MCP_TOOL_HANDLER(export_all, void, void) {
  mcp_result_add_textf(result, "exported");
  return MCP_OK;
}

static const char *const TERMS = "Delivery in 3 days.";

typedef struct fixture {
  mcp_server_t *server;
  mcp_store_t *store;
} fixture;

static int setup(void **state) {
  mcp_server_t *s = NULL;
  mcp_store_t *store = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_server_new("booking", "1.0.0", &s), MCP_OK);
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(s, store, NULL, &err), MCP_OK);
  assert_int_equal(
      mcp_server_add_tool_decl(
          s,
          &(mcp_tool_decl){.name = "book", .input = book_args,
                           .call_fn = book,
                           .task_support = MCP_TASK_OPTIONAL},
          &err),
      MCP_OK);
  assert_int_equal(
      mcp_server_add_tool_decl(
          s,
          &(mcp_tool_decl){.name = "export", .fn = export_all,
                           .task_support = MCP_TASK_OPTIONAL},
          &err),
      MCP_OK);
  assert_int_equal(mcp_server_add_resource_decl(
                       s,
                       &(mcp_resource_decl){.uri = "shop://terms",
                                            .name = "terms", .text = TERMS},
                       &err),
                   MCP_OK);
  fixture *f = malloc(sizeof *f);
  assert_non_null(f);
  f->server = s;
  f->store = store;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  mcp_server_free(f->server);
  mcp_store_free(f->store); /* after the server, which borrowed it */
  free(f);
  return 0;
}

static mcp_server_t *server_of(void **state) {
  return ((fixture *)*state)->server;
}

/* The user's answer: yes, and count the questions seen. */
static int asked;
static json_t *say_yes(const char *method, const json_t *params, void *ud) {
  (void)ud;
  asked++;
  assert_string_equal(method, "elicitation/create");
  assert_string_equal(json_string_value(json_object_get(params, "message")),
                      "Book these seats?");
  return json_pack("{s:s,s:{s:b}}", "action", "accept", "content", "confirm",
                   1);
}

static const char *first_text(const json_t *r) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(r, "result"), "content"),
                     0),
      "text"));
}

static mcp_test_client_t *connect(mcp_server_t *s, const char *version,
                                  const char *caps) {
  json_t *c = json_loads(caps, 0, NULL);
  assert_non_null(c);
  mcp_test_client_t *client = NULL;
  mcp_error_t err;
  mcp_status st = mcp_test_client_new(s, version, c, &client, &err);
  if (st != MCP_OK)
    fail_msg("mcp_test_client_new: %s", err.message);
  json_decref(c);
  mcp_test_client_set_answer(client, say_yes, NULL);
  return client;
}

static void test_question_answered(const char *version, void **state) {
  mcp_test_client_t *c =
      connect(server_of(state), version, "{\"elicitation\":{\"form\":{}}}");
  asked = 0;
  json_t *args = json_pack("{s:i}", "seats", 2);
  json_t *r = mcp_test_client_call_tool(c, "book", args);
  assert_string_equal(first_text(r), "booked 2 seats");
  assert_int_equal(asked, 1);
  assert_int_equal(mcp_test_client_questions(c), 1);
  json_decref(r);

  /* no answer: 2025-11-25 the tool sees an error, 2026-07-28 the test
   * sees the question */
  mcp_test_client_set_answer(c, NULL, NULL);
  r = mcp_test_client_call_tool(c, "book", args);
  if (strcmp(version, "2026-07-28") == 0) {
    json_t *res = json_object_get(r, "result");
    assert_string_equal(
        json_string_value(json_object_get(res, "resultType")),
        "input_required");
    assert_non_null(json_object_get(res, "requestState"));
  } else { /* the client's error reply failed mcp_call_elicit */
    assert_non_null(json_object_get(r, "error"));
  }
  json_decref(r);
  json_decref(args);

  /* the arguments are validated as over a transport */
  args = json_pack("{s:i}", "seats", 0);
  r = mcp_test_client_call_tool(c, "book", args);
  assert_true(json_is_true(
      json_object_get(json_object_get(r, "result"), "isError")));
  json_decref(r);
  json_decref(args);
  r = mcp_test_client_call_tool(c, "nope", NULL);
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(r, "error"), "code")),
                   -32602);
  json_decref(r);

  r = mcp_test_client_read_resource(c, "shop://terms");
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(
              json_object_get(json_object_get(r, "result"), "contents"), 0),
          "text")),
      TERMS);
  json_decref(r);
  r = mcp_test_client_list_tools(c);
  assert_int_equal(
      json_array_size(json_object_get(json_object_get(r, "result"), "tools")),
      2);
  json_decref(r);
  mcp_test_client_free(c);
}

static void test_question_legacy(void **state) {
  test_question_answered("2025-11-25", state);
}

static void test_question_modern(void **state) {
  test_question_answered("2026-07-28", state);
}

static void test_task_legacy(void **state) {
  mcp_test_client_t *c = connect(server_of(state), "2025-11-25", "{\"tasks\":{}}");
  json_t *p = json_pack("{s:s,s:{},s:{}}", "name", "export", "arguments",
                        "task");
  json_t *r = mcp_test_client_request(c, "tools/call", p);
  const char *id = json_string_value(json_object_get(
      json_object_get(json_object_get(r, "result"), "task"), "taskId"));
  assert_non_null(id);
  json_t *done = mcp_test_client_await_task(c, id, 0);
  assert_string_equal(first_text(done), "exported");
  json_decref(done);
  json_decref(r);
  json_decref(p);
  mcp_test_client_free(c);
}

static void test_task_modern_with_question(void **state) {
  mcp_test_client_t *c = connect(
      server_of(state), "2026-07-28",
      "{\"elicitation\":{\"form\":{}},"
      "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}");
  asked = 0;
  json_t *args = json_pack("{s:i}", "seats", 3);
  json_t *r = mcp_test_client_call_tool(c, "book", args);
  json_t *res = json_object_get(r, "result");
  assert_string_equal(json_string_value(json_object_get(res, "resultType")),
                      "task");
  const char *id = json_string_value(json_object_get(res, "taskId"));
  assert_non_null(id);
  json_t *done = mcp_test_client_await_task(c, id, 0);
  json_t *task = json_object_get(done, "result");
  assert_string_equal(json_string_value(json_object_get(task, "status")),
                      "completed");
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(
              json_object_get(json_object_get(task, "result"), "content"),
              0),
          "text")),
      "booked 3 seats");
  assert_int_equal(asked, 1);
  json_decref(done);
  json_decref(r);
  json_decref(args);
  mcp_test_client_free(c);
}

static void test_refusals(void **state) {
  mcp_test_client_t *c = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_test_client_new(server_of(state), "1999-01-01", NULL, &c, &err),
                   MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "1999-01-01"));
  assert_null(c);
  assert_int_equal(mcp_test_client_new(NULL, NULL, NULL, &c, &err),
                   MCP_ERR_INVALID_ARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_question_legacy),
      cmocka_unit_test(test_question_modern),
      cmocka_unit_test(test_task_legacy),
      cmocka_unit_test(test_task_modern_with_question),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
