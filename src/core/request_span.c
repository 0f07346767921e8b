/* SPDX-License-Identifier: MIT */
/* request_span.c - see request_span.h. A finished span is recorded as a
 * compact C record (telemetry/span.h) that the exporter's thread encodes:
 * the request's thread writes no JSON text, draws its ids from the
 * exporter's bulk random pool, and makes no system call but the clock. */
#include "core/request_span.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/call_internal.h"
#include "core/session_internal.h"
#include "telemetry/otlp.h"
#include "telemetry/span.h"
#include "telemetry/traceparent.h"
#include "util/clock.h"

struct mcp__call_span {
  unsigned char trace_id[16], span_id[8], parent_id[8];
  bool has_parent;
  /* A link (OTLP Span.links, one at most): the HTTP request's own
   * traceparent header when params._meta named the parent. */
  bool has_link;
  unsigned char link_trace_id[16], link_span_id[8];
  char *trace_state; /* the caller's tracestate, or NULL */
  int64_t start_ns;  /* Unix epoch nanoseconds */
  bool task;         /* a task's span (kind INTERNAL), not a request's */
  /* The connection, copied at the start (the peer's strings are lent for
   * the request only): "" and 0 when unknown or stdio; http_minor < 0: not
   * HTTP. */
  char client_address[INET6_ADDRSTRLEN], server_address[256];
  unsigned client_port, server_port;
  int http_minor;
};

static bool ratio_keeps(const unsigned char trace_id[16], double ratio) {
  uint64_t v = 0;
  for (int i = 8; i < 16; i++)
    v = v << 8 | trace_id[i];
  return (double)v < ratio * 18446744073709551616.0;
}

/* server.address and server.port from the Host header ("host",
 * "host:port", "[v6]:port"); the listening port when it names none. */
static void server_from_host(mcp__call_span *sp, const char *host,
                             unsigned local_port) {
  const char *end = host + strlen(host), *colon = NULL;
  if (host[0] == '[') {
    const char *close = strchr(host, ']');
    if (close == NULL)
      return;
    colon = close[1] == ':' ? close + 1 : NULL;
    host++;
    end = close;
  } else {
    colon = strrchr(host, ':');
    if (colon != NULL)
      end = colon;
  }
  size_t n = (size_t)(end - host);
  if (n == 0 || n >= sizeof sp->server_address)
    return;
  memcpy(sp->server_address, host, n);
  sp->server_address[n] = '\0';
  /* the port: 1 to 65535 in decimal digits, else the listening one */
  unsigned long port = 0;
  const char *p = colon ? colon + 1 : "";
  while (*p >= '0' && *p <= '9' && port < 65536)
    port = port * 10 + (unsigned long)(*p++ - '0');
  sp->server_port = colon && *p == '\0' && p != colon + 1 && port > 0 &&
                            port < 65536
                        ? (unsigned)port
                        : local_port;
}

/* An IPv4 address in dotted decimal, as inet_ntop writes it (which costs
 * ten times more: it goes through the locale-aware printf machinery). */
static void ipv4_text(char *out, const struct in_addr *a) {
  const unsigned char *b = (const unsigned char *)&a->s_addr;
  for (int i = 0; i < 4; i++) {
    unsigned v = b[i];
    if (v >= 100)
      *out++ = (char)('0' + v / 100);
    if (v >= 10)
      *out++ = (char)('0' + v / 10 % 10);
    *out++ = (char)('0' + v % 10);
    *out++ = i < 3 ? '.' : '\0';
  }
}

/* The connection's facts a span carries (HTTP; stdio has none). */
static void copy_network(mcp__call_span *sp, const mcp__peer *peer) {
  sp->http_minor = peer->http ? peer->http_minor : -1;
  if (!peer->http)
    return;
  const struct sockaddr *sa = peer->client_addr;
  if (sa != NULL && sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    ipv4_text(sp->client_address, &in->sin_addr);
    sp->client_port = ntohs(in->sin_port);
  } else if (sa != NULL && sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    inet_ntop(AF_INET6, &in6->sin6_addr, sp->client_address,
              sizeof sp->client_address);
    sp->client_port = ntohs(in6->sin6_port);
  }
  if (peer->host_header != NULL)
    server_from_host(sp, peer->host_header, peer->local_port);
}

/* The ids and parentage span_begin decides before it keeps a span. */
typedef struct span_ids {
  unsigned char trace_id[16], span_id[8], parent_id[8];
  bool has_parent, has_link;
  unsigned char link_trace_id[16], link_span_id[8];
} span_ids;

void mcp__span_begin(mcp_call_t *call) {
  mcp_server_t *s = call->server;
  if (s->otlp == NULL)
    return;
  /* not the whole record on the stack: its 300 bytes of addresses would be
   * zeroed and copied for every traced request */
  span_ids sp;
  sp.has_parent = sp.has_link = false;
  bool parent_sampled = false;
  json_t *meta = mcp__call_meta_has(call, "traceparent")
                     ? mcp__call_meta_object(call)
                     : NULL;
  sp.has_parent = meta != NULL &&
                  mcp__traceparent_parse(json_string_value(json_object_get(
                                        meta, "traceparent")),
                                    sp.trace_id, sp.parent_id,
                                    &parent_sampled);
  /* The HTTP request's own traceparent header: the parent when _meta
   * names none, else a link (the conventions: the MCP context is the
   * parent, the transport's is linked). */
  bool header_sampled = false;
  const char *header = call->peer.traceparent_header;
  if (header != NULL && !sp.has_parent) {
    sp.has_parent = mcp__traceparent_parse(header, sp.trace_id, sp.parent_id,
                                      &parent_sampled);
    meta = NULL; /* its tracestate is the _meta's, which named no parent */
  } else if (header != NULL) {
    sp.has_link = mcp__traceparent_parse(header, sp.link_trace_id,
                                    sp.link_span_id, &header_sampled);
  }
  if (!sp.has_parent)
    memset(sp.parent_id, 0, sizeof sp.parent_id);
  /* a new trace's id and the span's in one draw */
  unsigned char ids[sizeof sp.trace_id + sizeof sp.span_id];
  if (mcp__otlp_random_id(s->otlp, ids,
                          sp.has_parent ? sizeof sp.span_id : sizeof ids) !=
      MCP_OK)
    return;
  if (!sp.has_parent)
    memcpy(sp.trace_id, ids + sizeof sp.span_id, sizeof sp.trace_id);
  memcpy(sp.span_id, ids, sizeof sp.span_id);
  bool keep;
  switch (s->trace_sampler) {
  case MCP__SAMPLE_ALWAYS_ON:
    keep = true;
    break;
  case MCP__SAMPLE_ALWAYS_OFF:
    keep = false;
    break;
  case MCP__SAMPLE_RATIO:
    keep = ratio_keeps(sp.trace_id, s->trace_ratio);
    break;
  case MCP__SAMPLE_PARENT_ALWAYS_OFF:
    keep = sp.has_parent && parent_sampled;
    break;
  case MCP__SAMPLE_PARENT_RATIO:
    keep = sp.has_parent ? parent_sampled
                         : ratio_keeps(sp.trace_id, s->trace_ratio);
    break;
  default: /* parentbased_always_on */
    keep = !sp.has_parent || parent_sampled;
  }
  if (!keep)
    return;
  const char *ts =
      sp.has_parent ? json_string_value(json_object_get(meta, "tracestate"))
                    : NULL;
  mcp__call_span *r = malloc(sizeof *r);
  if (r == NULL)
    return;
  memcpy(r->trace_id, sp.trace_id, sizeof r->trace_id);
  memcpy(r->span_id, sp.span_id, sizeof r->span_id);
  memcpy(r->parent_id, sp.parent_id, sizeof r->parent_id);
  r->has_parent = sp.has_parent;
  r->has_link = sp.has_link;
  if (sp.has_link) {
    memcpy(r->link_trace_id, sp.link_trace_id, sizeof r->link_trace_id);
    memcpy(r->link_span_id, sp.link_span_id, sizeof r->link_span_id);
  }
  r->task = false;
  r->client_address[0] = r->server_address[0] = '\0';
  r->client_port = r->server_port = 0;
  r->trace_state = ts ? strdup(ts) : NULL;
  copy_network(r, &call->peer);
  r->start_ns = mcp__wall_ns();
  call->span = r;
}

static void span_free(mcp__call_span *sp) {
  if (sp) {
    free(sp->trace_state);
    free(sp);
  }
}

void mcp__span_discard(mcp_call_t *call) {
  span_free(call->span);
  call->span = NULL;
  span_free(call->task_span);
  call->task_span = NULL;
}

/* What ended: a request (code: the JSON-RPC error sent, tool_error: an
 * isError result), or a task (task_status its terminal status, task_error
 * the error.type of a failed or cancelled one, else NULL). */
typedef struct span_outcome {
  int code;
  bool tool_error;
  const char *task_status, *task_error;
} span_outcome;

/* A decimal integer's text in out; its length (util/buf's writer on the
 * caller's 24 bytes: an int64_t and its NUL always fit). */
static size_t decimal(char out[24], int64_t v) {
  mcp__buf b;
  mcp__buf_init_on(&b, out, 24);
  mcp__buf_append_json_int(&b, v);
  return b.len;
}

/* Records sp as a finished span (telemetry/span.h: no encoding here, the
 * exporter's thread does it), hands it to the exporter, frees sp. */
static void span_emit(mcp_call_t *call, mcp__call_span *sp,
                      const span_outcome *o) {
  mcp_server_t *s = call->server;
  const char *method = call->msg.method ? call->msg.method : "unknown";
  /* the target: a tool's or prompt's name (in the span name too), or a
   * resource's URI */
  const char *tool = NULL, *prompt = NULL, *uri = NULL;
  size_t tool_n = 0, prompt_n = 0, uri_n = 0;
  if (strcmp(method, "tools/call") == 0)
    (void)mcp__call_param_string(call, "name", &tool, &tool_n);
  else if (strcmp(method, "prompts/get") == 0)
    (void)mcp__call_param_string(call, "name", &prompt, &prompt_n);
  else if (strncmp(method, "resources/", 10) == 0)
    (void)mcp__call_param_string(call, "uri", &uri, &uri_n);

  mcp__span_draft d;
  mcp__span_draft_init(&d);
  mcp__span_head *h = &d.h;
  mcp__span_draft_ids(&d, sp->trace_id, sp->span_id, sp->has_parent,
                      sp->parent_id);
  if (sp->trace_state)
    mcp__span_draft_trace_state(&d, sp->trace_state);
  /* "{mcp.method.name} {target}"; a task's: "tasks/run {tool}" (the
   * conventions name no span for a task's work: libmcp's own name) */
  mcp__span_draft_name(&d, sp->task ? "tasks/run" : method,
                       tool ? tool : prompt, tool ? tool_n : prompt_n);
  h->kind = sp->task ? MCP__SPAN_KIND_INTERNAL : MCP__SPAN_KIND_SERVER;
  h->start_ns = sp->start_ns;
  h->end_ns = mcp__wall_ns();
  mcp__span_draft_cstr(&d, "mcp.method.name", method);
  if (tool) {
    mcp__span_draft_str(&d, "gen_ai.tool.name", tool, tool_n);
    mcp__span_draft_str(&d, "gen_ai.operation.name", "execute_tool", 12);
  }
  if (prompt)
    mcp__span_draft_str(&d, "gen_ai.prompt.name", prompt, prompt_n);
  if (uri)
    mcp__span_draft_str(&d, "mcp.resource.uri", uri, uri_n);
  if (sp->task && call->task_id != NULL) {
    mcp__span_draft_cstr(&d, "mcp.task.id", call->task_id);
    mcp__span_draft_cstr(&d, "mcp.task.status", o->task_status);
  }
  if (call->msg.id && !sp->task) {
    if (json_is_string(call->msg.id)) {
      mcp__span_draft_cstr(&d, "jsonrpc.request.id",
                           json_string_value(call->msg.id));
    } else {
      char id[24];
      size_t n = decimal(id, json_integer_value(call->msg.id));
      mcp__span_draft_str(&d, "jsonrpc.request.id", id, n);
    }
  }
  char buf[MCP__MAX_VERSION_LEN];
  const char *era = mcp__call_version_seen(call, buf);
  if (era[0])
    mcp__span_draft_cstr(&d, "mcp.protocol.version", era);
  if (call->session != NULL) {
    pthread_mutex_lock(&call->session->lock);
    if (call->session->id && call->session->id[0])
      mcp__span_draft_cstr(&d, "mcp.session.id", call->session->id);
    pthread_mutex_unlock(&call->session->lock);
  }
  if (sp->http_minor >= 0) {
    mcp__span_draft_str(&d, "network.transport", "tcp", 3);
    mcp__span_draft_str(&d, "network.protocol.name", "http", 4);
    mcp__span_draft_str(&d, "network.protocol.version",
                        sp->http_minor == 0 ? "1.0" : "1.1", 3);
  } else {
    mcp__span_draft_str(&d, "network.transport", "pipe", 4);
  }
  if (sp->server_address[0]) {
    mcp__span_draft_cstr(&d, "server.address", sp->server_address);
    mcp__span_draft_int(&d, "server.port", sp->server_port);
  }
  if (sp->client_address[0]) {
    mcp__span_draft_cstr(&d, "client.address", sp->client_address);
    mcp__span_draft_int(&d, "client.port", sp->client_port);
  }
  h->error = true;
  if (o->code != 0) {
    char codetext[24];
    size_t n = decimal(codetext, o->code);
    mcp__span_draft_str(&d, "rpc.response.status_code", codetext, n);
    mcp__span_draft_str(&d, "error.type", codetext, n);
  } else if (o->tool_error) {
    mcp__span_draft_cstr(&d, "error.type", "tool_error");
  } else if (o->task_error != NULL) {
    mcp__span_draft_cstr(&d, "error.type", o->task_error);
  } else {
    h->error = false;
  }
  if (sp->has_link) {
    h->has_link = true;
    memcpy(h->link_trace_id, sp->link_trace_id, sizeof h->link_trace_id);
    memcpy(h->link_span_id, sp->link_span_id, sizeof h->link_span_id);
  }
  mcp__otlp_submit(s->otlp, &d);
  span_free(sp);
}

void mcp__span_end(mcp_call_t *call, mcp_status st, const json_t *result,
                   int code) {
  mcp__call_span *sp = call->span;
  if (sp == NULL)
    return;
  call->span = NULL;
  span_outcome o = {
      .code = code,
      .tool_error = code == 0 && !atomic_load(&call->cancelled) &&
                    (call->tool_error ||
                     json_is_true(json_object_get(result, "isError")))};
  /* A task takes the call over (its CreateTaskResult is this response):
   * its work gets a span of its own, the request's child, ended by
   * mcp__span_task_end. */
  mcp__call_span *task = NULL;
  if (st == MCP_OK && code == 0 && call->handoff != NULL &&
      call->task_id != NULL && (task = malloc(sizeof *task)) != NULL) {
    *task = *sp;
    task->task = true;
    task->has_link = false;
    memcpy(task->parent_id, sp->span_id, sizeof task->parent_id);
    task->has_parent = true;
    task->trace_state = sp->trace_state ? strdup(sp->trace_state) : NULL;
    if (mcp__otlp_random_id(call->server->otlp, task->span_id,
                            sizeof task->span_id) != MCP_OK) {
      span_free(task);
      task = NULL;
    }
  }
  span_emit(call, sp, &o);
  if (task != NULL) {
    task->start_ns = mcp__wall_ns();
    span_free(call->task_span);
    call->task_span = task;
  }
}

bool mcp__span_task_active(const mcp_call_t *call) {
  return call->task_span != NULL;
}

void mcp__span_task_end(mcp_call_t *call, const char *status,
                        const char *error_type) {
  mcp__call_span *sp = call->task_span;
  if (sp == NULL)
    return;
  call->task_span = NULL;
  span_outcome o = {.task_status = status, .task_error = error_type};
  span_emit(call, sp, &o);
}
