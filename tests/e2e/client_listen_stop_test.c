/* SPDX-License-Identifier: MIT */
/* client_listen_stop_test.c - a mcp_client_listen_stop made before a listen
 * has begun is not lost: mcp_client_listen_at, given the generation read
 * before the stop, returns MCP_OK at once without sending anything, in both
 * eras (the conformance server over stdio). A listen that starts after a
 * stop, from the generation of its own start, still runs (the contract of
 * mcp_client_listen is unchanged).
 *
 * The observer counts the requests a listen sends (subscriptions/listen,
 * resources/subscribe) and stops the listen when it sees one, so a listen
 * that wrongly runs ends too: the test fails on the count instead of
 * hanging. */
#include "testutil.h"

#include <string.h>

#include "mcp/client.h"

static char conf_bin[1024];

typedef struct seen {
  int listens; /* subscriptions/listen and resources/subscribe sent */
} seen;

static void observe(mcp_client_t *c, bool incoming, json_t *msg, void *ud) {
  seen *s = ud;
  const char *m = json_string_value(json_object_get(msg, "method"));
  if (incoming || m == NULL)
    return;
  if (strcmp(m, "subscriptions/listen") == 0 ||
      strcmp(m, "resources/subscribe") == 0) {
    __atomic_add_fetch(&s->listens, 1, __ATOMIC_SEQ_CST);
    mcp_client_listen_stop(c); /* registered by now: this ends it */
  }
}

static mcp_client_t *connect_era(const char *protocol, seen *s) {
  const char *argv[] = {conf_bin, "--stdio", NULL};
  mcp_client_options_t *o = NULL;
  mcp_client_t *c = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_command(o, argv), MCP_OK);
  assert_int_equal(mcp_client_options_set_protocol_version(o, protocol),
                   MCP_OK);
  assert_int_equal(mcp_client_options_set_timeout_ms(o, 20000), MCP_OK);
  assert_int_equal(mcp_client_options_set_observer(o, observe, s), MCP_OK);
  mcp_status st = mcp_client_connect(o, &c, &err);
  mcp_client_options_free(o);
  if (st != MCP_OK)
    fprintf(stderr, "connect: %s\n", err.message);
  assert_int_equal(st, MCP_OK);
  assert_string_equal(mcp_client_protocol_version(c), protocol);
  return c;
}

static void stop_before_listen(const char *protocol) {
  seen s = {0};
  mcp_client_t *c = connect_era(protocol, &s);
  json_t *filter = json_pack("{s:b,s:[s]}", "toolsListChanged", 1,
                             "resourceSubscriptions", "test://static-text");
  /* as a program that starts a listening thread does: the generation is
   * read before the thread starts, and the stop comes before the thread
   * has begun its listen */
  uint64_t gen = mcp_client_listen_generation(c);
  mcp_client_listen_stop(c);
  assert_int_not_equal(mcp_client_listen_generation(c), gen);
  mcp_error_t err = {0};
  assert_int_equal(mcp_client_listen_at(c, gen, filter, &err), MCP_OK);
  assert_int_equal(__atomic_load_n(&s.listens, __ATOMIC_SEQ_CST), 0);

  /* a listen begun after the stop, from its own generation, runs: it
   * sends its request (the observer then stops it) */
  if (strcmp(protocol, "2026-07-28") == 0) {
    gen = mcp_client_listen_generation(c);
    assert_int_equal(mcp_client_listen_at(c, gen, filter, &err), MCP_OK);
    assert_int_equal(__atomic_load_n(&s.listens, __ATOMIC_SEQ_CST), 1);
    assert_int_equal(mcp_client_listen(c, filter, &err), MCP_OK);
    assert_int_equal(__atomic_load_n(&s.listens, __ATOMIC_SEQ_CST), 2);
  }
  json_decref(filter);
  mcp_client_close(c);
}

static void test_stop_before_listen_modern(void **state) {
  (void)state;
  stop_before_listen("2026-07-28");
}

static void test_stop_before_listen_legacy(void **state) {
  (void)state;
  stop_before_listen("2025-11-25");
}

int main(void) {
  snprintf(conf_bin, sizeof conf_bin, "%s/mcp-conformance-server", MCP_BIN_DIR);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stop_before_listen_modern),
      cmocka_unit_test(test_stop_before_listen_legacy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
