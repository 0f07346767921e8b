/* SPDX-License-Identifier: MIT */
/* listen_test.c - subscriptions/listen in the core: the acknowledgement
 * comes first and carries the honoured filter, every notification is
 * tagged with the subscription id, filters are honoured, and a stream ends
 * silently when its client leaves or cancels, with the final result when
 * the server ends it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/feature.h"
#include "core/listen.h"
#include "core/sessions.h"
#include "testutil.h"

#define META                                                                   \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static mcp_status noop_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "ok");
  return MCP_OK;
}

static void add_tool(mcp_server_t *s, const char *name) {
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, noop_tool, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
}

static mcp_status read_res(mcp_call_t *call, const char *uri, json_t *vars,
                           mcp_read_result_t *out, void *ud) {
  (void)call, (void)uri, (void)vars, (void)out, (void)ud;
  return MCP_OK;
}

static mcp_server_t *new_server(bool subscribe) {
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("listen-test", "1.0", &s), MCP_OK);
  add_tool(s, "first");
  mcp_resource_t *r = NULL;
  assert_int_equal(mcp_resource_new("file:///docs", "docs", &r), MCP_OK);
  assert_int_equal(mcp_resource_set_handler(r, read_res, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_OK);
  if (subscribe)
    assert_int_equal(mcp_server_set_resources_subscribe(s, true), MCP_OK);
  return s;
}

/* Opens a listen stream with the given id and filter on capture c (the
 * channel transports give: one that allows parking). */
static void open_listen(mcp_server_t *s, tu_capture *c, const char *id,
                        const char *filter) {
  char text[1024];
  snprintf(text, sizeof text,
           "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"subscriptions/listen\","
           "\"params\":{" META ",\"notifications\":%s}}",
           id, filter);
  mcp_call_t *call = NULL;
  assert_int_equal(mcp__server_accept(s, NULL, NULL, text, strlen(text),
                                      tu_capture_channel(c), &call),
                   MCP__ACCEPT_REQUEST);
  mcp__call_allow_suspend(call);
  mcp__call_run(call);
}

static json_t *message(tu_capture *c, size_t i) {
  pthread_mutex_lock(&c->lock);
  json_t *m = json_incref(json_array_get(c->messages, i));
  pthread_mutex_unlock(&c->lock);
  return m;
}

static size_t count(tu_capture *c) {
  pthread_mutex_lock(&c->lock);
  size_t n = json_array_size(c->messages);
  pthread_mutex_unlock(&c->lock);
  return n;
}

static const json_t *subscription_id(const json_t *msg) {
  return json_object_get(
      json_object_get(json_object_get(msg, "params"), "_meta"),
      "io.modelcontextprotocol/subscriptionId");
}

static void test_ack_first_with_honoured_filter(void **state) {
  (void)state;
  mcp_server_t *s = new_server(false);
  tu_capture c;
  tu_capture_init(&c);
  /* No prompts registered, subscribe off: both are left out of the ack. */
  open_listen(s, &c, "\"sub-1\"",
              "{\"toolsListChanged\":true,\"promptsListChanged\":true,"
              "\"resourcesListChanged\":true,"
              "\"resourceSubscriptions\":[\"file:///docs\"]}");
  assert_int_equal(count(&c), 1);
  json_t *ack = message(&c, 0);
  assert_string_equal(json_string_value(json_object_get(ack, "method")),
                      "notifications/subscriptions/acknowledged");
  assert_null(json_object_get(ack, "id"));
  assert_string_equal(json_string_value(subscription_id(ack)), "sub-1");
  json_t *honoured =
      json_object_get(json_object_get(ack, "params"), "notifications");
  assert_true(json_is_true(json_object_get(honoured, "toolsListChanged")));
  assert_true(json_is_true(json_object_get(honoured, "resourcesListChanged")));
  assert_null(json_object_get(honoured, "promptsListChanged"));
  assert_null(json_object_get(honoured, "resourceSubscriptions"));
  json_decref(ack);
  assert_int_equal(mcp__listen_count(s), 1);
  assert_int_equal(c.finals, 0); /* the request stays open */
  mcp__server_end_streams(s, NULL);
  tu_capture_destroy(&c);
  mcp_server_free(s);
}

static void test_notifications_tagged_and_filtered(void **state) {
  (void)state;
  mcp_server_t *s = new_server(true);
  tu_capture tools, resources;
  tu_capture_init(&tools);
  tu_capture_init(&resources);
  open_listen(s, &tools, "7", "{\"toolsListChanged\":true}");
  open_listen(s, &resources, "8",
              "{\"resourceSubscriptions\":[\"file:///docs\"]}");
  add_tool(s, "second"); /* tools/list_changed */
  assert_int_equal(mcp_server_notify_resource_updated(s, "file:///docs/a.md"),
                   MCP_OK);
  assert_int_equal(mcp_server_notify_resource_updated(s, "file:///other"),
                   MCP_OK);
  assert_int_equal(count(&tools), 2);
  json_t *n = message(&tools, 1);
  assert_string_equal(json_string_value(json_object_get(n, "method")),
                      "notifications/tools/list_changed");
  assert_int_equal(json_integer_value(subscription_id(n)), 7);
  json_decref(n);
  /* Only the covered URI, never the tools change. */
  assert_int_equal(count(&resources), 2);
  n = message(&resources, 1);
  assert_string_equal(json_string_value(json_object_get(n, "method")),
                      "notifications/resources/updated");
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(n, "params"), "uri")),
      "file:///docs/a.md");
  assert_int_equal(json_integer_value(subscription_id(n)), 8);
  json_decref(n);
  /* Broadcasts of other methods never reach listen streams. */
  assert_int_equal(mcp_server_broadcast(s, "notifications/custom", NULL),
                   MCP_OK);
  assert_int_equal(count(&tools), 2);
  mcp__server_end_streams(s, NULL);
  tu_capture_destroy(&tools);
  tu_capture_destroy(&resources);
  mcp_server_free(s);
}

static void test_client_leaves_silently(void **state) {
  (void)state;
  mcp_server_t *s = new_server(false);
  tu_capture c;
  tu_capture_init(&c);
  open_listen(s, &c, "1", "{\"toolsListChanged\":true}");
  assert_int_equal(mcp__listen_count(s), 1);
  mcp__server_channel_gone(s, &c);
  assert_int_equal(mcp__listen_count(s), 0);
  assert_int_equal(count(&c), 1); /* the ack only: no response */
  assert_int_equal(c.finals, 0);
  assert_int_equal(c.done_calls, 1); /* the exchange ended */
  add_tool(s, "later");              /* nothing is sent to a gone client */
  assert_int_equal(count(&c), 1);
  tu_capture_destroy(&c);
  mcp_server_free(s);
}

static void test_cancel_by_notification(void **state) {
  (void)state;
  mcp_server_t *s = new_server(false);
  tu_capture a, other;
  tu_capture_init(&a);
  tu_capture_init(&other);
  open_listen(s, &a, "41", "{\"toolsListChanged\":true}");
  open_listen(s, &a, "42", "{\"toolsListChanged\":true}");
  /* notifications/cancelled names one stream of this channel. */
  const char *cancel = "{\"jsonrpc\":\"2.0\",\"method\":"
                       "\"notifications/cancelled\",\"params\":{"
                       "\"requestId\":41}}";
  assert_int_equal(tu_send(s, NULL, &other, cancel), MCP__ACCEPT_HANDLED);
  assert_int_equal(mcp__listen_count(s), 2); /* another channel: no effect */
  assert_int_equal(tu_send(s, NULL, &a, cancel), MCP__ACCEPT_HANDLED);
  assert_int_equal(mcp__listen_count(s), 1);
  assert_int_equal(a.finals, 0);
  add_tool(s, "second");
  json_t *last = message(&a, count(&a) - 1);
  assert_int_equal(json_integer_value(subscription_id(last)), 42);
  json_decref(last);
  mcp__server_end_streams(s, NULL);
  tu_capture_destroy(&a);
  tu_capture_destroy(&other);
  mcp_server_free(s);
}

static void test_server_end_sends_result(void **state) {
  (void)state;
  mcp_server_t *s = new_server(false);
  tu_capture c;
  tu_capture_init(&c);
  open_listen(s, &c, "\"end-me\"", "{}");
  mcp__server_end_streams(s, NULL);
  assert_int_equal(mcp__listen_count(s), 0);
  assert_int_equal(c.finals, 1);
  json_t *res = message(&c, count(&c) - 1);
  assert_string_equal(json_string_value(json_object_get(res, "id")), "end-me");
  json_t *result = json_object_get(res, "result");
  assert_string_equal(json_string_value(json_object_get(result, "resultType")),
                      "complete");
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(result, "_meta"),
                          "io.modelcontextprotocol/subscriptionId")),
                      "end-me");
  json_decref(res);
  tu_capture_destroy(&c);
  mcp_server_free(s);
}

static void test_bad_filters(void **state) {
  (void)state;
  mcp_server_t *s = new_server(true);
  const char *bad[] = {
      NULL, /* no notifications at all */
      "[]",
      "{\"toolsListChanged\":\"yes\"}",
      "{\"resourceSubscriptions\":\"file:///docs\"}",
      "{\"resourceSubscriptions\":[1]}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char params[256];
    if (bad[i])
      snprintf(params, sizeof params, "{\"notifications\":%s}", bad[i]);
    else
      snprintf(params, sizeof params, "{}");
    json_t *r = tu_modern_request(s, "subscriptions/listen", params, NULL);
    assert_int_equal(tu_error_code(r), -32602);
    json_decref(r);
  }
  assert_int_equal(mcp__listen_count(s), 0);
  /* The old era has no subscriptions/listen. */
  mcp_session_t *se = tu_session(s, NULL);
  tu_initialize(s, se, NULL);
  json_t *r =
      tu_request(s, se, "subscriptions/listen", "{\"notifications\":{}}");
  assert_int_equal(tu_error_code(r), -32601);
  json_decref(r);
  mcp__session_close(se);
  mcp__session_release(se);
  mcp_server_free(s);
}

static void test_many_streams_each_get_one(void **state) {
  (void)state;
  mcp_server_t *s = new_server(false);
  enum { N = 500 };
  tu_capture *c = calloc(N, sizeof *c);
  assert_non_null(c);
  for (int i = 0; i < N; i++) {
    tu_capture_init(&c[i]);
    char id[16];
    snprintf(id, sizeof id, "%d", i);
    open_listen(s, &c[i], id, "{\"toolsListChanged\":true}");
  }
  assert_int_equal(mcp__listen_count(s), N);
  add_tool(s, "second");
  for (int i = 0; i < N; i++) {
    assert_int_equal(count(&c[i]), 2);
    json_t *n = message(&c[i], 1);
    assert_int_equal(json_integer_value(subscription_id(n)), i);
    json_decref(n);
  }
  /* Half the clients leave; the rest still hear. */
  for (int i = 0; i < N; i += 2)
    mcp__server_channel_gone(s, &c[i]);
  assert_int_equal(mcp__listen_count(s), N / 2);
  add_tool(s, "third");
  for (int i = 0; i < N; i++)
    assert_int_equal(count(&c[i]), i % 2 ? 3 : 2);
  mcp_server_free(s); /* ends the rest with their result */
  for (int i = 0; i < N; i++) {
    assert_int_equal(c[i].done_calls, 1);
    assert_int_equal(c[i].finals, i % 2);
    tu_capture_destroy(&c[i]);
  }
  free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ack_first_with_honoured_filter),
      cmocka_unit_test(test_notifications_tagged_and_filtered),
      cmocka_unit_test(test_client_leaves_silently),
      cmocka_unit_test(test_cancel_by_notification),
      cmocka_unit_test(test_server_end_sends_result),
      cmocka_unit_test(test_bad_filters),
      cmocka_unit_test(test_many_streams_each_get_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
