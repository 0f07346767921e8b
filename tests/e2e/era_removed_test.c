/* SPDX-License-Identifier: MIT */
/* era_removed_test.c - what 2026-07-28 removed (issue #11 item 6), end to
 * end over real sockets and the demo's stdio: ping, logging/setLevel,
 * resources/subscribe and resources/unsubscribe (and initialize) are
 * unknown methods on the modern path (HTTP 404, -32601 with the request's
 * id); the GET stream and DELETE are 405 (Allow: POST) for a modern
 * client; Last-Event-ID is ignored on a modern POST, whose SSE events
 * carry no ids. A 2025-11-25 session on the same endpoint keeps all of it:
 * ping, setLevel, subscribe, the GET stream and Last-Event-ID replay. */
#include <unistd.h>

#include "http_fixture.h"

#define MODERN_META                                                            \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}"
#define MODERN_HDR ACCEPT "MCP-Protocol-Version: 2026-07-28\r\n"

static mcp_status tool_chatty(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)args, (void)ud;
  mcp_call_logf(call, MCP_LOG_INFO, "t", "line one");
  mcp_call_logf(call, MCP_LOG_WARNING, "t", "line two");
  mcp_result_add_text(r, "chatty done");
  return MCP_OK;
}

static mcp_status read_text(mcp_call_t *call, const char *uri, json_t *vars,
                            mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)ud;
  return mcp_read_result_add_text(out, uri, "hello", "text/plain");
}

static void start(fixture *f) {
  fixture_new_server(f, "era-removed");
  add_tool(f->server, "chatty", tool_chatty, MCP_TASK_FORBIDDEN);
  mcp_resource_t *res = NULL;
  assert_int_equal(mcp_resource_new("mem://note", "note", &res), MCP_OK);
  assert_int_equal(mcp_resource_set_handler(res, read_text, NULL, NULL),
                   MCP_OK);
  assert_int_equal(mcp_server_add_resource(f->server, res), MCP_OK);
  assert_int_equal(mcp_server_set_resources_subscribe(f->server, true), MCP_OK);
  fixture_serve(f, base_options());
  assert_true(f->port > 0);
}

/* Each removed method, sent as a 2026-07-28 client sends it: 404 with a
 * -32601 error that echoes the request's id. */
static void test_modern_removed_methods(void **state) {
  (void)state;
  fixture f;
  start(&f);
  static const char *const methods[] = {"ping", "logging/setLevel",
                                        "resources/subscribe",
                                        "resources/unsubscribe", "initialize"};
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
    char hdr[256], body[512], *resp = NULL;
    snprintf(hdr, sizeof hdr, MODERN_HDR "Mcp-Method: %s\r\n", methods[i]);
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"%s\",\"params\":{"
             "\"level\":\"debug\",\"uri\":\"mem://note\",\"protocolVersion\":"
             "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"
             "\"t\",\"version\":\"1\"}," MODERN_META "}}",
             100 + i, methods[i]);
    int status = tc_do(f.port, "POST", hdr, body, &resp, NULL);
    json_t *j = json_loads(resp, 0, NULL);
    if (status != 404 || tu_error_code(j) != MCP_RPC_METHOD_NOT_FOUND ||
        json_integer_value(json_object_get(j, "id")) != (json_int_t)(100 + i))
      fail_msg("%s: HTTP %d %s", methods[i], status, resp);
    json_decref(j);
    free(resp);
  }
  fixture_stop(&f);
}

/* A modern client gets no GET stream (with or without Last-Event-ID) and
 * has no session to DELETE. */
static void test_modern_get_and_delete(void **state) {
  (void)state;
  fixture f;
  start(&f);
  static const char *const hdrs[] = {
      "Accept: text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n",
      "Accept: text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
      "Last-Event-ID: 0-1\r\n",
      "Accept: text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
      "Mcp-Session-Id: 00000000-0000-0000-0000-000000000000\r\n"};
  for (size_t i = 0; i < sizeof hdrs / sizeof hdrs[0]; i++) {
    tc_conn c;
    char allow[64];
    assert_true(tc_open(&c, f.port, "GET", "/mcp", hdrs[i], NULL, 5000));
    assert_int_equal(c.status, 405);
    assert_non_null(tc_header(&c, "Allow", allow, sizeof allow));
    assert_string_equal(allow, "POST");
    tc_close(&c);
  }
  assert_int_equal(tc_do(f.port, "DELETE",
                         "MCP-Protocol-Version: 2026-07-28\r\n", NULL, NULL,
                         NULL),
                   405);
  fixture_stop(&f);
}

/* Last-Event-ID on a modern POST is ignored: the request runs, and its SSE
 * response (it logs: the request asked for a level) carries no event ids
 * and no priming event. Without a logLevel the request gets no log
 * messages at all. */
static void test_modern_no_resumption(void **state) {
  (void)state;
  fixture f;
  start(&f);
  tc_conn c;
  assert_true(tc_open(
      &c, f.port, "POST", "/mcp",
      MODERN_HDR "Mcp-Method: tools/call\r\nMcp-Name: chatty\r\n"
                 "Last-Event-ID: 0-1\r\n",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"chatty\",\"arguments\":{},\"_meta\":{"
      "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      "\"io.modelcontextprotocol/clientCapabilities\":{},"
      "\"io.modelcontextprotocol/logLevel\":\"info\"}}}",
      5000));
  assert_int_equal(c.status, 200);
  char *ev, id[64], data[1024];
  int logs = 0;
  bool result = false;
  while ((ev = tc_next_event(&c, 5000)) != NULL) {
    event_field(ev, "id", id, sizeof id);
    event_field(ev, "data", data, sizeof data);
    if (ev[0] != ':') {
      if (id[0])
        fail_msg("modern SSE event with an id: %s", ev);
      assert_true(data[0] != '\0'); /* no empty priming event */
    }
    logs += strstr(data, "notifications/message") != NULL;
    result |= strstr(data, "chatty done") != NULL && strstr(data, "\"id\":5");
    free(ev);
  }
  tc_close(&c);
  assert_int_equal(logs, 2);
  assert_true(result);
  /* no logLevel: no log messages, a plain JSON answer */
  char *resp = NULL;
  assert_int_equal(
      tc_do(f.port, "POST",
            MODERN_HDR "Mcp-Method: tools/call\r\nMcp-Name: chatty\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\""
            ":{\"name\":\"chatty\",\"arguments\":{}," MODERN_META "}}",
            &resp, NULL),
      200);
  assert_null(strstr(resp, "notifications/message"));
  assert_non_null(strstr(resp, "chatty done"));
  free(resp);
  fixture_stop(&f);
}

/* The same endpoint, a 2025-11-25 session: everything above still works. */
static void test_legacy_keeps_everything(void **state) {
  (void)state;
  fixture f;
  start(&f);
  char sid[64], hdr[256], *resp = NULL;
  open_session_expecting(f.port, "\"protocolVersion\"", sid);
  session_hdr(hdr, sizeof hdr, sid);
  static const char *const keep[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"logging/setLevel\","
      "\"params\":{\"level\":\"warning\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/subscribe\","
      "\"params\":{\"uri\":\"mem://note\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/unsubscribe\","
      "\"params\":{\"uri\":\"mem://note\"}}"};
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
    assert_int_equal(tc_do(f.port, "POST", hdr, keep[i], &resp, NULL), 200);
    json_t *j = json_loads(resp, 0, NULL);
    if (!json_is_object(json_object_get(j, "result")))
      fail_msg("%s -> %s", keep[i], resp);
    json_decref(j);
    free(resp);
  }
  /* and subscriptions/listen (2026-07-28 only) is unknown there */
  assert_int_equal(
      tc_do(f.port, "POST", hdr,
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":"
            "\"subscriptions/listen\",\"params\":{\"notifications\":{"
            "\"toolsListChanged\":true}}}",
            &resp, NULL),
      200);
  assert_non_null(strstr(resp, "-32601"));
  free(resp);
  /* setLevel warning: of chatty's info and warning only the warning comes;
   * the SSE events carry ids, and a GET with Last-Event-ID of the first
   * event replays what follows it. */
  tc_conn c;
  assert_true(tc_open(&c, f.port, "POST", "/mcp", hdr,
                      "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\","
                      "\"params\":{\"name\":\"chatty\",\"arguments\":{}}}",
                      5000));
  assert_int_equal(c.status, 200);
  char *ev, id[64], first[64] = "", data[1024];
  int events = 0, infos = 0, warnings = 0;
  while ((ev = tc_next_event(&c, 5000)) != NULL) {
    event_field(ev, "id", id, sizeof id);
    event_field(ev, "data", data, sizeof data);
    if (ev[0] != ':') {
      assert_true(id[0] != '\0');
      if (!first[0])
        snprintf(first, sizeof first, "%s", id);
      events++;
    }
    infos += strstr(data, "line one") != NULL;
    warnings += strstr(data, "line two") != NULL;
    free(ev);
  }
  tc_close(&c);
  assert_int_equal(infos, 0);
  assert_int_equal(warnings, 1);
  assert_true(events >= 2);
  char rh[512];
  snprintf(rh, sizeof rh,
           "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
           "MCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: %s\r\n",
           sid, first);
  assert_true(tc_open(&c, f.port, "GET", "/mcp", rh, NULL, 5000));
  assert_int_equal(c.status, 200);
  bool replayed = false;
  while ((ev = tc_next_event(&c, 5000)) != NULL) {
    event_field(ev, "data", data, sizeof data);
    replayed |= strstr(data, "chatty done") != NULL;
    free(ev);
  }
  tc_close(&c);
  assert_true(replayed);
  /* the GET stream opens */
  char gh[256], type[64];
  get_hdr(gh, sizeof gh, sid);
  assert_true(tc_open(&c, f.port, "GET", "/mcp", gh, NULL, 5000));
  assert_int_equal(c.status, 200);
  assert_non_null(tc_header(&c, "Content-Type", type, sizeof type));
  assert_string_equal(type, "text/event-stream");
  tc_close(&c);
  /* and the session ends with DELETE */
  assert_int_equal(tc_do(f.port, "DELETE", hdr, NULL, NULL, NULL), 204);
  fixture_stop(&f);
}

/* stdio (the demo server): a modern ping is -32601 with its id; after
 * initialize the legacy ping and logging/setLevel answer {}. */
static void test_stdio_both_eras(void **state) {
  (void)state;
  char db[64], store[80], bin[512];
  snprintf(db, sizeof db, "/tmp/era-removed-%d.db", (int)getpid());
  snprintf(store, sizeof store, "sqlite:%s", db);
  snprintf(bin, sizeof bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  char *argv[] = {bin, "--stdio", "--db", db, "--store", store, NULL};
  tu_proc p;
  assert_int_equal(tu_proc_spawn(&p, argv), 0);
  static const struct {
    const char *line;
    int code; /* 0: a result */
    int id;
  } steps[] = {
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":"
       "{" MODERN_META "}}",
       MCP_RPC_METHOD_NOT_FOUND, 1},
      {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\","
       "\"params\":{\"level\":\"info\"," MODERN_META "}}",
       MCP_RPC_METHOD_NOT_FOUND, 2},
      {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\","
       "\"params\":{\"uri\":\"reports://sales/2026-Q3\"," MODERN_META "}}",
       MCP_RPC_METHOD_NOT_FOUND, 3},
      {INIT, 0, 1},
      {"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}", 0, 5},
      {"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"logging/setLevel\","
       "\"params\":{\"level\":\"info\"}}",
       0, 6},
  };
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    assert_int_equal(tu_proc_send_line(&p, steps[i].line), 0);
    if (strstr(steps[i].line, "\"method\":\"initialize\""))
      assert_int_equal(tu_proc_send_line(&p, INITIALIZED), 0);
    char *line = tu_proc_read_line(&p, 10000);
    assert_non_null(line);
    json_t *j = json_loads(line, 0, NULL);
    if (tu_error_code(j) != steps[i].code ||
        (steps[i].code == 0 && !json_object_get(j, "result")) ||
        json_integer_value(json_object_get(j, "id")) != steps[i].id)
      fail_msg("step %zu: %s -> %s", i, steps[i].line, line);
    json_decref(j);
    free(line);
  }
  assert_int_equal(tu_proc_finish(&p, 10000), 0);
  static const char *const suffix[] = {"", "-wal", "-shm"};
  for (size_t i = 0; i < 3; i++) {
    char path[96];
    snprintf(path, sizeof path, "%s%s", db, suffix[i]);
    unlink(path);
  }
}

int main(void) {
  (void)ask_client, (void)sleep_ms; /* http_fixture.h helpers unused here */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_modern_removed_methods),
      cmocka_unit_test(test_modern_get_and_delete),
      cmocka_unit_test(test_modern_no_resumption),
      cmocka_unit_test(test_legacy_keeps_everything),
      cmocka_unit_test(test_stdio_both_eras),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
