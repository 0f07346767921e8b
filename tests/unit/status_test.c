/* SPDX-License-Identifier: MIT */
/* status_test.c - the status list generates consistent names and messages. */
#include "testutil.h"

#include <string.h>

#include "mcp/status.h"
#include "mcp/version.h"

static void test_status_names_and_messages(void **state) {
  (void)state;
  assert_string_equal(mcp_status_name(MCP_OK), "MCP_OK");
  assert_string_equal(mcp_strerror(MCP_ERR_NOMEM), "out of memory");
  assert_string_equal(mcp_status_name(MCP_ERR_SCHEMA), "MCP_ERR_SCHEMA");
  assert_string_equal(mcp_strerror((mcp_status)9999), "unknown status");
}

static void test_error_set_fills_detail(void **state) {
  (void)state;
  mcp_error_t err;
  assert_int_equal(mcp_error_set(&err, MCP_ERR_IO, "cannot open %s", "x.db"),
                   MCP_ERR_IO);
  assert_int_equal(err.status, MCP_ERR_IO);
  assert_string_equal(err.message, "cannot open x.db");
  assert_int_equal(mcp_error_set(NULL, MCP_ERR_IO, "ignored"), MCP_ERR_IO);
  assert_int_equal(mcp_version_number(), MCP_VERSION_NUMBER);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_names_and_messages),
      cmocka_unit_test(test_error_set_fills_detail),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
