/* SPDX-License-Identifier: MIT */
/* call.h - the per-request context handed to every handler.
 *
 * An mcp_call_t describes one incoming request: its id and method, the
 * negotiated protocol version and the client's capabilities and info (from
 * the session in the legacy era, from the request's own _meta in the
 * stateless 2026-07-28 era), the session (NULL when stateless), the caller's
 * identity (NULL without authentication), the progress token and a
 * cancellation flag. It also sends notifications tied to the request
 * (progress, log messages) and server-to-client requests (elicitation,
 * sampling, roots) on the request's own stream.
 *
 * Lifetime: borrowed by the handler; valid until the handler returns.
 * Thread safety: use it from the handler's thread, except
 * mcp_call_is_cancelled, mcp_call_progress and mcp_call_log, which are safe
 * from any thread while the handler runs.
 */
#ifndef MCP_CALL_H
#define MCP_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* JSON-RPC and MCP error codes (MCP 2025-11-25). */
#define MCP_RPC_PARSE_ERROR              -32700
#define MCP_RPC_INVALID_REQUEST          -32600
#define MCP_RPC_METHOD_NOT_FOUND         -32601
#define MCP_RPC_INVALID_PARAMS           -32602
#define MCP_RPC_INTERNAL_ERROR           -32603
#define MCP_RPC_RESOURCE_NOT_FOUND       -32002
#define MCP_RPC_URL_ELICITATION_REQUIRED -32042
/* 2026-07-28 era only. */
#define MCP_RPC_HEADER_MISMATCH              -32020
#define MCP_RPC_MISSING_CLIENT_CAPABILITY    -32021
#define MCP_RPC_UNSUPPORTED_PROTOCOL_VERSION -32022

typedef struct mcp_call mcp_call_t;
typedef struct mcp_session mcp_session_t;
typedef struct mcp_server mcp_server_t;

/* Log levels of notifications/message, in ascending severity. */
typedef enum mcp_log_level {
  MCP_LOG_DEBUG = 0,
  MCP_LOG_INFO,
  MCP_LOG_NOTICE,
  MCP_LOG_WARNING,
  MCP_LOG_ERROR,
  MCP_LOG_CRITICAL,
  MCP_LOG_ALERT,
  MCP_LOG_EMERGENCY
} mcp_log_level;

/* "debug" ... "emergency"; NULL for an out-of-range value. */
MCP_API const char *mcp_log_level_name(mcp_log_level level);
/* Parses a level name; MCP_ERR_INVALID_ARG when unknown. */
MCP_API mcp_status mcp_log_level_parse(const char *name, mcp_log_level *out);

/* ---- what the request is ------------------------------------------------- */
MCP_API mcp_server_t *mcp_call_server(const mcp_call_t *call);
/* NULL for a stateless (2026-07-28) request. */
MCP_API mcp_session_t *mcp_call_session(const mcp_call_t *call);
MCP_API const char *mcp_call_method(const mcp_call_t *call);
/* The JSON-RPC id (borrowed). */
MCP_API json_t *mcp_call_request_id(const mcp_call_t *call);
/* The request's params object (borrowed; {} when absent). Built on first
 * use (once, from any thread); NULL only when memory runs out. */
MCP_API json_t *mcp_call_params(const mcp_call_t *call);
/* params._meta (borrowed) or NULL. While the params are not built this is
 * a copy of its own, with the same values (see docs/call.md). */
MCP_API json_t *mcp_call_meta(const mcp_call_t *call);
/* params._meta.progressToken (borrowed) or NULL. */
MCP_API json_t *mcp_call_progress_token(const mcp_call_t *call);

/* ---- who is asking ------------------------------------------------------- */
/* Negotiated protocol version, e.g. "2025-11-25". */
MCP_API const char *mcp_call_protocol_version(const mcp_call_t *call);
/* True when the request was served statelessly (2026-07-28 era). */
MCP_API bool mcp_call_is_stateless(const mcp_call_t *call);
/* Client capabilities object (borrowed; {} when none were declared). */
MCP_API json_t *mcp_call_client_capabilities(const mcp_call_t *call);
/* Client Implementation object (borrowed) or NULL. */
MCP_API json_t *mcp_call_client_info(const mcp_call_t *call);
/* True when the client declared the top-level capability name
 * ("sampling", "elicitation", "roots", ...). */
MCP_API bool mcp_call_client_has(const mcp_call_t *call, const char *name);
/* Authenticated subject of the caller, or NULL without authentication. */
MCP_API const char *mcp_call_subject(const mcp_call_t *call);
/* Scopes granted to the caller's token (space-separated) or NULL without
 * authentication (include/mcp/auth.h). */
MCP_API const char *mcp_call_scopes(const mcp_call_t *call);
/* True when the caller's token grants scope. */
MCP_API bool mcp_call_has_scope(const mcp_call_t *call, const char *scope);

/* ---- cancellation, progress, logging ------------------------------------- */
/* True once notifications/cancelled named this request (or the transport or
 * the server is shutting down). No response is sent after a cancel. */
MCP_API bool mcp_call_is_cancelled(const mcp_call_t *call);

/* Sends notifications/progress for this request's progress token. A no-op
 * returning MCP_OK when the client sent no token. progress must strictly
 * increase (MCP_ERR_INVALID_ARG otherwise, and for a progress or total
 * that is Infinity or NaN, which JSON cannot carry); total < 0 means
 * "unknown";
 * message (copied) may be NULL. */
MCP_API mcp_status mcp_call_progress(mcp_call_t *call, double progress,
                                     double total, const char *message);

/* Sends notifications/message tied to this request when the session's log
 * level admits it (always when no level was set). logger may be NULL.
 * data: steals, even on failure. */
MCP_API mcp_status mcp_call_log(mcp_call_t *call, mcp_log_level level,
                                const char *logger, json_t *data);
/* Same with a printf-formatted string as data. */
MCP_API mcp_status mcp_call_logf(mcp_call_t *call, mcp_log_level level,
                                 const char *logger, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- protocol errors --------------------------------------------------------
 * A handler that returns a non-OK status produces a JSON-RPC error response.
 * By default its code follows the status (MCP_ERR_INVALID_PARAMS and
 * MCP_ERR_NOT_FOUND give -32602, MCP_ERR_METHOD_NOT_FOUND -32601,
 * MCP_ERR_RESOURCE_NOT_FOUND -32002, anything else -32603) and its message is
 * mcp_strerror(status). Call this before returning to choose code, message
 * (copied) and data (steals, even on failure; may be NULL) yourself.
 * Tool failures the model should see are NOT protocol errors: use
 * mcp_result_set_error() and return MCP_OK. */
MCP_API mcp_status mcp_call_set_error(mcp_call_t *call, int code,
                                      const char *message, json_t *data);

/* Whether the request's client declared capability name; when not, the
 * call remembers it and MCP_ERR_CAPABILITY is returned: return that from the
 * handler and a 2026-07-28 client gets -32021 with
 * data.requiredCapabilities {name: {}} (SEP-2575). */
MCP_API mcp_status mcp_call_require_capability(mcp_call_t *call,
                                               const char *name);

/* ---- multi-round requests (2026-07-28, SEP-2322) ------------------------- */
/* In 2026-07-28 the server may not send requests to the client. When a
 * tools/call, prompts/get or resources/read handler asks (mcp_call_elicit,
 * mcp_call_sample, mcp_call_list_roots, mcp_call_request), the library answers
 * from the client's inputResponses when it already has the answer; otherwise
 * the question is recorded and MCP_ERR_INPUT_REQUIRED returned: return it from
 * the handler, and the client receives an input_required result, answers, and
 * retries; the handler then runs again from the top and each question gets its
 * answer. Several questions may be asked before returning (they go out
 * together). In a 2025-11-25 session the same calls send real requests and
 * wait, so one handler serves both eras. State the handler must carry from one
 * round to the next (a correlation id, work already done) goes in the round
 * state; it travels to the client in the requestState, signed (HMAC-SHA256,
 * mcp_server_set_request_state_key) but readable: keep secrets out of it. */
/* Names the next question (its key in inputRequests and inputResponses;
 * 1 to 63 bytes, copied) instead of "q0", "q1", ...; keys must be unique
 * within the request. No effect in 2025-11-25. */
MCP_API mcp_status mcp_call_set_question_key(mcp_call_t *call, const char *key);
/* Sets the state of this round (steals, even on failure). */
MCP_API mcp_status mcp_call_set_round_state(mcp_call_t *call, json_t *state);
/* The state the previous round set (borrowed), or NULL. */
MCP_API json_t *mcp_call_round_state(const mcp_call_t *call);

/* ---- server-to-client requests ------------------------------------------- */
/* Sends a request (e.g. "elicitation/create", "sampling/createMessage",
 * "roots/list") to the client on this request's stream and waits for the
 * answer. params: steals, even on failure. timeout_ms <= 0 uses the server
 * default. On MCP_OK *result is a new reference to the client's result. A
 * JSON-RPC error from the client gives MCP_ERR_PEER with err filled (rpc_code,
 * message). MCP_ERR_CAPABILITY when the client did not declare the capability
 * the method needs, MCP_ERR_TIMEOUT, MCP_ERR_CANCELLED, MCP_ERR_UNSUPPORTED on
 * a stateless request (2026-07-28 forbids server-to-client requests). */
MCP_API mcp_status mcp_call_request(mcp_call_t *call, const char *method,
                                    json_t *params, int timeout_ms,
                                    json_t **result, mcp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
