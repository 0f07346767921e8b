/* SPDX-License-Identifier: MIT */
/* notify.h - notifications that concern more than one call: to every
 * session that wants them (server_state.c), and the local halves of
 * mcp_server_broadcast and mcp_server_notify_resource_updated (what a relay
 * delivers from another replica, relay.c).
 */
#ifndef MCP_CORE_NOTIFY_H
#define MCP_CORE_NOTIFY_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp/server.h"
#include "util/buf.h"

/* Sends msg to the notify stream of every session for which wants(session,
 * ud) is true (called under the server lock; it may take session locks).
 * MCP_ERR_NOMEM when not every wanted session could be collected; those
 * that were still get the message. */
mcp_status mcp__notify_sessions(mcp_server_t *s,
                                bool (*wants)(mcp_session_t *, void *),
                                void *ud, const mcp__buf *msg);
/* relay.c: the local half of mcp_server_broadcast. */
mcp_status mcp__server_broadcast_local(mcp_server_t *s, const char *method,
                                       json_t *params);
/* The local half of mcp_server_notify_resource_updated: the resources
 * module defines it and installs it (mcp__server_set_resource_updated), so
 * the relay in core reaches it without naming the module. */
mcp_status mcp__server_resource_updated_local(mcp_server_t *s, const char *uri);
void mcp__server_set_resource_updated(
    mcp_server_t *s, mcp_status (*fn)(mcp_server_t *s, const char *uri));

#endif
