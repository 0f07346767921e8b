/* SPDX-License-Identifier: MIT */
/* http_fixture.h - what the in-process Streamable HTTP tests share: the
 * requests of a 2025-11-25 client, a server on 127.0.0.1 with an ephemeral
 * port, the session handshake and the headers of its requests, an
 * elicitation from a tool, and reading one field of an SSE event.
 * Header-only like http_client.h (one executable per *_test.c). */
#ifndef MCP_TEST_HTTP_FIXTURE_H
#define MCP_TEST_HTTP_FIXTURE_H

#include <time.h>

#include "testutil.h"

#include "http_client.h"
#include "mcp/http.h"
#include "mcp/mcp.h"

#define ACCEPT "Accept: application/json, text/event-stream\r\n"
#define INIT                                                                   \
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"       \
  "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"  \
  "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define INITIALIZED                                                            \
  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void quiet_log(mcp_log_level l, const char *m, void *ud) {
  (void)l;
  (void)m;
  (void)ud;
}

/* A tool taking any object, with the given task support. */
static void add_tool(mcp_server_t *s, const char *name, mcp_tool_fn fn,
                     mcp_task_support support) {
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  assert_int_equal(mcp_tool_set_input_schema_text(t, "{\"type\":\"object\"}"),
                   MCP_OK);
  assert_int_equal(mcp_tool_set_task_support(t, support), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, fn, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
}

typedef struct fixture {
  mcp_server_t *server;
  mcp_store_t *store; /* NULL unless the test enables tasks */
  mcp_http_server_t *http;
  int port;
} fixture;

/* A silent server named name in a cleared f; tools and options follow. */
static void fixture_new_server(fixture *f, const char *name) {
  memset(f, 0, sizeof *f);
  assert_int_equal(mcp_server_new(name, "1.0", &f->server), MCP_OK);
  mcp_server_set_log_handler(f->server, quiet_log, NULL);
}

/* 127.0.0.1, an ephemeral port, a 2 s shutdown deadline. */
static mcp_http_options_t *base_options(void) {
  mcp_http_options_t *o = NULL;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  assert_int_equal(mcp_http_options_set_bind(o, "127.0.0.1", 0), MCP_OK);
  mcp_http_options_set_shutdown_deadline_ms(o, 2000);
  return o;
}

/* Starts the transport for f->server with o (freed); sets f->port. */
static void fixture_serve(fixture *f, mcp_http_options_t *o) {
  mcp_error_t err;
  if (mcp_http_server_start(f->server, o, &f->http, &err) != MCP_OK)
    fail_msg("start: %s", err.message);
  mcp_http_options_free(o);
  f->port = mcp_http_server_port(f->http);
}

static void fixture_stop(fixture *f) {
  mcp_http_server_stop(f->http);
  mcp_server_free(f->server);
  mcp_store_free(f->store);
}

/* initialize (INIT), whose answer must contain expect, + initialized;
 * returns the session id in sid. */
static void open_session_expecting(int port, const char *expect, char sid[64]) {
  char *body = NULL;
  assert_int_equal(tc_do(port, "POST", ACCEPT, INIT, &body, sid), 200);
  assert_non_null(strstr(body, expect));
  free(body);
  assert_int_equal(strlen(sid), 36);
  char hdr[256];
  snprintf(hdr, sizeof hdr, ACCEPT "Mcp-Session-Id: %s\r\n", sid);
  assert_int_equal(tc_do(port, "POST", hdr, INITIALIZED, NULL, NULL), 202);
}

/* Headers of a POST in session sid (none when sid is NULL or empty). */
static void session_hdr(char *out, size_t n, const char *sid) {
  if (sid && sid[0])
    snprintf(out, n,
             ACCEPT
             "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n",
             sid);
  else
    snprintf(out, n, ACCEPT "MCP-Protocol-Version: 2025-11-25\r\n");
}

/* Headers of the GET stream of session sid. */
static void get_hdr(char *out, size_t n, const char *sid) {
  snprintf(out, n, "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n", sid);
}

/* Asks the client (elicitation/create with message, an empty object
 * schema) and waits up to timeout_ms: its answer, or NULL after making r
 * an error result. */
static json_t *ask_client(mcp_call_t *call, const char *message, int timeout_ms,
                          mcp_result_t *r) {
  json_t *res = NULL;
  mcp_error_t err;
  mcp_status st = mcp_call_request(call, "elicitation/create",
                                   json_pack("{s:s,s:{s:s,s:{}}}", "message",
                                             message, "requestedSchema", "type",
                                             "object", "properties"),
                                   timeout_ms, &res, &err);
  if (st != MCP_OK) {
    mcp_result_set_error(r, "no answer: %s", err.message);
    return NULL;
  }
  return res;
}

/* The value of field name in one SSE event ("" when absent); several data
 * lines are joined with '\n'. */
static void event_field(const char *ev, const char *name, char *out, size_t n) {
  out[0] = '\0';
  size_t nl = strlen(name);
  for (const char *p = ev; p && *p;) {
    if (strncmp(p, name, nl) == 0 && p[nl] == ':') {
      const char *v = p + nl + 1;
      if (*v == ' ')
        v++;
      size_t len = strcspn(v, "\n");
      if (out[0] && strcmp(name, "data") == 0)
        strncat(out, "\n", n - strlen(out) - 1);
      strncat(out, v, len < n - strlen(out) - 1 ? len : n - strlen(out) - 1);
    }
    p = strchr(p, '\n');
    if (p)
      p++;
  }
}

#endif
