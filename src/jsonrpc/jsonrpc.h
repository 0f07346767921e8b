/* SPDX-License-Identifier: MIT */
/* jsonrpc.h - JSON-RPC 2.0 framing for MCP: bytes <-> messages.
 *
 * Knows nothing of MCP methods. Decoding parses once with jansson (strict
 * UTF-8, any top-level value so that non-object input gets -32600 rather than
 * -32700), enforces a nesting-depth limit before parsing, and classifies the
 * message. There is no batch support: MCP 2025-11-25 removed it, so a
 * top-level array is an invalid request.
 */
#ifndef MCP_JSONRPC_H
#define MCP_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "jsonrpc/prescan.h"
#include "json/tape.h"

#include "mcp/status.h"
#include "util/buf.h"

typedef enum mcp__msg_kind {
  MCP__MSG_REQUEST = 1,
  MCP__MSG_NOTIFICATION,
  MCP__MSG_RESULT, /* a response carrying "result" */
  MCP__MSG_ERROR   /* a response carrying "error" */
} mcp__msg_kind;

typedef struct mcp__message {
  mcp__msg_kind kind;
  json_t *root;       /* owned: the whole message */
  json_t *id;         /* borrowed from root; NULL for notifications */
  const char *method; /* borrowed; requests and notifications */
  json_t *params;     /* borrowed; NULL when absent */
  json_t *result;     /* borrowed; MCP__MSG_RESULT */
  json_t *error;      /* borrowed; MCP__MSG_ERROR */
  /* Decoded without a root (mcp__jsonrpc_decode_server): root is NULL and
   * id, params and method are the message's own (method is method_copy,
   * or a static string for the methods clients send most). */
  bool parts_owned;
  char *method_copy;
  /* A request's params not built yet (params NULL): its parsed subtree,
   * owned, for whoever needs them to build them on demand (src/core). None
   * of its strings holds a NUL byte (a message with "\u0000" anywhere is
   * decoded the general way, without a tape). */
  mcp__kept_tape *params_tape;
} mcp__message;

/* Why a message could not be decoded: the JSON-RPC error to send back.
 * id is a new reference (or NULL when unreadable: then the reply omits id).
 * reply is false when the input was a notification-shaped message, which must
 * never be answered. */
typedef struct mcp__decode_error {
  int code;
  char message[160];
  json_t *id;
  bool reply;
} mcp__decode_error;

/* Decodes len bytes. On MCP_OK *out owns root (free with
 * mcp__message_clear). On failure err says what to answer. */
mcp_status mcp__jsonrpc_decode(const char *bytes, size_t len, size_t max_depth,
                               mcp__message *out, mcp__decode_error *err);
/* The same for text already scanned (prescan.h): its depth is not
 * counted again. scan may be NULL. */
mcp_status mcp__jsonrpc_decode_scanned(const char *bytes, size_t len,
                                       size_t max_depth,
                                       const mcp__prescan *scan,
                                       mcp__message *out,
                                       mcp__decode_error *err);
/* The server's decoder: the same verdicts and errors as
 * mcp__jsonrpc_decode_scanned, but a well-formed request or notification is
 * read from a tape without building the envelope in jansson (root NULL,
 * parts_owned), and a request's params stay a tape (params_tape, params
 * NULL) until somebody needs them: a tools/call of a typed tool never
 * does. Responses and every malformed message take the general path.
 * interned: static strings (NULL-terminated list, or NULL) that a message
 * naming one of them points at instead of a copy of its method (the
 * caller's most frequent methods: one allocation less per request; this
 * layer knows none). */
mcp_status mcp__jsonrpc_decode_server(const char *bytes, size_t len,
                                      size_t max_depth,
                                      const mcp__prescan *scan,
                                      const char *const *interned,
                                      mcp__message *out,
                                      mcp__decode_error *err);
void mcp__message_clear(mcp__message *m);
void mcp__decode_error_clear(mcp__decode_error *err);

/* True for a valid JSON-RPC id as MCP restricts it: string or integer. */
bool mcp__jsonrpc_id_is_valid(const json_t *id);

/* Encoders append one compact message (no newline) to out. */
bool mcp__jsonrpc_encode_result(mcp__buf *out, const json_t *id,
                                const json_t *result);
/* id may be NULL (omitted); data may be NULL. */
bool mcp__jsonrpc_encode_error(mcp__buf *out, const json_t *id, int code,
                               const char *message, const json_t *data);
bool mcp__jsonrpc_encode_notification(mcp__buf *out, const char *method,
                                      const json_t *params);
bool mcp__jsonrpc_encode_request(mcp__buf *out, const json_t *id,
                                 const char *method, const json_t *params);

#endif
