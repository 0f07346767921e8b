/* SPDX-License-Identifier: MIT */
/* text_request.c - the answer of a declared resource or prompt handler:
 * printf-style text, appended message by message (decl.h). */
#include "core/text_request.h"

#include "core/channel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcp__text_request_init(mcp_text_request_t *req, mcp_call_t *call,
                            const char *uri, const json_t *args,
                            void *user_data) {
  memset(req, 0, sizeof *req);
  req->call = call;
  req->uri = uri;
  req->args = args;
  req->user_data = user_data;
}

void mcp__text_request_free(mcp_text_request_t *req) {
  for (size_t i = 0; i < req->n_messages; i++)
    mcp__buf_free(&req->messages[i].text);
  free(req->messages);
  req->messages = NULL;
  req->n_messages = req->cap_messages = 0;
}

static mcp_status start_message(mcp_text_request_t *req, mcp_role role) {
  if (req->n_messages == req->cap_messages) {
    size_t cap = req->cap_messages ? 2 * req->cap_messages : 2;
    mcp__text_message *m = realloc(req->messages, cap * sizeof *m);
    if (m == NULL)
      return MCP_ERR_NOMEM;
    req->messages = m;
    req->cap_messages = cap;
  }
  mcp__text_message *m = &req->messages[req->n_messages++];
  m->role = role;
  mcp__buf_init(&m->text);
  /* an empty message is still "" rather than NULL */
  if (!mcp__buf_reserve(&m->text, 1)) {
    req->n_messages--;
    return MCP_ERR_NOMEM;
  }
  m->text.data[0] = '\0';
  return MCP_OK;
}

static mcp_status append(mcp_text_request_t *req, const char *fmt,
                         va_list ap) {
  mcp__buf *b = &req->messages[req->n_messages - 1].text;
  va_list again;
  va_copy(again, ap);
  char probe[1];
  int n = vsnprintf(probe, sizeof probe, fmt, ap);
  if (n < 0) {
    va_end(again);
    return MCP_ERR_INVALID_ARG;
  }
  if (!mcp__buf_reserve(b, (size_t)n)) {
    va_end(again);
    return MCP_ERR_NOMEM;
  }
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
  va_end(again);
  b->len += (size_t)n;
  return MCP_OK;
}

mcp_status mcp_text_vprintf(mcp_text_request_t *req, const char *fmt,
                            va_list ap) {
  if (req == NULL || fmt == NULL)
    return MCP_ERR_INVALID_ARG;
  if (req->n_messages == 0) {
    mcp_status st = start_message(req, MCP_ROLE_USER);
    if (st != MCP_OK)
      return st;
  }
  return append(req, fmt, ap);
}

mcp_status mcp_text_printf(mcp_text_request_t *req, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mcp_status st = mcp_text_vprintf(req, fmt, ap);
  va_end(ap);
  return st;
}

mcp_status mcp_text_message(mcp_text_request_t *req, mcp_role role,
                            const char *fmt, ...) {
  if (req == NULL || fmt == NULL ||
      (role != MCP_ROLE_USER && role != MCP_ROLE_ASSISTANT))
    return MCP_ERR_INVALID_ARG;
  mcp_status st = start_message(req, role);
  if (st != MCP_OK)
    return st;
  va_list ap;
  va_start(ap, fmt);
  st = append(req, fmt, ap);
  va_end(ap);
  return st;
}

const char *mcp_text_arg(const mcp_text_request_t *req, const char *name) {
  if (req == NULL || name == NULL)
    return NULL;
  return json_string_value(json_object_get(req->args, name));
}

const json_t *mcp_text_args(const mcp_text_request_t *req) {
  return req ? req->args : NULL;
}

const char *mcp_text_uri(const mcp_text_request_t *req) {
  return req ? req->uri : NULL;
}

mcp_call_t *mcp_text_call(const mcp_text_request_t *req) {
  return req ? req->call : NULL;
}

void *mcp_text_user_data(const mcp_text_request_t *req) {
  return req ? req->user_data : NULL;
}

mcp_status mcp__decl_refuse(mcp_server_t *s, mcp_error_t *err,
                            mcp_status status, const char *fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  if (s != NULL)
    mcp__log(s, MCP_LOG_ERROR, "%s", message);
  return mcp_error_set(err, status, "%s", message);
}

bool mcp__decl_reserved_zero(const void *const *reserved, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (reserved[i] != NULL)
      return false;
  return true;
}
