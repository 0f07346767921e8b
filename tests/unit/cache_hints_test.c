/* SPDX-License-Identifier: MIT */
/* cache_hints_test.c - ttlMs/cacheScope (MCP 2026-07-28, SEP-2549): on
 * every page of every listing, on reads and discover; the server, resource,
 * template and read-answer levels; none on 2025-11-25 results. */
#include "testutil.h"

#include <string.h>

static mcp_status echo(mcp_call_t *call, json_t *args, mcp_result_t *out,
                       void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_result_add_text(out, "ok") ? MCP_OK : MCP_ERR_NOMEM;
}

static mcp_status read_plain(mcp_call_t *call, const char *uri, json_t *vars,
                             mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)ud;
  return mcp_read_result_add_text(out, uri, "x", "text/plain");
}

/* A handler that knows its answer keeps for a minute and is the same for
 * everybody. */
static mcp_status read_shared(mcp_call_t *call, const char *uri, json_t *vars,
                              mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)ud;
  mcp_read_result_set_cache_hint(out, 60000, MCP_CACHE_PUBLIC);
  return mcp_read_result_add_text(out, uri, "y", "text/plain");
}

static mcp_status prompt_fn(mcp_call_t *call, json_t *args,
                            mcp_prompt_result_t *out, void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_prompt_add_text(out, MCP_ROLE_USER, "hi") ? MCP_OK : MCP_ERR_NOMEM;
}

static int setup(void **state) {
  mcp_server_t *s;
  assert_int_equal(mcp_server_new("cache", "1", &s), MCP_OK);
  mcp_server_set_page_size(s, 2);
  const char *names[] = {"t1", "t2", "t3", "t4", "t5"};
  for (size_t i = 0; i < 5; i++) {
    mcp_tool_t *t;
    assert_int_equal(mcp_tool_new(names[i], &t), MCP_OK);
    mcp_tool_set_handler(t, echo, NULL, NULL);
    assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
  }
  const char *uris[] = {"mem://a", "mem://b", "mem://c"};
  for (size_t i = 0; i < 3; i++) {
    mcp_resource_t *r;
    assert_int_equal(mcp_resource_new(uris[i], "r", &r), MCP_OK);
    mcp_resource_set_handler(r, i == 2 ? read_shared : read_plain, NULL, NULL);
    if (i == 1)
      assert_int_equal(mcp_resource_set_cache_hint(r, 5000, MCP_CACHE_PUBLIC),
                       MCP_OK);
    assert_int_equal(mcp_server_add_resource(s, r), MCP_OK);
  }
  mcp_resource_template_t *t;
  assert_int_equal(mcp_resource_template_new("tpl://{id}", "t", &t), MCP_OK);
  mcp_resource_template_set_handler(t, read_plain, NULL, NULL);
  assert_int_equal(
      mcp_resource_template_set_cache_hint(t, 7, MCP_CACHE_PRIVATE), MCP_OK);
  assert_int_equal(mcp_server_add_resource_template(s, t), MCP_OK);
  mcp_prompt_t *p;
  assert_int_equal(mcp_prompt_new("p", &p), MCP_OK);
  mcp_prompt_set_handler(p, prompt_fn, NULL, NULL);
  assert_int_equal(mcp_server_add_prompt(s, p), MCP_OK);
  *state = s;
  return 0;
}

static json_int_t ttl_of(const json_t *r) {
  json_t *v = json_object_get(json_object_get(r, "result"), "ttlMs");
  assert_true(json_is_integer(v));
  return json_integer_value(v);
}

static const char *scope_of(const json_t *r) {
  json_t *v = json_object_get(json_object_get(r, "result"), "cacheScope");
  assert_true(json_is_string(v));
  return json_string_value(v);
}

/* Walks every page of a listing; each page must carry the expected hint. */
static void walk_pages(mcp_server_t *s, const char *method, json_int_t ttl,
                       const char *scope, size_t want_pages) {
  char params[512] = "{}";
  size_t pages = 0;
  for (;;) {
    json_t *r = tu_modern_request(s, method, params, NULL);
    assert_int_equal(tu_error_code(r), 0);
    assert_int_equal(ttl_of(r), ttl);
    assert_string_equal(scope_of(r), scope);
    pages++;
    json_t *next = json_object_get(json_object_get(r, "result"), "nextCursor");
    if (next == NULL) {
      json_decref(r);
      break;
    }
    snprintf(params, sizeof params, "{\"cursor\":\"%s\"}",
             json_string_value(next));
    json_decref(r);
  }
  assert_int_equal(pages, want_pages);
}

static void test_defaults_on_every_page(void **state) {
  mcp_server_t *s = *state;
  walk_pages(s, "tools/list", 0, "public", 3);
  walk_pages(s, "resources/list", 0, "public", 2);
  walk_pages(s, "resources/templates/list", 0, "public", 1);
  walk_pages(s, "prompts/list", 0, "public", 1);
  json_t *r = tu_modern_request(s, "server/discover", NULL, NULL);
  assert_int_equal(ttl_of(r), 0);
  assert_string_equal(scope_of(r), "public");
  json_decref(r);
  /* a read without any setting of its own: private */
  r = tu_modern_request(s, "resources/read", "{\"uri\":\"mem://a\"}", NULL);
  assert_int_equal(ttl_of(r), 0);
  assert_string_equal(scope_of(r), "private");
  json_decref(r);
}

static void test_levels_override_in_order(void **state) {
  mcp_server_t *s = *state;
  assert_int_equal(
      mcp_server_set_cache_hint(s, MCP_CACHE_ALL, 1000, MCP_CACHE_PUBLIC),
      MCP_OK);
  assert_int_equal(mcp_server_set_cache_hint(s, MCP_CACHE_TOOLS_LIST, 30000,
                                             MCP_CACHE_PRIVATE),
                   MCP_OK);
  walk_pages(s, "tools/list", 30000, "private", 3);
  walk_pages(s, "prompts/list", 1000, "public", 1); /* from ALL */
  json_t *r = tu_modern_request(s, "server/discover", NULL, NULL);
  assert_int_equal(ttl_of(r), 1000);
  json_decref(r);
  /* reads keep their own default (private) until set */
  r = tu_modern_request(s, "resources/read", "{\"uri\":\"mem://a\"}", NULL);
  assert_int_equal(ttl_of(r), 0);
  assert_string_equal(scope_of(r), "private");
  json_decref(r);
  assert_int_equal(mcp_server_set_cache_hint(s, MCP_CACHE_RESOURCES_READ, 10,
                                             MCP_CACHE_PUBLIC),
                   MCP_OK);
  r = tu_modern_request(s, "resources/read", "{\"uri\":\"mem://a\"}", NULL);
  assert_int_equal(ttl_of(r), 10);
  json_decref(r);
  /* the resource's own hint beats the server's */
  r = tu_modern_request(s, "resources/read", "{\"uri\":\"mem://b\"}", NULL);
  assert_int_equal(ttl_of(r), 5000);
  assert_string_equal(scope_of(r), "public");
  json_decref(r);
  /* the handler's answer beats both */
  r = tu_modern_request(s, "resources/read", "{\"uri\":\"mem://c\"}", NULL);
  assert_int_equal(ttl_of(r), 60000);
  json_decref(r);
  /* a template's hint */
  r = tu_modern_request(s, "resources/read", "{\"uri\":\"tpl://9\"}", NULL);
  assert_int_equal(ttl_of(r), 7);
  assert_string_equal(scope_of(r), "private");
  json_decref(r);
}

static void test_not_on_legacy_results_nor_calls(void **state) {
  mcp_server_t *s = *state;
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  const char *methods[] = {"tools/list", "prompts/list", "resources/list",
                           "resources/templates/list"};
  for (size_t i = 0; i < 4; i++) {
    json_t *r = tu_request(s, se, methods[i], NULL);
    json_t *res = json_object_get(r, "result");
    assert_non_null(res);
    assert_null(json_object_get(res, "ttlMs"));
    assert_null(json_object_get(res, "cacheScope"));
    json_decref(r);
  }
  json_t *r = tu_request(s, se, "resources/read", "{\"uri\":\"mem://c\"}");
  assert_null(json_object_get(json_object_get(r, "result"), "ttlMs"));
  json_decref(r);
  mcp__session_release(se);
  /* a 2026-07-28 tools/call is not a cacheable result */
  r = tu_modern_request(s, "tools/call", "{\"name\":\"t1\"}", NULL);
  assert_null(json_object_get(json_object_get(r, "result"), "ttlMs"));
  json_decref(r);
}

static void test_bad_settings_are_refused(void **state) {
  mcp_server_t *s = *state;
  assert_int_equal(
      mcp_server_set_cache_hint(s, MCP_CACHE_ALL, -1, MCP_CACHE_PUBLIC),
      MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_server_set_cache_hint(
                       s, MCP_CACHE_ALL, 9007199254740992LL, MCP_CACHE_PUBLIC),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(
      mcp_server_set_cache_hint(s, (mcp_cache_target)99, 1, MCP_CACHE_PUBLIC),
      MCP_ERR_INVALID_ARG);
  assert_int_equal(
      mcp_server_set_cache_hint(s, MCP_CACHE_ALL, 1, (mcp_cache_scope)7),
      MCP_ERR_INVALID_ARG);
  mcp_resource_t *r;
  assert_int_equal(mcp_resource_new("mem://z", "z", &r), MCP_OK);
  assert_int_equal(mcp_resource_set_cache_hint(r, -5, MCP_CACHE_PUBLIC),
                   MCP_ERR_INVALID_ARG);
  mcp_resource_free(r);
  /* nothing changed */
  json_t *res = tu_modern_request(s, "tools/list", NULL, NULL);
  assert_int_equal(ttl_of(res), 0);
  json_decref(res);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_defaults_on_every_page, setup,
                                      tu_free_server),
      cmocka_unit_test_setup_teardown(test_levels_override_in_order, setup,
                                      tu_free_server),
      cmocka_unit_test_setup_teardown(test_not_on_legacy_results_nor_calls,
                                      setup, tu_free_server),
      cmocka_unit_test_setup_teardown(test_bad_settings_are_refused, setup,
                                      tu_free_server),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
