/* SPDX-License-Identifier: MIT */
/* server_slots_test.c - how a feature module keeps its state on a server
 * without the core naming it (core/feature.h): slots set, replaced,
 * cleared, refused when full, destroyed at mcp_server_free the last
 * registered first. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "mcp/server.h"

/* The order in which the test's slots were destroyed. */
static char destroyed[64];

static void note_destroy(void *state) {
  strncat(destroyed, state, sizeof destroyed - strlen(destroyed) - 1);
  free(state);
}

static const mcp__slot_key key_a = {"test-a", note_destroy};
static const mcp__slot_key key_b = {"test-b", note_destroy};
static const mcp__slot_key key_plain = {"test-plain", NULL};

static void test_slots_set_replace_destroy(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("slots", "1", &s), MCP_OK);
  assert_null(mcp__server_slot(s, &key_a));
  assert_int_equal(mcp__server_set_slot(s, &key_a, strdup("a")), MCP_OK);
  assert_int_equal(mcp__server_set_slot(s, &key_b, strdup("b")), MCP_OK);
  assert_string_equal(mcp__server_slot(s, &key_a), "a");
  assert_string_equal(mcp__server_slot(s, &key_b), "b");
  /* setting a key again replaces its state (the module frees the old) */
  char *old = mcp__server_slot(s, &key_a);
  assert_int_equal(mcp__server_set_slot(s, &key_a, strdup("A")), MCP_OK);
  free(old);
  assert_string_equal(mcp__server_slot(s, &key_a), "A");
  /* a key without destroy: the state stays the module's */
  static int plain;
  assert_int_equal(mcp__server_set_slot(s, &key_plain, &plain), MCP_OK);
  assert_ptr_equal(mcp__server_slot(s, &key_plain), &plain);
  destroyed[0] = '\0';
  mcp_server_free(s);
  /* the last registered first */
  assert_string_equal(destroyed, "bA");
}

static void test_slots_cleared_and_full(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("slots", "1", &s), MCP_OK);
  assert_int_equal(mcp__server_set_slot(s, &key_a, strdup("a")), MCP_OK);
  free(mcp__server_slot(s, &key_a));
  assert_int_equal(mcp__server_set_slot(s, &key_a, NULL), MCP_OK);
  assert_null(mcp__server_slot(s, &key_a));
  /* the built-in modules hold some slots; the rest fill, then a new key is
   * refused rather than lost */
  static mcp__slot_key keys[MCP__SLOTS];
  size_t added = 0;
  mcp_status st = MCP_OK;
  while (added < MCP__SLOTS && st == MCP_OK) {
    keys[added].name = "filler";
    st = mcp__server_set_slot(s, &keys[added], &keys[added]);
    if (st == MCP_OK)
      added++;
  }
  assert_int_equal(st, MCP_ERR_LIMIT);
  assert_true(added > 0 && added < MCP__SLOTS);
  for (size_t i = 0; i < added; i++)
    assert_ptr_equal(mcp__server_slot(s, &keys[i]), &keys[i]);
  /* a key already there can still change its state */
  assert_int_equal(mcp__server_set_slot(s, &key_a, NULL), MCP_OK);
  destroyed[0] = '\0';
  mcp_server_free(s);
  assert_string_equal(destroyed, ""); /* cleared: nothing to destroy */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slots_set_replace_destroy),
      cmocka_unit_test(test_slots_cleared_and_full),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
