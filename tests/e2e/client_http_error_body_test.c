/* SPDX-License-Identifier: MIT */
/* client_http_error_body_test.c - libmcp-client over HTTP reads a 4xx
 * answer's JSON-RPC error as tolerantly as a 2xx answer: a body without
 * "jsonrpc": "2.0", with or without the request's id, reaches the waiting
 * request, whose caller sees the server's code and message (MCP_ERR_PEER)
 * instead of an HTTP error. A body naming another request's id, or an
 * id-less one of a 403, stays an HTTP error. The server is a raw one-thread
 * HTTP peer on 127.0.0.1 (mini_as.h) that speaks just enough 2025-11-25 for the
 * client to connect and answers tools/call per the tool's name. */
#include "testutil.h"

#include "mcp/client.h"
#include "mini_as.h"

#define QUOTA "Quota exceeded for tool calls"

/* The id of the request in body (its text), or -1. */
static long request_id(const char *body) {
  json_error_t je;
  json_t *msg = json_loads(body, 0, &je);
  json_t *id = json_object_get(msg, "id");
  long n = json_is_integer(id) ? (long)json_integer_value(id) : -1;
  json_decref(msg);
  return n;
}

static bool is_call(const char *body, const char *tool) {
  json_error_t je;
  json_t *msg = json_loads(body, 0, &je);
  const char *m = json_string_value(json_object_get(msg, "method"));
  const char *name = json_string_value(
      json_object_get(json_object_get(msg, "params"), "name"));
  bool yes =
      m && name && strcmp(m, "tools/call") == 0 && strcmp(name, tool) == 0;
  json_decref(msg);
  return yes;
}

static char *serve(mini_as *as, const char *method, const char *path,
                   const char *body, int *status) {
  (void)as, (void)path;
  if (strcmp(method, "POST") != 0) { /* no standalone stream, no DELETE */
    *status = 405;
    return strdup("");
  }
  long id = request_id(body);
  char out[512];
  if (strstr(body, "\"initialize\"") != NULL) {
    snprintf(out, sizeof out,
             "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{\"protocolVersion\":"
             "\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":"
             "{\"name\":\"sloppy\",\"version\":\"1\"}}}",
             id);
  } else if (id < 0) { /* notifications/initialized */
    *status = 202;
    return strdup("");
  } else if (is_call(body, "no_id")) { /* no "jsonrpc", no id */
    *status = 400;
    snprintf(out, sizeof out,
             "{\"error\":{\"code\":-32600,\"message\":\"" QUOTA "\"}}");
  } else if (is_call(body, "sloppy_id")) { /* its id, no "jsonrpc" */
    *status = 429;
    snprintf(out, sizeof out,
             "{\"id\":%ld,\"error\":{\"code\":-32000,\"message\":\"" QUOTA
             "\"}}",
             id);
  } else if (is_call(body, "forbidden")) { /* the status speaks */
    *status = 403;
    snprintf(out, sizeof out,
             "{\"error\":{\"code\":-32600,\"message\":\"" QUOTA "\"}}");
  } else if (is_call(body, "other_id")) { /* another request's error */
    *status = 400;
    snprintf(out, sizeof out,
             "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"error\":{\"code\":-32600,"
             "\"message\":\"" QUOTA "\"}}",
             id + 1000);
  } else {
    *status = 400;
    snprintf(out, sizeof out, "{\"unexpected\":true}");
  }
  return strdup(out);
}

static mcp_status call(mcp_client_t *c, const char *tool, mcp_error_t *err) {
  json_t *result = NULL;
  memset(err, 0, sizeof *err);
  mcp_status st = mcp_client_call_tool(c, tool, NULL, NULL, NULL, &result, err);
  json_decref(result);
  return st;
}

/* Fails without the fix: the strict decoder refused both bodies, and the
 * calls failed with MCP_ERR_IO "POST: HTTP 400: {...}". */
static void test_sloppy_4xx_error_reaches_the_call(void **state) {
  (void)state;
  mini_as as;
  mini_as_start(&as, serve, NULL);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", as.port);
  mcp_client_options_t *o = NULL;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_url(o, url), MCP_OK);
  assert_int_equal(mcp_client_options_set_protocol_version(o, "2025-11-25"),
                   MCP_OK);
  assert_int_equal(mcp_client_options_set_timeout_ms(o, 20000), MCP_OK);
  mcp_client_t *c = NULL;
  mcp_error_t err;
  mcp_status st = mcp_client_connect(o, &c, &err);
  mcp_client_options_free(o);
  if (st != MCP_OK)
    fprintf(stderr, "connect: %s\n", err.message);
  assert_int_equal(st, MCP_OK);

  assert_int_equal(call(c, "no_id", &err), MCP_ERR_PEER);
  assert_string_equal(err.message, QUOTA);
  assert_int_equal(err.rpc_code, -32600);

  assert_int_equal(call(c, "sloppy_id", &err), MCP_ERR_PEER);
  assert_string_equal(err.message, QUOTA);
  assert_int_equal(err.rpc_code, -32000);

  /* a 403 without this request's id is about credentials: an HTTP error,
   * as before */
  assert_int_equal(call(c, "forbidden", &err), MCP_ERR_IO);
  assert_non_null(strstr(err.message, "HTTP 403"));

  /* not this request's answer: an HTTP error, as before */
  assert_int_equal(call(c, "other_id", &err), MCP_ERR_IO);
  assert_non_null(strstr(err.message, "HTTP 400"));

  mcp_client_close(c);
  mini_as_stop(&as);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sloppy_4xx_error_reaches_the_call),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
