/* SPDX-License-Identifier: MIT */
/* capabilities_text_test.c - the ServerCapabilities text of a server that
 * has every kind of capability (tools, logging, MCP Apps, resources with
 * subscribe, prompts, completions, skills, tasks), in both eras, byte for
 * byte: the members come from each module's capability hook
 * (core/methods.h) in registration order, and clients see that order. The
 * expected texts are what the server sent before the hooks existed
 * (server/features.c and the discover-only extension hooks, 2026-12-04). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "mcp/apps.h"
#include "mcp/prompt.h"
#include "mcp/resource.h"
#include "mcp/skill.h"
#include "mcp/store.h"
#include "mcp/task.h"
#include "mcp/testing.h"

static mcp_status complete_arg(mcp_call_t *call, const char *argument,
                               const char *value, json_t *context,
                               mcp_completion_t *out, void *user_data) {
  (void)call, (void)argument, (void)value, (void)context, (void)out;
  (void)user_data;
  return MCP_OK;
}

static mcp_status render(mcp_call_t *call, json_t *args,
                         mcp_prompt_result_t *out, void *user_data) {
  (void)call, (void)args, (void)out, (void)user_data;
  return MCP_OK;
}

/* The capabilities of server/discover (2026-07-28), as compact text. */
static char *modern_text(mcp_server_t *s) {
  mcp_test_client_t *c = NULL;
  assert_int_equal(mcp_test_client_new(s, "2026-07-28", NULL, &c, NULL),
                   MCP_OK);
  json_t *r = mcp_test_client_request(c, "server/discover", NULL);
  char *text = json_dumps(
      json_object_get(json_object_get(r, "result"), "capabilities"),
      JSON_COMPACT);
  json_decref(r);
  mcp_test_client_free(c);
  return text;
}

/* The capabilities initialize answers (2025-11-25), as compact text. */
static char *legacy_text(mcp_server_t *s) {
  json_t *caps = mcp__server_capabilities(s, MCP__ERA_LEGACY);
  char *text = json_dumps(caps, JSON_COMPACT);
  json_decref(caps);
  return text;
}

static void expect_texts(mcp_server_t *s, const char *legacy,
                         const char *modern) {
  char *l = legacy_text(s), *m = modern_text(s);
  assert_non_null(l);
  assert_non_null(m);
  assert_string_equal(l, legacy);
  assert_string_equal(m, modern);
  free(l);
  free(m);
}

static void add_skill(mcp_server_t *s) {
  const char *md = "---\nname: demo\ndescription: a demo skill\n---\nBody\n";
  mcp_skill_t *k = NULL;
  assert_int_equal(mcp_skill_new(md, strlen(md), NULL, &k, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_skill(s, k, NULL), MCP_OK);
}

/* Skills (whose files are resources) and tasks without MCP Apps: in
 * 2026-07-28 "extensions" is made by the skills hook, after resources. */
static void test_skills_and_tasks(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  mcp_store_t *store = NULL;
  assert_int_equal(mcp_server_new("caps", "1", &s), MCP_OK);
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  add_skill(s);
  assert_int_equal(mcp_server_enable_tasks(s, store, NULL, NULL), MCP_OK);
  expect_texts(
      s,
      "{\"tools\":{\"listChanged\":true},\"logging\":{},\"resources\":{"
      "\"listChanged\":true},\"tasks\":{\"cancel\":{},\"requests\":{"
      "\"tools\":{\"call\":{}}}}}",
      "{\"tools\":{\"listChanged\":true},\"resources\":{\"listChanged\":"
      "true},\"extensions\":{\"io.modelcontextprotocol/skills\":{},"
      "\"io.modelcontextprotocol/tasks\":{}}}");
  mcp_server_free(s);
  mcp_store_free(store);
}

/* Everything: MCP Apps makes "extensions" before resources, and the
 * skills and tasks extensions join it there in 2026-07-28. */
static void test_every_capability(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  mcp_store_t *store = NULL;
  assert_int_equal(mcp_server_new("caps", "1", &s), MCP_OK);
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  mcp_resource_t *ui = NULL;
  assert_int_equal(mcp_ui_resource_new("ui://caps/app", "app", &ui, NULL),
                   MCP_OK);
  assert_int_equal(mcp_ui_resource_set_html(ui, "<p>x</p>", 8), MCP_OK);
  assert_int_equal(mcp_server_add_ui_resource(s, ui, NULL), MCP_OK);
  assert_int_equal(mcp_server_set_resources_subscribe(s, true), MCP_OK);
  mcp_prompt_t *p = NULL;
  assert_int_equal(mcp_prompt_new("greet", &p), MCP_OK);
  assert_int_equal(mcp_prompt_add_argument(p, "who", NULL, NULL, true),
                   MCP_OK);
  assert_int_equal(
      mcp_prompt_set_completion(p, "who", complete_arg, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_prompt_set_handler(p, render, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_prompt(s, p), MCP_OK);
  add_skill(s);
  assert_int_equal(mcp_server_set_skills_directory_read(s, true), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(s, store, NULL, NULL), MCP_OK);
  expect_texts(
      s,
      "{\"tools\":{\"listChanged\":true},\"logging\":{},\"extensions\":{"
      "\"io.modelcontextprotocol/ui\":{\"mimeTypes\":["
      "\"text/html;profile=mcp-app\"]}},\"resources\":{\"subscribe\":true,"
      "\"listChanged\":true},\"prompts\":{\"listChanged\":true},"
      "\"completions\":{},\"tasks\":{\"cancel\":{},\"requests\":{\"tools\":{"
      "\"call\":{}}}}}",
      "{\"tools\":{\"listChanged\":true},\"extensions\":{"
      "\"io.modelcontextprotocol/ui\":{\"mimeTypes\":["
      "\"text/html;profile=mcp-app\"]},\"io.modelcontextprotocol/skills\":{"
      "\"directoryRead\":true},\"io.modelcontextprotocol/tasks\":{}},"
      "\"resources\":{\"subscribe\":true,\"listChanged\":true},\"prompts\":{"
      "\"listChanged\":true},\"completions\":{}}");
  mcp_server_free(s);
  mcp_store_free(store);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_skills_and_tasks),
      cmocka_unit_test(test_every_capability),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
