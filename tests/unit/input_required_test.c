/* SPDX-License-Identifier: MIT */
/* input_required_test.c - 2026-07-28 multi-round requests (SEP-2322): the
 * input_required round trip, several questions and rounds, and a sealed
 * requestState that cannot be forged, truncated, replayed for other
 * arguments or another caller, used after expiry or under another key;
 * -32021 and -32602 for resources in that era. */
#include "testutil.h"

#include <string.h>
#include <time.h>

#include "core/call_life.h"
#include "core/feature.h"
#include "core/request_state.h"
#include "core/sessions.h"

static mcp_status ask_name(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)args, (void)ud;
  mcp_call_set_question_key(call, "user_name");
  mcp_elicit_action action;
  json_t *content = NULL;
  mcp_status st = mcp_call_elicit(
      call, "Name?",
      json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties",
                "name", "type", "string", "required", "name"),
      0, &action, &content, NULL);
  if (st == MCP_OK)
    mcp_result_add_textf(r, "Hello, %s!",
                         json_string_value(json_object_get(content, "name")));
  json_decref(content);
  return st;
}

/* Two rounds; the second question depends on the first answer, and the
 * handler keeps a counter in its round state. */
static mcp_status two_rounds(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)args, (void)ud;
  json_t *kept = mcp_call_round_state(call);
  json_int_t runs = json_integer_value(json_object_get(kept, "runs")) + 1;
  mcp_call_set_round_state(call, json_pack("{s:I}", "runs", runs));
  json_t *roots = NULL;
  mcp_status st = mcp_call_list_roots(call, 0, &roots, NULL);
  if (st != MCP_OK)
    return st;
  size_t n = json_array_size(roots);
  json_decref(roots);
  mcp_elicit_action action;
  st = mcp_call_elicit(call, n ? "Use the first root?" : "No roots?",
                       json_pack("{s:s,s:{}}", "type", "object", "properties"),
                       0, &action, NULL, NULL);
  if (st == MCP_OK)
    mcp_result_add_textf(r, "roots=%zu action=%s runs=%d", n,
                         mcp_elicit_action_name(action), (int)runs);
  return st;
}

static mcp_status need_sampling(mcp_call_t *call, json_t *args, mcp_result_t *r,
                                void *ud) {
  (void)args, (void)ud;
  mcp_status st = mcp_call_require_capability(call, "sampling");
  if (st == MCP_OK)
    mcp_result_add_text(r, "ok");
  return st;
}

/* Two missing members at once: a sampling feature and an extension. */
static mcp_status need_two(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)args, (void)r, (void)ud;
  mcp__call_missing_capability(call, "sampling", "tools");
  return mcp__call_missing_capability(call, "extensions", "example.com/x");
}

static mcp_server_t *make_server(void) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("irr", "1", &s), MCP_OK);
  struct {
    const char *name;
    mcp_tool_fn fn;
  } tools[] = {{"ask", ask_name},
               {"two", two_rounds},
               {"needs_sampling", need_sampling},
               {"needs_two", need_two}};
  for (size_t i = 0; i < 4; i++) {
    mcp_tool_t *t;
    assert_int_equal(mcp_tool_new(tools[i].name, &t), MCP_OK);
    mcp_tool_set_handler(t, tools[i].fn, NULL, NULL);
    assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
  }
  return s;
}

static int setup(void **state) {
  *state = make_server();
  return 0;
}

#define ELICIT_CAPS "{\"elicitation\":{},\"roots\":{}}"

static json_t *result_of(json_t *r) {
  return json_object_get(r, "result");
}

static const char *result_type(json_t *r) {
  return json_string_value(json_object_get(result_of(r), "resultType"));
}

static const char *first_text(json_t *r) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(result_of(r), "content"), 0), "text"));
}

/* tools/call params text for tool with args, answers and state. */
static char *call_params(const char *tool, const char *args,
                         const char *answers, const char *state) {
  json_t *p = json_pack("{s:s}", "name", tool);
  json_object_set_new(p, "arguments", json_loads(args ? args : "{}", 0, NULL));
  if (answers)
    json_object_set_new(p, "inputResponses", json_loads(answers, 0, NULL));
  if (state)
    json_object_set_new(p, "requestState", json_string(state));
  char *text = json_dumps(p, JSON_COMPACT);
  json_decref(p);
  return text;
}

static json_t *call_tool(mcp_server_t *s, const char *tool, const char *args,
                         const char *answers, const char *state) {
  char *params = call_params(tool, args, answers, state);
  json_t *r = tu_modern_request(s, "tools/call", params, ELICIT_CAPS);
  free(params);
  return r;
}

static char *state_of(json_t *r) {
  const char *s =
      json_string_value(json_object_get(result_of(r), "requestState"));
  assert_non_null(s);
  return strdup(s);
}

static void test_round_trip(void **state) {
  mcp_server_t *s = *state;
  json_t *r = call_tool(s, "ask", NULL, NULL, NULL);
  assert_string_equal(result_type(r), "input_required");
  json_t *req = json_object_get(json_object_get(result_of(r), "inputRequests"),
                                "user_name");
  assert_string_equal(json_string_value(json_object_get(req, "method")),
                      "elicitation/create");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(req, "params"), "message")),
                      "Name?");
  /* no caching hints on interim results */
  assert_null(json_object_get(result_of(r), "ttlMs"));
  char *st = state_of(r);
  json_decref(r);
  const char *answer =
      "{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}},"
      "\"extra\":{\"ignored\":true}}";
  r = call_tool(s, "ask", NULL, answer, st);
  assert_string_equal(result_type(r), "complete");
  assert_string_equal(first_text(r), "Hello, Ada!");
  json_decref(r);
  /* a missing answer asks again instead of failing */
  r = call_tool(s, "ask", NULL, "{\"other\":{}}", st);
  assert_string_equal(result_type(r), "input_required");
  json_decref(r);
  /* an answer that breaks the requested schema is an error, not a pass */
  r = call_tool(s, "ask", NULL,
                "{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":"
                "5}}}",
                st);
  assert_null(result_of(r));
  json_decref(r);
  free(st);
}

static void test_two_rounds_carry_answers_and_state(void **state) {
  mcp_server_t *s = *state;
  json_t *r = call_tool(s, "two", NULL, NULL, NULL);
  assert_string_equal(result_type(r), "input_required");
  json_t *reqs = json_object_get(result_of(r), "inputRequests");
  assert_int_equal(json_object_size(reqs), 1);
  assert_non_null(json_object_get(json_object_get(reqs, "q0"), "params"));
  char *st1 = state_of(r);
  json_decref(r);
  r = call_tool(s, "two", NULL,
                "{\"q0\":{\"roots\":[{\"uri\":\"file:///a\"}]}}", st1);
  assert_string_equal(result_type(r), "input_required");
  reqs = json_object_get(result_of(r), "inputRequests");
  assert_non_null(json_object_get(reqs, "q1")); /* only the new question */
  assert_null(json_object_get(reqs, "q0"));
  char *st2 = state_of(r);
  assert_string_not_equal(st1, st2);
  json_decref(r);
  /* round 3 sends only q1: q0 comes back from the sealed state */
  r = call_tool(s, "two", NULL, "{\"q1\":{\"action\":\"decline\"}}", st2);
  assert_string_equal(result_type(r), "complete");
  assert_string_equal(first_text(r), "roots=1 action=decline runs=3");
  json_decref(r);
  free(st1);
  free(st2);
}

static int code_of(json_t *r) {
  int c = tu_error_code(r);
  json_decref(r);
  return c;
}

static void test_state_cannot_be_abused(void **state) {
  mcp_server_t *s = *state;
  json_t *r = call_tool(s, "ask", "{\"x\":1}", NULL, NULL);
  char *st = state_of(r);
  json_decref(r);
  const char *ok = "{\"user_name\":{\"action\":\"decline\"}}";
  /* forged: one character of the payload changed */
  char *bad = strdup(st);
  bad[3] = bad[3] == 'A' ? 'B' : 'A';
  assert_int_equal(code_of(call_tool(s, "ask", "{\"x\":1}", ok, bad)),
                   MCP_RPC_INVALID_PARAMS);
  /* truncated, and no token at all */
  bad[strlen(bad) - 5] = '\0';
  assert_int_equal(code_of(call_tool(s, "ask", "{\"x\":1}", ok, bad)),
                   MCP_RPC_INVALID_PARAMS);
  assert_int_equal(code_of(call_tool(s, "ask", "{\"x\":1}", ok, "garbage")),
                   MCP_RPC_INVALID_PARAMS);
  free(bad);
  /* replayed for other arguments or another tool */
  assert_int_equal(code_of(call_tool(s, "ask", "{\"x\":2}", ok, st)),
                   MCP_RPC_INVALID_PARAMS);
  assert_int_equal(code_of(call_tool(s, "two", "{\"x\":1}", ok, st)),
                   MCP_RPC_INVALID_PARAMS);
  /* under another key (another process) it is refused; the same key on
   * both (replicas) resumes it */
  mcp_server_t *other = make_server();
  assert_int_equal(code_of(call_tool(other, "ask", "{\"x\":1}", ok, st)),
                   MCP_RPC_INVALID_PARAMS);
  unsigned char key[32];
  memset(key, 7, sizeof key);
  assert_int_equal(mcp_server_set_request_state_key(s, key, 16),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_set_request_state_key(s, key, sizeof key),
                   MCP_OK);
  assert_int_equal(mcp_server_set_request_state_key(other, key, sizeof key),
                   MCP_OK);
  free(st);
  r = call_tool(s, "ask", "{\"x\":1}", NULL, NULL);
  st = state_of(r);
  json_decref(r);
  r = call_tool(other, "ask", "{\"x\":1}", ok, st);
  assert_string_equal(result_type(r), "complete");
  json_decref(r);
  mcp_server_free(other);
  free(st);
  /* expired */
  assert_int_equal(mcp_server_set_request_state_ttl_ms(s, 1), MCP_OK);
  r = call_tool(s, "ask", "{\"x\":1}", NULL, NULL);
  st = state_of(r);
  json_decref(r);
  struct timespec pause = {0, 20 * 1000000};
  nanosleep(&pause, NULL);
  r = call_tool(s, "ask", "{\"x\":1}", ok, st);
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(r, "error"), "message")),
                         "expired"));
  json_decref(r);
  free(st);
}

static void test_state_is_bound_to_the_caller(void **state) {
  (void)state;
  mcp__state_key key = {{0}, 32};
  memset(key.bytes, 3, 32);
  json_t *args = json_pack("{s:i}", "a", 1);
  mcp__state_binding alice = {"tools/call", "t", args, "alice", 1000};
  json_t *answers = json_pack("{s:{}}", "q0");
  char *tok = mcp__state_seal(&key, &alice, 60000, answers, NULL, NULL);
  assert_non_null(tok);
  json_t *a = NULL, *h = NULL, *q = NULL;
  const char *why = NULL;
  assert_int_equal(mcp__state_open(&key, &alice, tok, &a, &h, &q, &why), MCP_OK);
  assert_non_null(json_object_get(a, "q0"));
  json_decref(a);
  mcp__state_binding bob = alice;
  bob.subject = "bob";
  assert_int_equal(mcp__state_open(&key, &bob, tok, &a, &h, &q, &why),
                   MCP_ERR_INVALID);
  assert_non_null(strstr(why, "another caller"));
  mcp__state_binding later = alice;
  later.now_ms = 1000 + 60001;
  assert_int_equal(mcp__state_open(&key, &later, tok, &a, &h, &q, &why),
                   MCP_ERR_INVALID);
  /* the same arguments in another key order are the same request */
  json_t *reordered = json_pack("{s:i}", "a", 1);
  mcp__state_binding same = alice;
  same.args = reordered;
  assert_int_equal(mcp__state_open(&key, &same, tok, &a, &h, &q, &why), MCP_OK);
  json_decref(a);
  json_decref(reordered);
  free(tok);
  json_decref(answers);
  json_decref(args);
}

/* Issue #25 N7: answers are used only with the requestState of the round
 * that asked them. Without one they are refused (-32602) instead of used at
 * once (the demo's archive_orders archived without its confirmation ever
 * being asked); with one, an answer to a question it does not name as open
 * (a later one, answered ahead) is ignored and that question is asked when
 * the handler gets to it. Fails without the fix: "Hello, Ada!" at once,
 * and "two" completed in round 2 on its pre-answered q1. */
static void test_answers_need_the_round_that_asked(void **state) {
  mcp_server_t *s = *state;
  const char *ada =
      "{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}}";
  json_t *r = call_tool(s, "ask", NULL, ada, NULL);
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  assert_non_null(strstr(json_string_value(json_object_get(
                             json_object_get(r, "error"), "message")),
                         "requestState"));
  json_decref(r);
  /* nothing to answer: an empty inputResponses is no answer */
  r = call_tool(s, "ask", NULL, "{}", NULL);
  assert_string_equal(result_type(r), "input_required");
  json_decref(r);
  /* round 1 asks q0 only: q1 answered ahead is ignored */
  r = call_tool(s, "two", NULL, NULL, NULL);
  char *st1 = state_of(r);
  json_decref(r);
  r = call_tool(s, "two", NULL,
                "{\"q0\":{\"roots\":[{\"uri\":\"file:///a\"}]},"
                "\"q1\":{\"action\":\"accept\",\"content\":{}}}",
                st1);
  assert_string_equal(result_type(r), "input_required");
  assert_non_null(
      json_object_get(json_object_get(result_of(r), "inputRequests"), "q1"));
  char *st2 = state_of(r);
  json_decref(r);
  /* asked now, it is answered with the round's own state */
  r = call_tool(s, "two", NULL, "{\"q1\":{\"action\":\"decline\"}}", st2);
  assert_string_equal(result_type(r), "complete");
  assert_string_equal(first_text(r), "roots=1 action=decline runs=3");
  json_decref(r);
  free(st1);
  free(st2);
}

/* The MAC of a requestState has one spelling: the same 32 bytes written
 * with the unused low bits of its last character set are refused (they
 * decode to the same MAC). Fails without the fix: accepted. */
static void test_state_mac_must_be_canonical(void **state) {
  mcp_server_t *s = *state;
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  json_t *r = call_tool(s, "ask", NULL, NULL, NULL);
  char *st = state_of(r);
  json_decref(r);
  const char *ok = "{\"user_name\":{\"action\":\"decline\"}}";
  size_t n = strlen(st);
  /* 32 bytes: 43 characters and one '='; the 43rd carries 2 unused bits */
  assert_int_equal(st[n - 1], '=');
  const char *at = strchr(alphabet, st[n - 2]);
  assert_non_null(at);
  char *odd = strdup(st);
  odd[n - 2] = alphabet[(at - alphabet) ^ 1];
  assert_int_equal(code_of(call_tool(s, "ask", NULL, ok, odd)),
                   MCP_RPC_INVALID_PARAMS);
  free(odd);
  /* the canonical token itself is fine */
  r = call_tool(s, "ask", NULL, ok, st);
  assert_string_equal(result_type(r), "complete");
  json_decref(r);
  free(st);
}

static const char *error_message(json_t *r) {
  return json_string_value(
      json_object_get(json_object_get(r, "error"), "message"));
}

static void test_missing_capability_is_32021(void **state) {
  mcp_server_t *s = *state;
  char *params = call_params("needs_sampling", NULL, NULL, NULL);
  json_t *r = tu_modern_request(s, "tools/call", params, "{}");
  free(params);
  assert_int_equal(tu_error_code(r), MCP_RPC_MISSING_CLIENT_CAPABILITY);
  json_t *need =
      json_object_get(json_object_get(json_object_get(r, "error"), "data"),
                      "requiredCapabilities");
  assert_true(json_is_object(json_object_get(need, "sampling")));
  /* the message names it too: most clients show only the message */
  assert_string_equal(error_message(r),
                      "Missing required client capability: sampling");
  json_decref(r);
  /* a client without elicitation is not asked: -32021 naming it */
  params = call_params("ask", NULL, NULL, NULL);
  r = tu_modern_request(s, "tools/call", params, "{}");
  free(params);
  assert_int_equal(tu_error_code(r), MCP_RPC_MISSING_CLIENT_CAPABILITY);
  assert_string_equal(error_message(r),
                      "Missing required client capability: elicitation");
  json_decref(r);
  params = call_params("needs_two", NULL, NULL, NULL);
  r = tu_modern_request(s, "tools/call", params, "{}");
  free(params);
  assert_int_equal(tu_error_code(r), MCP_RPC_MISSING_CLIENT_CAPABILITY);
  assert_string_equal(error_message(r),
                      "Missing required client capabilities: sampling.tools, "
                      "extension example.com/x");
  json_decref(r);
}

/* 2025-11-25 has no -32021; the error a handler returns for a capability
 * the client did not declare names it all the same. */
static void test_missing_capability_named_in_2025(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, "{}");
  json_t *r = tu_request(s, se, "tools/call", "{\"name\":\"needs_sampling\"}");
  assert_int_not_equal(tu_error_code(r), 0);
  assert_int_not_equal(tu_error_code(r), MCP_RPC_MISSING_CLIENT_CAPABILITY);
  assert_string_equal(error_message(r),
                      "Missing required client capability: sampling");
  json_decref(r);
  mcp__session_release(se);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_round_trip, setup, tu_free_server),
      cmocka_unit_test_setup_teardown(test_two_rounds_carry_answers_and_state,
                                      setup, tu_free_server),
      cmocka_unit_test_setup_teardown(test_state_cannot_be_abused, setup,
                                      tu_free_server),
      cmocka_unit_test(test_state_is_bound_to_the_caller),
      cmocka_unit_test_setup_teardown(test_answers_need_the_round_that_asked,
                                      setup, tu_free_server),
      cmocka_unit_test_setup_teardown(test_state_mac_must_be_canonical, setup,
                                      tu_free_server),
      cmocka_unit_test_setup_teardown(test_missing_capability_is_32021, setup,
                                      tu_free_server),
      cmocka_unit_test_setup_teardown(test_missing_capability_named_in_2025,
                                      setup, tu_free_server),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
