/* SPDX-License-Identifier: MIT */
/* text_request.h - the request a declared resource or prompt handler answers
 * (decl.h): its inputs and the text it builds, message by message. The
 * resources and prompts modules turn the messages into their results. */
#ifndef MCP_CORE_TEXT_REQUEST_H
#define MCP_CORE_TEXT_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/decl.h"
#include "util/buf.h"

typedef struct mcp__text_message {
  mcp_role role;
  mcp__buf text;
} mcp__text_message;

struct mcp_text_request {
  mcp_call_t *call;
  const char *uri; /* NULL for a prompt */
  const json_t *args;
  void *user_data;
  mcp__text_message *messages;
  size_t n_messages, cap_messages;
};

void mcp__text_request_init(mcp_text_request_t *req, mcp_call_t *call,
                            const char *uri, const json_t *args,
                            void *user_data);
void mcp__text_request_free(mcp_text_request_t *req);

/* A declaration refused (decl.h): logs the message at MCP_LOG_ERROR on s
 * (when not NULL), fills err and returns status. */
mcp_status mcp__decl_refuse(mcp_server_t *s, mcp_error_t *err,
                            mcp_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* True when the n pointers are all NULL (the reserved members). */
bool mcp__decl_reserved_zero(const void *const *reserved, size_t n);

#endif
