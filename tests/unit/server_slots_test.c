/* SPDX-License-Identifier: MIT */
/* server_slots_test.c - how a feature module keeps its state on a server
 * and declares its capabilities without the core naming it
 * (core/feature.h, core/methods.h): slots set, replaced, cleared, refused
 * when full, destroyed at mcp_server_free the last registered first;
 * capability hooks run in registration order with the era, which is the
 * order of the members a client sees. */
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

static unsigned seen_eras;

static void extra_capability(const mcp_server_t *s, json_t *caps,
                             unsigned era) {
  (void)s;
  seen_eras |= era;
  json_object_set_new(caps, era == MCP__ERA_MODERN ? "modernX" : "legacyX",
                      json_object());
}

static char *dump(json_t *caps) {
  char *text = json_dumps(caps, JSON_COMPACT);
  json_decref(caps);
  return text;
}

static void test_capability_hooks_in_order(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("caps", "1", &s), MCP_OK);
  /* a bare server: tools (always), logging before 2026-07-28 only */
  char *legacy = dump(mcp__server_capabilities(s, MCP__ERA_LEGACY));
  char *modern = dump(mcp__server_capabilities(s, MCP__ERA_MODERN));
  assert_string_equal(legacy, "{\"tools\":{\"listChanged\":true},"
                              "\"logging\":{}}");
  assert_string_equal(modern, "{\"tools\":{\"listChanged\":true}}");
  free(legacy);
  free(modern);
  /* a module's hook comes after those registered before it, in both
   * eras, and is told which */
  assert_int_equal(mcp_server_set_tools_list_changed(s, false), MCP_OK);
  assert_int_equal(mcp__server_add_capability(s, extra_capability), MCP_OK);
  assert_int_equal(mcp__server_add_capability(s, extra_capability), MCP_OK);
  seen_eras = 0;
  legacy = dump(mcp__server_capabilities(s, MCP__ERA_LEGACY));
  modern = dump(mcp__server_capabilities(s, MCP__ERA_MODERN));
  assert_int_equal(seen_eras, MCP__ERA_LEGACY | MCP__ERA_MODERN);
  assert_string_equal(legacy,
                      "{\"tools\":{},\"logging\":{},\"legacyX\":{}}");
  assert_string_equal(modern, "{\"tools\":{},\"modernX\":{}}");
  free(legacy);
  free(modern);
  /* the extensions helper makes the object once and keeps its place */
  json_t *caps = json_pack("{s:{}}", "tools");
  mcp__capability_extension(caps, "a/one", json_object());
  json_object_set_new(caps, "later", json_true());
  mcp__capability_extension(caps, "b/two", json_true());
  char *text = dump(caps);
  assert_string_equal(text, "{\"tools\":{},\"extensions\":{\"a/one\":{},"
                            "\"b/two\":true},\"later\":true}");
  free(text);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slots_set_replace_destroy),
      cmocka_unit_test(test_slots_cleared_and_full),
      cmocka_unit_test(test_capability_hooks_in_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
