/* SPDX-License-Identifier: MIT */
/* http_metrics_test.c - the Prometheus endpoint of the HTTP transport
 * (issue #26 item 4, mcp_http_options_set_metrics, docs/observability.md):
 * a server on 127.0.0.1 with OTLP off serves, after a few calls (a tool
 * that succeeds, a slow one, a tool error, a JSON-RPC error, a prompt name
 * needing escapes, a session that ends), the operation and session
 * histograms with the right counts, cumulative buckets and labels, which
 * `promtool check metrics` (Prometheus's checker) accepts; a client outside
 * the allow-list (source 127.0.0.2) gets the unknown-path 404 (401 with
 * OAuth on, while an allowed scraper needs no token); a wrong Host
 * 403, a POST 405; off by default; bad settings are refused naming the
 * culprit; the demo's --metrics flag serves it, and so does mcp_server_run's
 * (examples/hello). */
#include <sys/wait.h>

/* the shared headers hold helpers this file does not use */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#include "mcpc_run.h"

static mcp_status quick(mcp_call_t *call, json_t *args, mcp_result_t *r,
                        void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "ok");
  return MCP_OK;
}

static mcp_status slow(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)args, (void)ud;
  sleep_ms(30); /* past the 0.02 s bucket, whatever the machine */
  mcp_result_add_text(r, "slept");
  return MCP_OK;
}

static mcp_status broken(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_result_set_error(r, "broken on purpose");
}

/* A server with the three tools; metrics on path for allow unless path is
 * "" (off). */
static void serve(fixture *f, const char *path, const char *allow) {
  fixture_new_server(f, "metrics-test");
  add_tool(f->server, "quick", quick, MCP_TASK_FORBIDDEN);
  add_tool(f->server, "slow", slow, MCP_TASK_FORBIDDEN);
  add_tool(f->server, "broken", broken, MCP_TASK_FORBIDDEN);
  mcp_http_options_t *o = base_options();
  if (path == NULL || path[0] != '\0')
    assert_int_equal(mcp_http_options_set_metrics(o, path, allow), MCP_OK);
  fixture_serve(f, o);
}

/* A connection to 127.0.0.1:port from source (an address of 127/8). */
static int connect_from(const char *source, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET};
  inet_pton(AF_INET, source, &src.sin_addr);
  dst.sin_port = htons((uint16_t)port);
  dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(bind(fd, (struct sockaddr *)&src, sizeof src), 0);
  assert_int_equal(connect(fd, (struct sockaddr *)&dst, sizeof dst), 0);
  return fd;
}

/* GET (or method) path from source with extra headers; status, body
 * (new, never NULL) and Content-Type into type (may be NULL). */
static int fetch(int port, const char *source, const char *method,
                 const char *path, const char *extra, char **body,
                 char type[128]) {
  tc_conn c;
  memset(&c, 0, sizeof c);
  c.content_length = -1;
  c.fd = connect_from(source, port);
  char host[32];
  snprintf(host, sizeof host, "127.0.0.1:%d", port);
  int status = 0;
  if (tc_write_request(c.fd, host, method, path, extra, NULL) &&
      tc_read_head(&c, 5000) && tc_read_body(&c, 5000))
    status = c.status;
  if (type && !tc_header(&c, "Content-Type", type, 128))
    type[0] = '\0';
  *body = c.body ? c.body : strdup("");
  c.body = NULL;
  tc_close(&c);
  return status;
}

static char *scrape(int port) {
  char *body, type[128];
  assert_int_equal(fetch(port, "127.0.0.1", "GET", "/metrics", NULL, &body,
                         type),
                   200);
  assert_string_equal(type, "text/plain; version=0.0.4; charset=utf-8");
  return body;
}

/* A scrape holding every one of needles: a call's duration is recorded
 * just after its response is sent, so the client may scrape first.
 * Waits up to 10 s. */
static char *scrape_when(int port, const char *const *needles) {
  for (int i = 0;; i++) {
    char *text = scrape(port);
    bool all = true;
    for (const char *const *n = needles; *n && all; n++)
      all = strstr(text, *n) != NULL;
    if (all || i == 200)
      return text; /* the checks that follow say what is missing */
    free(text);
    sleep_ms(50);
  }
}

/* The value of the sample whose line starts with name{labels} (or name
 * alone), -1 when there is none. */
static double sample(const char *text, const char *series) {
  size_t n = strlen(series);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
    if (strncmp(p, series, n) == 0 && p[n] == ' ')
      return strtod(p + n + 1, NULL);
  return -1;
}

#define OP "mcp_server_operation_duration_seconds"
#define V  "mcp_protocol_version=\"2025-11-25\",network_transport=\"tcp\""

/* Checks a histogram series: buckets cumulative, +Inf = _count = count. */
static void check_series(const char *text, const char *name,
                         const char *labels, double count) {
  static const char *const les[] = {"0.01", "0.02", "0.05", "0.1", "0.2",
                                    "0.5",  "1",    "2",    "5",   "10",
                                    "30",   "60",   "120",  "300", "+Inf"};
  char key[600];
  double last = 0;
  for (size_t i = 0; i < sizeof les / sizeof les[0]; i++) {
    snprintf(key, sizeof key, "%s_bucket{%s,le=\"%s\"}", name, labels, les[i]);
    double v = sample(text, key);
    if (v < last) {
      fprintf(stderr, "%s", text); /* longer than fail_msg prints */
      fail_msg("%s: %g after %g (missing or not cumulative)", key, v, last);
    }
    last = v;
  }
  assert_true(last == count);
  snprintf(key, sizeof key, "%s_count{%s}", name, labels);
  assert_true(sample(text, key) == count);
  snprintf(key, sizeof key, "%s_sum{%s}", name, labels);
  assert_true(sample(text, key) >= 0);
}

/* The promtool to run into path: $PROMTOOL, else the one
 * scripts/get-promtool (run by scripts/install-deps) takes out of Debian's
 * prometheus package into this tree's build/tools, else promtool on PATH
 * (the package installed). false when there is none. */
static bool find_promtool(char *path, size_t cap) {
  const char *env = getenv("PROMTOOL");
  if (env != NULL && env[0] != '\0') {
    snprintf(path, cap, "%s", env);
    return true;
  }
  snprintf(path, cap, "%s/build/tools/promtool", MCP_SOURCE_DIR);
  if (access(path, X_OK) == 0)
    return true;
  snprintf(path, cap, "promtool");
  return system("command -v promtool >/dev/null 2>&1") == 0;
}

/* promtool check metrics on text: its output, or NULL when it passed.
 * Skips when promtool is missing, except in CI (scripts/install-deps
 * gets it). */
static char *promtool_says(const char *text) {
  char tool[1200];
  if (!find_promtool(tool, sizeof tool)) {
    if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
      fail_msg("promtool not found (scripts/get-promtool puts it in "
               "build/tools; required when CI=true)");
    fprintf(stderr, "SKIP promtool check: promtool not found (run "
                    "scripts/get-promtool)\n");
    return NULL;
  }
  fprintf(stderr, "promtool check metrics: %s\n", tool);
  char in[300], out[300], cmd[2000];
  snprintf(in, sizeof in, "%s/metrics.txt", mr_tmpdir);
  snprintf(out, sizeof out, "%s/promtool.out", mr_tmpdir);
  FILE *f = fopen(in, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s' check metrics < %s > %s 2>&1", tool, in,
           out);
  int rc = system(cmd);
  char *said = tu_read_file(out, NULL);
  if (rc == 0 && said && said[0] == '\0') {
    free(said);
    return NULL;
  }
  return said ? said : strdup("(no output)");
}

static void test_scrape_counts_and_buckets(void **state) {
  (void)state;
  fixture f;
  serve(&f, NULL, "127.0.0.1/32");
  char sid[64], hdr[512], *body = NULL;
  open_session_expecting(f.port, "metrics-test", sid);
  session_hdr(hdr, sizeof hdr, sid);
  static const char *const calls[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"quick\",\"arguments\":{}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"quick\",\"arguments\":{}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"slow\",\"arguments\":{}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"broken\",\"arguments\":{}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"no/such\"}",
      /* a label value with a quote, a backslash and a line feed */
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/get\",\"params\":{"
      "\"name\":\"a\\\"b\\\\c\\nd\"}}"};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    assert_int_equal(tc_do(f.port, "POST", hdr, calls[i], &body, NULL), 200);
    free(body);
  }
  const char *const recorded[] = {
      "gen_ai_tool_name=\"quick\"," V "} 2\n",
      "gen_ai_tool_name=\"slow\"," V "} 1\n",
      "gen_ai_tool_name=\"broken\",error_type=\"tool_error\"," V "} 1\n",
      "mcp_method_name=\"no/such\",error_type=\"-32601\"," V "} 1\n",
      "mcp_method_name=\"prompts/get\"", NULL};
  char *text = scrape_when(f.port, recorded);
  check_series(text, OP,
               "mcp_method_name=\"tools/call\",gen_ai_tool_name=\"quick\"," V,
               2);
  check_series(text, OP,
               "mcp_method_name=\"tools/call\",gen_ai_tool_name=\"slow\"," V,
               1);
  /* the slow call slept 30 ms: not in the 0.01 and 0.02 buckets */
  assert_true(
      sample(text, OP "_bucket{mcp_method_name=\"tools/call\","
                      "gen_ai_tool_name=\"slow\"," V ",le=\"0.02\"}") == 0);
  check_series(text, OP,
               "mcp_method_name=\"tools/call\",gen_ai_tool_name=\"broken\","
               "error_type=\"tool_error\"," V,
               1);
  check_series(text, OP,
               "mcp_method_name=\"no/such\",error_type=\"-32601\"," V, 1);
  check_series(text, OP,
               "mcp_method_name=\"prompts/get\",gen_ai_prompt_name="
               "\"a\\\"b\\\\c\\nd\",error_type=\"-32601\"," V,
               1);
  /* initialize with the version it negotiated (the conventions recommend
   * mcp.protocol.version on every data point) */
  check_series(text, OP, "mcp_method_name=\"initialize\"," V, 1);
  assert_non_null(strstr(text, "# TYPE " OP " histogram\n"));
  assert_non_null(strstr(text, "# HELP " OP " "));
  assert_true(sample(text, "libmcp_telemetry_dropped_total") == 0);
  assert_non_null(strstr(text, "# TYPE libmcp_telemetry_dropped_total "
                               "counter\n"));
  assert_non_null(strstr(text, "target_info{service_name=\"metrics-test\""));
  char *said = promtool_says(text);
  if (said)
    fail_msg("promtool check metrics:\n%s\non:\n%s", said, text);
  free(text);

  /* the session's end makes a session duration */
  char dh[256];
  snprintf(dh, sizeof dh, "Mcp-Session-Id: %s\r\n", sid);
  assert_int_equal(tc_do(f.port, "DELETE", dh, NULL, NULL, NULL), 204);
  const char *const ended[] = {"_session_duration_seconds_count{" V "} 1\n",
                               NULL};
  text = scrape_when(f.port, ended);
  check_series(text, "mcp_server_session_duration_seconds", V, 1);
  said = promtool_says(text);
  if (said)
    fail_msg("promtool check metrics:\n%s\non:\n%s", said, text);
  free(text);
  fixture_stop(&f);
}

/* What an unknown path gets, from source. */
static char *unknown_path(int port, const char *source) {
  char *body;
  assert_int_equal(fetch(port, source, "GET", "/nothing", NULL, &body, NULL),
                   404);
  return body;
}

static void test_outsiders_and_methods(void **state) {
  (void)state;
  fixture f;
  serve(&f, "/prom", "127.0.0.1/32");
  char *body, *unknown = unknown_path(f.port, "127.0.0.2");
  /* outside the list: the unknown-path answer, byte for byte */
  assert_int_equal(
      fetch(f.port, "127.0.0.2", "GET", "/prom", NULL, &body, NULL), 404);
  assert_string_equal(body, unknown);
  free(body);
  /* the default path is not served when another was chosen */
  assert_int_equal(
      fetch(f.port, "127.0.0.1", "GET", "/metrics", NULL, &body, NULL), 404);
  free(body);
  assert_int_equal(
      fetch(f.port, "127.0.0.1", "GET", "/prom", NULL, &body, NULL), 200);
  assert_non_null(strstr(body, "# TYPE " OP " histogram"));
  free(body);
  /* the Host and Origin checks stay (DNS rebinding, browsers) */
  char wrong_host[64];
  snprintf(wrong_host, sizeof wrong_host, "Origin: http://evil.example\r\n");
  assert_int_equal(
      fetch(f.port, "127.0.0.1", "GET", "/prom", wrong_host, &body, NULL), 403);
  free(body);
  tc_conn c;
  memset(&c, 0, sizeof c);
  c.content_length = -1;
  c.fd = connect_from("127.0.0.1", f.port);
  assert_true(tc_write_request(c.fd, "evil.example:80", "GET", "/prom", NULL,
                               NULL));
  assert_true(tc_read_head(&c, 5000));
  assert_int_equal(c.status, 403);
  tc_close(&c);
  /* GET only */
  char allow[64];
  memset(&c, 0, sizeof c);
  c.content_length = -1;
  c.fd = connect_from("127.0.0.1", f.port);
  char host[32];
  snprintf(host, sizeof host, "127.0.0.1:%d", f.port);
  assert_true(tc_write_request(c.fd, host, "POST", "/prom", NULL, "{}"));
  assert_true(tc_read_head(&c, 5000));
  assert_int_equal(c.status, 405);
  assert_non_null(tc_header(&c, "Allow", allow, sizeof allow));
  assert_string_equal(allow, "GET");
  tc_close(&c);
  free(unknown);
  fixture_stop(&f);

  /* the default list is loopback: 127.0.0.2 is in it */
  serve(&f, NULL, NULL);
  assert_int_equal(
      fetch(f.port, "127.0.0.2", "GET", "/metrics", NULL, &body, NULL), 200);
  free(body);
  fixture_stop(&f);
}

static void test_off_by_default(void **state) {
  (void)state;
  fixture f;
  serve(&f, "", NULL);
  char *body, *unknown = unknown_path(f.port, "127.0.0.1");
  assert_int_equal(
      fetch(f.port, "127.0.0.1", "GET", "/metrics", NULL, &body, NULL), 404);
  assert_string_equal(body, unknown);
  free(body);
  free(unknown);
  fixture_stop(&f);
}

/* With OTLP metrics on too, /metrics shows the same collection, and an
 * export the collector refuses counts in libmcp_telemetry_dropped_total. */
static void test_beside_otlp(void **state) {
  (void)state;
  fixture f;
  fixture_new_server(&f, "metrics-test");
  add_tool(f.server, "quick", quick, MCP_TASK_FORBIDDEN);
  setenv("OTEL_METRIC_EXPORT_INTERVAL", "50", 1);
  mcp_error_t err;
  /* port 1 on loopback: nothing listens, every export fails at once */
  assert_int_equal(mcp_server_enable_otlp_metrics(
                       f.server, "http://127.0.0.1:1/v1/metrics", NULL, &err),
                   MCP_OK);
  unsetenv("OTEL_METRIC_EXPORT_INTERVAL");
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_metrics(o, NULL, NULL), MCP_OK);
  fixture_serve(&f, o);
  char sid[64], hdr[512], *body = NULL;
  open_session_expecting(f.port, "metrics-test", sid);
  session_hdr(hdr, sizeof hdr, sid);
  assert_int_equal(
      tc_do(f.port, "POST", hdr,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
            "\"params\":{\"name\":\"quick\",\"arguments\":{}}}",
            &body, NULL),
      200);
  free(body);
  double dropped = 0;
  const char *const recorded[] = {"gen_ai_tool_name=\"quick\"," V "} 1\n",
                                  NULL};
  for (int i = 0; i < 200 && dropped < 1; i++) { /* up to 10 s */
    char *text = scrape_when(f.port, recorded);
    check_series(text, OP,
                 "mcp_method_name=\"tools/call\",gen_ai_tool_name=\"quick\","
                 V,
                 1);
    dropped = sample(text, "libmcp_telemetry_dropped_total");
    free(text);
    if (dropped < 1)
      sleep_ms(50);
  }
  assert_true(dropped >= 1);
  fixture_stop(&f);
}

/* With OAuth on, the endpoint asks no token (scrapers do not do OAuth),
 * and a client outside its list gets what an unknown path gets: 401. */
static void test_outside_oauth(void **state) {
  (void)state;
  char jwks[400];
  snprintf(jwks, sizeof jwks, "%s/jwks.json", mr_tmpdir);
  FILE *jf = fopen(jwks, "w");
  assert_non_null(jf);
  fputs("{\"keys\":[]}", jf);
  fclose(jf);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new("http://127.0.0.1/mcp", &a), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(a, "https://issuer.example"), MCP_OK);
  assert_int_equal(mcp_auth_set_jwks_file(a, jwks), MCP_OK);
  fixture f;
  fixture_new_server(&f, "metrics-test");
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_auth(o, a), MCP_OK);
  assert_int_equal(mcp_http_options_set_metrics(o, NULL, "127.0.0.1"),
                   MCP_OK);
  fixture_serve(&f, o);
  char *body, *unknown;
  assert_int_equal(tc_do(f.port, "POST", ACCEPT, INIT, NULL, NULL), 401);
  assert_int_equal(
      fetch(f.port, "127.0.0.1", "GET", "/metrics", NULL, &body, NULL), 200);
  assert_non_null(strstr(body, "# TYPE " OP " histogram"));
  free(body);
  int refused_status =
      fetch(f.port, "127.0.0.2", "GET", "/nothing", NULL, &unknown, NULL);
  assert_int_equal(refused_status, 401);
  assert_int_equal(
      fetch(f.port, "127.0.0.2", "GET", "/metrics", NULL, &body, NULL), 401);
  assert_string_equal(body, unknown);
  free(body);
  free(unknown);
  fixture_stop(&f);
  mcp_auth_free(a);
}

/* mcp_http_options_set_metrics(path, allow) is refused, and so is the start
 * with these options, with a message holding every needle. */
static void refused(const char *path, const char *allow, const char *needle,
                    const char *needle2) {
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_metrics(o, path, allow),
                   MCP_ERR_INVALID_ARG);
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("refused", "1", &s), MCP_OK);
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_http_server_start(s, o, &h, &err), MCP_ERR_INVALID_ARG);
  if (strstr(err.message, "mcp_http_options_set_metrics") == NULL ||
      strstr(err.message, needle) == NULL ||
      (needle2 && strstr(err.message, needle2) == NULL))
    fail_msg("the refusal does not name the culprit: %s", err.message);
  mcp_server_free(s);
  mcp_http_options_free(o);
}

static void test_bad_settings_refused(void **state) {
  (void)state;
  refused("metrics", NULL, "\"metrics\"", "start with '/'");
  refused("/mcp", NULL, "\"/mcp\"", "MCP endpoint");
  refused("/a b", NULL, "\"/a b\"", "space");
  refused("/metrics?x=1", NULL, "?x=1", NULL);
  refused("/.well-known/metrics", NULL, "/.well-known/", NULL);
  refused(NULL, "10.0.0.0/33", "\"10.0.0.0/33\"", "prefix");
  refused(NULL, "127.0.0.1/32, 10.0.0.1/8", "\"10.0.0.1/8\"", "beyond");
  refused(NULL, "127.0.0.1,localhost", "\"localhost\"", "address");
  refused(NULL, "::1/129", "\"::1/129\"", "prefix");
  refused(NULL, "10.0.0.0/x", "\"10.0.0.0/x\"", NULL);
  refused(NULL, " , ", "empty", NULL);

  /* a later good call wins; the endpoint moved onto the metrics path
   * after set_metrics is refused at start */
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_metrics(o, "x", NULL),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_metrics(o, "/m", "::1, 10.0.0.0/8"),
                   MCP_OK);
  assert_int_equal(mcp_http_options_set_endpoint(o, "/m"), MCP_OK);
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("refused", "1", &s), MCP_OK);
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_http_server_start(s, o, &h, &err), MCP_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "mcp_http_options_set_metrics"));
  assert_non_null(strstr(err.message, "\"/m\""));
  mcp_http_options_free(o);

  /* metrics are collected from the first request: a server already
   * serving without them cannot start collecting */
  o = base_options();
  mcp_server_set_log_handler(s, quiet_log, NULL);
  assert_int_equal(mcp_http_server_start(s, o, &h, &err), MCP_OK);
  mcp_http_server_t *second = NULL;
  assert_int_equal(mcp_http_options_set_metrics(o, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_http_server_start(s, o, &second, &err), MCP_ERR_STATE);
  assert_non_null(strstr(err.message, "mcp_http_options_set_metrics"));
  mcp_http_server_stop(h);
  mcp_http_options_free(o);
  mcp_server_free(s);
}

/* The demo's --metrics ALLOW: served, and a bad list stops it with a
 * message naming it. */
static void test_demo_flag(void **state) {
  (void)state;
  mr_demo_http d;
  mr_demo_http_init(&d, "metrics.db");
  char *argv[] = {d.bin,   "--http",  d.hp,      "--db",
                  d.db,    "--store", d.store,   "--metrics",
                  "127.0.0.1/32", NULL};
  pid_t pid = mr_start_http(argv, d.url);
  assert_true(pid > 0);
  const char *a[] = {"-u", d.url, "tools", "call", "add", "--args",
                     "{\"a\":1,\"b\":2}", NULL};
  assert_int_equal(mr_run(a, NULL, NULL), 0);
  int port = atoi(strrchr(d.hp, ':') + 1);
  const char *const recorded[] = {"gen_ai_tool_name=\"add\",", NULL};
  char *text = scrape_when(port, recorded);
  if (strstr(text, OP "_count{mcp_method_name=\"tools/call\","
                      "gen_ai_tool_name=\"add\",mcp_protocol_version=") ==
      NULL)
    fail_msg("no tools/call add series in:\n%s", text);
  free(text);
  char *body;
  assert_int_equal(
      fetch(port, "127.0.0.2", "GET", "/metrics", NULL, &body, NULL), 404);
  free(body);
  assert_true(mr_stop(pid));

  /* a malformed list: exit 1, the entry named on stderr */
  char err_path[400], cmd[4096];
  snprintf(err_path, sizeof err_path, "%s/demo.err", mr_tmpdir);
  snprintf(cmd, sizeof cmd,
           "cd %s && %s --http %s --db %s --metrics 10.0.0.1/8 "
           "</dev/null >/dev/null 2>%s",
           mr_tmpdir, d.bin, d.hp, d.db, err_path);
  int rc = system(cmd);
  assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
  char *said = tu_read_file(err_path, NULL);
  assert_non_null(said);
  if (strstr(said, "\"10.0.0.1/8\"") == NULL)
    fail_msg("the demo said: %s", said);
  free(said);
  /* and --help documents the flag */
  snprintf(cmd, sizeof cmd, "%s --help > %s 2>&1", d.bin, err_path);
  assert_int_equal(system(cmd), 0);
  said = tu_read_file(err_path, NULL);
  assert_non_null(strstr(said, "--metrics ALLOW"));
  free(said);
}

/* mcp-hello with args, stdin and stdout from /dev/null, stderr in *said
 * (new); its exit code. */
static int hello_says(const char *args, char **said) {
  char err_path[400], cmd[4096];
  snprintf(err_path, sizeof err_path, "%s/hello.err", mr_tmpdir);
  snprintf(cmd, sizeof cmd,
           "cd %s && %s/mcp-hello %s </dev/null >/dev/null 2>%s", mr_tmpdir,
           MCP_BIN_DIR, args, err_path);
  int rc = system(cmd);
  *said = tu_read_file(err_path, NULL);
  assert_non_null(*said);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* mcp_server_run's --metrics ALLOW (examples/hello): served to the list,
 * 404 outside it; a bad list, a bad path, --metrics without --http or
 * --metrics-path without --metrics stop it at start (exit 2) naming the
 * flag; --help documents them. */
static void test_run_flag(void **state) {
  (void)state;
  int port = mr_free_port();
  assert_true(port > 0);
  char hp[64], url[128], bin[1024];
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://%s/mcp", hp);
  snprintf(bin, sizeof bin, "%s/mcp-hello", MCP_BIN_DIR);
  char *argv[] = {bin, "--http", hp, "--metrics", "127.0.0.1/32", NULL};
  pid_t pid = mr_start_http(argv, url);
  assert_true(pid > 0);
  const char *a[] = {"-u", url, "tools", "call", "greet", "--args",
                     "{\"name\":\"run\"}", NULL};
  assert_int_equal(mr_run(a, NULL, NULL), 0);
  const char *const recorded[] = {"gen_ai_tool_name=\"greet\",", NULL};
  char *text = scrape_when(port, recorded);
  if (strstr(text, OP "_count{mcp_method_name=\"tools/call\","
                      "gen_ai_tool_name=\"greet\",mcp_protocol_version=") ==
      NULL)
    fail_msg("no tools/call greet series in:\n%s", text);
  assert_non_null(strstr(text, "target_info{service_name=\"hello\""));
  char *said = promtool_says(text);
  if (said)
    fail_msg("promtool check metrics:\n%s\non:\n%s", said, text);
  free(text);
  char *body;
  assert_int_equal(
      fetch(port, "127.0.0.2", "GET", "/metrics", NULL, &body, NULL), 404);
  free(body);
  assert_true(mr_stop(pid));

  static const struct {
    const char *args, *needle, *needle2;
  } bad[] = {
      {"--http 127.0.0.1:0 --metrics 10.0.0.1/8", "--metrics:",
       "\"10.0.0.1/8\""},
      {"--http 127.0.0.1:0 --metrics=127.0.0.1,localhost", "--metrics:",
       "\"localhost\""},
      {"--http 127.0.0.1:0 --metrics ::1 --metrics-path metrics",
       "--metrics-path:", "'/'"},
      {"--metrics 127.0.0.1/32", "--metrics needs --http", NULL},
      {"--http 127.0.0.1:0 --metrics-path /m", "--metrics-path needs --metrics",
       NULL},
      {"--http 127.0.0.1:0 --metrics", "missing value for --metrics", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = hello_says(bad[i].args, &said);
    if (rc != 2 || strstr(said, bad[i].needle) == NULL ||
        (bad[i].needle2 && strstr(said, bad[i].needle2) == NULL))
      fail_msg("mcp-hello %s: exit %d, said: %s", bad[i].args, rc, said);
    free(said);
  }
  char cmd[2048], out[400];
  snprintf(out, sizeof out, "%s/hello.help", mr_tmpdir);
  snprintf(cmd, sizeof cmd, "%s --help > %s 2>&1", bin, out);
  assert_int_equal(system(cmd), 0);
  said = tu_read_file(out, NULL);
  assert_non_null(strstr(said, "--metrics ALLOW"));
  assert_non_null(strstr(said, "--metrics-path PATH"));
  free(said);
}

static int setup(void **state) {
  (void)state;
  return mr_setup("http-metrics");
}

static int teardown(void **state) {
  (void)state;
  mr_teardown();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scrape_counts_and_buckets),
      cmocka_unit_test(test_outsiders_and_methods),
      cmocka_unit_test(test_off_by_default),
      cmocka_unit_test(test_outside_oauth),
      cmocka_unit_test(test_beside_otlp),
      cmocka_unit_test(test_bad_settings_refused),
      cmocka_unit_test(test_demo_flag),
      cmocka_unit_test(test_run_flag),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
