/* SPDX-License-Identifier: MIT */
/* telemetry.c - see telemetry.h. The span is an OTLP/JSON Span object
 * (kind 3, CLIENT) with the attributes of the semantic conventions for MCP
 * a client knows. */
#include "client/telemetry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "telemetry/metrics.h"
#include "telemetry/otlp.h"
#include "telemetry/resource.h"
#include "telemetry/span.h"
#include "telemetry/traceparent.h"
#include "util/clock.h"
#include "util/env.h"

/* server.address and server.port of an http(s):// URL (the default port
 * of its scheme when it names none). */
static void server_of_url(mcp_client_t *c, const char *url) {
  bool tls = strncmp(url, "https://", 8) == 0;
  const char *host = strstr(url, "://");
  if (host == NULL)
    return;
  host += 3;
  size_t n = strcspn(host, "/?#");
  const char *at = memchr(host, '@', n); /* userinfo is not the host */
  if (at != NULL) {
    n -= (size_t)(at + 1 - host);
    host = at + 1;
  }
  const char *end = host + n, *colon = NULL;
  if (host[0] == '[') {
    const char *close = memchr(host, ']', n);
    if (close == NULL)
      return;
    colon = close + 1 < end && close[1] == ':' ? close + 1 : NULL;
    host++;
    end = close;
  } else {
    colon = memchr(host, ':', n);
    if (colon != NULL)
      end = colon;
  }
  size_t hn = (size_t)(end - host);
  if (hn == 0 || hn >= sizeof c->otel_server_address)
    return;
  memcpy(c->otel_server_address, host, hn);
  c->otel_server_address[hn] = '\0';
  c->otel_server_port = colon ? (unsigned)atoi(colon + 1) : tls ? 443 : 80;
}

static uint64_t dropped_spans(void *ctx) {
  mcp_client_t *c = ctx;
  return c->otlp != NULL ? mcp__otlp_dropped(c->otlp) : 0;
}

mcp_status mcp__client_telemetry_start(mcp_client_t *c, mcp_error_t *err) {
  if (c->opts.otlp_traces_url == NULL && c->opts.otlp_metrics_url == NULL)
    return MCP_OK;
  if (c->opts.url != NULL)
    server_of_url(c, c->opts.url);
  char *resource = mcp__otel_resource_json(
      c->opts.name ? c->opts.name : "libmcp-client");
  if (resource == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  char why[600] = "";
  mcp_status st = MCP_OK;
  if (c->opts.otlp_traces_url != NULL) {
    mcp__otlp_config cfg = {
        .traces_url = c->opts.otlp_traces_url,
        .headers = c->opts.otlp_headers,
        .resource_attributes_json = resource,
        .schedule_delay_ms = mcp__env_positive("OTEL_BSP_SCHEDULE_DELAY", 5000),
        .protocol = (mcp__otlp_protocol)c->opts.otlp_protocol};
    st = mcp__otlp_start(&cfg, &c->otlp, why, sizeof why);
  }
  if (st == MCP_OK && c->opts.otlp_metrics_url != NULL) {
    mcp__metrics_config cfg = {
        .metrics_url = c->opts.otlp_metrics_url,
        .headers = c->opts.otlp_metrics_headers,
        .resource_attributes_json = resource,
        .interval_ms = mcp__env_positive("OTEL_METRIC_EXPORT_INTERVAL", 60000),
        .max_series = 1000,
        .dropped_spans = dropped_spans,
        .dropped_ctx = c,
        .protocol = (mcp__otlp_protocol)c->opts.otlp_metrics_protocol};
    st = mcp__metrics_start(&cfg, &c->metrics, why, sizeof why);
  }
  free(resource);
  return st == MCP_OK ? MCP_OK : mcp_error_set(err, st, "%s", why);
}

void mcp__client_session_begin(mcp_client_t *c) {
  if (c->metrics != NULL)
    c->session_started_ns = mcp__monotonic_ns();
}

/* An attribute of a data point whose key is a string literal. */
#define ATTR(key, v) MCP__METRICS_ATTR(key, (v), strlen(v))

/* network.transport, the attribute every data point ends with */
static mcp__metrics_attr transport_attr(const mcp_client_t *c) {
  return c->opts.argv ? ATTR("network.transport", "pipe")
                      : ATTR("network.transport", "tcp");
}

void mcp__client_session_end(mcp_client_t *c) {
  if (c->metrics != NULL && c->session_started_ns != 0) {
    double seconds =
        (double)(mcp__monotonic_ns() - c->session_started_ns) / 1e9;
    c->session_started_ns = 0;
    mcp__metrics_attr a[3];
    size_t n = 0;
    /* a connection the server (or the network) ended before close */
    pthread_mutex_lock(&c->lock);
    bool lost = c->closed;
    pthread_mutex_unlock(&c->lock);
    if (lost)
      a[n++] = ATTR("error.type", mcp_status_name(MCP_ERR_CLOSED));
    const char *version = mcp_client_protocol_version(c);
    if (version != NULL && version[0] != '\0')
      a[n++] = ATTR("mcp.protocol.version", version);
    a[n++] = transport_attr(c);
    mcp__metrics_record_attrs(c->metrics, MCP__METRIC_CLIENT_SESSION, a, n,
                              seconds);
  }
}

void mcp__client_telemetry_stop(mcp_client_t *c) {
  mcp__metrics_stop(c->metrics); /* first: it reads the spans dropped */
  c->metrics = NULL;
  mcp__otlp_stop(c->otlp); /* the last spans go out */
  c->otlp = NULL;
}

/* The request's target: a tool's or prompt's name, a resource's URI. */
static void target_of(mcp__cspan *sp, const char *method,
                      const json_t *params) {
  const char *key = strcmp(method, "tools/call") == 0    ? "gen_ai.tool.name"
                    : strcmp(method, "prompts/get") == 0 ? "gen_ai.prompt.name"
                    : strncmp(method, "resources/", 10) == 0
                        ? "mcp.resource.uri"
                        : NULL;
  const char *v = key ? json_string_value(json_object_get(
                            params, key[0] == 'm' ? "uri" : "name"))
                      : NULL;
  if (v != NULL) {
    sp->target_key = key;
    snprintf(sp->target, sizeof sp->target, "%s", v);
  }
}

void mcp__cspan_begin(mcp_client_t *c, const char *method, json_t *params,
                      mcp__cspan *sp) {
  memset(sp, 0, sizeof *sp);
  if (c->metrics != NULL) {
    target_of(sp, method, params);
    sp->measured = true;
    sp->mono_start_ns = mcp__monotonic_ns();
  }
  if (c->otlp == NULL)
    return;
  json_t *meta = json_object_get(params, "_meta");
  bool sampled = true;
  sp->has_parent = mcp__traceparent_parse(
      json_string_value(json_object_get(meta, "traceparent")), sp->trace_id,
      sp->parent_id, &sampled);
  if (sp->has_parent && !sampled)
    return; /* the caller's trace is not sampled: it travels untouched */
  if ((!sp->has_parent &&
       mcp__otlp_random_id(c->otlp, sp->trace_id, sizeof sp->trace_id) !=
           MCP_OK) ||
      mcp__otlp_random_id(c->otlp, sp->span_id, sizeof sp->span_id) != MCP_OK)
    return;
  if (!sp->measured)
    target_of(sp, method, params);
  if (!json_is_object(meta)) {
    meta = json_object();
    if (json_object_set_new(params, "_meta", meta) != 0)
      return;
  }
  char tp[MCP__TRACEPARENT_SIZE];
  mcp__traceparent_format(tp, sp->trace_id, sp->span_id);
  if (json_object_set_new(meta, "traceparent", json_string(tp)) != 0)
    return;
  sp->start_ns = mcp__wall_ns();
  sp->on = true;
}

/* The request's error.type (code: its JSON-RPC code as text), or NULL
 * when it succeeded. */
static const char *error_type(mcp_status st, const mcp_error_t *err,
                              const json_t *result, char code[16]) {
  if (st != MCP_OK && err != NULL && err->rpc_code != 0) {
    snprintf(code, 16, "%d", err->rpc_code);
    return code;
  }
  if (st != MCP_OK)
    return mcp_status_name(st);
  return json_is_true(json_object_get(result, "isError")) ? "tool_error"
                                                          : NULL;
}

/* Its mcp.client.operation.duration data point, with the server's
 * attributes (request_metrics.c): low-cardinality ones only. */
static void record_duration(mcp_client_t *c, const mcp__cspan *sp,
                            const char *method, const char *error) {
  double seconds = (double)(mcp__monotonic_ns() - sp->mono_start_ns) / 1e9;
  mcp__metrics_attr a[5];
  size_t n = 0;
  a[n++] = ATTR("mcp.method.name", method);
  /* a tool's or prompt's name, not a resource's URI; target_key is one
   * of target_of's literals */
  if (sp->target[0] != '\0' && sp->target_key[0] == 'g')
    a[n++] = (mcp__metrics_attr){sp->target_key, strlen(sp->target_key),
                                 sp->target, strlen(sp->target)};
  if (error != NULL)
    a[n++] = ATTR("error.type", error);
  const char *version = mcp_client_protocol_version(c);
  if (version != NULL && version[0] != '\0')
    a[n++] = ATTR("mcp.protocol.version", version);
  a[n++] = transport_attr(c);
  mcp__metrics_record_attrs(c->metrics, MCP__METRIC_CLIENT_OPERATION, a, n,
                            seconds);
}

void mcp__cspan_end(mcp_client_t *c, mcp__cspan *sp, const char *method,
                    mcp_status st, const mcp_error_t *err,
                    const json_t *result) {
  char code[16];
  const char *error = error_type(st, err, result, code);
  if (sp->measured && c->metrics != NULL)
    record_duration(c, sp, method, error);
  if (!sp->on || c->otlp == NULL)
    return;
  mcp__span_draft d;
  mcp__span_draft_init(&d);
  mcp__span_head *h = &d.h;
  mcp__span_draft_ids(&d, sp->trace_id, sp->span_id, sp->has_parent,
                      sp->parent_id);
  bool named = sp->target[0] != '\0' && sp->target_key != NULL &&
               strcmp(sp->target_key, "mcp.resource.uri") != 0;
  mcp__span_draft_name(&d, method, named ? sp->target : NULL,
                       named ? strlen(sp->target) : 0);
  h->kind = MCP__SPAN_KIND_CLIENT;
  h->start_ns = sp->start_ns;
  h->end_ns = mcp__wall_ns();
  mcp__span_draft_cstr(&d, "mcp.method.name", method);
  if (sp->target[0] != '\0' && sp->target_key != NULL)
    mcp__span_draft_attr_str(&d, sp->target_key, strlen(sp->target_key),
                             sp->target, strlen(sp->target));
  if (strcmp(method, "tools/call") == 0)
    mcp__span_draft_cstr(&d, "gen_ai.operation.name", "execute_tool");
  const char *version = mcp_client_protocol_version(c);
  if (version != NULL && version[0] != '\0')
    mcp__span_draft_cstr(&d, "mcp.protocol.version", version);
  mcp__span_draft_cstr(&d, "network.transport",
                       c->opts.argv ? "pipe" : "tcp");
  if (c->opts.argv == NULL)
    mcp__span_draft_cstr(&d, "network.protocol.name", "http");
  if (c->otel_server_address[0] != '\0') {
    mcp__span_draft_cstr(&d, "server.address", c->otel_server_address);
    mcp__span_draft_int(&d, "server.port", c->otel_server_port);
  }
  if (error == code)
    mcp__span_draft_cstr(&d, "rpc.response.status_code", code);
  if (error != NULL)
    mcp__span_draft_cstr(&d, "error.type", error);
  h->error = error != NULL;
  mcp__otlp_submit(c->otlp, &d);
}
