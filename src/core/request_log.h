/* SPDX-License-Identifier: MIT */
/* request_log.h - the request log (issue #26 item 1): at the debug level of
 * the library's diagnostics, one line per request when it ends, written
 * through the server's log handler (stderr by default).
 *
 * A call notes its start only when the log is on (mcp__request_log_on), so
 * with the level above debug a request costs one comparison here and
 * nothing is measured or formatted. */
#ifndef MCP_CORE_REQUEST_LOG_H
#define MCP_CORE_REQUEST_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/channel.h"
#include "mcp/server.h"

/* Whether request lines are wanted: a handler and a level at debug. */
bool mcp__request_log_on(const mcp_server_t *s);

/* The line of a call that ends (core: mcp__call_finish and the
 * dispatcher's early refusals through mcp__call_reply_error). code: the
 * JSON-RPC error code sent, 0 when the answer was a result; bytes_out: the
 * response's length, 0 when none was sent. */
void mcp__request_log_call(mcp_call_t *call, mcp_status st,
                           const json_t *result, int code, size_t bytes_out);

/* The line of a message answered before it became a call (too large, not
 * JSON, not a JSON-RPC request): its id when one could be read. */
void mcp__request_log_unread(mcp_server_t *s, const mcp__peer *peer,
                             const json_t *id, int code, size_t bytes_in,
                             size_t bytes_out);

#endif
