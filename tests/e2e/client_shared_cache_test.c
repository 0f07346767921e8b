/* SPDX-License-Identifier: MIT */
/* client_shared_cache_test.c - a cache shared by several libmcp-client
 * handles (mcp_client_cache_t) against a libmcp HTTP server in 2026-07-28:
 * a "public" result one client got answers another client's identical
 * request without a round trip; "private" results are never shared; the
 * key includes the server (another endpoint is asked again) and the
 * params; ttlMs ends an entry; clients without the cache ask the server;
 * the size bound holds. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mcp/client.h"
#include "mcp/http.h"
#include "mcp/resource.h"
#include "mcp/server.h"
#include "mcp/tool.h"
#include "testutil.h"

static atomic_int reads_public, reads_private, reads_brief;

static mcp_status on_read(mcp_call_t *call, const char *uri, json_t *vars,
                          mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars;
  atomic_fetch_add((atomic_int *)ud, 1);
  return mcp_read_result_add_text(out, NULL, uri, "text/plain");
}

static mcp_status on_echo(mcp_call_t *call, json_t *args, mcp_result_t *r,
                          void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_result_add_text(r, "echo") ? MCP_OK : MCP_ERR_NOMEM;
}

static void add_resource(mcp_server_t *s, const char *uri, int64_t ttl,
                         mcp_cache_scope scope, atomic_int *counter) {
  mcp_resource_t *r = NULL;
  assert_int_equal(mcp_resource_new(uri, uri, &r), MCP_OK);
  assert_int_equal(mcp_resource_set_cache_hint(r, ttl, scope), MCP_OK);
  assert_int_equal(mcp_resource_set_handler(r, on_read, counter, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_resource(s, r), MCP_OK);
}

typedef struct fixture {
  mcp_server_t *server;
  mcp_http_server_t *http[2];
  char url[2][96];
} fixture;

static void fixture_start(fixture *f) {
  memset(f, 0, sizeof *f);
  assert_int_equal(mcp_server_new("cache-test", "1.0.0", &f->server), MCP_OK);
  assert_int_equal(mcp_server_set_cache_hint(f->server, MCP_CACHE_TOOLS_LIST,
                                             60000, MCP_CACHE_PUBLIC),
                   MCP_OK);
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new("echo", &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, on_echo, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_tool(f->server, t, NULL), MCP_OK);
  add_resource(f->server, "test://public", 60000, MCP_CACHE_PUBLIC,
               &reads_public);
  add_resource(f->server, "test://private", 60000, MCP_CACHE_PRIVATE,
               &reads_private);
  add_resource(f->server, "test://brief", 100, MCP_CACHE_PUBLIC, &reads_brief);
  /* one server on two endpoints: two server identities for the cache */
  for (int i = 0; i < 2; i++) {
    mcp_http_options_t *o = NULL;
    mcp_error_t err;
    assert_int_equal(mcp_http_options_new(&o), MCP_OK);
    assert_int_equal(mcp_http_options_set_bind(o, "127.0.0.1", 0), MCP_OK);
    assert_int_equal(mcp_http_server_start(f->server, o, &f->http[i], &err),
                     MCP_OK);
    mcp_http_options_free(o);
    snprintf(f->url[i], sizeof f->url[i], "http://127.0.0.1:%u/mcp",
             (unsigned)mcp_http_server_port(f->http[i]));
  }
}

static void fixture_stop(fixture *f) {
  for (int i = 0; i < 2; i++)
    mcp_http_server_stop(f->http[i]);
  mcp_server_free(f->server);
}

/* Requests a client sent, by method. */
typedef struct sent {
  int reads, lists;
} sent;

static void observe(mcp_client_t *c, bool incoming, json_t *msg, void *ud) {
  (void)c;
  sent *n = ud;
  const char *m = json_string_value(json_object_get(msg, "method"));
  if (incoming || m == NULL)
    return;
  if (strcmp(m, "resources/read") == 0)
    n->reads++;
  else if (strcmp(m, "tools/list") == 0)
    n->lists++;
}

static mcp_client_t *connect_to(const char *url, mcp_client_cache_t *cache,
                                sent *n) {
  mcp_client_options_t *o = NULL;
  mcp_client_t *c = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_url(o, url), MCP_OK);
  assert_int_equal(mcp_client_options_set_shared_cache(o, cache), MCP_OK);
  assert_int_equal(mcp_client_options_set_observer(o, observe, n), MCP_OK);
  assert_int_equal(mcp_client_connect(o, &c, &err), MCP_OK);
  mcp_client_options_free(o);
  assert_string_equal(mcp_client_protocol_version(c), "2026-07-28");
  return c;
}

static void read_ok(mcp_client_t *c, const char *uri) {
  json_t *r = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_read_resource(c, uri, &r, &err), MCP_OK);
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(r, "contents"), 0), "text")),
      uri);
  json_decref(r);
}

static void test_public_shared_private_not(void **state) {
  (void)state;
  fixture f;
  fixture_start(&f);
  mcp_client_cache_t *cache = NULL;
  assert_int_equal(mcp_client_cache_new(0, &cache), MCP_OK);
  sent na = {0}, nb = {0}, nc = {0}, nd = {0};
  mcp_client_t *a = connect_to(f.url[0], cache, &na);
  mcp_client_t *b = connect_to(f.url[0], cache, &nb);

  /* public: b gets a's result without asking */
  read_ok(a, "test://public");
  read_ok(b, "test://public");
  assert_int_equal(na.reads, 1);
  assert_int_equal(nb.reads, 0);
  assert_int_equal(atomic_load(&reads_public), 1);

  /* private: each client asks itself, and a's own cache still answers a */
  read_ok(a, "test://private");
  read_ok(b, "test://private");
  read_ok(a, "test://private");
  assert_int_equal(na.reads, 2);
  assert_int_equal(nb.reads, 1);
  assert_int_equal(atomic_load(&reads_private), 2);

  /* tools/list (public by the server's hint) is shared as well */
  json_t *ta = NULL, *tb = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_list_tools(a, &ta, &err), MCP_OK);
  assert_int_equal(mcp_client_list_tools(b, &tb, &err), MCP_OK);
  assert_true(json_equal(ta, tb));
  assert_int_equal(na.lists, 1);
  assert_int_equal(nb.lists, 0);
  json_decref(ta);
  json_decref(tb);

  /* another endpoint is another server: asked again */
  mcp_client_t *c = connect_to(f.url[1], cache, &nc);
  read_ok(c, "test://public");
  assert_int_equal(nc.reads, 1);
  assert_int_equal(atomic_load(&reads_public), 2);

  /* a client without the shared cache asks */
  mcp_client_t *d = connect_to(f.url[0], NULL, &nd);
  read_ok(d, "test://public");
  assert_int_equal(nd.reads, 1);
  assert_int_equal(atomic_load(&reads_public), 3);

  /* 2 public reads (two servers) and one tools/list: private never entered */
  assert_int_equal(mcp_client_cache_size(cache), 3);

  /* ttlMs: once 100 ms are over the entry is gone and b asks */
  read_ok(a, "test://brief");
  assert_int_equal(atomic_load(&reads_brief), 1);
  struct timespec ts = {0, 250 * 1000000L};
  nanosleep(&ts, NULL);
  read_ok(b, "test://brief");
  assert_int_equal(atomic_load(&reads_brief), 2);
  assert_int_equal(nb.reads, 2);

  mcp_client_close(a);
  mcp_client_close(b);
  mcp_client_close(c);
  mcp_client_close(d);
  mcp_client_cache_free(cache);
  fixture_stop(&f);
}

/* The bound: a cache of 2 never holds more than 2 entries. */
static void test_bound(void **state) {
  (void)state;
  fixture f;
  fixture_start(&f);
  mcp_client_cache_t *cache = NULL;
  assert_int_equal(mcp_client_cache_new(2, &cache), MCP_OK);
  sent n = {0};
  mcp_client_t *a = connect_to(f.url[0], cache, &n);
  mcp_client_t *b = connect_to(f.url[1], cache, &n);
  read_ok(a, "test://public");
  read_ok(b, "test://public");
  assert_int_equal(mcp_client_cache_size(cache), 2);
  json_t *t = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_client_list_tools(a, &t, &err), MCP_OK);
  json_decref(t);
  assert_true(mcp_client_cache_size(cache) <= 2);
  assert_true(mcp_client_cache_size(cache) >= 1);
  mcp_client_close(a);
  mcp_client_close(b);
  mcp_client_cache_free(cache);
  fixture_stop(&f);
  assert_int_equal(mcp_client_cache_new(0, NULL), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_client_cache_size(NULL), 0);
  mcp_client_cache_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_public_shared_private_not),
      cmocka_unit_test(test_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
