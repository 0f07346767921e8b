/* SPDX-License-Identifier: MIT */
/* header_matrix_test.c - the SEP-2243 header rules of 2026-07-28 over real
 * sockets (issue #11 items 5/4 of its helper brief): every standard header
 * (MCP-Protocol-Version, Mcp-Method, Mcp-Name) and every Mcp-Param-* header
 * of an x-mcp-header tool, each missing, mismatched, in the wrong case,
 * repeated, badly base64-encoded and with a control character, is answered
 * 400 with -32020 and the request's id; valid forms (header names in any
 * case, base64 values, optional whitespace, integers compared as numbers,
 * an absent argument without its header) are served. */
/* the shared fixture has helpers this test does not need */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#pragma GCC diagnostic pop

static mcp_status tool_route(mcp_call_t *call, json_t *args, mcp_result_t *r,
                             void *ud) {
  (void)call, (void)ud;
  mcp_result_add_textf(r, "routed %s",
                       json_string_value(json_object_get(args, "region"))
                           ?: "(none)");
  return MCP_OK;
}

static void start_with(fixture *f, mcp_http_options_t *o) {
  fixture_new_server(f, "header-matrix");
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new("route", &t), MCP_OK);
  assert_int_equal(
      mcp_tool_set_input_schema_text(
          t, "{\"type\":\"object\",\"properties\":{"
             "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
             "\"count\":{\"type\":\"integer\",\"x-mcp-header\":\"Count\"},"
             "\"dry\":{\"type\":\"boolean\",\"x-mcp-header\":\"Dry\"},"
             "\"note\":{\"type\":\"string\"}}}"),
      MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, tool_route, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_server_add_tool(f->server, t, NULL), MCP_OK);
  fixture_serve(f, o);
  assert_true(f->port > 0);
}

static void start(fixture *f) {
  start_with(f, base_options());
}

/* The valid request's headers, in order; a case replaces one of them. */
enum { H_VERSION, H_METHOD, H_NAME, H_REGION, H_COUNT, H_DRY, H_COUNT_ALL };
static const char *const names[H_COUNT_ALL] = {
    "MCP-Protocol-Version", "Mcp-Method",      "Mcp-Name",
    "Mcp-Param-Region",     "Mcp-Param-Count", "Mcp-Param-Dry"};
static const char *const values[H_COUNT_ALL] = {
    "2026-07-28", "tools/call", "route", "eu-west", "3", "true"};

#define BODY_FMT                                                               \
  "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"      \
  "\"name\":\"route\",\"arguments\":{%s\"count\":3,\"dry\":true,"              \
  "\"note\":\"x\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"    \
  "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}"

/* Headers with header `which` written as `line` (a whole "Name: value\r\n"
 * text, "" to leave it out, NULL for the valid one). */
static void headers(char *out, size_t n, int which, const char *line) {
  size_t at = (size_t)snprintf(out, n, ACCEPT);
  for (int h = 0; h < H_COUNT_ALL; h++) {
    if (h == which && line)
      at += (size_t)snprintf(out + at, n - at, "%s", line);
    else
      at +=
          (size_t)snprintf(out + at, n - at, "%s: %s\r\n", names[h], values[h]);
  }
}

/* POSTs the request; returns the status, the JSON-RPC error code (0 for a
 * result) in *code, the body in *body (malloc'd). */
static int post(int port, const char *hdr, int id, const char *region_arg,
                int *code, char **body) {
  char req[1024];
  snprintf(req, sizeof req, BODY_FMT, id,
           region_arg ? region_arg : "\"region\":\"eu-west\",");
  int status = tc_do(port, "POST", hdr, req, body, NULL);
  json_t *j = json_loads(*body, 0, NULL);
  *code = tu_error_code(j);
  if (json_integer_value(json_object_get(j, "id")) != id)
    *code = 1; /* the id must be echoed */
  json_decref(j);
  return status;
}

static void expect_mismatch(int port, int which, const char *line,
                            const char *what, int id) {
  char hdr[2048], *body = NULL;
  int code;
  headers(hdr, sizeof hdr, which, line);
  int status = post(port, hdr, id, NULL, &code, &body);
  char msg[600];
  snprintf(msg, sizeof msg, "%s %s: HTTP %d %.400s", names[which], what, status,
           body);
  free(body);
  if (status != 400 || code != MCP_RPC_HEADER_MISMATCH)
    fail_msg("%s", msg);
}

static void test_mismatch_matrix(void **state) {
  (void)state;
  fixture f;
  start(&f);
  /* per header: a different value, the value in another case (where it
   * has letters), bad base64 and a base64 text that is not UTF-8 */
  static const char *const other[H_COUNT_ALL] = {
      "2025-11-25", "tools/list", "other", "us-east", "4", "false"};
  static const char *const recased[H_COUNT_ALL] = {
      NULL, "Tools/Call", "Route", "EU-WEST", NULL, "True"};
  int id = 1000, cases = 0;
  for (int h = 0; h < H_COUNT_ALL; h++) {
    char line[256];
    expect_mismatch(f.port, h, "", "missing", id++), cases++;
    snprintf(line, sizeof line, "%s: %s\r\n", names[h], other[h]);
    expect_mismatch(f.port, h, line, "mismatched", id++), cases++;
    if (recased[h]) {
      snprintf(line, sizeof line, "%s: %s\r\n", names[h], recased[h]);
      expect_mismatch(f.port, h, line, "in the wrong case", id++), cases++;
    }
    snprintf(line, sizeof line, "%s: %s\r\n%s: %s\r\n", names[h], values[h],
             names[h], values[h]);
    expect_mismatch(f.port, h, line, "repeated (same value)", id++), cases++;
    snprintf(line, sizeof line, "%s: %s\r\n%s: %s\r\n", names[h], values[h],
             names[h], other[h]);
    expect_mismatch(f.port, h, line, "repeated (other value)", id++), cases++;
    snprintf(line, sizeof line, "%s: =?base64?%%%%%%?=\r\n", names[h]);
    expect_mismatch(f.port, h, line, "bad base64", id++), cases++;
    snprintf(line, sizeof line, "%s: =?base64?/w==?=\r\n", names[h]);
    expect_mismatch(f.port, h, line, "base64 of invalid UTF-8", id++), cases++;
    snprintf(line, sizeof line, "%s: %.1s\x01%s\r\n", names[h], values[h],
             values[h] + 1);
    expect_mismatch(f.port, h, line, "with a control character", id++), cases++;
    snprintf(line, sizeof line, "%s: %.1s\x7f%s\r\n", names[h], values[h],
             values[h] + 1);
    expect_mismatch(f.port, h, line, "with DEL", id++), cases++;
  }
  assert_int_equal(cases, 6 * 8 + 4);
  /* an Mcp-Param-* header whose argument is not in the body */
  char hdr[2048], *body = NULL;
  int code;
  headers(hdr, sizeof hdr, -1, NULL);
  assert_int_equal(post(f.port, hdr, 7, "", &code, &body), 400);
  assert_int_equal(code, MCP_RPC_HEADER_MISMATCH);
  free(body);
  /* Mcp-Method checked before the version: header 2026-07-28, body v999 */
  assert_int_equal(
      tc_do(f.port, "POST",
            ACCEPT "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: "
                   "tools/list\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\","
            "\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
            "protocolVersion\":\"v999.0.0\",\"io.modelcontextprotocol/"
            "clientCapabilities\":{}}}}",
            &body, NULL),
      400);
  assert_non_null(strstr(body, "-32020"));
  free(body);
  fixture_stop(&f);
}

static void expect_served(int port, const char *hdr, const char *region_arg,
                          const char *what, const char *text) {
  char *body = NULL;
  int code;
  int status = post(port, hdr, 42, region_arg, &code, &body);
  bool ok = status == 200 && code == 0 && strstr(body, text) != NULL;
  char msg[600];
  snprintf(msg, sizeof msg, "%s: HTTP %d %.400s", what, status, body);
  free(body);
  if (!ok)
    fail_msg("%s", msg);
}

static void test_valid_forms(void **state) {
  (void)state;
  fixture f;
  start(&f);
  char hdr[2048];
  headers(hdr, sizeof hdr, -1, NULL);
  expect_served(f.port, hdr, NULL, "plain", "routed eu-west");
  /* header names in any case */
  snprintf(hdr, sizeof hdr,
           ACCEPT "mcp-protocol-version: 2026-07-28\r\nMCP-METHOD: "
                  "tools/call\r\nmcp-name: route\r\nmcp-param-region: "
                  "eu-west\r\nMCP-PARAM-COUNT: 3\r\nmcp-PARAM-dry: true\r\n");
  expect_served(f.port, hdr, NULL, "names in other cases", "routed eu-west");
  /* optional whitespace around values */
  snprintf(hdr, sizeof hdr,
           ACCEPT "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: \t "
                  "tools/call \t\r\nMcp-Name:route\r\nMcp-Param-Region:  "
                  "eu-west  \r\nMcp-Param-Count: 3\r\nMcp-Param-Dry: true\r\n");
  expect_served(f.port, hdr, NULL, "whitespace", "routed eu-west");
  /* base64 values: Mcp-Method, Mcp-Name and a parameter */
  snprintf(hdr, sizeof hdr,
           ACCEPT "MCP-Protocol-Version: 2026-07-28\r\n"
                  "Mcp-Method: =?base64?dG9vbHMvY2FsbA==?=\r\n"
                  "Mcp-Name: =?base64?cm91dGU=?=\r\n"
                  "Mcp-Param-Region: =?base64?ZXUtd2VzdA==?=\r\n"
                  "Mcp-Param-Count: =?base64?Mw==?=\r\n"
                  "Mcp-Param-Dry: true\r\n");
  expect_served(f.port, hdr, NULL, "base64", "routed eu-west");
  /* a non-ASCII argument travels base64-encoded */
  snprintf(hdr, sizeof hdr,
           ACCEPT "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: "
                  "tools/call\r\nMcp-Name: route\r\n"
                  "Mcp-Param-Region: =?base64?esO8cmljaA==?=\r\n"
                  "Mcp-Param-Count: 3\r\nMcp-Param-Dry: true\r\n");
  expect_served(f.port, hdr, "\"region\":\"z\xc3\xbcrich\",", "non-ASCII",
                "routed z\xc3\xbcrich");
  /* integers compare as numbers */
  snprintf(hdr, sizeof hdr,
           ACCEPT "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: "
                  "tools/call\r\nMcp-Name: route\r\nMcp-Param-Region: "
                  "eu-west\r\nMcp-Param-Count: 003\r\nMcp-Param-Dry: true\r\n");
  expect_served(f.port, hdr, NULL, "integer 003", "routed eu-west");
  /* no argument, no header */
  headers(hdr, sizeof hdr, H_REGION, "");
  expect_served(f.port, hdr, "", "absent argument", "routed (none)");
  fixture_stop(&f);
}

/* Up to 32 Mcp-Param-* headers are kept per request (more is a 400): the
 * tool's three beside 29 others, long enough that the copies outgrow the
 * request's own bytes, are served, and the tool's values are the ones
 * compared; one more is refused. */
static void test_param_header_bound(void **state) {
  (void)state;
  fixture f;
  start(&f);
  char hdr[8192];
  for (int extra = 29; extra <= 30; extra++) {
    headers(hdr, sizeof hdr, -1, NULL);
    size_t at = strlen(hdr);
    for (int i = 0; i < extra; i++)
      at += (size_t)snprintf(hdr + at, sizeof hdr - at,
                             "Mcp-Param-Other%02d: value-%02d-%s\r\n", i, i,
                             "padding-padding-padding-padding");
    int code;
    char *body = NULL;
    int status = post(f.port, hdr, 40 + extra, NULL, &code, &body);
    if (extra == 29) {
      if (status != 200 || code != 0 || strstr(body, "routed eu-west") == NULL)
        fail_msg("32 Mcp-Param-* headers: HTTP %d %.300s", status, body);
    } else if (status != 400 || strstr(body, "too many Mcp-Param-*") == NULL) {
      fail_msg("33 Mcp-Param-* headers: HTTP %d %.300s", status, body);
    }
    free(body);
  }
  fixture_stop(&f);
}

/* A 2025-11-25 request (stateless mode: no session) whose arguments merely
 * mention the 2026-07-28 _meta key stays a 2025-11-25 request; with the key
 * in its _meta it is a 2026-07-28 one whose version header disagrees. */
static void test_legacy_header_modern_body(void **state) {
  (void)state;
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_stateless(o, true), MCP_OK);
  fixture f;
  start_with(&f, o);
  char *body = NULL;
  assert_int_equal(
      tc_do(f.port, "POST", ACCEPT "MCP-Protocol-Version: 2025-11-25\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
            "\"params\":{\"name\":\"route\",\"arguments\":{\"region\":"
            "\"io.modelcontextprotocol/protocolVersion\"}}}",
            &body, NULL),
      200);
  assert_non_null(strstr(body, "routed io.modelcontextprotocol/"));
  free(body);
  /* the same without a version header (2025-03-26) */
  assert_int_equal(
      tc_do(f.port, "POST", ACCEPT,
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
            "\"params\":{\"name\":\"route\",\"arguments\":{\"region\":"
            "\"io.modelcontextprotocol/protocolVersion\"}}}",
            &body, NULL),
      200);
  assert_non_null(strstr(body, "routed io.modelcontextprotocol/"));
  free(body);
  assert_int_equal(
      tc_do(f.port, "POST",
            ACCEPT "MCP-Protocol-Version: 2025-11-25\r\nMcp-Method: "
                   "tools/list\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\","
            "\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
            "protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"
            "clientCapabilities\":{}}}}",
            &body, NULL),
      400);
  assert_non_null(strstr(body, "-32020"));
  free(body);
  fixture_stop(&f);
}

/* params.name given twice: the last counts, for the Mcp-Name check as
 * for the tool that runs (the call finds name once and keeps it). */
static void test_repeated_name_key_last_counts(void **state) {
  (void)state;
  fixture f;
  start(&f);
  char hdr[2048], *body = NULL;
  headers(hdr, sizeof hdr, -1, NULL); /* Mcp-Name: route */
  static const char fmt[] =
      "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"%s\",\"arguments\":{\"region\":\"eu-west\",\"count\":3,"
      "\"dry\":true},\"name\":\"%s\",\"_meta\":{"
      "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  char req[1024];
  snprintf(req, sizeof req, fmt, 5, "nope", "route");
  assert_int_equal(tc_do(f.port, "POST", hdr, req, &body, NULL), 200);
  assert_non_null(strstr(body, "routed eu-west"));
  free(body);
  snprintf(req, sizeof req, fmt, 6, "route", "nope");
  assert_int_equal(tc_do(f.port, "POST", hdr, req, &body, NULL), 400);
  assert_non_null(strstr(body, "Mcp-Name"));
  free(body);
  fixture_stop(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mismatch_matrix),
      cmocka_unit_test(test_valid_forms),
      cmocka_unit_test(test_param_header_bound),
      cmocka_unit_test(test_legacy_header_modern_body),
      cmocka_unit_test(test_repeated_name_key_last_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
