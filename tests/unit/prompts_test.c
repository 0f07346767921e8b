/* SPDX-License-Identifier: MIT */
/* prompts_test.c - prompts in-process (list, get, argument checks, content
 * kinds, completion) and the server-to-client helpers: elicitation in form
 * and URL mode (schema subset, capability checks, validation of answers, a
 * client that never answers), URLElicitationRequiredError, sampling and
 * roots, plus logging filtered per session. */
#include "testutil.h"

#include <string.h>
#include <unistd.h>

static mcp_status greet(mcp_call_t *call, json_t *args,
                        mcp_prompt_result_t *out, void *ud) {
  (void)call, (void)ud;
  char text[256];
  snprintf(text, sizeof text, "Hello %s", mcp_arg_string_or(args, "who", "?"));
  mcp_prompt_result_set_description(out, "a greeting");
  mcp_content_t *c = mcp_prompt_add_text(out, MCP_ROLE_USER, text);
  mcp_content_set_priority(c, 0.5);
  mcp_prompt_add_text(out, MCP_ROLE_ASSISTANT, "Hi!");
  mcp_prompt_add_image(out, MCP_ROLE_USER, "AAAA", "image/png");
  mcp_prompt_add_audio(out, MCP_ROLE_USER, "AAAA", "audio/wav");
  mcp_prompt_add_resource_link(out, MCP_ROLE_USER, "mem://x", "x");
  mcp_prompt_add_text_resource(out, MCP_ROLE_USER, "mem://t", "t",
                               "text/plain");
  mcp_prompt_add_blob_resource(out, MCP_ROLE_USER, "mem://b", "\1", 1, NULL);
  assert_null(mcp_prompt_add_text(out, (mcp_role)7, "bad role"));
  assert_null(mcp_prompt_add_image(out, MCP_ROLE_USER, "not base64!", "x/y"));
  return MCP_OK;
}

static mcp_status complete_who(mcp_call_t *call, const char *arg,
                               const char *value, json_t *ctx,
                               mcp_completion_t *out, void *ud) {
  (void)call, (void)arg, (void)ud;
  const char *lang = mcp_arg_string_or(ctx, "lang", "en");
  if (strcmp(lang, "fr") == 0)
    mcp_completion_add(out, "Zo\xc3\xa9");
  mcp_completion_add(out, strlen(value) ? value : "world");
  mcp_completion_set_total(out, 2);
  return MCP_OK;
}

/* ---- tools that call back into the client -------------------------------- */

static const char *FORM =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
    "\"minLength\":1},\"age\":{\"type\":\"integer\",\"minimum\":0,"
    "\"default\":3}},\"required\":[\"name\"]}";

static mcp_status elicit_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)ud;
  mcp_elicit_action action;
  json_t *content = NULL;
  mcp_error_t err = {0};
  int timeout = (int)json_integer_value(json_object_get(args, "timeout"));
  mcp_status st =
      mcp_call_elicit(call, "Who are you?", json_loads(FORM, 0, NULL), timeout,
                      &action, &content, &err);
  if (st != MCP_OK)
    return mcp_result_set_error(r, "%s", mcp_status_name(st));
  char *dump =
      content ? json_dumps(content, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
  mcp_result_add_textf(r, "%s %s", mcp_elicit_action_name(action),
                       dump ? dump : "-");
  free(dump);
  json_decref(content);
  return MCP_OK;
}

static mcp_status url_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)ud;
  if (json_object_get(args, "required"))
    return mcp_call_url_elicitation_required(call, "Sign in first",
                                             "https://auth.example/x", "el-2");
  mcp_elicit_action action;
  mcp_error_t err = {0};
  mcp_status st = mcp_call_elicit_url(call, "Open this", "https://a.example/",
                                      "el-1", 2000, &action, &err);
  if (st != MCP_OK)
    return mcp_result_set_error(r, "%s", mcp_status_name(st));
  mcp_result_add_text(r, mcp_elicit_action_name(action));
  return MCP_OK;
}

static mcp_status sample_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)ud;
  mcp_sampling_t *req;
  assert_int_equal(mcp_sampling_new(50, &req), MCP_OK);
  mcp_sampling_add_text(req, MCP_ROLE_USER, "2+2?");
  mcp_sampling_set_system_prompt(req, "be brief");
  mcp_sampling_set_temperature(req, 0.2);
  mcp_sampling_add_stop_sequence(req, "\n");
  mcp_sampling_add_model_hint(req, "claude");
  mcp_sampling_set_priorities(req, 0.1, -1, 0.9);
  if (json_object_get(args, "tools")) {
    mcp_sampling_set_tools(req, json_pack("[{s:s,s:{s:s}}]", "name", "calc",
                                          "inputSchema", "type", "object"));
    mcp_sampling_set_tool_choice(req, "auto");
  }
  json_t *res = NULL;
  mcp_error_t err = {0};
  mcp_status st = mcp_call_sample(call, req, 2000, &res, &err);
  mcp_sampling_free(req);
  if (st != MCP_OK)
    return mcp_result_set_error(r, "%s", mcp_status_name(st));
  mcp_result_add_text(r, mcp_sampling_result_text(res));
  json_decref(res);
  return MCP_OK;
}

static mcp_status roots_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)args, (void)ud;
  json_t *roots = NULL;
  mcp_error_t err = {0};
  mcp_status st = mcp_call_list_roots(call, 2000, &roots, &err);
  if (st != MCP_OK)
    return mcp_result_set_error(r, "%s", mcp_status_name(st));
  mcp_result_add_textf(r, "%zu", json_array_size(roots));
  json_decref(roots);
  return MCP_OK;
}

static mcp_status log_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)args, (void)ud;
  for (int l = MCP_LOG_DEBUG; l <= MCP_LOG_EMERGENCY; l++)
    mcp_call_logf(call, (mcp_log_level)l, "t", "level %d", l);
  mcp_result_add_text(r, "logged");
  return MCP_OK;
}

static int roots_changed;
static void on_roots_changed(mcp_server_t *s, mcp_session_t *se, void *ud) {
  (void)s, (void)se;
  (*(int *)ud)++;
}

static void add_tool(mcp_server_t *s, const char *name, mcp_tool_fn fn) {
  mcp_tool_t *t;
  mcp_tool_new(name, &t);
  mcp_tool_set_handler(t, fn, NULL, NULL);
  mcp_error_t err;
  assert_int_equal(mcp_server_add_tool(s, t, &err), MCP_OK);
}

static int setup(void **state) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("p", "1", &s), MCP_OK);
  mcp_prompt_t *p;
  assert_int_equal(mcp_prompt_new("greet", &p), MCP_OK);
  mcp_prompt_set_title(p, "Greeting");
  mcp_prompt_set_description(p, "Says hello");
  assert_int_equal(mcp_prompt_add_argument(p, "who", "Who", "whom", true),
                   MCP_OK);
  assert_int_equal(mcp_prompt_add_argument(p, "who", NULL, NULL, false),
                   MCP_ERR_EXISTS);
  assert_int_equal(mcp_prompt_add_argument(p, "lang", NULL, NULL, false),
                   MCP_OK);
  assert_int_equal(
      mcp_prompt_set_completion(p, "nope", complete_who, NULL, NULL),
      MCP_ERR_NOT_FOUND);
  assert_int_equal(
      mcp_prompt_set_completion(p, "who", complete_who, NULL, NULL), MCP_OK);
  assert_int_equal(
      mcp_prompt_set_completion(p, "who", complete_who, NULL, NULL),
      MCP_ERR_EXISTS);
  mcp_prompt_add_icon(p, "https://example.com/p.svg", "image/svg+xml", "any",
                      "light");
  mcp_prompt_set_meta(p, json_pack("{s:b}", "com.example/x", 1));
  mcp_prompt_set_handler(p, greet, NULL, NULL);
  assert_int_equal(mcp_server_add_prompt(s, p), MCP_OK);
  assert_int_equal(mcp_prompt_new("", &p), MCP_ERR_INVALID_ARG);
  mcp_prompt_new("nohandler", &p);
  assert_int_equal(mcp_server_add_prompt(s, p), MCP_ERR_STATE);
  add_tool(s, "elicit", elicit_tool);
  add_tool(s, "url", url_tool);
  add_tool(s, "sample", sample_tool);
  add_tool(s, "roots", roots_tool);
  add_tool(s, "log", log_tool);
  mcp_server_set_roots_changed_handler(s, on_roots_changed, &roots_changed);
  *state = s;
  return 0;
}

static const char *first_text(json_t *r) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(r, "result"), "content"),
                     0),
      "text"));
}

static void test_prompts_list_and_get(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_request(s, se, "prompts/list", NULL);
  json_t *p = json_array_get(
      json_object_get(json_object_get(r, "result"), "prompts"), 0);
  assert_string_equal(json_string_value(json_object_get(p, "name")), "greet");
  assert_string_equal(json_string_value(json_object_get(p, "title")),
                      "Greeting");
  json_t *arg0 = json_array_get(json_object_get(p, "arguments"), 0);
  assert_true(json_is_true(json_object_get(arg0, "required")));
  assert_null(json_object_get(
      json_array_get(json_object_get(p, "arguments"), 1), "required"));
  assert_non_null(json_object_get(p, "icons"));
  assert_non_null(json_object_get(p, "_meta"));
  json_decref(r);
  r = tu_request(s, se, "prompts/list", "{\"cursor\":\"eHg6MQ==\"}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);

  r = tu_request(s, se, "prompts/get",
                 "{\"name\":\"greet\",\"arguments\":{\"who\":\"Ada\"}}");
  json_t *res = json_object_get(r, "result");
  assert_string_equal(json_string_value(json_object_get(res, "description")),
                      "a greeting");
  json_t *msgs = json_object_get(res, "messages");
  assert_int_equal(json_array_size(msgs), 7);
  json_t *m0 = json_array_get(msgs, 0);
  assert_string_equal(json_string_value(json_object_get(m0, "role")), "user");
  json_t *c0 = json_object_get(m0, "content");
  assert_string_equal(json_string_value(json_object_get(c0, "text")),
                      "Hello Ada");
  assert_non_null(
      json_object_get(json_object_get(c0, "annotations"), "priority"));
  assert_string_equal(
      json_string_value(json_object_get(json_array_get(msgs, 1), "role")),
      "assistant");
  const char *types[] = {"text",          "text",     "image",   "audio",
                         "resource_link", "resource", "resource"};
  for (size_t i = 0; i < 7; i++)
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_array_get(msgs, i), "content"), "type")),
        types[i]);
  json_decref(r);

  const char *bad[] = {"{\"name\":\"nope\"}",
                       "{\"name\":\"greet\"}",
                       "{\"name\":\"greet\",\"arguments\":{\"lang\":\"fr\"}}",
                       "{\"name\":\"greet\",\"arguments\":{\"who\":1}}",
                       "{\"name\":\"greet\",\"arguments\":[\"who\"]}",
                       "{\"name\":5}",
                       "{}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    r = tu_request(s, se, "prompts/get", bad[i]);
    if (tu_error_code(r) != MCP_RPC_INVALID_PARAMS)
      fail_msg("prompts/get %s: expected -32602", bad[i]);
    json_decref(r);
  }
  /* a misspelt name gets the close one */
  r = tu_request(s, se, "prompts/get", "{\"name\":\"greeet\"}");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(r, "error"), "message")),
                      "Invalid params: unknown prompt 'greeet'; did you mean "
                      "'greet'?");
  json_decref(r);
  mcp__session_release(se);
}

static void test_prompt_completion(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r =
      tu_request(s, se, "completion/complete",
                 "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                 "\"argument\":{\"name\":\"who\",\"value\":\"Al\"},"
                 "\"context\":{\"arguments\":{\"lang\":\"fr\"}}}");
  json_t *c = json_object_get(json_object_get(r, "result"), "completion");
  assert_int_equal(json_array_size(json_object_get(c, "values")), 2);
  assert_string_equal(
      json_string_value(json_array_get(json_object_get(c, "values"), 1)), "Al");
  assert_int_equal(json_integer_value(json_object_get(c, "total")), 2);
  json_decref(r);
  r = tu_request(s, se, "completion/complete",
                 "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                 "\"argument\":{\"name\":\"lang\",\"value\":\"\"}}");
  c = json_object_get(json_object_get(r, "result"), "completion");
  assert_int_equal(json_array_size(json_object_get(c, "values")), 0);
  json_decref(r);
  const char *bad[] = {
      "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"nope\"},\"argument\":{"
      "\"name\":\"who\",\"value\":\"\"}}",
      "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":{"
      "\"name\":\"zzz\",\"value\":\"\"}}",
      "{\"ref\":{\"type\":\"ref/prompt\"},\"argument\":{\"name\":\"who\","
      "\"value\":\"\"}}",
      "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":{"
      "\"name\":\"who\"}}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    r = tu_request(s, se, "completion/complete", bad[i]);
    assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
    json_decref(r);
  }
  mcp__session_release(se);
}

static void test_elicit_schema_subset(void **state) {
  (void)state;
  const char *good[] = {
      FORM, "{\"type\":\"object\",\"properties\":{}}",
      "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":"
      "\"object\",\"properties\":{\"e\":{\"type\":\"string\",\"format\":"
      "\"email\",\"default\":\"a@b.c\"},\"d\":{\"type\":\"string\",\"format\":"
      "\"date-time\"},\"b\":{\"type\":\"boolean\",\"default\":false},\"n\":{"
      "\"type\":\"number\",\"minimum\":0.5,\"maximum\":2,\"default\":1.5}}}",
      "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\","
      "\"oneOf\":[{\"const\":\"a\",\"title\":\"A\"}],\"default\":\"a\"},\"m\":{"
      "\"type\":\"array\",\"minItems\":1,\"items\":{\"type\":\"string\","
      "\"enum\":[\"x\",\"y\"]},\"default\":[\"x\"]},\"t\":{\"type\":\"array\","
      "\"items\":{\"anyOf\":[{\"const\":\"v\",\"title\":\"V\"}]}},\"l\":{"
      "\"type\":\"string\",\"enum\":[\"p\",\"q\"],\"enumNames\":[\"P\","
      "\"Q\"]}}}"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    json_t *sc = json_loads(good[i], 0, NULL);
    mcp_error_t err = {0};
    if (mcp_elicit_schema_check(sc, &err) != MCP_OK)
      fail_msg("schema %zu refused: %s", i, err.message);
    json_decref(sc);
  }
  const char *bad[] = {
      "[]",
      "{\"type\":\"array\",\"properties\":{}}",
      "{\"type\":\"object\"}",
      "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\"}}}",
      "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\","
      "\"format\":\"ipv4\"}}}",
      "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\","
      "\"pattern\":\"x\"}}}",
      "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\","
      "\"enum\":[\"a\"],\"default\":\"b\"}}}",
      "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\","
      "\"default\":1.5}}}",
      "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"boolean\","
      "\"default\":\"yes\"}}}",
      "{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"array\","
      "\"items\":{\"type\":\"number\"}}}}",
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
      "\"required\":[\"b\"]}",
      "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"string\","
      "\"enum\":[\"p\"],\"enumNames\":[\"P\",\"Q\"]}}}",
      "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    json_t *sc = json_loads(bad[i], JSON_DECODE_ANY, NULL);
    mcp_error_t err = {0};
    if (mcp_elicit_schema_check(sc, &err) != MCP_ERR_SCHEMA)
      fail_msg("schema %zu accepted: %s", i, bad[i]);
    json_decref(sc);
  }
}

typedef struct run_arg {
  mcp_server_t *s;
  mcp_session_t *se;
  tu_capture *c;
  const char *text;
} run_arg;

static void *run_thread(void *p) {
  run_arg *a = p;
  tu_send(a->s, a->se, a->c, a->text);
  return NULL;
}

/* Runs tool in a thread, answers its one client request with answer_result
 * (a JSON result object, or NULL to never answer) and returns the final
 * response. *request receives the client request (new reference). */
static json_t *round_trip(mcp_server_t *s, mcp_session_t *se, const char *call,
                          const char *answer_result, json_t **request) {
  tu_capture c;
  tu_capture_init(&c);
  run_arg a = {s, se, &c, call};
  pthread_t th;
  pthread_create(&th, NULL, run_thread, &a);
  assert_true(tu_capture_wait(&c, 1, 3000) >= 1);
  pthread_mutex_lock(&c.lock);
  json_t *req = json_incref(json_array_get(c.messages, 0));
  pthread_mutex_unlock(&c.lock);
  if (answer_result) {
    char buf[1024];
    snprintf(buf, sizeof buf, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}",
             (long long)json_integer_value(json_object_get(req, "id")),
             answer_result);
    assert_null(tu_rpc(s, se, buf));
  }
  pthread_join(th, NULL);
  json_t *last =
      json_incref(json_array_get(c.messages, json_array_size(c.messages) - 1));
  if (request)
    *request = req;
  else
    json_decref(req);
  tu_capture_destroy(&c);
  return last;
}

#define CALL(name, args)                                                       \
  "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{"       \
  "\"name\":\"" name "\",\"arguments\":" args "}}"

static void test_elicitation(void **state) {
  mcp_server_t *s = *state;
  /* no elicitation capability: a clear error, nothing sent */
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_rpc(s, se, CALL("elicit", "{}"));
  assert_string_equal(first_text(r), "MCP_ERR_CAPABILITY");
  json_decref(r);
  r = tu_rpc(s, se, CALL("url", "{}"));
  assert_string_equal(first_text(r), "MCP_ERR_CAPABILITY");
  json_decref(r);
  mcp__session_release(se);

  se = tu_session(s, NULL);
  tu_initialize(s, se, "{\"elicitation\":{}}");
  json_t *req = NULL;
  r = round_trip(s, se, CALL("elicit", "{}"),
                 "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\","
                 "\"age\":36}}",
                 &req);
  assert_string_equal(json_string_value(json_object_get(req, "method")),
                      "elicitation/create");
  json_t *params = json_object_get(req, "params");
  assert_string_equal(json_string_value(json_object_get(params, "message")),
                      "Who are you?");
  assert_non_null(json_object_get(params, "requestedSchema"));
  assert_string_equal(first_text(r), "accept {\"age\":36,\"name\":\"Ada\"}");
  json_decref(req);
  json_decref(r);
  r = round_trip(s, se, CALL("elicit", "{}"), "{\"action\":\"decline\"}", NULL);
  assert_string_equal(first_text(r), "decline -");
  json_decref(r);
  /* answers that break the schema or the protocol */
  r = round_trip(s, se, CALL("elicit", "{}"),
                 "{\"action\":\"accept\",\"content\":{\"age\":\"x\"}}", NULL);
  assert_string_equal(first_text(r), "MCP_ERR_INVALID");
  json_decref(r);
  r = round_trip(s, se, CALL("elicit", "{}"), "{\"action\":\"maybe\"}", NULL);
  assert_string_equal(first_text(r), "MCP_ERR_PEER");
  json_decref(r);
  /* a client that never answers: timeout, then notifications/cancelled */
  r = round_trip(s, se, CALL("elicit", "{\"timeout\":100}"), NULL, NULL);
  assert_string_equal(first_text(r), "MCP_ERR_TIMEOUT");
  json_decref(r);
  /* form-only client: URL mode refused */
  r = tu_rpc(s, se, CALL("url", "{}"));
  assert_string_equal(first_text(r), "MCP_ERR_CAPABILITY");
  json_decref(r);
  mcp__session_release(se);
}

static void test_url_elicitation(void **state) {
  mcp_server_t *s = *state;
  tu_capture n1, n2;
  tu_capture_init(&n1);
  tu_capture_init(&n2);
  mcp_session_t *se = tu_session(s, &n1), *other = tu_session(s, &n2);
  tu_initialize(s, se, "{\"elicitation\":{\"url\":{}}}");
  tu_initialize(s, other, "{\"elicitation\":{\"url\":{}}}");
  /* a URL-only client cannot get a form */
  json_t *r = tu_rpc(s, se, CALL("elicit", "{}"));
  assert_string_equal(first_text(r), "MCP_ERR_CAPABILITY");
  json_decref(r);
  json_t *req = NULL;
  r = round_trip(s, se, CALL("url", "{}"), "{\"action\":\"accept\"}", &req);
  json_t *params = json_object_get(req, "params");
  assert_string_equal(json_string_value(json_object_get(params, "mode")),
                      "url");
  assert_string_equal(
      json_string_value(json_object_get(params, "elicitationId")), "el-1");
  assert_string_equal(json_string_value(json_object_get(params, "url")),
                      "https://a.example/");
  assert_string_equal(first_text(r), "accept");
  json_decref(req);
  json_decref(r);
  /* -32042 with data.elicitations */
  r = tu_rpc(s, se, CALL("url", "{\"required\":true}"));
  json_t *error = json_object_get(r, "error");
  assert_int_equal(json_integer_value(json_object_get(error, "code")),
                   MCP_RPC_URL_ELICITATION_REQUIRED);
  json_t *el = json_array_get(
      json_object_get(json_object_get(error, "data"), "elicitations"), 0);
  assert_string_equal(json_string_value(json_object_get(el, "mode")), "url");
  assert_string_equal(json_string_value(json_object_get(el, "elicitationId")),
                      "el-2");
  json_decref(r);
  /* completion goes to the session that got it, once */
  assert_int_equal(mcp_server_notify_elicitation_complete(s, "el-2"), MCP_OK);
  assert_int_equal(mcp_server_notify_elicitation_complete(s, "el-2"),
                   MCP_ERR_NOT_FOUND);
  assert_int_equal(mcp_server_notify_elicitation_complete(s, "el-1"), MCP_OK);
  assert_int_equal(json_array_size(n1.messages), 2);
  json_t *m = json_array_get(n1.messages, 0);
  assert_string_equal(json_string_value(json_object_get(m, "method")),
                      "notifications/elicitation/complete");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(m, "params"), "elicitationId")),
                      "el-2");
  assert_int_equal(json_array_size(n2.messages), 0);
  mcp__session_release(se);
  mcp__session_release(other);
  tu_capture_destroy(&n1);
  tu_capture_destroy(&n2);
}

static void test_sampling_and_roots(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_rpc(s, se, CALL("sample", "{}"));
  assert_string_equal(first_text(r), "MCP_ERR_CAPABILITY");
  json_decref(r);
  mcp__session_release(se);

  se = tu_session(s, NULL);
  tu_initialize(s, se, "{\"sampling\":{},\"roots\":{\"listChanged\":true}}");
  json_t *req = NULL;
  r = round_trip(s, se, CALL("sample", "{}"),
                 "{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
                 "\"text\":\"4\"},\"model\":\"m\",\"stopReason\":\"endTurn\"}",
                 &req);
  json_t *p = json_object_get(req, "params");
  assert_int_equal(json_integer_value(json_object_get(p, "maxTokens")), 50);
  assert_string_equal(json_string_value(json_object_get(p, "systemPrompt")),
                      "be brief");
  json_t *prefs = json_object_get(p, "modelPreferences");
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(prefs, "hints"), 0), "name")),
      "claude");
  assert_null(json_object_get(prefs, "speedPriority"));
  assert_null(json_object_get(p, "tools"));
  assert_string_equal(first_text(r), "4");
  json_decref(req);
  json_decref(r);
  /* tools need sampling.tools */
  r = tu_rpc(s, se, CALL("sample", "{\"tools\":true}"));
  assert_string_equal(first_text(r), "MCP_ERR_CAPABILITY");
  json_decref(r);
  r = round_trip(s, se, CALL("sample", "{}"), "{\"role\":\"assistant\"}", NULL);
  assert_string_equal(first_text(r), "MCP_ERR_PEER");
  json_decref(r);
  /* roots */
  r = round_trip(s, se, CALL("roots", "{}"),
                 "{\"roots\":[{\"uri\":\"file:///a\"},{\"uri\":\"file:///b\","
                 "\"name\":\"b\"}]}",
                 &req);
  assert_string_equal(json_string_value(json_object_get(req, "method")),
                      "roots/list");
  assert_string_equal(first_text(r), "2");
  json_decref(req);
  json_decref(r);
  r = round_trip(s, se, CALL("roots", "{}"), "{\"roots\":[{}]}", NULL);
  assert_string_equal(first_text(r), "MCP_ERR_PEER");
  json_decref(r);
  int before = roots_changed;
  assert_null(tu_rpc(s, se,
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                     "roots/list_changed\"}"));
  assert_int_equal(roots_changed, before + 1);
  mcp__session_release(se);

  se = tu_session(s, NULL);
  tu_initialize(s, se, "{\"sampling\":{\"tools\":{}}}");
  r = round_trip(s, se, CALL("sample", "{\"tools\":true}"),
                 "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
                 "\"text\":\"ok\"}],\"model\":\"m\"}",
                 &req);
  p = json_object_get(req, "params");
  assert_non_null(json_object_get(p, "tools"));
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(p, "toolChoice"), "mode")),
                      "auto");
  assert_string_equal(first_text(r), "ok");
  json_decref(req);
  json_decref(r);
  mcp__session_release(se);
}

/* Counts notifications/message in a tools/call exchange. */
static size_t log_count(mcp_server_t *s, mcp_session_t *se, const char *min) {
  if (min) {
    char p[64];
    snprintf(p, sizeof p, "{\"level\":\"%s\"}", min);
    json_t *r = tu_request(s, se, "logging/setLevel", p);
    assert_non_null(json_object_get(r, "result"));
    json_decref(r);
  }
  tu_capture c;
  tu_capture_init(&c);
  tu_send(s, se, &c, CALL("log", "{}"));
  size_t n = json_array_size(c.messages) - 1; /* minus the response */
  tu_capture_destroy(&c);
  return n;
}

static void test_logging_filtered_per_session(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *a = tu_session(s, NULL), *b = tu_session(s, NULL);
  tu_initialize(s, a, NULL);
  tu_initialize(s, b, NULL);
  assert_int_equal(log_count(s, a, NULL), 8); /* no level set: everything */
  assert_int_equal(log_count(s, a, "warning"), 5);
  assert_int_equal(log_count(s, b, NULL), 8); /* a's level is a's alone */
  assert_int_equal(log_count(s, b, "emergency"), 1);
  assert_int_equal(log_count(s, a, "debug"), 8);
  json_t *r = tu_request(s, a, "logging/setLevel", "{\"level\":\"loud\"}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  mcp__session_release(a);
  mcp__session_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_prompts_list_and_get),
      cmocka_unit_test(test_prompt_completion),
      cmocka_unit_test(test_elicit_schema_subset),
      cmocka_unit_test(test_elicitation),
      cmocka_unit_test(test_url_elicitation),
      cmocka_unit_test(test_sampling_and_roots),
      cmocka_unit_test(test_logging_filtered_per_session),
  };
  return cmocka_run_group_tests(tests, setup, tu_free_server);
}
