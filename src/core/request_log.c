/* SPDX-License-Identifier: MIT */
/* request_log.c - one line per request at the debug level (see
 * request_log.h). The line is logfmt: key=value pairs, a value quoted as a
 * JSON string when it holds a space, a quote, '=' or a control character,
 * so that a tool name cannot forge another field. */
#include "core/request_log.h"

#include <stdio.h>
#include <string.h>

#include "core/call_internal.h"
#include "util/clock.h"

bool mcp__request_log_on(const mcp_server_t *s) {
  return s != NULL && s->log_fn != NULL && s->log_min <= MCP_LOG_DEBUG;
}

static bool needs_quotes(const char *v, size_t n) {
  if (n == 0)
    return true;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)v[i];
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f)
      return true;
  }
  return false;
}

static void field(mcp__buf *b, const char *key, const char *v, size_t n) {
  mcp__buf_append_char(b, ' ');
  mcp__buf_append_str(b, key);
  mcp__buf_append_char(b, '=');
  if (needs_quotes(v, n))
    mcp__buf_append_escaped(b, v, n);
  else
    mcp__buf_append(b, v, n);
}

static void field_str(mcp__buf *b, const char *key, const char *v) {
  field(b, key, v, strlen(v));
}

static void field_json(mcp__buf *b, const char *key, const json_t *v) {
  mcp__buf_append_char(b, ' ');
  mcp__buf_append_str(b, key);
  mcp__buf_append_char(b, '=');
  mcp__buf_append_json(b, v, 0);
}

static void field_size(mcp__buf *b, const char *key, size_t v) {
  char num[32];
  snprintf(num, sizeof num, "%zu", v);
  field_str(b, key, num);
}

/* "request time=... transport=..." */
static void head(mcp__buf *b, const mcp__peer *peer) {
  char when[32];
  mcp__format_rfc3339_ms(mcp__wall_ms(), when);
  mcp__buf_append_str(b, "request");
  field_str(b, "time", when);
  field_str(b, "transport", peer != NULL && peer->http ? "http" : "stdio");
}

static void emit(mcp_server_t *s, mcp__buf *b) {
  if (b->data != NULL && mcp__buf_append_char(b, '\0'))
    s->log_fn(MCP_LOG_DEBUG, b->data, s->log_user_data);
}

/* What the request was about: the tool, prompt, resource or task. */
static void target(mcp__buf *b, const mcp_call_t *call) {
  static const struct {
    const char *method, *param, *key;
  } rows[] = {
      {"tools/call", "name", "tool"},
      {"prompts/get", "name", "prompt"},
      {"resources/read", "uri", "resource"},
      {"resources/subscribe", "uri", "resource"},
      {"resources/unsubscribe", "uri", "resource"},
      {"completion/complete", "ref", NULL},
      {"tasks/get", "taskId", "task"},
      {"tasks/result", "taskId", "task"},
      {"tasks/cancel", "taskId", "task"},
      {"tasks/update", "taskId", "task"},
  };
  const char *method = call->msg.method;
  for (size_t i = 0; method && i < sizeof rows / sizeof rows[0]; i++) {
    if (strcmp(method, rows[i].method) != 0 || rows[i].key == NULL)
      continue;
    const char *v;
    size_t n;
    if (mcp__call_param_string(call, rows[i].param, &v, &n))
      field(b, rows[i].key, v, n);
    return;
  }
}

static const char *outcome_of(const mcp_call_t *call, mcp_status st,
                              const json_t *result, int code) {
  if (atomic_load(&call->cancelled))
    return "cancelled";
  if (st == MCP_ERR_INPUT_REQUIRED && call->asked)
    return "input_required";
  if (code != 0)
    return "error";
  if (call->handoff != NULL)
    return "task";
  if (call->tool_error || json_is_true(json_object_get(result, "isError")))
    return "tool_error";
  return "result";
}

void mcp__request_log_call(mcp_call_t *call, mcp_status st,
                           const json_t *result, int code, size_t bytes_out) {
  if (call->log_started_ns == 0 || !mcp__request_log_on(call->server))
    return;
  int64_t took_ns = mcp__monotonic_ns() - call->log_started_ns;
  char line[512];
  mcp__buf b;
  mcp__buf_init_on(&b, line, sizeof line);
  head(&b, &call->peer);
  /* initialize: the version it just negotiated */
  char buf[MCP__MAX_VERSION_LEN];
  const char *era = mcp__call_version_seen(call, buf);
  field_str(&b, "era", era[0] ? era : "none");
  if (call->stateless)
    field_str(&b, "mode", "stateless");
  field_str(&b, "method", call->msg.method ? call->msg.method : "-");
  target(&b, call);
  if (call->msg.id)
    field_json(&b, "id", call->msg.id);
  char ms[32];
  snprintf(ms, sizeof ms, "%.3f", (double)took_ns / 1e6);
  field_str(&b, "duration_ms", ms);
  field_str(&b, "outcome", outcome_of(call, st, result, code));
  if (code != 0 && !atomic_load(&call->cancelled)) {
    char num[16];
    snprintf(num, sizeof num, "%d", code);
    field_str(&b, "code", num);
  }
  field_size(&b, "bytes_in", call->request_bytes);
  field_size(&b, "bytes_out", bytes_out);
  if (call->server->log_params) {
    json_t *params = mcp_call_params(call);
    if (params)
      field_json(&b, "params", params);
  }
  emit(call->server, &b);
  mcp__buf_free(&b);
}

void mcp__request_log_unread(mcp_server_t *s, const mcp__peer *peer,
                             const json_t *id, int code, size_t bytes_in,
                             size_t bytes_out) {
  if (!mcp__request_log_on(s))
    return;
  char line[256];
  mcp__buf b;
  mcp__buf_init_on(&b, line, sizeof line);
  head(&b, peer);
  field_str(&b, "method", "-");
  if (id)
    field_json(&b, "id", id);
  field_str(&b, "outcome", "error");
  char num[16];
  snprintf(num, sizeof num, "%d", code);
  field_str(&b, "code", num);
  field_size(&b, "bytes_in", bytes_in);
  field_size(&b, "bytes_out", bytes_out);
  emit(s, &b);
  mcp__buf_free(&b);
}
