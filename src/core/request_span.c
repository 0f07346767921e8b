/* SPDX-License-Identifier: MIT */
/* request_span.c - see request_span.h. The span is encoded as an OTLP/JSON
 * Span object (proto3 JSON mapping: ids in hex, times as decimal strings,
 * kind and status code as numbers). */
#include "core/request_span.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/call_internal.h"
#include "core/session_internal.h"
#include "telemetry/otlp.h"
#include "util/rand.h"

struct mcp__call_span {
  unsigned char trace_id[16], span_id[8], parent_id[8];
  bool has_parent;
  char *trace_state; /* the caller's tracestate, or NULL */
  int64_t start_ns;  /* Unix epoch nanoseconds */
};

static int64_t wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int hex_value(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : -1; /* W3C: lowercase only */
}

static bool unhex(const char *s, unsigned char *out, size_t n) {
  bool nonzero = false;
  for (size_t i = 0; i < n; i++) {
    int hi = hex_value(s[2 * i]), lo = hex_value(s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    out[i] = (unsigned char)(hi << 4 | lo);
    nonzero |= out[i] != 0;
  }
  return nonzero; /* all-zero ids are invalid */
}

/* W3C traceparent "00-<32 hex>-<16 hex>-<2 hex>"; *sampled from flags. */
static bool parse_traceparent(const char *tp, mcp__call_span *sp,
                              bool *sampled) {
  if (tp == NULL || strlen(tp) < 55 || tp[2] != '-' || tp[35] != '-' ||
      tp[52] != '-' || strncmp(tp, "ff", 2) == 0 || hex_value(tp[0]) < 0 ||
      hex_value(tp[1]) < 0 || (strncmp(tp, "00", 2) == 0 && tp[55] != '\0'))
    return false;
  unsigned char flags;
  if (!unhex(tp + 3, sp->trace_id, 16) || !unhex(tp + 36, sp->parent_id, 8))
    return false;
  int hi = hex_value(tp[53]), lo = hex_value(tp[54]);
  if (hi < 0 || lo < 0)
    return false;
  flags = (unsigned char)(hi << 4 | lo);
  *sampled = flags & 1;
  return true;
}

static bool ratio_keeps(const unsigned char trace_id[16], double ratio) {
  uint64_t v = 0;
  for (int i = 8; i < 16; i++)
    v = v << 8 | trace_id[i];
  return (double)v < ratio * 18446744073709551616.0;
}

void mcp__span_begin(mcp_call_t *call) {
  mcp_server_t *s = call->server;
  if (s->otlp == NULL)
    return;
  mcp__call_span sp = {0};
  bool parent_sampled = false;
  json_t *meta = mcp__call_meta_has(call, "traceparent")
                     ? mcp__call_meta_object(call)
                     : NULL;
  sp.has_parent = meta != NULL &&
                  parse_traceparent(json_string_value(json_object_get(
                                        meta, "traceparent")),
                                    &sp, &parent_sampled);
  if (!sp.has_parent &&
      mcp__random_bytes(sp.trace_id, sizeof sp.trace_id) != MCP_OK)
    return;
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
  if (!keep || mcp__random_bytes(sp.span_id, sizeof sp.span_id) != MCP_OK)
    return;
  const char *ts =
      sp.has_parent ? json_string_value(json_object_get(meta, "tracestate"))
                    : NULL;
  call->span = malloc(sizeof *call->span);
  if (call->span == NULL)
    return;
  *call->span = sp;
  call->span->trace_state = ts ? strdup(ts) : NULL;
  call->span->start_ns = wall_ns();
}

void mcp__span_discard(mcp_call_t *call) {
  if (call->span) {
    free(call->span->trace_state);
    free(call->span);
    call->span = NULL;
  }
}

static void append_hex(mcp__buf *b, const unsigned char *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    mcp__buf_append_char(b, digits[p[i] >> 4]);
    mcp__buf_append_char(b, digits[p[i] & 15]);
  }
}

static void attr_str(mcp__buf *b, bool *first, const char *key, const char *v,
                     size_t n) {
  mcp__buf_append_str(b, *first ? "{\"key\":\"" : ",{\"key\":\"");
  *first = false;
  mcp__buf_append_str(b, key);
  mcp__buf_append_str(b, "\",\"value\":{\"stringValue\":");
  mcp__buf_append_escaped(b, v, n);
  mcp__buf_append_str(b, "}}");
}

static void attr_cstr(mcp__buf *b, bool *first, const char *key,
                      const char *v) {
  attr_str(b, first, key, v, strlen(v));
}

void mcp__span_end(mcp_call_t *call, mcp_status st, const json_t *result,
                   int code) {
  mcp__call_span *sp = call->span;
  if (sp == NULL)
    return;
  call->span = NULL;
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
  bool tool_error =
      code == 0 && !atomic_load(&call->cancelled) &&
      (call->tool_error || json_is_true(json_object_get(result, "isError")));
  (void)st;

  char small[1024];
  mcp__buf b;
  mcp__buf_init_on(&b, small, sizeof small);
  mcp__buf_append_str(&b, "{\"traceId\":\"");
  append_hex(&b, sp->trace_id, 16);
  mcp__buf_append_str(&b, "\",\"spanId\":\"");
  append_hex(&b, sp->span_id, 8);
  mcp__buf_append_char(&b, '"');
  if (sp->has_parent) {
    mcp__buf_append_str(&b, ",\"parentSpanId\":\"");
    append_hex(&b, sp->parent_id, 8);
    mcp__buf_append_char(&b, '"');
  }
  if (sp->trace_state) {
    mcp__buf_append_str(&b, ",\"traceState\":");
    mcp__buf_append_escaped(&b, sp->trace_state, strlen(sp->trace_state));
  }
  /* "{mcp.method.name} {target}" */
  mcp__buf name;
  char name_small[256];
  mcp__buf_init_on(&name, name_small, sizeof name_small);
  mcp__buf_append_str(&name, method);
  if (tool || prompt) {
    mcp__buf_append_char(&name, ' ');
    mcp__buf_append(&name, tool ? tool : prompt, tool ? tool_n : prompt_n);
  }
  mcp__buf_append_str(&b, ",\"name\":");
  mcp__buf_append_escaped(&b, name.data, name.len);
  mcp__buf_free(&name);
  char times[96];
  snprintf(times, sizeof times,
           ",\"kind\":2,\"startTimeUnixNano\":\"%lld\",\"endTimeUnixNano\":"
           "\"%lld\"",
           (long long)sp->start_ns, (long long)wall_ns());
  mcp__buf_append_str(&b, times);
  mcp__buf_append_str(&b, ",\"attributes\":[");
  bool first = true;
  attr_cstr(&b, &first, "mcp.method.name", method);
  if (tool) {
    attr_str(&b, &first, "gen_ai.tool.name", tool, tool_n);
    attr_cstr(&b, &first, "gen_ai.operation.name", "execute_tool");
  }
  if (prompt)
    attr_str(&b, &first, "gen_ai.prompt.name", prompt, prompt_n);
  if (uri)
    attr_str(&b, &first, "mcp.resource.uri", uri, uri_n);
  if (call->msg.id) {
    if (json_is_string(call->msg.id))
      attr_cstr(&b, &first, "jsonrpc.request.id",
                json_string_value(call->msg.id));
    else {
      char id[32];
      snprintf(id, sizeof id, "%lld",
               (long long)json_integer_value(call->msg.id));
      attr_cstr(&b, &first, "jsonrpc.request.id", id);
    }
  }
  char era[MCP__MAX_VERSION_LEN] = "";
  json_t *caps, *info;
  if (call->protocol_version[0] != '\0')
    memcpy(era, call->protocol_version, sizeof era);
  else if (call->session != NULL)
    (void)mcp__session_snapshot(call->session, era, sizeof era, &caps, &info,
                                NULL);
  if (era[0])
    attr_cstr(&b, &first, "mcp.protocol.version", era);
  if (call->session != NULL) {
    char sid[80] = "";
    pthread_mutex_lock(&call->session->lock);
    if (call->session->id)
      snprintf(sid, sizeof sid, "%s", call->session->id);
    pthread_mutex_unlock(&call->session->lock);
    if (sid[0])
      attr_cstr(&b, &first, "mcp.session.id", sid);
  }
  attr_cstr(&b, &first, "network.transport", call->peer.http ? "tcp" : "pipe");
  if (call->peer.http)
    attr_cstr(&b, &first, "network.protocol.name", "http");
  char codetext[16];
  snprintf(codetext, sizeof codetext, "%d", code);
  if (code != 0) {
    attr_cstr(&b, &first, "rpc.response.status_code", codetext);
    attr_cstr(&b, &first, "error.type", codetext);
  } else if (tool_error) {
    attr_cstr(&b, &first, "error.type", "tool_error");
  }
  mcp__buf_append_char(&b, ']');
  if (code != 0 || tool_error)
    mcp__buf_append_str(&b, ",\"status\":{\"code\":2}");
  bool ok = mcp__buf_append_char(&b, '}');
  if (ok)
    mcp__otlp_submit(s->otlp, b.data, b.len);
  mcp__buf_free(&b);
  free(sp->trace_state);
  free(sp);
}
