/* SPDX-License-Identifier: MIT */
/* http_cors_test.c - CORS of the Streamable HTTP transport, as a browser
 * speaks it (raw requests): off by default, preflight OPTIONS, the
 * Access-Control-* headers of answers, the allow-list composed with the
 * DNS-rebinding Origin/Host checks, "*" and credentials; and the pure
 * Access-Control-Allow-Headers builder. */
/* the shared fixture has helpers this test does not need */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"

#include "transport/http_cors.h"

#define UI "http://localhost:6274"

static mcp_status tool_add(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)call, (void)ud;
  int64_t a = 0, b = 0;
  mcp_arg_integer(args, "a", &a);
  mcp_arg_integer(args, "b", &b);
  mcp_result_add_textf(r, "%lld", (long long)(a + b));
  return MCP_OK;
}

static void start_with(fixture *f, mcp_http_options_t *o) {
  fixture_new_server(f, "cors-test");
  add_tool(f->server, "add", tool_add, MCP_TASK_FORBIDDEN);
  fixture_serve(f, o);
}

/* One request; returns the status with the head in *c (closed). */
static int head_of(int port, const char *method, const char *extra,
                   const char *body, tc_conn *c) {
  assert_true(tc_open(c, port, method, "/mcp", extra, body, 5000));
  int status = c->status;
  close(c->fd);
  c->fd = -1;
  free(c->buf);
  c->buf = NULL;
  free(c->body);
  c->body = NULL;
  return status;
}

static void test_off_by_default(void **state) {
  (void)state;
  fixture f;
  start_with(&f, base_options());
  tc_conn c;
  char v[512];
  /* preflight from another origin: the Origin check refuses it (403); from
   * the server's own origin OPTIONS is just not a method (405); no CORS
   * headers either way */
  assert_int_equal(head_of(f.port, "OPTIONS",
                           "Origin: " UI "\r\n"
                           "Access-Control-Request-Method: POST\r\n",
                           NULL, &c),
                   403);
  assert_null(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v));
  char own[256];
  snprintf(own, sizeof own,
           "Origin: http://localhost:%d\r\n"
           "Access-Control-Request-Method: POST\r\n",
           f.port);
  assert_int_equal(head_of(f.port, "OPTIONS", own, NULL, &c), 405);
  assert_null(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v));
  /* a loopback server's own origin passes, still without CORS headers */
  char hdr[256];
  snprintf(hdr, sizeof hdr, ACCEPT "Origin: http://localhost:%d\r\n", f.port);
  assert_int_equal(head_of(f.port, "POST", hdr, INIT, &c), 200);
  assert_null(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v));
  assert_null(tc_header(&c, "Access-Control-Expose-Headers", v, sizeof v));
  /* another origin: the DNS-rebinding check refuses it */
  assert_int_equal(
      head_of(f.port, "POST", ACCEPT "Origin: " UI "\r\n", INIT, &c), 403);
  fixture_stop(&f);
}

static void test_allow_list_preflight_and_answers(void **state) {
  (void)state;
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_add_cors_origin(o, UI), MCP_OK);
  fixture f;
  start_with(&f, o);
  tc_conn c;
  char v[512];

  /* preflight of a listed origin */
  assert_int_equal(
      head_of(f.port, "OPTIONS",
              "Origin: " UI "\r\n"
              "Access-Control-Request-Method: POST\r\n"
              "Access-Control-Request-Headers: content-type, mcp-session-id, "
              "mcp-protocol-version, mcp-method, mcp-name, "
              "mcp-param-region, x-evil\r\n",
              NULL, &c),
      204);
  assert_string_equal(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v),
                      UI);
  assert_string_equal(
      tc_header(&c, "Access-Control-Allow-Methods", v, sizeof v),
      "GET, POST, DELETE, OPTIONS");
  tc_header(&c, "Access-Control-Allow-Headers", v, sizeof v);
  const char *need[] = {
      "Content-Type",  "Mcp-Session-Id",  "MCP-Protocol-Version",
      "Mcp-Method",    "Mcp-Name",        "Authorization",
      "Last-Event-ID", "mcp-param-region"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    assert_non_null(strstr(v, need[i]));
  assert_null(strcasestr(v, "x-evil"));
  assert_non_null(tc_header(&c, "Access-Control-Max-Age", v, sizeof v));
  assert_null(tc_header(&c, "Access-Control-Allow-Credentials", v, sizeof v));

  /* preflight of another origin: refused */
  assert_int_equal(head_of(f.port, "OPTIONS",
                           "Origin: http://evil.example\r\n"
                           "Access-Control-Request-Method: POST\r\n",
                           NULL, &c),
                   403);
  assert_null(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v));

  /* the actual request: allowed origin passes the Origin check too, and
   * the script may read the session id */
  char sid[64], *body = NULL;
  assert_int_equal(
      head_of(f.port, "POST", ACCEPT "Origin: " UI "\r\n", INIT, &c), 200);
  assert_string_equal(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v),
                      UI);
  assert_non_null(tc_header(&c, "Vary", v, sizeof v));
  tc_header(&c, "Access-Control-Expose-Headers", v, sizeof v);
  assert_non_null(strstr(v, "Mcp-Session-Id"));
  assert_non_null(strstr(v, "MCP-Protocol-Version"));
  assert_non_null(tc_header(&c, "Mcp-Session-Id", sid, sizeof sid));

  /* a whole session from that origin: tools/call answers 15 */
  char hdr[512];
  snprintf(hdr, sizeof hdr,
           ACCEPT "Origin: " UI "\r\nMcp-Session-Id: %s\r\n"
                  "MCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  assert_int_equal(tc_do(f.port, "POST", hdr, INITIALIZED, NULL, NULL), 202);
  assert_int_equal(
      tc_do(
          f.port, "POST", hdr,
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
          "{\"name\":\"add\",\"arguments\":{\"a\":10,\"b\":5}}}",
          &body, NULL),
      200);
  assert_non_null(strstr(body, "\"text\":\"15\""));
  free(body);
  /* error answers carry the headers too (the script can read them) */
  assert_int_equal(head_of(f.port, "POST",
                           "Accept: application/json\r\n"
                           "Origin: " UI "\r\n",
                           INIT, &c),
                   406);
  assert_string_equal(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v),
                      UI);
  /* another origin is still refused, the Host check still applies */
  assert_int_equal(head_of(f.port, "POST",
                           ACCEPT "Origin: http://evil.example\r\n", INIT, &c),
                   403);
  memset(&c, 0, sizeof c);
  c.fd = tc_connect(f.port);
  assert_true(tc_write_request(c.fd, "evil.example:80", "POST", "/mcp",
                               ACCEPT "Origin: " UI "\r\n", INIT));
  assert_true(tc_read_head(&c, 5000));
  assert_int_equal(c.status, 403);
  tc_close(&c);
  fixture_stop(&f);
}

static void test_star_and_credentials(void **state) {
  (void)state;
  /* validation (on options of their own: a refusal stays in the options
   * and mcp_http_server_start refuses them, setter_errors_test) */
  mcp_http_options_t *bad = base_options();
  assert_int_equal(mcp_http_options_add_cors_origin(bad, "localhost:1"),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_add_cors_origin(bad, "http://a.example/x"),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_add_cors_origin(bad, ""),
                   MCP_ERR_INVALID_ARG);
  mcp_http_options_free(bad);
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_add_cors_origin(o, "*"), MCP_OK);
  bad = base_options();
  assert_int_equal(mcp_http_options_add_cors_origin(bad, "*"), MCP_OK);
  assert_int_equal(mcp_http_options_set_cors_credentials(bad, true),
                   MCP_ERR_INVALID_ARG);
  mcp_http_options_free(bad);
  bad = base_options();
  assert_int_equal(mcp_http_options_set_cors_credentials(bad, true), MCP_OK);
  assert_int_equal(mcp_http_options_add_cors_origin(bad, "*"),
                   MCP_ERR_INVALID_ARG);
  mcp_http_options_free(bad);
  mcp_http_options_t *o2 = base_options();
  assert_int_equal(mcp_http_options_set_cors_credentials(o2, true), MCP_OK);
  assert_int_equal(mcp_http_options_add_cors_origin(o2, UI), MCP_OK);

  /* "*": any origin, answered with "*" */
  fixture f;
  start_with(&f, o);
  tc_conn c;
  char v[512];
  assert_int_equal(head_of(f.port, "POST",
                           ACCEPT "Origin: https://app.example\r\n", INIT, &c),
                   200);
  assert_string_equal(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v),
                      "*");
  fixture_stop(&f);

  /* credentials: the origin echoed, Allow-Credentials: true */
  start_with(&f, o2);
  assert_int_equal(head_of(f.port, "OPTIONS",
                           "Origin: " UI "\r\n"
                           "Access-Control-Request-Method: POST\r\n",
                           NULL, &c),
                   204);
  assert_string_equal(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v),
                      UI);
  assert_string_equal(
      tc_header(&c, "Access-Control-Allow-Credentials", v, sizeof v), "true");
  fixture_stop(&f);
}

static void test_allow_headers_builder(void **state) {
  (void)state;
  char out[512];
  assert_true(mcp__cors_allow_headers(NULL, out, sizeof out));
  assert_non_null(strstr(out, "Mcp-Session-Id"));
  assert_null(strstr(out, "param"));
  assert_true(mcp__cors_allow_headers(
      " Mcp-Param-A ,x-other,,mcp-param-,Mcp-Param-B\tc, mcp-param-ok_2", out,
      sizeof out));
  assert_non_null(strstr(out, ", Mcp-Param-A"));
  assert_non_null(strstr(out, ", mcp-param-ok_2"));
  assert_null(strstr(out, "x-other"));
  assert_null(strstr(out, "Param-B")); /* not a token */
  assert_null(strstr(out, "mcp-param-,"));
  /* too small */
  char tiny[16];
  assert_false(mcp__cors_allow_headers(NULL, tiny, sizeof tiny));
  char big[4096];
  memset(big, 0, sizeof big);
  for (int i = 0; i < 200; i++)
    strcat(big, "mcp-param-xxxxxxxx,");
  assert_false(mcp__cors_allow_headers(big, out, sizeof out));
  assert_true(strlen(out) < sizeof out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_off_by_default),
      cmocka_unit_test(test_allow_list_preflight_and_answers),
      cmocka_unit_test(test_star_and_credentials),
      cmocka_unit_test(test_allow_headers_builder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
