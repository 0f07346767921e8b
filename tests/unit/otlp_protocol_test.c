/* SPDX-License-Identifier: MIT */
/* otlp_protocol_test.c - choosing the OTLP encoding (issue #26):
 * mcp__otlp_post sends http/protobuf bodies as application/x-protobuf
 * (the JSON request transcoded) and http/json ones as they are, to a
 * one-shot collector on 127.0.0.1; mcp_server_set_otlp_protocol and the
 * OTEL_EXPORTER_OTLP_(TRACES_|METRICS_)PROTOCOL variables pick it per
 * exporter (the exporters say which in the server's log), refuse grpc and
 * unknown names naming them, and only before the exporters start; the
 * client's setter and its environment refuse the same. */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "telemetry/otlp_http.h"
#include "telemetry/otlp_pb.h"

/* A collector that takes one request and answers 200. */
typedef struct collector {
  int fd;
  int port;
  char head[2048];
  char body[4096];
  size_t body_len;
  pthread_t thread;
} collector;

static void *collect(void *arg) {
  collector *c = arg;
  int conn = accept(c->fd, NULL, NULL);
  char buf[8192];
  size_t got = 0;
  char *end = NULL;
  while (conn >= 0 && got < sizeof buf - 1) {
    ssize_t r = recv(conn, buf + got, sizeof buf - 1 - got, 0);
    if (r <= 0)
      break;
    got += (size_t)r;
    buf[got] = '\0';
    end = strstr(buf, "\r\n\r\n");
    const char *cl = end ? strstr(buf, "Content-Length: ") : NULL;
    if (cl && got >= (size_t)(end + 4 - buf) + (size_t)atoi(cl + 16))
      break;
  }
  if (end) {
    size_t hl = (size_t)(end - buf);
    memcpy(c->head, buf, hl < sizeof c->head - 1 ? hl : sizeof c->head - 1);
    c->body_len = got - hl - 4;
    memcpy(c->body, end + 4, c->body_len);
  }
  static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  if (conn >= 0) {
    if (send(conn, ok, sizeof ok - 1, MSG_NOSIGNAL) < 0)
      perror("send");
    close(conn);
  }
  return NULL;
}

static void collector_start(collector *c) {
  memset(c, 0, sizeof *c);
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  assert_int_equal(bind(c->fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(c->fd, 4), 0);
  assert_int_equal(getsockname(c->fd, (struct sockaddr *)&a, &len), 0);
  c->port = ntohs(a.sin_port);
  assert_int_equal(pthread_create(&c->thread, NULL, collect, c), 0);
}

static void collector_join(collector *c) {
  pthread_join(c->thread, NULL);
  close(c->fd);
}

static const char REQUEST[] =
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[]},\"scopeSpans\":[{"
    "\"scope\":{\"name\":\"libmcp\"},\"spans\":[{\"traceId\":"
    "\"0af7651916cd43dd8448eb211c80319c\",\"spanId\":\"80908896df099a3d\","
    "\"name\":\"ping\",\"kind\":2,\"startTimeUnixNano\":\"1\","
    "\"endTimeUnixNano\":\"2\"}]}]}]}";

static void post_as(mcp__otlp_protocol protocol, collector *c) {
  collector_start(c);
  char url[64], why[200] = "";
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/traces", c->port);
  mcp__otlp_target t;
  assert_true(mcp__otlp_target_init(&t, url, NULL, why, sizeof why));
  t.protocol = protocol;
  assert_true(mcp__otlp_post(&t, REQUEST, strlen(REQUEST)));
  mcp__otlp_target_clear(&t);
  collector_join(c);
}

static void test_post_protobuf(void **state) {
  (void)state;
  collector c;
  post_as(MCP__OTLP_HTTP_PROTOBUF, &c);
  assert_non_null(strstr(c.head, "POST /v1/traces HTTP/1.1"));
  assert_non_null(strstr(c.head, "\r\nContent-Type: application/x-protobuf"));
  mcp__buf want;
  mcp__buf_init(&want);
  char why[200];
  assert_true(
      mcp__otlp_json_to_pb(REQUEST, strlen(REQUEST), &want, why, sizeof why));
  assert_int_equal(c.body_len, want.len);
  assert_memory_equal(c.body, want.data, want.len);
  assert_int_equal((unsigned char)c.body[0], 0x0a); /* resource_spans = 1 */
  mcp__buf_free(&want);
}

static void test_post_json(void **state) {
  (void)state;
  collector c;
  post_as(MCP__OTLP_HTTP_JSON, &c);
  assert_non_null(strstr(c.head, "\r\nContent-Type: application/json"));
  assert_int_equal(c.body_len, strlen(REQUEST));
  assert_memory_equal(c.body, REQUEST, c.body_len);
}

/* A body the transcoder refuses is not sent (and the post fails). */
static void test_post_refused_body(void **state) {
  (void)state;
  mcp__otlp_target t;
  char why[200];
  assert_true(mcp__otlp_target_init(&t, "http://127.0.0.1:9/v1/traces", NULL,
                                    why, sizeof why));
  static const char bad[] = "{\"resourceSpans\":[{\"nope\":1}]}";
  assert_false(mcp__otlp_post(&t, bad, strlen(bad)));
  mcp__otlp_target_clear(&t);
}

static char logged[4096];
static void keep_log(mcp_log_level level, const char *message, void *ud) {
  (void)level, (void)ud;
  size_t n = strlen(logged);
  snprintf(logged + n, sizeof logged - n, "%s\n", message);
}

static mcp_server_t *logging_server(void) {
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("p", "1", &s), MCP_OK);
  logged[0] = '\0';
  mcp_server_set_log_handler(s, keep_log, NULL);
  mcp_server_set_log_level(s, MCP_LOG_INFO);
  return s;
}

static void test_server_setter(void **state) {
  (void)state;
  mcp_error_t err;
  mcp_server_t *s = logging_server();
  assert_int_equal(mcp_server_set_otlp_protocol(s, "grpc", &err),
                   MCP_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "mcp_server_set_otlp_protocol=grpc"));
  assert_int_equal(mcp_server_set_otlp_protocol(s, "http/xml", &err),
                   MCP_ERR_UNSUPPORTED);
  assert_int_equal(mcp_server_set_otlp_protocol(s, NULL, &err),
                   MCP_ERR_UNSUPPORTED);
  assert_int_equal(mcp_server_set_otlp_protocol(s, "http/json", &err), MCP_OK);
  /* port 9: nothing listens; the exporters start all the same */
  assert_int_equal(mcp_server_enable_otlp_traces(
                       s, "http://127.0.0.1:9/v1/traces", NULL, &err),
                   MCP_OK);
  assert_int_equal(mcp_server_enable_otlp_metrics(
                       s, "http://127.0.0.1:9/v1/metrics", NULL, &err),
                   MCP_OK);
  assert_non_null(strstr(logged, "tracing: OTLP http/json spans"));
  assert_non_null(strstr(logged, "metrics: OTLP http/json to"));
  /* too late once an exporter runs */
  assert_int_equal(mcp_server_set_otlp_protocol(s, "http/protobuf", &err),
                   MCP_ERR_STATE);
  mcp_server_free(s);
  /* the default */
  s = logging_server();
  assert_int_equal(mcp_server_enable_otlp_traces(
                       s, "http://127.0.0.1:9/v1/traces", NULL, &err),
                   MCP_OK);
  assert_non_null(strstr(logged, "tracing: OTLP http/protobuf spans"));
  mcp_server_free(s);
}

static void clear_env(void) {
  unsetenv("OTEL_EXPORTER_OTLP_PROTOCOL");
  unsetenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
  unsetenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL");
  unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT");
}

static void test_server_env(void **state) {
  (void)state;
  mcp_error_t err;
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9", 1);
  /* the per-signal variables win over the general one */
  setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", 1);
  setenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf", 1);
  mcp_server_t *s = logging_server();
  assert_int_equal(mcp_server_otlp_from_env(s, &err), MCP_OK);
  assert_non_null(strstr(logged, "tracing: OTLP http/json spans"));
  assert_non_null(strstr(logged, "metrics: OTLP http/protobuf to"));
  mcp_server_free(s);
  /* grpc: refused at start, the variable named */
  setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc", 1);
  s = logging_server();
  assert_int_equal(mcp_server_otlp_from_env(s, &err), MCP_ERR_UNSUPPORTED);
  assert_non_null(
      strstr(err.message, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc"));
  mcp_server_free(s);
  clear_env();
}

static void test_client(void **state) {
  (void)state;
  mcp_client_options_t *o = NULL;
  assert_int_equal(mcp_client_options_new(&o), MCP_OK);
  assert_int_equal(mcp_client_options_set_otlp_protocol(o, "grpc"),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_client_options_set_otlp_protocol(o, "http/json"),
                   MCP_OK);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9", 1);
  setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", 1);
  assert_int_equal(mcp_client_options_otlp_from_env(o), MCP_ERR_INVALID_ARG);
  /* the per-signal variables win; both signals are checked */
  setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf", 1);
  assert_int_equal(mcp_client_options_otlp_from_env(o), MCP_ERR_INVALID_ARG);
  setenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/json", 1);
  assert_int_equal(mcp_client_options_otlp_from_env(o), MCP_OK);
  /* an exporter libmcp lacks is refused as the server refuses it (the
   * client once exported by OTLP all the same) */
  setenv("OTEL_TRACES_EXPORTER", "console", 1);
  assert_int_equal(mcp_client_options_otlp_from_env(o), MCP_ERR_INVALID_ARG);
  mcp_server_t *s = logging_server();
  mcp_error_t err;
  assert_int_equal(mcp_server_otlp_from_env(s, &err), MCP_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "OTEL_TRACES_EXPORTER=console"));
  mcp_server_free(s);
  /* none: that signal is off, the other still read */
  setenv("OTEL_TRACES_EXPORTER", "none", 1);
  assert_int_equal(mcp_client_options_otlp_from_env(o), MCP_OK);
  unsetenv("OTEL_TRACES_EXPORTER");
  clear_env();
  mcp_client_options_free(o);
}

int main(void) {
  clear_env();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_post_protobuf),
      cmocka_unit_test(test_post_json),
      cmocka_unit_test(test_post_refused_body),
      cmocka_unit_test(test_server_setter),
      cmocka_unit_test(test_server_env),
      cmocka_unit_test(test_client),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
