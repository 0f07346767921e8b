/* SPDX-License-Identifier: MIT */
/* status.h - libmcp status codes and error detail.
 *
 * Every fallible libmcp function returns an mcp_status. MCP_OK is 0; all
 * failures are positive. The list below is the single source of the enum, of
 * mcp_status_name() and of mcp_strerror(), so they cannot drift. Codes are
 * appended, never renumbered.
 *
 * Thread safety: all functions here are pure and may be called from any thread.
 */
#ifndef MCP_STATUS_H
#define MCP_STATUS_H

#include "mcp/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, number, message) */
#define MCP_STATUS_MAP(X)                                                      \
  X(MCP_OK, 0, "success")                                                      \
  X(MCP_ERR_NOMEM, 1, "out of memory")                                         \
  X(MCP_ERR_INVALID_ARG, 2, "invalid argument")                                \
  X(MCP_ERR_NOT_FOUND, 3, "not found")                                         \
  X(MCP_ERR_EXISTS, 4, "already exists")                                       \
  X(MCP_ERR_PARSE, 5, "malformed JSON")                                        \
  X(MCP_ERR_INVALID_REQUEST, 6, "invalid JSON-RPC request")                    \
  X(MCP_ERR_METHOD_NOT_FOUND, 7, "method not found")                           \
  X(MCP_ERR_INVALID_PARAMS, 8, "invalid params")                               \
  X(MCP_ERR_INTERNAL, 9, "internal error")                                     \
  X(MCP_ERR_IO, 10, "input/output error")                                      \
  X(MCP_ERR_TOO_LARGE, 11, "message exceeds the configured size limit")        \
  X(MCP_ERR_TOO_DEEP, 12, "JSON nesting exceeds the configured depth limit")   \
  X(MCP_ERR_ARG_MISSING, 13, "argument is missing")                            \
  X(MCP_ERR_ARG_NULL, 14, "argument is null")                                  \
  X(MCP_ERR_ARG_TYPE, 15, "argument has the wrong type")                       \
  X(MCP_ERR_SCHEMA, 16, "invalid JSON Schema")                                 \
  X(MCP_ERR_INVALID, 17, "instance does not match the schema")                 \
  X(MCP_ERR_UNSUPPORTED, 18, "not supported")                                  \
  X(MCP_ERR_CANCELLED, 19, "cancelled")                                        \
  X(MCP_ERR_TIMEOUT, 20, "timed out")                                          \
  X(MCP_ERR_STATE, 21, "operation not allowed in the current state")           \
  X(MCP_ERR_CAPABILITY, 22, "the peer did not declare the needed capability")  \
  X(MCP_ERR_CLOSED, 23, "connection or session closed")                        \
  X(MCP_ERR_RESOURCE_NOT_FOUND, 24, "resource not found")                      \
  X(MCP_ERR_PEER, 25, "the peer answered with an error")                       \
  X(MCP_ERR_LIMIT, 26, "a configured limit was reached")                       \
  X(MCP_ERR_INPUT_REQUIRED, 27,                                                \
    "the client must answer the server's questions first (2026-07-28)")        \
  X(MCP_ERR_TASK_STARTED, 28,                                                  \
    "the rest of the call runs as a task (2026-07-28)")

typedef enum mcp_status {
#define MCP__STATUS_ENUM(name, number, message) name = number,
  MCP_STATUS_MAP(MCP__STATUS_ENUM)
#undef MCP__STATUS_ENUM
} mcp_status;

/* Short English sentence for a status. Returns a static string; unknown
 * values give "unknown status". */
MCP_API const char *mcp_strerror(mcp_status status);

/* The enum name as text ("MCP_ERR_NOMEM"). Static string. */
MCP_API const char *mcp_status_name(mcp_status status);

/* Error detail for calls whose failure needs explaining (schema compile,
 * server start, ...). A small frozen value type the caller allocates; the
 * library fills it when the pointer is non-NULL. */
typedef struct mcp_error {
  mcp_status status; /* same value the call returned */
  int rpc_code;      /* JSON-RPC error code when one applies, else 0 */
  char message[256]; /* one human sentence, NUL-terminated; one cut to fit
                        ends with an ellipsis (U+2026) */
  char pointer[256]; /* JSON Pointer to the offending spot, "" when none */
} mcp_error_t;

/* Fills err (when non-NULL) and returns status, so a caller can write
 * `return mcp_error_set(err, MCP_ERR_SCHEMA, "...", ...)`. printf-style. */
MCP_API mcp_status mcp_error_set(mcp_error_t *err, mcp_status status,
                                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
