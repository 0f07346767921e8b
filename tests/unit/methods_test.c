/* SPDX-License-Identifier: MIT */
/* methods_test.c - the method rows feature modules register
 * (core/methods.c): found by name and era, a later table wins for a name it
 * shares with an earlier one, unknown names and eras find nothing. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "core/feature.h"
#include "mcp/server.h"

static mcp_status first(mcp_call_t *call, json_t **result) {
  (void)call, (void)result;
  return MCP_OK;
}
static mcp_status second(mcp_call_t *call, json_t **result) {
  (void)call, (void)result;
  return MCP_OK;
}
static mcp_status modern_only(mcp_call_t *call, json_t **result) {
  (void)call, (void)result;
  return MCP_OK;
}

static const mcp__method early[] = {
    {"x/same", first, MCP__ERA_LEGACY | MCP__ERA_MODERN},
    {"x/early", first, MCP__ERA_LEGACY},
};
static const mcp__method later[] = {
    {"x/same", second, MCP__ERA_LEGACY},
    {"x/new", modern_only, MCP__ERA_MODERN},
};

static void test_rows_by_name_era_and_order(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("methods", "1", &s), MCP_OK);
  /* the core's own rows are there */
  assert_non_null(mcp__server_find_method(s, "initialize", false));
  assert_non_null(mcp__server_find_method(s, "tools/call", true));
  assert_int_equal(mcp__server_add_methods(s, early, 2), MCP_OK);
  assert_int_equal(mcp__server_add_methods(s, later, 2), MCP_OK);
  assert_ptr_equal(mcp__server_find_method(s, "x/same", false), second);
  assert_ptr_equal(mcp__server_find_method(s, "x/same", true), first);
  assert_ptr_equal(mcp__server_find_method(s, "x/early", false), first);
  assert_null(mcp__server_find_method(s, "x/early", true));
  assert_ptr_equal(mcp__server_find_method(s, "x/new", true), modern_only);
  assert_null(mcp__server_find_method(s, "x/new", false));
  assert_null(mcp__server_find_method(s, "x/none", false));
  assert_null(mcp__server_find_method(s, "", false));
  assert_null(mcp__server_find_method(s, "x/sam", false));
  mcp_server_free(s);
}

/* Many rows: each is found, and the index refuses more than it can hold
 * with short probes instead of degrading. */
static void test_many_rows(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("methods", "1", &s), MCP_OK);
  static char names[60][16];
  static mcp__method rows[60];
  for (int i = 0; i < 60; i++) {
    snprintf(names[i], sizeof names[i], "bulk/%d", i);
    rows[i] = (mcp__method){names[i], i % 2 ? first : second, MCP__ERA_LEGACY};
  }
  assert_int_equal(mcp__server_add_methods(s, rows, 60), MCP_OK);
  for (int i = 0; i < 60; i++)
    assert_ptr_equal(mcp__server_find_method(s, names[i], false),
                     i % 2 ? first : second);
  /* the core's rows and twice 60 are more than half the slots */
  assert_int_equal(mcp__server_add_methods(s, rows, 60), MCP_ERR_LIMIT);
  assert_ptr_equal(mcp__server_find_method(s, names[59], false), first);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_by_name_era_and_order),
      cmocka_unit_test(test_many_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
