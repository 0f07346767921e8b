/* SPDX-License-Identifier: MIT */
/* dispatch.h - the one way into a server, for transports.
 *
 * A transport decodes nothing itself: it hands bytes to mcp__server_accept,
 * which parses them, answers client responses and notifications at once, and
 * for a request returns a prepared call that the transport hands to
 * mcp__call_schedule (core/channel.h: the core runs it now or queues it to
 * the transport's worker). Everything a request produces - the response
 * and the notifications and server-to-client requests tied to it - goes to
 * the reply channel the transport supplied; session-wide messages go to the
 * session's notify channel.
 */
#ifndef MCP_SERVER_DISPATCH_H
#define MCP_SERVER_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/channel.h"
#include "jsonrpc/prescan.h"
#include "mcp/call.h"
#include "mcp/server.h"
#include "mcp/store.h"

struct mcp__buf; /* util/buf.h */

/* Outcome of mcp__server_accept. */
typedef enum mcp__accept {
  MCP__ACCEPT_REQUEST = 1, /* *call is set: mcp__call_schedule it */
  MCP__ACCEPT_HANDLED,     /* a notification or response; nothing to send */
  MCP__ACCEPT_REJECTED     /* malformed; an error reply (if any) was sent */
} mcp__accept;

/* Every transport calls this before it serves s: MCP_ERR_STATE (err filled;
 * logged when err is NULL) when a tool needs tasks (execution.taskSupport required or
 * optional) and tasks are not enabled, naming every such tool; else marks
 * s as serving (mcp_server_add_tool refuses such tools from then on). */
mcp_status mcp__server_start_serving(mcp_server_t *s, mcp_error_t *err);

/* mcp_server_run --store SPEC (run_store.c): opens the store and enables
 * tasks on it with the default options; the server frees it. MCP_ERR_STATE
 * with err when tasks are enabled already or no tool runs as a task; the
 * errors of mcp_store_open and mcp_server_enable_tasks otherwise. */
mcp_status mcp__server_tasks_on_store(mcp_server_t *s, const char *spec,
                                      mcp_error_t *err);

/* The store tasks run on (mcp_server_enable_tasks; borrowed), or NULL. */
mcp_store_t *mcp__server_task_store(const mcp_server_t *s);

/* Parses len bytes and routes them. session may be NULL only for stateless
 * (2026-07-28) traffic. For MCP__ACCEPT_REQUEST the call owns the message and
 * holds a session reference; it is registered as in flight so that a
 * notifications/cancelled arriving before it runs is honoured. */
mcp__accept mcp__server_accept(mcp_server_t *s, mcp_session_t *session,
                               const mcp__peer *peer, const char *bytes,
                               size_t len, mcp__channel reply,
                               mcp_call_t **call);
/* mcp__server_accept for bytes the transport scanned already
 * (jsonrpc/prescan.h; mcp__server_triage tells where to accept them): the
 * depth is not counted again. scan may be NULL. */
mcp__accept mcp__server_accept_scanned(mcp_server_t *s, mcp_session_t *session,
                                       const mcp__peer *peer, const char *bytes,
                                       size_t len, const mcp__prescan *scan,
                                       mcp__channel reply, mcp_call_t **call);

/* True for a legacy (2024-11-05 .. 2025-11-25) / modern (2026-07-28)
 * protocol version this server serves. */
bool mcp__version_is_supported(const char *version);
bool mcp__version_is_modern(const char *version);
/* Every served version, modern first (returns new JSON array). */
json_t *mcp__supported_versions_json(void);

/* Sends a JSON-RPC error with no id to reply (e.g. an oversize line). */
void mcp__reply_error(mcp__channel reply, int code, const char *message);

#endif
