/* SPDX-License-Identifier: MIT */
/* telemetry.c - see telemetry.h. The span is an OTLP/JSON Span object
 * (kind 3, CLIENT) with the attributes of the semantic conventions for MCP
 * a client knows. */
#include "client/telemetry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "telemetry/otlp.h"
#include "telemetry/resource.h"
#include "util/buf.h"
#include "util/rand.h"

static int64_t wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0' ? v : NULL;
}

mcp_status mcp__client_telemetry_start(mcp_client_t *c, mcp_error_t *err) {
  if (c->opts.otlp_traces_url == NULL)
    return MCP_OK;
  char *resource = mcp__otel_resource_json(
      c->opts.name ? c->opts.name : "libmcp-client");
  if (resource == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  const char *delay = env("OTEL_BSP_SCHEDULE_DELAY");
  mcp__otlp_config cfg = {.traces_url = c->opts.otlp_traces_url,
                          .headers = c->opts.otlp_headers,
                          .resource_attributes_json = resource,
                          .schedule_delay_ms = delay ? atoll(delay) : 5000,
                          .protocol =
                              (mcp__otlp_protocol)c->opts.otlp_protocol};
  char why[600] = "";
  mcp_status st = mcp__otlp_start(&cfg, &c->otlp, why, sizeof why);
  free(resource);
  return st == MCP_OK ? MCP_OK : mcp_error_set(err, st, "%s", why);
}

void mcp__client_telemetry_stop(mcp_client_t *c) {
  mcp__otlp_stop(c->otlp); /* the last spans go out */
  c->otlp = NULL;
}

static int hex_value(char ch) {
  return ch >= '0' && ch <= '9'   ? ch - '0'
         : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                  : -1;
}

static bool unhex(const char *s, unsigned char *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int hi = hex_value(s[2 * i]), lo = hex_value(s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    out[i] = (unsigned char)(hi << 4 | lo);
  }
  return true;
}

static void hex(char *out, const unsigned char *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  out[2 * n] = '\0';
}

void mcp__cspan_begin(mcp_client_t *c, const char *method, json_t *params,
                      mcp__cspan *sp) {
  memset(sp, 0, sizeof *sp);
  if (c->otlp == NULL)
    return;
  json_t *meta = json_object_get(params, "_meta");
  const char *given =
      json_string_value(json_object_get(meta, "traceparent"));
  sp->has_parent = given != NULL && strlen(given) == 55 &&
                   unhex(given + 3, sp->trace_id, 16) &&
                   unhex(given + 36, sp->parent_id, 8);
  unsigned char flags = 1;
  if (sp->has_parent && (!unhex(given + 53, &flags, 1) || !(flags & 1)))
    return; /* the caller's trace is not sampled: it travels untouched */
  if ((!sp->has_parent &&
       mcp__random_bytes(sp->trace_id, sizeof sp->trace_id) != MCP_OK) ||
      mcp__random_bytes(sp->span_id, sizeof sp->span_id) != MCP_OK)
    return;
  const char *key = strcmp(method, "tools/call") == 0    ? "gen_ai.tool.name"
                    : strcmp(method, "prompts/get") == 0 ? "gen_ai.prompt.name"
                    : strncmp(method, "resources/", 10) == 0
                        ? "mcp.resource.uri"
                        : NULL;
  const char *v = key ? json_string_value(json_object_get(
                            params, key[0] == 'm' ? "uri" : "name"))
                      : NULL;
  if (v != NULL) {
    snprintf(sp->target_key, sizeof sp->target_key, "%s", key);
    snprintf(sp->target, sizeof sp->target, "%s", v);
  }
  if (!json_is_object(meta)) {
    meta = json_object();
    if (json_object_set_new(params, "_meta", meta) != 0)
      return;
  }
  char tid[33], sid[17], tp[64];
  hex(tid, sp->trace_id, 16);
  hex(sid, sp->span_id, 8);
  snprintf(tp, sizeof tp, "00-%s-%s-01", tid, sid);
  if (json_object_set_new(meta, "traceparent", json_string(tp)) != 0)
    return;
  sp->start_ns = wall_ns();
  sp->on = true;
}

static void attr(mcp__buf *b, bool *first, const char *key, const char *v) {
  mcp__buf_append_str(b, *first ? "{\"key\":\"" : ",{\"key\":\"");
  *first = false;
  mcp__buf_append_str(b, key);
  mcp__buf_append_str(b, "\",\"value\":{\"stringValue\":");
  mcp__buf_append_escaped(b, v, strlen(v));
  mcp__buf_append_str(b, "}}");
}

void mcp__cspan_end(mcp_client_t *c, mcp__cspan *sp, const char *method,
                    mcp_status st, const mcp_error_t *err,
                    const json_t *result) {
  if (!sp->on || c->otlp == NULL)
    return;
  char tid[33], sid[17], pid[17];
  hex(tid, sp->trace_id, 16);
  hex(sid, sp->span_id, 8);
  hex(pid, sp->parent_id, 8);
  mcp__buf b;
  mcp__buf_init(&b);
  mcp__buf_append_str(&b, "{\"traceId\":\"");
  mcp__buf_append_str(&b, tid);
  mcp__buf_append_str(&b, "\",\"spanId\":\"");
  mcp__buf_append_str(&b, sid);
  mcp__buf_append_char(&b, '"');
  if (sp->has_parent) {
    mcp__buf_append_str(&b, ",\"parentSpanId\":\"");
    mcp__buf_append_str(&b, pid);
    mcp__buf_append_char(&b, '"');
  }
  char name[400];
  bool named = strcmp(sp->target_key, "mcp.resource.uri") != 0 &&
               sp->target[0] != '\0';
  snprintf(name, sizeof name, "%s%s%s", method, named ? " " : "",
           named ? sp->target : "");
  mcp__buf_append_str(&b, ",\"name\":");
  mcp__buf_append_escaped(&b, name, strlen(name));
  char times[160];
  snprintf(times, sizeof times,
           ",\"kind\":3,\"startTimeUnixNano\":\"%lld\",\"endTimeUnixNano\":"
           "\"%lld\",\"attributes\":[",
           (long long)sp->start_ns, (long long)wall_ns());
  mcp__buf_append_str(&b, times);
  bool first = true;
  attr(&b, &first, "mcp.method.name", method);
  if (sp->target[0] != '\0')
    attr(&b, &first, sp->target_key, sp->target);
  if (strcmp(method, "tools/call") == 0)
    attr(&b, &first, "gen_ai.operation.name", "execute_tool");
  const char *version = mcp_client_protocol_version(c);
  if (version != NULL && version[0] != '\0')
    attr(&b, &first, "mcp.protocol.version", version);
  attr(&b, &first, "network.transport", c->opts.argv ? "pipe" : "tcp");
  if (c->opts.argv == NULL)
    attr(&b, &first, "network.protocol.name", "http");
  bool failed = st != MCP_OK;
  if (failed && err != NULL && err->rpc_code != 0) {
    char code[16];
    snprintf(code, sizeof code, "%d", err->rpc_code);
    attr(&b, &first, "rpc.response.status_code", code);
    attr(&b, &first, "error.type", code);
  } else if (failed) {
    attr(&b, &first, "error.type", mcp_status_name(st));
  } else if (json_is_true(json_object_get(result, "isError"))) {
    attr(&b, &first, "error.type", "tool_error");
    failed = true;
  }
  mcp__buf_append_char(&b, ']');
  if (failed)
    mcp__buf_append_str(&b, ",\"status\":{\"code\":2}");
  if (mcp__buf_append_char(&b, '}'))
    mcp__otlp_submit(c->otlp, b.data, b.len);
  mcp__buf_free(&b);
}
