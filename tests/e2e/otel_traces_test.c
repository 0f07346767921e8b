/* SPDX-License-Identifier: MIT */
/* otel_traces_test.c - OpenTelemetry traces and metrics (issue #26 item 4)
 * against a receiver that decodes what libmcp sends with the official OTLP
 * definitions (tests/e2e/otlp_receiver.py: PyPI opentelemetry-proto in a
 * venv; protobuf bodies by ExportTraceServiceRequest.FromString and
 * canonical, JSON bodies by json_format.Parse into the same types): a
 * 2026-07-28 tools/call carrying a traceparent yields one SERVER span with
 * that trace id and parent, named "tools/call greet", with the semantic
 * conventions' attributes; errors and isError results set error.type; a
 * 2025-11-25 session call carries mcp.session.id; stdio spans say pipe;
 * nothing is sent when tracing is off or the sampler drops the trace; the
 * mcp.server.operation.duration histogram arrives with the conventions'
 * buckets, mcp.server.session.duration when a session ends, and the
 * dropped-telemetry counter; mcpc's CLIENT span is the server span's
 * parent; mcpc's histograms, task spans with links, the HTTP traceparent
 * header. Those go as http/protobuf (the default); the demo server's
 * `tools/call add` is checked in both encodings (OTEL_EXPORTER_OTLP_
 * PROTOCOL=http/json, and per signal); grpc is refused naming it; the
 * encoder's bytes for a fixed span decode with the official classes; the
 * per-signal endpoints, headers, resource attributes and sampler argument
 * reach mcp_server_run from the environment.
 * Server: examples/hello and examples/demo through mcp_server_run (which
 * reads the OTEL_* environment); client: mcpc request. Exit 77 (skipped)
 * when the venv cannot be made (offline), unless CI=true. */
#include "mcpc_run.h"

#include "telemetry/otlp_pb.h"

#define TRACE_ID "0af7651916cd43dd8448eb211c80319c"
#define PARENT   "b7ad6b7169203331"

/* the receiver's venv (PyPI opentelemetry-proto), kept in the build tree */
#define RECEIVER MCP_SOURCE_DIR "/tests/e2e/otlp_receiver.py"
#define VENV MCP_BIN_DIR "/../tests/otlp-venv"

static char hello_bin[1100], demo_bin[1100], spans_path[400], endpoint[128];
static pid_t receiver = -1;
/* the encoding the spans and points looked for were sent in ("protobuf",
 * "json"; NULL: either) */
static const char *want_encoding;

/* Starts the receiver (making its venv on first use: up to minutes);
 * 0, -1 on failure, 77 when it skipped (no venv, offline). */
static int start_receiver(void) {
  if (mr_setup("otel-traces") != 0)
    return -1;
  snprintf(hello_bin, sizeof hello_bin, "%s/mcp-hello", MCP_BIN_DIR);
  snprintf(demo_bin, sizeof demo_bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  snprintf(spans_path, sizeof spans_path, "%s/spans.jsonl", mr_tmpdir);
  int out[2];
  if (pipe(out) != 0)
    return -1;
  pid_t parent = getpid();
  receiver = fork();
  if (receiver == 0) {
    tu_child_dies_with(parent);
    dup2(out[1], 1);
    close(out[0]);
    execlp("python3", "python3", RECEIVER, spans_path, "--venv", VENV,
           (char *)NULL);
    _exit(127);
  }
  close(out[1]);
  tu_proc p = {.pid = receiver, .in_fd = -1, .out_fd = out[0]};
  char *line = tu_proc_read_line(&p, 300000);
  int port = line && strncmp(line, "PORT ", 5) == 0 ? atoi(line + 5) : 0;
  free(line);
  free(p.buf);
  close(out[0]);
  if (port <= 0) {
    int status = 0;
    kill(receiver, SIGKILL);
    waitpid(receiver, &status, 0);
    receiver = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 77 ? 77 : -1;
  }
  snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", port);
  return 0;
}

static int setup(void **state) {
  (void)state;
  return receiver > 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  if (receiver > 0) {
    kill(receiver, SIGKILL);
    waitpid(receiver, NULL, 0);
  }
  mr_teardown();
  return 0;
}

/* The server's environment: tracing to the receiver, exported at once. */
static void trace_env(bool on) {
  if (on) {
    setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint, 1);
    setenv("OTEL_BSP_SCHEDULE_DELAY", "50", 1);
    setenv("OTEL_METRIC_EXPORT_INTERVAL", "100", 1);
    setenv("OTEL_SERVICE_NAME", "otel-test", 1);
  } else {
    unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT");
  }
  unsetenv("OTEL_TRACES_SAMPLER");
  unsetenv("OTEL_EXPORTER_OTLP_PROTOCOL");
  unsetenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
  unsetenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL");
}

/* The metrics of the processes started from here on (mcpc, and a server
 * it runs over a pipe) go out once, when they stop: each data point then
 * arrives in one export with every value its process recorded, which the
 * exact checks below compare. (A stop during a periodic export is
 * metrics_stop_test's.) */
static void metrics_at_stop_only(void) {
  setenv("OTEL_METRIC_EXPORT_INTERVAL", "600000", 1);
}

/* The decoded spans received so far named name of kind (2 SERVER, 3
 * CLIENT; array, new). */
static json_t *spans_of(const char *name, int kind) {
  json_t *found = json_array();
  char *text = tu_read_file(spans_path, NULL);
  for (char *line = text ? strtok(text, "\n") : NULL; line;
       line = strtok(NULL, "\n")) {
    json_t *s = json_loads(line, 0, NULL);
    assert_non_null(s);
    if (json_object_get(s, "error"))
      fail_msg("the receiver refused a body: %s", line);
    const char *n =
        json_string_value(json_object_get(json_object_get(s, "span"), "name"));
    const char *enc = json_string_value(json_object_get(s, "encoding"));
    if (n && strcmp(n, name) == 0 &&
        (want_encoding == NULL || strcmp(enc, want_encoding) == 0) &&
        json_integer_value(json_object_get(json_object_get(s, "span"),
                                           "kind")) == kind)
      json_array_append(found, s);
    json_decref(s);
  }
  free(text);
  return found;
}

static json_t *spans_named(const char *name) {
  return spans_of(name, 2);
}

/* Waits (10 s at most) for a span of kind named name with attribute key =
 * value (value NULL: any); returns it (new). */
static json_t *wait_kind(int kind, const char *name, const char *key,
                         const char *value) {
  for (int i = 0; i < 200; i++) {
    json_t *all = spans_of(name, kind);
    size_t k;
    json_t *s;
    json_array_foreach(all, k, s) {
      const char *v = json_string_value(
          json_object_get(json_object_get(s, "attributes"), key));
      if (v && (value == NULL || strcmp(v, value) == 0)) {
        json_incref(s);
        json_decref(all);
        return s;
      }
    }
    json_decref(all);
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
  }
  fail_msg("no span \"%s\" of kind %d with %s=%s arrived", name, kind, key,
           value ? value : "*");
  return NULL;
}

/* A SERVER span (see wait_kind). */
static json_t *wait_span(const char *name, const char *key,
                         const char *value) {
  return wait_kind(2, name, key, value);
}

/* Waits (10 s at most) for a data point of metric whose attributes
 * include key = value (value NULL: any) and transport = network.transport;
 * returns the decoded line (new). */
static json_t *wait_metric_with(const char *metric, const char *key,
                                const char *value, const char *transport) {
  for (int i = 0; i < 200; i++) {
    char *text = tu_read_file(spans_path, NULL);
    json_t *found = NULL;
    for (char *line = text ? strtok(text, "\n") : NULL; line && !found;
         line = strtok(NULL, "\n")) {
      json_t *s = json_loads(line, 0, NULL);
      assert_non_null(s);
      if (json_object_get(s, "error"))
        fail_msg("the receiver refused a body: %s", line);
      json_t *a = json_object_get(s, "attributes");
      const char *name = json_string_value(json_object_get(s, "metric"));
      const char *t = json_string_value(json_object_get(a, key));
      const char *n =
          json_string_value(json_object_get(a, "network.transport"));
      const char *enc = json_string_value(json_object_get(s, "encoding"));
      if (name && strcmp(name, metric) == 0 &&
          (want_encoding == NULL || strcmp(enc, want_encoding) == 0) &&
          (value == NULL || (t && strcmp(t, value) == 0)) &&
          (transport == NULL || (n && strcmp(n, transport) == 0)))
        found = json_incref(s);
      json_decref(s);
    }
    free(text);
    if (found)
      return found;
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
  }
  fail_msg("no data point of %s (%s %s, transport %s) arrived", metric, key,
           value ? value : "*", transport ? transport : "*");
  return NULL;
}

/* A data point of metric for tool = gen_ai.tool.name (see
 * wait_metric_with). */
static json_t *wait_metric(const char *metric, const char *tool,
                           const char *transport) {
  return wait_metric_with(metric, "gen_ai.tool.name", tool, transport);
}

/* Waits (10 s at most) for a data point of metric whose attributes are
 * exactly attrs (a JSON object: every key, every value, nothing more);
 * fails listing the attribute sets of metric that did arrive. */
static void wait_metric_exact(const char *metric, const char *attrs) {
  json_t *want = json_loads(attrs, 0, NULL);
  assert_non_null(want);
  json_t *seen = json_array();
  for (int i = 0; i < 200; i++) {
    json_array_clear(seen);
    char *text = tu_read_file(spans_path, NULL);
    bool found = false;
    for (char *line = text ? strtok(text, "\n") : NULL; line && !found;
         line = strtok(NULL, "\n")) {
      json_t *s = json_loads(line, 0, NULL);
      assert_non_null(s);
      if (json_object_get(s, "error"))
        fail_msg("the receiver refused a body: %s", line);
      const char *name = json_string_value(json_object_get(s, "metric"));
      const char *enc = json_string_value(json_object_get(s, "encoding"));
      json_t *a = json_object_get(s, "attributes");
      if (name && strcmp(name, metric) == 0 &&
          (want_encoding == NULL || strcmp(enc, want_encoding) == 0)) {
        found = json_equal(a, want);
        json_array_append(seen, a);
      }
      json_decref(s);
    }
    free(text);
    if (found) {
      json_decref(seen);
      json_decref(want);
      return;
    }
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
  }
  char *got = json_dumps(seen, JSON_COMPACT);
  char why[4096];
  snprintf(why, sizeof why, "no data point of %s with exactly %s; its "
           "points: %s", metric, attrs, got ? got : "?");
  free(got);
  json_decref(seen);
  json_decref(want);
  fail_msg("%s", why);
}

static const char *attr(json_t *span, const char *key) {
  return json_string_value(
      json_object_get(json_object_get(span, "attributes"), key));
}

static json_int_t int_attr(json_t *span, const char *key) {
  json_t *v = json_object_get(json_object_get(span, "attributes"), key);
  if (!json_is_integer(v))
    fail_msg("attribute %s is not an intValue", key);
  return json_integer_value(v);
}

static bool has_attr(json_t *span, const char *key) {
  return json_object_get(json_object_get(span, "attributes"), key) != NULL;
}

static void truncate_spans(void) {
  FILE *f = fopen(spans_path, "w");
  if (f)
    fclose(f);
}

static void test_http_spans(void **state) {
  (void)state;
  trace_env(true);
  want_encoding = "protobuf"; /* the default */
  int port = mr_free_port();
  char hp[64], url[128];
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://%s/mcp", hp);
  char *argv[] = {hello_bin, "--http", hp, NULL};
  pid_t pid = mr_start_http(argv, url);
  assert_true(pid > 0);
  metrics_at_stop_only(); /* mcpc's: the server's keep their interval */
  char *out = NULL;
  /* 2026-07-28, continuing the caller's trace */
  MR_RUN(0, &out, "-u", url, "request", "tools/call",
         "{\"name\":\"greet\",\"arguments\":{\"name\":\"otel\"},\"_meta\":{"
         "\"traceparent\":\"00-" TRACE_ID "-" PARENT "-01\","
         "\"tracestate\":\"vendor=1\"}}");
  free(out);
  json_t *s = wait_span("tools/call greet", "mcp.protocol.version",
                        "2026-07-28");
  json_t *span = json_object_get(s, "span");
  /* mcpc's CLIENT span continues the caller's trace, the server's SERVER
   * span continues mcpc's (its traceparent in _meta) */
  json_t *cs = wait_kind(3, "tools/call greet", "network.transport", "tcp");
  json_t *client = json_object_get(cs, "span");
  assert_string_equal(json_string_value(json_object_get(client, "traceId")),
                      TRACE_ID);
  assert_string_equal(
      json_string_value(json_object_get(client, "parentSpanId")), PARENT);
  assert_string_equal(json_string_value(json_object_get(span, "traceId")),
                      TRACE_ID);
  assert_string_equal(
      json_string_value(json_object_get(span, "parentSpanId")),
      json_string_value(json_object_get(client, "spanId")));
  assert_string_equal(attr(cs, "gen_ai.tool.name"), "greet");
  assert_string_equal(attr(cs, "gen_ai.operation.name"), "execute_tool");
  assert_string_equal(attr(cs, "mcp.protocol.version"), "2026-07-28");
  /* the CLIENT span names the server it called */
  assert_string_equal(attr(cs, "server.address"), "127.0.0.1");
  assert_int_equal(int_attr(cs, "server.port"), port);
  json_decref(cs);
  assert_string_equal(json_string_value(json_object_get(span, "traceState")),
                      "vendor=1");
  assert_int_equal(json_integer_value(json_object_get(span, "kind")), 2);
  assert_null(json_object_get(span, "status"));
  assert_string_equal(attr(s, "mcp.method.name"), "tools/call");
  assert_string_equal(attr(s, "gen_ai.tool.name"), "greet");
  assert_string_equal(attr(s, "gen_ai.operation.name"), "execute_tool");
  assert_string_equal(attr(s, "jsonrpc.request.id"), "2");
  assert_string_equal(attr(s, "network.transport"), "tcp");
  assert_string_equal(attr(s, "network.protocol.name"), "http");
  assert_null(attr(s, "error.type"));
  /* the connection: HTTP/1.1, the Host the client named, its address */
  assert_string_equal(attr(s, "network.protocol.version"), "1.1");
  assert_string_equal(attr(s, "server.address"), "127.0.0.1");
  assert_int_equal(int_attr(s, "server.port"), port);
  assert_string_equal(attr(s, "client.address"), "127.0.0.1");
  assert_true(int_attr(s, "client.port") > 0);
  assert_null(json_object_get(span, "links")); /* no traceparent header */
  json_t *resource = json_object_get(s, "resource");
  assert_string_equal(
      json_string_value(json_object_get(resource, "service.name")),
      "otel-test");
  assert_string_equal(json_string_value(json_object_get(s, "scope")),
                      "libmcp");
  json_decref(s);
  /* a JSON-RPC error: its code as error.type and status code, span ERROR */
  MR_RUN(3, NULL, "-u", url, "request", "no/such");
  s = wait_span("no/such", "error.type", "-32601");
  assert_string_equal(attr(s, "rpc.response.status_code"), "-32601");
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(json_object_get(s, "span"), "status"),
                       "code")),
                   2);
  json_decref(s);
  /* an isError result */
  MR_RUN(1, NULL, "-u", url, "request", "tools/call",
         "{\"name\":\"greet\",\"arguments\":{}}");
  json_decref(wait_span("tools/call greet", "error.type", "tool_error"));
  /* 2025-11-25: the session's id */
  MR_RUN(0, NULL, "--protocol", "2025-11-25", "-u", url, "request",
         "tools/call", "{\"name\":\"greet\",\"arguments\":{\"name\":\"s\"}}");
  s = wait_span("tools/call greet", "mcp.protocol.version", "2025-11-25");
  assert_int_equal(strlen(attr(s, "mcp.session.id")), 36);
  /* no traceparent from the caller: mcpc's span starts the trace, the
   * server's is its child */
  json_t *cs2 = wait_kind(3, "tools/call greet", "mcp.protocol.version",
                          "2025-11-25");
  assert_null(json_object_get(json_object_get(cs2, "span"), "parentSpanId"));
  assert_string_equal(
      json_string_value(
          json_object_get(json_object_get(s, "span"), "parentSpanId")),
      json_string_value(
          json_object_get(json_object_get(cs2, "span"), "spanId")));
  json_decref(cs2);
  json_decref(s);
  /* the duration histogram: the conventions' buckets, in seconds */
  json_t *m = wait_metric("mcp.server.operation.duration", "greet", "tcp");
  json_t *point = json_object_get(m, "point");
  const double bounds[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
                           2,    5,    10,   30,  60,  120, 300};
  json_t *eb = json_object_get(point, "explicitBounds");
  assert_int_equal(json_array_size(eb), 14);
  for (size_t i = 0; i < 14; i++)
    assert_true(json_number_value(json_array_get(eb, i)) == bounds[i]);
  assert_true(atoi(json_string_value(json_object_get(point, "count"))) >= 1);
  assert_true(json_number_value(json_object_get(point, "sum")) < 10);
  assert_string_equal(
      attr(m, "mcp.method.name"), "tools/call");
  json_decref(m);
  json_decref(wait_metric("libmcp.telemetry.dropped", NULL, NULL));
  /* its initialize, with the version it negotiated */
  m = wait_metric_with("mcp.server.operation.duration", "mcp.method.name",
                       "initialize", "tcp");
  const char *negotiated = attr(m, "mcp.protocol.version");
  if (negotiated == NULL || strcmp(negotiated, "2025-11-25") != 0)
    fail_msg("initialize's data point has mcp.protocol.version %s",
             negotiated ? negotiated : "(none)");
  json_decref(m);
  /* the 2025-11-25 session above ended (mcpc sent DELETE): its duration */
  m = wait_metric("mcp.server.session.duration", NULL, "tcp");
  assert_string_equal(attr(m, "mcp.protocol.version"), "2025-11-25");
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(m, "point"), "count")),
      "1");
  json_decref(m);
  /* mcpc's own histograms (it read the same environment): the request's
   * duration with the server's attributes, and its session's */
  m = wait_metric("mcp.client.operation.duration", "greet", "tcp");
  point = json_object_get(m, "point");
  eb = json_object_get(point, "explicitBounds");
  assert_int_equal(json_array_size(eb), 14);
  for (size_t i = 0; i < 14; i++)
    assert_true(json_number_value(json_array_get(eb, i)) == bounds[i]);
  assert_string_equal(attr(m, "mcp.method.name"), "tools/call");
  assert_non_null(attr(m, "mcp.protocol.version"));
  assert_true(json_number_value(json_object_get(point, "sum")) < 10);
  json_decref(m);
  m = wait_metric("mcp.client.operation.duration", NULL, NULL);
  json_decref(m);
  m = wait_metric("mcp.client.session.duration", NULL, "tcp");
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(m, "point"), "count")),
      "1");
  assert_null(attr(m, "error.type"));
  json_decref(m);
  /* every attribute of mcpc's data points, exactly: the request that
   * succeeded, the JSON-RPC error, the isError result, the 2025-11-25
   * session's request, and the sessions */
  wait_metric_exact("mcp.client.operation.duration",
                    "{\"mcp.method.name\":\"tools/call\","
                    "\"gen_ai.tool.name\":\"greet\","
                    "\"mcp.protocol.version\":\"2026-07-28\","
                    "\"network.transport\":\"tcp\"}");
  wait_metric_exact("mcp.client.operation.duration",
                    "{\"mcp.method.name\":\"no/such\","
                    "\"error.type\":\"-32601\","
                    "\"mcp.protocol.version\":\"2026-07-28\","
                    "\"network.transport\":\"tcp\"}");
  wait_metric_exact("mcp.client.operation.duration",
                    "{\"mcp.method.name\":\"tools/call\","
                    "\"gen_ai.tool.name\":\"greet\","
                    "\"error.type\":\"tool_error\","
                    "\"mcp.protocol.version\":\"2026-07-28\","
                    "\"network.transport\":\"tcp\"}");
  wait_metric_exact("mcp.client.operation.duration",
                    "{\"mcp.method.name\":\"tools/call\","
                    "\"gen_ai.tool.name\":\"greet\","
                    "\"mcp.protocol.version\":\"2025-11-25\","
                    "\"network.transport\":\"tcp\"}");
  wait_metric_exact("mcp.client.session.duration",
                    "{\"mcp.protocol.version\":\"2026-07-28\","
                    "\"network.transport\":\"tcp\"}");
  wait_metric_exact("mcp.client.session.duration",
                    "{\"mcp.protocol.version\":\"2025-11-25\","
                    "\"network.transport\":\"tcp\"}");
  assert_true(mr_stop(pid));
  trace_env(false);
}

/* The HTTP request's own traceparent header: the server span's parent when
 * _meta names none, a link when it does. mcpc itself does not trace here
 * (it would put its own traceparent into _meta). */
#define HDR_TRACE "4bf92f3577b34da6a3ce929d0e0e4736"
#define HDR_SPAN  "00f067aa0ba902b7"
static void test_http_traceparent_header(void **state) {
  (void)state;
  truncate_spans();
  trace_env(true);
  int port = mr_free_port();
  char hp[64], url[128];
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://%s/mcp", hp);
  char *argv[] = {hello_bin, "--http", hp, NULL};
  pid_t pid = mr_start_http(argv, url);
  assert_true(pid > 0);
  setenv("OTEL_TRACES_EXPORTER", "none", 1); /* mcpc's, not the server's */
  MR_RUN(0, NULL, "-u", url, "-H",
         "traceparent: 00-" HDR_TRACE "-" HDR_SPAN "-01", "request",
         "tools/call", "{\"name\":\"greet\",\"arguments\":{\"name\":\"h\"}}");
  json_t *s = wait_span("tools/call greet", "mcp.protocol.version", NULL);
  json_t *span = json_object_get(s, "span");
  assert_string_equal(json_string_value(json_object_get(span, "traceId")),
                      HDR_TRACE);
  assert_string_equal(
      json_string_value(json_object_get(span, "parentSpanId")), HDR_SPAN);
  assert_null(json_object_get(span, "links"));
  json_decref(s);
  truncate_spans();
  /* both: _meta's is the parent, the header's a link */
  MR_RUN(0, NULL, "-u", url, "-H",
         "traceparent: 00-" HDR_TRACE "-" HDR_SPAN "-01", "request",
         "tools/call",
         "{\"name\":\"greet\",\"arguments\":{\"name\":\"m\"},\"_meta\":{"
         "\"traceparent\":\"00-" TRACE_ID "-" PARENT "-01\"}}");
  s = wait_span("tools/call greet", "mcp.protocol.version", NULL);
  span = json_object_get(s, "span");
  assert_string_equal(json_string_value(json_object_get(span, "traceId")),
                      TRACE_ID);
  assert_string_equal(
      json_string_value(json_object_get(span, "parentSpanId")), PARENT);
  json_t *links = json_object_get(span, "links");
  assert_int_equal(json_array_size(links), 1);
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(links, 0), "traceId")),
                      HDR_TRACE);
  assert_string_equal(json_string_value(json_object_get(
                          json_array_get(links, 0), "spanId")),
                      HDR_SPAN);
  json_decref(s);
  unsetenv("OTEL_TRACES_EXPORTER");
  assert_true(mr_stop(pid));
  trace_env(false);
}

/* A tools/call that becomes a task: its work gets an INTERNAL span
 * "tasks/run TOOL", child of the request's SERVER span, with the task's id
 * and terminal status; a cancelled task's says error.type=cancelled. */
static void test_task_spans(void **state) {
  (void)state;
  truncate_spans();
  trace_env(true);
  mr_demo_http demo;
  mr_demo_http_init(&demo, "otel-tasks.db");
  pid_t pid = mr_start_http(demo.argv, demo.url);
  assert_true(pid > 0);
  char *out = NULL;
  MR_RUN(0, &out, "--protocol", "2025-11-25", "-u", demo.url, "tools", "call",
         "start_long_export", "--task", "--wait", "--args",
         "{\"seconds\": 0.2}");
  free(out);
  json_t *t = wait_kind(1, "tasks/run start_long_export", "mcp.task.status",
                        "completed");
  json_t *req = wait_span("tools/call start_long_export", "mcp.method.name",
                          "tools/call");
  json_t *ts = json_object_get(t, "span"), *rs = json_object_get(req, "span");
  assert_string_equal(json_string_value(json_object_get(ts, "traceId")),
                      json_string_value(json_object_get(rs, "traceId")));
  assert_string_equal(json_string_value(json_object_get(ts, "parentSpanId")),
                      json_string_value(json_object_get(rs, "spanId")));
  assert_string_equal(attr(t, "mcp.method.name"), "tools/call");
  assert_string_equal(attr(t, "gen_ai.tool.name"), "start_long_export");
  assert_int_equal(strlen(attr(t, "mcp.task.id")) > 0, 1);
  assert_null(attr(t, "error.type"));
  assert_null(json_object_get(ts, "status"));
  json_decref(t);
  json_decref(req);
  /* cancelled while it runs */
  MR_RUN(0, &out, "--protocol", "2025-11-25", "-u", demo.url, "tools", "call",
         "start_long_export", "--task", "--ttl", "600000", "--args",
         "{\"seconds\": 30}");
  char id[128];
  assert_int_equal(sscanf(out, "task %127s", id), 1);
  free(out);
  MR_RUN(0, NULL, "--protocol", "2025-11-25", "-u", demo.url, "tasks",
         "cancel", id);
  t = wait_kind(1, "tasks/run start_long_export", "mcp.task.status",
                "cancelled");
  assert_string_equal(attr(t, "mcp.task.id"), id);
  assert_string_equal(attr(t, "error.type"), "cancelled");
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(json_object_get(t, "span"), "status"),
                       "code")),
                   2);
  json_decref(t);
  /* 2026-07-28 (the tasks extension): the same span */
  MR_RUN(0, &out, "-u", demo.url, "tools", "call", "start_long_export",
         "--args", "{\"seconds\": 0.2}");
  free(out);
  t = wait_kind(1, "tasks/run start_long_export", "mcp.protocol.version",
                "2026-07-28");
  assert_string_equal(attr(t, "mcp.task.status"), "completed");
  json_decref(t);
  assert_true(mr_stop(pid));
  trace_env(false);
  want_encoding = NULL;
}

/* The demo server's 2026-07-28 `tools/call add` with the caller's
 * traceparent, exported in encoding (traces_protocol and
 * metrics_protocol: the environment, NULL unset): one SERVER span with
 * that parent, its name and attributes, and a data point of
 * mcp.server.operation.duration for add, both received in encoding. */
static void check_add(const char *protocol, const char *traces_protocol,
                      const char *metrics_protocol, const char *encoding,
                      const char *metrics_encoding) {
  truncate_spans();
  trace_env(true);
  if (protocol)
    setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol, 1);
  if (traces_protocol)
    setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", traces_protocol, 1);
  if (metrics_protocol)
    setenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", metrics_protocol, 1);
  mr_demo_http d;
  mr_demo_http_init(&d, "otel-add.db");
  pid_t pid = mr_start_http(d.argv, d.url);
  assert_true(pid > 0);
  char *out = NULL;
  MR_RUN(0, &out, "-u", d.url, "request", "tools/call",
         "{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3},\"_meta\":{"
         "\"traceparent\":\"00-" TRACE_ID "-" PARENT "-01\"}}");
  assert_non_null(strstr(out, "5"));
  free(out);
  want_encoding = encoding;
  json_t *s = wait_span("tools/call add", "mcp.protocol.version",
                        "2026-07-28");
  json_t *span = json_object_get(s, "span");
  assert_string_equal(json_string_value(json_object_get(s, "encoding")),
                      encoding);
  assert_string_equal(json_string_value(json_object_get(span, "traceId")),
                      TRACE_ID);
  /* the parent is mcpc's CLIENT span, itself the caller's child */
  json_t *cs = wait_kind(3, "tools/call add", "network.transport", "tcp");
  json_t *client = json_object_get(cs, "span");
  assert_string_equal(
      json_string_value(json_object_get(client, "parentSpanId")), PARENT);
  assert_string_equal(
      json_string_value(json_object_get(span, "parentSpanId")),
      json_string_value(json_object_get(client, "spanId")));
  json_decref(cs);
  assert_int_equal(json_integer_value(json_object_get(span, "kind")), 2);
  assert_string_equal(attr(s, "mcp.method.name"), "tools/call");
  assert_string_equal(attr(s, "gen_ai.tool.name"), "add");
  assert_string_equal(attr(s, "gen_ai.operation.name"), "execute_tool");
  assert_string_equal(attr(s, "jsonrpc.request.id"), "2");
  assert_string_equal(attr(s, "network.transport"), "tcp");
  assert_string_equal(attr(s, "network.protocol.name"), "http");
  assert_null(attr(s, "error.type"));
  assert_null(json_object_get(span, "status"));
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(s, "resource"),
                                        "service.name")),
      "otel-test");
  json_t *one = spans_named("tools/call add");
  assert_int_equal(json_array_size(one), 1);
  json_decref(one);
  json_decref(s);
  want_encoding = metrics_encoding;
  json_t *m = wait_metric("mcp.server.operation.duration", "add", "tcp");
  json_t *point = json_object_get(m, "point");
  assert_string_equal(attr(m, "mcp.method.name"), "tools/call");
  assert_string_equal(attr(m, "mcp.protocol.version"), "2026-07-28");
  assert_int_equal(json_array_size(json_object_get(point, "bucketCounts")),
                   15);
  assert_string_equal(json_string_value(json_object_get(point, "count")),
                      "1");
  assert_true(json_number_value(json_object_get(point, "sum")) >= 0);
  json_decref(m);
  want_encoding = NULL;
  assert_true(mr_stop(pid));
  trace_env(false);
}

static void test_add_protobuf(void **state) {
  (void)state;
  check_add("http/protobuf", NULL, NULL, "protobuf", "protobuf");
}

static void test_add_json(void **state) {
  (void)state;
  check_add("http/json", NULL, NULL, "json", "json");
}

/* the per-signal variables win over the general one */
static void test_add_per_signal(void **state) {
  (void)state;
  check_add("http/json", "http/protobuf", NULL, "protobuf", "json");
  check_add(NULL, NULL, "http/json", "protobuf", "json");
}

/* The encoder's bytes for a fixed span (as in otlp_pb_test), decoded by
 * the official classes: every field where it was put. */
static void test_encoder_bytes_official(void **state) {
  (void)state;
  static const char json[] =
      "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":"
      "\"service.name\",\"value\":{\"stringValue\":\"s\"}}]},"
      "\"scopeSpans\":[{\"scope\":{\"name\":\"libmcp\",\"version\":\"1\"},"
      "\"spans\":[{\"traceId\":\"" TRACE_ID "\",\"spanId\":"
      "\"80908896df099a3d\",\"parentSpanId\":\"" PARENT "\","
      "\"traceState\":\"v=1\",\"name\":\"tools/call add\",\"kind\":2,"
      "\"startTimeUnixNano\":\"1796413892629776310\","
      "\"endTimeUnixNano\":\"1796413892630073332\",\"attributes\":["
      "{\"key\":\"n\",\"value\":{\"intValue\":\"-1\"}},"
      "{\"key\":\"b\",\"value\":{\"boolValue\":true}},"
      "{\"key\":\"d\",\"value\":{\"doubleValue\":0.5}},"
      "{\"key\":\"s\",\"value\":{\"stringValue\":\"x\"}}],"
      "\"status\":{\"code\":2}}]}]}]}";
  mcp__buf pb;
  mcp__buf_init(&pb);
  char why[200] = "";
  if (!mcp__otlp_json_to_pb(json, strlen(json), &pb, why, sizeof why))
    fail_msg("refused: %s", why);
  char hexpath[500], cmd[2000];
  snprintf(hexpath, sizeof hexpath, "%s/span.hex", mr_tmpdir);
  FILE *f = fopen(hexpath, "w");
  assert_non_null(f);
  for (size_t i = 0; i < pb.len; i++)
    fprintf(f, "%02x", (unsigned char)pb.data[i]);
  fclose(f);
  mcp__buf_free(&pb);
  snprintf(cmd, sizeof cmd, "python3 %s --check-pb %s --venv %s", RECEIVER,
           hexpath, VENV);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, p);
  text[n] = '\0';
  assert_int_equal(pclose(p), 0);
  json_t *req = json_loads(text, 0, NULL);
  assert_non_null(req);
  json_t *rs = json_array_get(json_object_get(req, "resourceSpans"), 0);
  json_t *ss = json_array_get(json_object_get(rs, "scopeSpans"), 0);
  json_t *sp = json_array_get(json_object_get(ss, "spans"), 0);
  assert_string_equal(
      json_string_value(json_object_get(json_object_get(ss, "scope"),
                                        "version")),
      "1");
  assert_string_equal(json_string_value(json_object_get(sp, "traceId")),
                      TRACE_ID);
  assert_string_equal(json_string_value(json_object_get(sp, "spanId")),
                      "80908896df099a3d");
  assert_string_equal(json_string_value(json_object_get(sp, "parentSpanId")),
                      PARENT);
  assert_string_equal(json_string_value(json_object_get(sp, "traceState")),
                      "v=1");
  assert_string_equal(json_string_value(json_object_get(sp, "name")),
                      "tools/call add");
  assert_int_equal(json_integer_value(json_object_get(sp, "kind")), 2);
  assert_string_equal(
      json_string_value(json_object_get(sp, "startTimeUnixNano")),
      "1796413892629776310");
  assert_string_equal(
      json_string_value(json_object_get(sp, "endTimeUnixNano")),
      "1796413892630073332");
  assert_int_equal(json_integer_value(json_object_get(
                       json_object_get(sp, "status"), "code")),
                   2);
  /* the attributes: all four value types, as the JSON said */
  char *attrs = json_dumps(json_object_get(sp, "attributes"), JSON_COMPACT);
  assert_string_equal(
      attrs, "[{\"key\":\"n\",\"value\":{\"intValue\":\"-1\"}},"
             "{\"key\":\"b\",\"value\":{\"boolValue\":true}},"
             "{\"key\":\"d\",\"value\":{\"doubleValue\":0.5}},"
             "{\"key\":\"s\",\"value\":{\"stringValue\":\"x\"}}]");
  free(attrs);
  json_decref(req);
}

static void test_stdio_spans_and_off(void **state) {
  (void)state;
  want_encoding = NULL;
  truncate_spans();
  char cmd[1200];
  /* off: no endpoint, nothing sent */
  trace_env(false);
  MR_RUN(0, NULL, "-c", hello_bin, "request", "tools/call",
         "{\"name\":\"greet\",\"arguments\":{\"name\":\"off\"}}");
  /* a sampled-out parent (flags 00): nothing either */
  trace_env(true);
  MR_RUN(0, NULL, "-c", hello_bin, "request", "tools/call",
         "{\"name\":\"greet\",\"arguments\":{\"name\":\"no\"},\"_meta\":{"
         "\"traceparent\":\"00-" TRACE_ID "-" PARENT "-00\"}}");
  /* stdio: pipe (the server exports its last spans when it ends) */
  snprintf(cmd, sizeof cmd, "%s --stdio", hello_bin);
  metrics_at_stop_only();
  MR_RUN(0, NULL, "-c", cmd, "request", "tools/list");
  json_t *s = wait_span("tools/list", "network.transport", "pipe");
  /* stdio: no addresses, no HTTP version */
  assert_false(has_attr(s, "network.protocol.version"));
  assert_false(has_attr(s, "server.address"));
  assert_false(has_attr(s, "client.address"));
  json_decref(s);
  /* mcpc's data points over a pipe */
  wait_metric_exact("mcp.client.operation.duration",
                    "{\"mcp.method.name\":\"tools/list\","
                    "\"mcp.protocol.version\":\"2026-07-28\","
                    "\"network.transport\":\"pipe\"}");
  wait_metric_exact("mcp.client.session.duration",
                    "{\"mcp.protocol.version\":\"2026-07-28\","
                    "\"network.transport\":\"pipe\"}");
  setenv("OTEL_METRIC_EXPORT_INTERVAL", "100", 1); /* as trace_env's */
  json_t *greets = spans_named("tools/call greet");
  assert_int_equal(json_array_size(greets), 0);
  json_decref(greets);
  /* a setting libmcp cannot follow is refused at start, naming it: by
   * the server (grpc in its environment only) ... */
  snprintf(cmd, sizeof cmd, "/usr/bin/env OTEL_EXPORTER_OTLP_PROTOCOL=grpc %s",
           hello_bin);
  char *err = NULL;
  MR_RUN2(3, NULL, &err, "-c", cmd, "ping");
  assert_non_null(strstr(err, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"));
  free(err);
  snprintf(cmd, sizeof cmd,
           "/usr/bin/env OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=grpc %s",
           hello_bin);
  err = NULL;
  MR_RUN2(3, NULL, &err, "-c", cmd, "ping");
  assert_non_null(strstr(err, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=grpc"));
  free(err);
  /* ... and by mcpc */
  setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", 1);
  err = NULL;
  MR_RUN2(2, NULL, &err, "-c", hello_bin, "ping");
  assert_non_null(strstr(err, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"));
  free(err);
  unsetenv("OTEL_EXPORTER_OTLP_PROTOCOL");
  setenv("OTEL_TRACES_EXPORTER", "console", 1);
  err = NULL;
  MR_RUN2(2, NULL, &err, "-c", hello_bin, "ping");
  assert_non_null(strstr(err, "OTEL_TRACES_EXPORTER=console"));
  free(err);
  unsetenv("OTEL_TRACES_EXPORTER");
  trace_env(false);
}

/* A decoded span or data point came with the resource and headers of the
 * environment test_run_environment gives the server. */
static void check_from_environment(json_t *row) {
  json_t *resource = json_object_get(row, "resource");
  json_t *headers = json_object_get(row, "headers");
  const char *service =
      json_string_value(json_object_get(resource, "service.name"));
  const char *env =
      json_string_value(json_object_get(resource, "deployment.environment"));
  const char *key = json_string_value(json_object_get(headers, "x-libmcp-key"));
  const char *team =
      json_string_value(json_object_get(headers, "x-libmcp-team"));
  if (!service || strcmp(service, "otel-run") != 0 || !env ||
      strcmp(env, "run-test") != 0 || !key || strcmp(key, "k1") != 0 ||
      !team || strcmp(team, "mcp") != 0) {
    char *text = json_dumps(row, JSON_COMPACT);
    fail_msg("not what the environment said: %s", text);
  }
}

/* mcp_server_run reads every OTEL_* variable of issue #26 (the endpoint,
 * protocols, service name, batching and export intervals are exercised
 * above): the per-signal endpoints without the common one,
 * OTEL_EXPORTER_OTLP_HEADERS on both signals, OTEL_RESOURCE_ATTRIBUTES
 * beside OTEL_SERVICE_NAME, and OTEL_TRACES_SAMPLER_ARG (out of range:
 * refused at start, naming it). */
static void test_run_environment(void **state) {
  (void)state;
  want_encoding = NULL;
  trace_env(false); /* the server's environment only, not mcpc's */
  truncate_spans();
  char cmd[2000];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/env OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=%s/v1/traces "
           "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=%s/v1/metrics "
           "OTEL_EXPORTER_OTLP_HEADERS=x-libmcp-key=k1,x-libmcp-team=mcp "
           "OTEL_RESOURCE_ATTRIBUTES=deployment.environment=run-test,"
           "service.name=overridden OTEL_SERVICE_NAME=otel-run "
           "OTEL_TRACES_SAMPLER=traceidratio OTEL_TRACES_SAMPLER_ARG=1 "
           "%s --stdio",
           endpoint, endpoint, hello_bin);
  MR_RUN(0, NULL, "-c", cmd, "request", "tools/call",
         "{\"name\":\"greet\",\"arguments\":{\"name\":\"env\"}}");
  json_t *s = wait_span("tools/call greet", "network.transport", "pipe");
  check_from_environment(s);
  json_decref(s);
  json_t *m = wait_metric("mcp.server.operation.duration", "greet", "pipe");
  check_from_environment(m);
  json_decref(m);
  snprintf(cmd, sizeof cmd,
           "/usr/bin/env OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=%s/v1/traces "
           "OTEL_TRACES_SAMPLER=traceidratio OTEL_TRACES_SAMPLER_ARG=2 %s",
           endpoint, hello_bin);
  char *err = NULL;
  MR_RUN2(3, NULL, &err, "-c", cmd, "ping");
  if (strstr(err, "OTEL_TRACES_SAMPLER_ARG=2") == NULL)
    fail_msg("the refusal does not name OTEL_TRACES_SAMPLER_ARG: %s", err);
  free(err);
}

/* A collector that accepts connections and never answers: requests stay
 * fast (the exporter's thread waits, spans beyond the queue are dropped),
 * and the server still stops promptly. */
static void test_silent_collector_costs_requests_nothing(void **state) {
  (void)state;
  int sink = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  assert_int_equal(bind(sink, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(sink, 64), 0);
  assert_int_equal(getsockname(sink, (struct sockaddr *)&a, &len), 0);
  char endpoint_env[96];
  snprintf(endpoint_env, sizeof endpoint_env,
           "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:%d",
           ntohs(a.sin_port));
  int port = mr_free_port();
  char hp[64], url[128];
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "http://%s/mcp", hp);
  /* only the server exports (mcpc's own spans would wait for it too) */
  char *argv[] = {"/usr/bin/env",
                  endpoint_env,
                  "OTEL_BSP_SCHEDULE_DELAY=1",
                  "OTEL_BSP_MAX_QUEUE_SIZE=2",
                  "OTEL_METRICS_EXPORTER=none",
                  hello_bin,
                  "--http",
                  hp,
                  NULL};
  trace_env(false);
  pid_t pid = mr_start_http(argv, url);
  assert_true(pid > 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < 10; i++)
    MR_RUN(0, NULL, "-u", url, "request", "tools/list");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) +
             (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  /* 20 requests (discover + list) behind a collector that holds each
   * export 2 s: synchronous export would take 40 s */
  if (s > 15)
    fail_msg("10 calls took %.1f s behind a silent collector", s);
  assert_true(mr_stop(pid));
  close(sink);
}

int main(void) {
  int started = start_receiver();
  if (started == 77) {
    mr_teardown();
    fprintf(stderr, "SKIP otel_traces_test: no receiver venv (offline?)\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_encoder_bytes_official),
      cmocka_unit_test(test_http_spans),
      cmocka_unit_test(test_add_protobuf),
      cmocka_unit_test(test_add_json),
      cmocka_unit_test(test_add_per_signal),
      cmocka_unit_test(test_stdio_spans_and_off),
      cmocka_unit_test(test_run_environment),
      cmocka_unit_test(test_http_traceparent_header),
      cmocka_unit_test(test_task_spans),
      cmocka_unit_test(test_silent_collector_costs_requests_nothing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
