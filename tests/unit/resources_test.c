/* SPDX-License-Identifier: MIT */
/* resources_test.c - resources in-process: capability only when
 * registered, list pagination and bad cursors, read of text/blob/template
 * contents, -32002 with data.uri, subscriptions reaching only subscribers,
 * list_changed, the stateless era. */
#include "testutil.h"

#include <string.h>

static int reads;

static mcp_status read_text(mcp_call_t *call, const char *uri, json_t *vars,
                            mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)ud;
  reads++;
  mcp_read_result_add_text(out, NULL, "hello", "text/plain");
  return mcp_read_result_add_text(out, "mem://sub/part", "part two", NULL);
}

static mcp_status read_blob(mcp_call_t *call, const char *uri, json_t *vars,
                            mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)ud;
  static const unsigned char bytes[] = {0, 1, 2, 0xff};
  return mcp_read_result_add_blob(out, uri, bytes, sizeof bytes,
                                  "application/octet-stream");
}

static mcp_status read_user(mcp_call_t *call, const char *uri, json_t *vars,
                            mcp_read_result_t *out, void *ud) {
  (void)call, (void)ud;
  const char *id = json_string_value(json_object_get(vars, "id"));
  if (strcmp(id, "missing") == 0)
    return MCP_ERR_RESOURCE_NOT_FOUND;
  char *dump = json_dumps(vars, JSON_COMPACT | JSON_SORT_KEYS);
  mcp_status st = mcp_read_result_add_text(out, uri, dump, "application/json");
  free(dump);
  return st;
}

static mcp_status complete_id(mcp_call_t *call, const char *arg,
                              const char *value, json_t *ctx,
                              mcp_completion_t *out, void *ud) {
  (void)call, (void)arg, (void)ctx, (void)ud;
  char buf[32];
  for (int i = 0; i < 150; i++) { /* more than the 100 a result may hold */
    snprintf(buf, sizeof buf, "%s%d", value, i);
    mcp_completion_add(out, buf);
  }
  return MCP_OK;
}

static void add_res(mcp_server_t *s, const char *uri, mcp_resource_read_fn fn) {
  mcp_resource_t *r;
  assert_int_equal(mcp_resource_new(uri, "name", &r), MCP_OK);
  assert_int_equal(mcp_resource_set_handler(r, fn, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_OK);
}

static int setup(void **state) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("res", "1", &s), MCP_OK);
  mcp_resource_t *r;
  assert_int_equal(mcp_resource_new("mem://text", "Text", &r), MCP_OK);
  mcp_resource_set_title(r, "A text");
  mcp_resource_set_description(r, "desc");
  mcp_resource_set_mime_type(r, "text/plain");
  mcp_resource_set_size(r, 5);
  assert_int_equal(mcp_resource_set_annotations(r, MCP_AUDIENCE_USER, 0.5,
                                                "2025-01-12T15:00:58Z"),
                   MCP_OK);
  assert_int_equal(mcp_resource_add_icon(r, "https://example.com/i.png",
                                         "image/png", "48x48", "dark"),
                   MCP_OK);
  /* a refused icon (on another resource: one a setter refused is refused
   * by mcp_server_add_resource, setter_errors_test) */
  mcp_resource_t *other;
  assert_int_equal(mcp_resource_new("mem://other", "Other", &other), MCP_OK);
  assert_int_equal(
      mcp_resource_add_icon(other, "javascript:alert(1)", NULL, NULL, NULL),
      MCP_ERR_INVALID_ARG);
  mcp_resource_free(other);
  mcp_resource_set_meta(r, json_pack("{s:i}", "com.example/x", 1));
  mcp_resource_set_handler(r, read_text, NULL, NULL);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_OK);
  add_res(s, "mem://blob", read_blob);
  add_res(s, "mem://c", read_text);
  mcp_resource_template_t *t;
  assert_int_equal(
      mcp_resource_template_new("users://{id}/profile{?fields}", "User", &t),
      MCP_OK);
  mcp_resource_template_add_icon(t, "data:image/png;base64,AAAA", NULL, NULL,
                                 NULL);
  assert_int_equal(
      mcp_resource_template_set_completion(t, "nope", complete_id, NULL, NULL),
      MCP_ERR_NOT_FOUND);
  assert_int_equal(
      mcp_resource_template_set_completion(t, "id", complete_id, NULL, NULL),
      MCP_OK);
  mcp_resource_template_set_handler(t, read_user, NULL, NULL);
  assert_int_equal(mcp_server_add_resource_template(s, t), MCP_OK);
  mcp_server_set_resources_subscribe(s, true);
  *state = s;
  return 0;
}

static void test_objects_and_bad_input(void **state) {
  (void)state;
  mcp_resource_t *r = NULL;
  assert_int_equal(mcp_resource_new("no scheme", "n", &r), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_resource_new("1x:y", "n", &r), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_resource_new("x:y", "", &r), MCP_ERR_INVALID_ARG);
  mcp_resource_template_t *t = NULL;
  assert_int_equal(mcp_resource_template_new("x://{", "n", &t),
                   MCP_ERR_INVALID_ARG);
  assert_null(t);
  assert_int_equal(mcp_resource_template_new("x://{a}/{b*}", "n", &t), MCP_OK);
  json_t *vars = NULL;
  assert_true(mcp_resource_template_match(t, "x://1/2,3", &vars));
  assert_int_equal(json_array_size(json_object_get(vars, "b")), 2);
  json_decref(vars);
  mcp_resource_template_free(t);
  /* no handler: refused and freed */
  mcp_server_t *s;
  mcp_server_new("x", "1", &s);
  mcp_resource_new("x:y", "n", &r);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_ERR_STATE);
  mcp_server_free(s);
}

static void test_capability_only_when_registered(void **state) {
  mcp_server_t *empty;
  mcp_server_new("empty", "1", &empty);
  mcp_session_t *se = tu_session(empty, NULL);
  json_t *r = tu_rpc(empty, se,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                     "\"params\":{\"protocolVersion\":\"2025-11-25\"}}");
  json_t *caps = json_object_get(json_object_get(r, "result"), "capabilities");
  assert_null(json_object_get(caps, "resources"));
  assert_null(json_object_get(caps, "prompts"));
  assert_null(json_object_get(caps, "completions"));
  json_decref(r);
  assert_null(tu_rpc(empty, se,
                     "{\"jsonrpc\":\"2.0\",\"method\":"
                     "\"notifications/initialized\"}"));
  r = tu_request(empty, se, "resources/list", NULL);
  assert_int_equal(tu_error_code(r), MCP_RPC_METHOD_NOT_FOUND);
  json_decref(r);
  r = tu_request(empty, se, "completion/complete", NULL);
  assert_int_equal(tu_error_code(r), MCP_RPC_METHOD_NOT_FOUND);
  json_decref(r);
  mcp__session_release(se);
  mcp_server_free(empty);

  mcp_server_t *s = *state;
  se = tu_session(s, NULL);
  r = tu_rpc(s, se,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
             "\"params\":{\"protocolVersion\":\"2025-11-25\"}}");
  caps = json_object_get(json_object_get(r, "result"), "capabilities");
  json_t *res = json_object_get(caps, "resources");
  assert_true(json_is_true(json_object_get(res, "subscribe")));
  assert_true(json_is_true(json_object_get(res, "listChanged")));
  assert_non_null(json_object_get(caps, "completions"));
  json_decref(r);
  mcp__session_release(se);
}

static void test_list_pages_and_cursor(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  mcp_server_set_page_size(s, 2);
  json_t *r = tu_request(s, se, "resources/list", NULL);
  json_t *res = json_object_get(r, "result");
  json_t *list = json_object_get(res, "resources");
  assert_int_equal(json_array_size(list), 2);
  json_t *first = json_array_get(list, 0);
  assert_string_equal(json_string_value(json_object_get(first, "uri")),
                      "mem://text");
  assert_string_equal(json_string_value(json_object_get(first, "title")),
                      "A text");
  assert_int_equal(json_integer_value(json_object_get(first, "size")), 5);
  assert_non_null(
      json_object_get(json_object_get(first, "annotations"), "lastModified"));
  assert_non_null(json_object_get(first, "icons"));
  assert_non_null(json_object_get(first, "_meta"));
  char params[256];
  snprintf(params, sizeof params, "{\"cursor\":\"%s\"}",
           json_string_value(json_object_get(res, "nextCursor")));
  json_decref(r);
  r = tu_request(s, se, "resources/list", params);
  res = json_object_get(r, "result");
  assert_int_equal(json_array_size(json_object_get(res, "resources")), 1);
  assert_null(json_object_get(res, "nextCursor"));
  json_decref(r);
  /* a resources cursor is no templates cursor, and garbage is refused */
  r = tu_request(s, se, "resources/templates/list", params);
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  r = tu_request(s, se, "resources/list", "{\"cursor\":\"!!\"}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  r = tu_request(s, se, "resources/list", "{\"cursor\":5}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  mcp_server_set_page_size(s, 50);
  r = tu_request(s, se, "resources/templates/list", NULL);
  json_t *tpl = json_array_get(
      json_object_get(json_object_get(r, "result"), "resourceTemplates"), 0);
  assert_string_equal(json_string_value(json_object_get(tpl, "uriTemplate")),
                      "users://{id}/profile{?fields}");
  assert_non_null(json_object_get(tpl, "icons"));
  json_decref(r);
  mcp__session_release(se);
}

static void test_read(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r = tu_request(s, se, "resources/read", "{\"uri\":\"mem://text\"}");
  json_t *contents = json_object_get(json_object_get(r, "result"), "contents");
  assert_int_equal(json_array_size(contents), 2);
  json_t *c0 = json_array_get(contents, 0);
  assert_string_equal(json_string_value(json_object_get(c0, "uri")),
                      "mem://text");
  assert_string_equal(json_string_value(json_object_get(c0, "text")), "hello");
  assert_string_equal(json_string_value(json_object_get(c0, "mimeType")),
                      "text/plain");
  assert_null(json_object_get(json_array_get(contents, 1), "mimeType"));
  json_decref(r);
  r = tu_request(s, se, "resources/read", "{\"uri\":\"mem://blob\"}");
  c0 = json_array_get(json_object_get(json_object_get(r, "result"), "contents"),
                      0);
  assert_string_equal(json_string_value(json_object_get(c0, "blob")),
                      "AAEC/w==");
  assert_null(json_object_get(c0, "text"));
  json_decref(r);
  r = tu_request(s, se, "resources/read",
                 "{\"uri\":\"users://42/profile?fields=name\"}");
  c0 = json_array_get(json_object_get(json_object_get(r, "result"), "contents"),
                      0);
  assert_string_equal(json_string_value(json_object_get(c0, "text")),
                      "{\"fields\":\"name\",\"id\":\"42\"}");
  json_decref(r);
  /* unknown URI, template miss and handler miss: -32002 with data.uri */
  const char *unknown[] = {"mem://nothing", "users://42/other",
                           "users://missing/profile"};
  for (int i = 0; i < 3; i++) {
    char p[128];
    snprintf(p, sizeof p, "{\"uri\":\"%s\"}", unknown[i]);
    r = tu_request(s, se, "resources/read", p);
    assert_int_equal(tu_error_code(r), MCP_RPC_RESOURCE_NOT_FOUND);
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(r, "error"), "data"), "uri")),
        unknown[i]);
    json_decref(r);
  }
  r = tu_request(s, se, "resources/read", "{}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  r = tu_request(s, se, "resources/read", "{\"uri\":7}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  mcp__session_release(se);
}

static void test_subscriptions_only_reach_subscribers(void **state) {
  mcp_server_t *s = *state;
  tu_capture n1, n2;
  tu_capture_init(&n1);
  tu_capture_init(&n2);
  mcp_session_t *a = tu_session(s, &n1), *b = tu_session(s, &n2);
  tu_initialize(s, a, NULL);
  tu_initialize(s, b, NULL);
  json_t *r =
      tu_request(s, a, "resources/subscribe", "{\"uri\":\"mem://text\"}");
  assert_int_equal(json_object_size(json_object_get(r, "result")), 0);
  assert_non_null(json_object_get(r, "result"));
  json_decref(r);
  r = tu_request(s, a, "resources/subscribe", "{\"uri\":\"file:///dir\"}");
  json_decref(r);
  r = tu_request(s, a, "resources/subscribe", "{}");
  assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
  json_decref(r);
  assert_int_equal(mcp_server_notify_resource_updated(s, "mem://text"), MCP_OK);
  assert_int_equal(mcp_server_notify_resource_updated(s, "file:///dir/x"),
                   MCP_OK);
  assert_int_equal(mcp_server_notify_resource_updated(s, "file:///dirx"),
                   MCP_OK);
  assert_int_equal(mcp_server_notify_resource_updated(s, "mem://blob"), MCP_OK);
  assert_int_equal(json_array_size(n1.messages), 2);
  json_t *m = json_array_get(n1.messages, 0);
  assert_string_equal(json_string_value(json_object_get(m, "method")),
                      "notifications/resources/updated");
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(m, "params"), "uri")),
      "mem://text");
  assert_string_equal(
      json_string_value(json_object_get(
          json_object_get(json_array_get(n1.messages, 1), "params"), "uri")),
      "file:///dir/x");
  assert_int_equal(json_array_size(n2.messages), 0);
  r = tu_request(s, a, "resources/unsubscribe", "{\"uri\":\"mem://text\"}");
  json_decref(r);
  mcp_server_notify_resource_updated(s, "mem://text");
  assert_int_equal(json_array_size(n1.messages), 2);

  /* list_changed on add and remove reaches every ready session */
  add_res(s, "mem://new", read_text);
  assert_int_equal(mcp_server_remove_resource(s, "mem://new"), MCP_OK);
  assert_int_equal(mcp_server_remove_resource(s, "mem://new"),
                   MCP_ERR_NOT_FOUND);
  assert_int_equal(json_array_size(n2.messages), 2);
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(n2.messages, 0), "method")),
                      "notifications/resources/list_changed");
  mcp__session_release(a);
  mcp__session_release(b);
  tu_capture_destroy(&n1);
  tu_capture_destroy(&n2);

  /* without the subscribe capability: -32601 */
  mcp_server_set_resources_subscribe(s, false);
  a = tu_session(s, NULL);
  tu_initialize(s, a, NULL);
  r = tu_request(s, a, "resources/subscribe", "{\"uri\":\"mem://text\"}");
  assert_int_equal(tu_error_code(r), MCP_RPC_METHOD_NOT_FOUND);
  json_decref(r);
  mcp__session_release(a);
  mcp_server_set_resources_subscribe(s, true);
}

static void test_template_completion(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r =
      tu_request(s, se, "completion/complete",
                 "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"users://{id}/"
                 "profile{?fields}\"},\"argument\":{\"name\":\"id\","
                 "\"value\":\"u\"}}");
  json_t *c = json_object_get(json_object_get(r, "result"), "completion");
  assert_int_equal(json_array_size(json_object_get(c, "values")), 100);
  assert_string_equal(
      json_string_value(json_array_get(json_object_get(c, "values"), 0)), "u0");
  assert_int_equal(json_integer_value(json_object_get(c, "total")), 150);
  assert_true(json_is_true(json_object_get(c, "hasMore")));
  json_decref(r);
  /* a declared variable without a handler completes to nothing */
  r = tu_request(s, se, "completion/complete",
                 "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"users://{id}/"
                 "profile{?fields}\"},\"argument\":{\"name\":\"fields\","
                 "\"value\":\"\"}}");
  c = json_object_get(json_object_get(r, "result"), "completion");
  assert_int_equal(json_array_size(json_object_get(c, "values")), 0);
  assert_null(json_object_get(c, "hasMore"));
  json_decref(r);
  const char *bad[] = {
      "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"nope://{x}\"},"
      "\"argument\":{\"name\":\"x\",\"value\":\"\"}}",
      "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"users://{id}/"
      "profile{?fields}\"},\"argument\":{\"name\":\"zzz\",\"value\":\"\"}}",
      "{\"ref\":{\"type\":\"ref/other\"},\"argument\":{\"name\":\"x\","
      "\"value\":\"\"}}",
      "{\"argument\":{\"name\":\"x\",\"value\":\"\"}}",
      "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"x\"},\"argument\":{}}",
      "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"users://{id}/"
      "profile{?fields}\"},\"argument\":{\"name\":\"id\",\"value\":\"\"},"
      "\"context\":{\"arguments\":{\"a\":1}}}"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    r = tu_request(s, se, "completion/complete", bad[i]);
    assert_int_equal(tu_error_code(r), MCP_RPC_INVALID_PARAMS);
    json_decref(r);
  }
  mcp__session_release(se);
}

static void test_stateless_read(void **state) {
  mcp_server_t *s = *state;
  json_t *r = tu_rpc(
      s, NULL,
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{"
      "\"uri\":\"mem://text\",\"_meta\":{\"io.modelcontextprotocol/"
      "protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"
      "clientCapabilities\":{}}}}");
  json_t *res = json_object_get(r, "result");
  assert_string_equal(json_string_value(json_object_get(res, "resultType")),
                      "complete");
  assert_int_equal(json_array_size(json_object_get(res, "contents")), 2);
  json_decref(r);
  r = tu_rpc(
      s, NULL,
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
      "\"params\":{\"uri\":\"mem://text\",\"_meta\":{\"io.modelcontextprotocol/"
      "protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"
      "clientCapabilities\":{}}}}");
  assert_int_equal(tu_error_code(r), MCP_RPC_METHOD_NOT_FOUND);
  json_decref(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_objects_and_bad_input),
      cmocka_unit_test(test_capability_only_when_registered),
      cmocka_unit_test(test_list_pages_and_cursor),
      cmocka_unit_test(test_read),
      cmocka_unit_test(test_subscriptions_only_reach_subscribers),
      cmocka_unit_test(test_template_completion),
      cmocka_unit_test(test_stateless_read),
  };
  return cmocka_run_group_tests(tests, setup, tu_free_server);
}
