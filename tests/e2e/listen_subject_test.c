/* SPDX-License-Identifier: MIT */
/* listen_subject_test.c - notification streams bound to their caller, over
 * Streamable HTTP with a resource server (tokens signed here): two
 * subjects, alice (scope crm:read) and bob (no scope), on a server whose
 * rule says reading db://secret needs crm:read.
 *
 * - subscriptions/listen (2026-07-28): both subscribe to db:// and name
 *   alice's task; alice's stream gets the update of db://secret and her
 *   task's notifications/tasks, bob's gets neither (db://open, which he may
 *   read, reaches both).
 * - the GET stream of a 2025-11-25 session subscribed to db:// with
 *   resources/subscribe: the same for resource updates.
 *
 * No timing: what bob must not get is published before something he must
 * get, and each stream keeps the order of what was sent to it. */
#include <stdatomic.h>
#include <unistd.h>

#include "auth_keys.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#pragma GCC diagnostic pop
#include "core/feature.h"
#include "core/listen.h"
#include "mcp/auth.h"

#define ISS      "https://issuer.example.test"
#define RESOURCE "https://mcp.example.test/mcp"
#define EXT      "io.modelcontextprotocol/tasks"
#define CAPS     "{\"extensions\":{\"" EXT "\":{}}}"
#define META                                                                   \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":" CAPS "}"

static EVP_PKEY *key;
static char dir[64], jwks_path[128];
static atomic_int gate;

static mcp_status tool_wait(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)args, (void)ud;
  for (int i = 0;
       i < 4000 && !atomic_load(&gate) && !mcp_call_is_cancelled(call); i++)
    sleep_ms(5);
  mcp_result_add_text(r, "waited");
  return MCP_OK;
}

static mcp_status read_res(mcp_call_t *call, const char *uri, json_t *vars,
                           mcp_read_result_t *out, void *ud) {
  (void)call, (void)uri, (void)vars, (void)out, (void)ud;
  return MCP_OK;
}

static void add_resource(mcp_server_t *s, const char *uri) {
  mcp_resource_t *r = NULL;
  assert_int_equal(mcp_resource_new(uri, uri, &r), MCP_OK);
  assert_int_equal(mcp_resource_set_handler(r, read_res, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_OK);
}

/* The server of every test here, serving with auth a (borrowed). */
static void start(fixture *f, mcp_auth_t *a) {
  atomic_store(&gate, 0);
  fixture_new_server(f, "listen-subject-test");
  add_tool(f->server, "wait", tool_wait, MCP_TASK_OPTIONAL);
  add_resource(f->server, "db://secret");
  add_resource(f->server, "db://open");
  assert_int_equal(mcp_server_set_resources_subscribe(f->server, true), MCP_OK);
  assert_int_equal(mcp_store_memory_new(&f->store), MCP_OK);
  mcp_task_options_t *to = NULL;
  assert_int_equal(mcp_task_options_new(&to), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(f->server, f->store, to, NULL),
                   MCP_OK);
  mcp_task_options_free(to);
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_auth(o, a), MCP_OK);
  fixture_serve(f, o);
}

static mcp_auth_t *new_auth(void) {
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(a, ISS), MCP_OK);
  assert_int_equal(mcp_auth_set_jwks_file(a, jwks_path), MCP_OK);
  assert_int_equal(
      mcp_auth_require_scopes(a, "resources/read", "db://secret", "crm:read"),
      MCP_OK);
  return a;
}

/* "Authorization: Bearer <token for sub with scope>\r\n" + more. */
static void auth_hdr(char *out, size_t n, const char *sub, const char *scope,
                     const char *more) {
  char *t = tk_token(key, "ES256", "ec", tk_claims(ISS, RESOURCE, sub, scope));
  snprintf(out, n, "Authorization: Bearer %s\r\n%s", t, more);
  free(t);
}

/* Reads events of c into acc until one contains needle. */
static void events_until(tc_conn *c, mcp__buf *acc, const char *needle) {
  while (acc->data == NULL || strstr(acc->data, needle) == NULL) {
    char *ev = tc_next_event(c, 5000);
    if (ev == NULL)
      fail_msg("no \"%s\"; got: %s", needle, acc->data ? acc->data : "");
    assert_true(mcp__buf_append_str(acc, ev));
    assert_true(mcp__buf_append(acc, "\n", 2));
    acc->len--; /* NUL-terminated */
    free(ev);
  }
}

/* A subscriptions/listen stream as sub, for db:// and task task_id. */
static void open_listen(tc_conn *c, int port, const char *sub,
                        const char *scope, const char *task_id) {
  char hdr[2048], body[1024];
  auth_hdr(hdr, sizeof hdr, sub, scope,
           ACCEPT "MCP-Protocol-Version: 2026-07-28\r\n"
                  "Mcp-Method: subscriptions/listen\r\n");
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":"
           "\"subscriptions/listen\",\"params\":{" META ",\"notifications\":{"
           "\"resourceSubscriptions\":[\"db://\"],\"taskIds\":[\"%s\"]}}}",
           sub, task_id);
  assert_true(tc_open(c, port, "POST", "/mcp", hdr, body, 5000));
  assert_int_equal(c->status, 200);
}

static void wait_for_count(mcp_server_t *s, size_t want) {
  for (int i = 0; i < 500 && mcp__listen_count(s) != want; i++)
    sleep_ms(10);
  assert_int_equal(mcp__listen_count(s), want);
}

static void test_listen_streams(void **state) {
  (void)state;
  mcp_auth_t *a = new_auth();
  fixture f;
  start(&f, a);
  /* alice's task, waiting on the gate */
  char hdr[2048], *body = NULL;
  auth_hdr(hdr, sizeof hdr, "alice", "crm:read",
           ACCEPT "MCP-Protocol-Version: 2026-07-28\r\n"
                  "Mcp-Method: tools/call\r\nMcp-Name: wait\r\n");
  assert_int_equal(
      tc_do(f.port, "POST", hdr,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
            "\"params\":{\"name\":\"wait\",\"arguments\":{}," META "}}",
            &body, NULL),
      200);
  json_t *m = json_loads(body, 0, NULL);
  free(body);
  const char *tid = json_string_value(
      json_object_get(json_object_get(m, "result"), "taskId"));
  assert_non_null(tid);
  char task_id[64];
  snprintf(task_id, sizeof task_id, "%s", tid);
  json_decref(m);

  /* alice's stream first, bob's second: a fan-out serves the newest stream
   * first, so bob's share of a publish is sent before alice's */
  tc_conn ca, cb;
  mcp__buf acc_a, acc_b;
  mcp__buf_init(&acc_a);
  mcp__buf_init(&acc_b);
  open_listen(&ca, f.port, "alice", "crm:read", task_id);
  events_until(&ca, &acc_a, "acknowledged");
  wait_for_count(f.server, 1);
  open_listen(&cb, f.port, "bob", NULL, task_id);
  events_until(&cb, &acc_b, "acknowledged");
  wait_for_count(f.server, 2);
  mcp__buf_reset(&acc_a);
  mcp__buf_reset(&acc_b);

  /* resource updates: the secret one only for alice */
  assert_int_equal(mcp_server_notify_resource_updated(f.server, "db://secret"),
                   MCP_OK);
  assert_int_equal(mcp_server_notify_resource_updated(f.server, "db://open"),
                   MCP_OK);
  events_until(&ca, &acc_a, "db://open");
  assert_non_null(strstr(acc_a.data, "\"uri\":\"db://secret\""));
  events_until(&cb, &acc_b, "db://open");
  if (strstr(acc_b.data, "db://secret"))
    fail_msg("bob saw the secret resource: %s", acc_b.data);

  /* alice's task ends: her stream is told, bob's is not */
  mcp__buf_reset(&acc_a);
  mcp__buf_reset(&acc_b);
  atomic_store(&gate, 1);
  events_until(&ca, &acc_a, "\"completed\"");
  assert_non_null(strstr(acc_a.data, "notifications/tasks"));
  assert_non_null(strstr(acc_a.data, task_id));
  /* something bob may see, published after the task's fan-out */
  assert_int_equal(mcp_server_notify_resource_updated(f.server, "db://open"),
                   MCP_OK);
  events_until(&cb, &acc_b, "db://open");
  if (strstr(acc_b.data, "notifications/tasks") || strstr(acc_b.data, task_id))
    fail_msg("bob saw alice's task: %s", acc_b.data);

  tc_close(&ca);
  tc_close(&cb);
  mcp__buf_free(&acc_a);
  mcp__buf_free(&acc_b);
  fixture_stop(&f);
  mcp_auth_free(a);
}

/* A 2025-11-25 session of sub, subscribed to db://, with its GET stream
 * open (past the priming event). */
static void open_session_stream(tc_conn *g, int port, const char *sub,
                                const char *scope) {
  char hdr[2048], sid[64], *body = NULL;
  auth_hdr(hdr, sizeof hdr, sub, scope, ACCEPT);
  assert_int_equal(tc_do(port, "POST", hdr, INIT, &body, sid), 200);
  free(body);
  char more[256];
  session_hdr(more, sizeof more, sid);
  auth_hdr(hdr, sizeof hdr, sub, scope, more);
  assert_int_equal(tc_do(port, "POST", hdr, INITIALIZED, NULL, NULL), 202);
  body = NULL;
  assert_int_equal(
      tc_do(port, "POST", hdr,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
            "\"params\":{\"uri\":\"db://\"}}",
            &body, NULL),
      200);
  assert_non_null(strstr(body, "\"result\""));
  free(body);
  get_hdr(more, sizeof more, sid);
  auth_hdr(hdr, sizeof hdr, sub, scope, more);
  assert_true(tc_open(g, port, "GET", "/mcp", hdr, NULL, 5000));
  assert_int_equal(g->status, 200);
  char *ev = tc_next_event(g, 5000); /* priming */
  assert_non_null(ev);
  free(ev);
}

static void test_session_streams(void **state) {
  (void)state;
  mcp_auth_t *a = new_auth();
  fixture f;
  start(&f, a);
  tc_conn ga, gb;
  open_session_stream(&ga, f.port, "alice", "crm:read");
  open_session_stream(&gb, f.port, "bob", NULL);
  mcp__buf acc_a, acc_b;
  mcp__buf_init(&acc_a);
  mcp__buf_init(&acc_b);
  assert_int_equal(mcp_server_notify_resource_updated(f.server, "db://secret"),
                   MCP_OK);
  assert_int_equal(mcp_server_notify_resource_updated(f.server, "db://open"),
                   MCP_OK);
  events_until(&ga, &acc_a, "db://open");
  assert_non_null(strstr(acc_a.data, "\"uri\":\"db://secret\""));
  events_until(&gb, &acc_b, "db://open");
  if (strstr(acc_b.data, "db://secret"))
    fail_msg("bob's session saw the secret resource: %s", acc_b.data);
  tc_close(&ga);
  tc_close(&gb);
  mcp__buf_free(&acc_a);
  mcp__buf_free(&acc_b);
  fixture_stop(&f);
  mcp_auth_free(a);
}

static int group_setup(void **state) {
  (void)state;
  key = tk_gen("EC");
  snprintf(dir, sizeof dir, "/tmp/mcp-listen-sub-XXXXXX");
  if (key == NULL || mkdtemp(dir) == NULL)
    return -1;
  snprintf(jwks_path, sizeof jwks_path, "%s/jwks.json", dir);
  tk_write_jwks(jwks_path, json_pack("[o]", tk_jwk(key, "ec", NULL)));
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  EVP_PKEY_free(key);
  unlink(jwks_path);
  rmdir(dir);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_listen_streams),
      cmocka_unit_test(test_session_streams),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
