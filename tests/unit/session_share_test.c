/* SPDX-License-Identifier: MIT */
/* session_share_test.c - a 2025-11-25 session's shareable state
 * (src/server/session_share.c, used by the HTTP session store): export
 * before initialize gives nothing; after it, version, client capabilities
 * and info, log level, subscriptions and the tasks key round-trip into a
 * session of another server object, which is then ready; foreign or
 * malformed state is refused and changes nothing. */
#include "testutil.h"

#include <string.h>

#include "core/session_internal.h"

static mcp_status read_nothing(mcp_call_t *call, const char *uri, json_t *vars,
                               mcp_read_result_t *out, void *ud) {
  (void)call, (void)uri, (void)vars, (void)out, (void)ud;
  return MCP_OK;
}

static mcp_store_t *stores[3];
static int nstores;

/* The server borrows its store: freed in main. */
static mcp_server_t *make_server(void) {
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("share", "1", &s), MCP_OK);
  mcp_server_set_resources_subscribe(s, true);
  mcp_resource_t *r = NULL;
  assert_int_equal(mcp_resource_new("file:///a.txt", "a", &r), MCP_OK);
  mcp_resource_set_handler(r, read_nothing, NULL, NULL);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_OK);
  mcp_store_t *store = NULL;
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  stores[nstores++] = store;
  assert_int_equal(mcp_server_enable_tasks(s, store, NULL, NULL), MCP_OK);
  return s;
}

static void test_round_trip(void **state) {
  (void)state;
  mcp_server_t *a = make_server(), *b = make_server();
  mcp_session_t *se = tu_session(a, NULL);
  assert_null(mcp__session_export(se)); /* not initialized */
  tu_initialize(a, se, "{\"elicitation\":{},\"roots\":{}}");
  json_t *r = tu_request(a, se, "logging/setLevel", "{\"level\":\"warning\"}");
  assert_int_equal(tu_error_code(r), 0);
  json_decref(r);
  r = tu_request(a, se, "resources/subscribe", "{\"uri\":\"file:///a.txt\"}");
  assert_int_equal(tu_error_code(r), 0);
  json_decref(r);
  char *text = mcp__session_export(se);
  assert_non_null(text);
  json_t *j = json_loads(text, 0, NULL);
  assert_string_equal(json_string_value(json_object_get(j, "protocolVersion")),
                      "2025-11-25");
  assert_non_null(
      json_object_get(json_object_get(j, "clientCapabilities"), "elicitation"));
  assert_int_equal(strlen(json_string_value(json_object_get(j, "tasksKey"))),
                   36); /* made at export: every replica uses the same */
  json_decref(j);

  mcp_session_t *copy = tu_session(b, NULL);
  assert_int_equal(mcp__session_import(copy, text), MCP_OK);
  assert_true(mcp__session_is_ready(copy));
  assert_string_equal(copy->protocol_version, "2025-11-25");
  assert_true(json_equal(copy->client_capabilities, se->client_capabilities));
  assert_true(json_equal(copy->client_info, se->client_info));
  assert_int_equal(copy->log_level, se->log_level);
  assert_true(json_equal(copy->subscriptions, se->subscriptions));
  assert_string_equal(copy->tasks_key, se->tasks_key);
  /* the copy serves requests at once, and exports the same state */
  r = tu_request(b, copy, "resources/list", NULL);
  assert_int_equal(tu_error_code(r), 0);
  json_decref(r);
  char *again = mcp__session_export(copy);
  assert_string_equal(again, text);
  free(again);
  free(text);
  mcp__session_release(copy);
  mcp__session_release(se);
  mcp_server_free(a);
  mcp_server_free(b);
}

static void test_foreign_state_refused(void **state) {
  (void)state;
  mcp_server_t *s = make_server();
  mcp_session_t *se = tu_session(s, NULL);
  const char *bad[] = {
      "",
      "[]",
      "{\"v\":2,\"protocolVersion\":\"2025-11-25\",\"clientCapabilities\":{},"
      "\"logLevel\":-1}",
      "{\"v\":1,\"clientCapabilities\":{},\"logLevel\":-1}",
      "{\"v\":1,\"protocolVersion\":\"2025-11-25\",\"logLevel\":-1}",
      "{\"v\":1,\"protocolVersion\":\"2025-11-25-and-far-too-long\","
      "\"clientCapabilities\":{},\"logLevel\":-1}",
      "{\"v\":1,\"protocolVersion\":\"2025-11-25\",\"clientCapabilities\":{},"
      "\"logLevel\":\"debug\"}",
      "{\"v\":1,\"protocolVersion\":\"2025-11-25\",\"clientCapabilities\":{},"
      "\"logLevel\":-1,\"subscriptions\":[]}",
      "{\"v\":1,\"protocolVersion\":\"2025-11-25\",\"clientCapabilities\":{},"
      "\"logLevel\":-1,\"tasksKey\":\"0123456789012345678901234567890123456789"
      "0123456789\"}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(mcp__session_import(se, bad[i]), MCP_ERR_PARSE);
    assert_false(mcp__session_is_ready(se));
  }
  mcp__session_release(se);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_foreign_state_refused),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  for (int i = 0; i < nstores; i++)
    mcp_store_free(stores[i]);
  return rc;
}
