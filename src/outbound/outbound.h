/* SPDX-License-Identifier: MIT */
/* outbound.h - what the dispatcher tells the outbound module (requests a
 * handler sends to the client: elicitation, sampling, roots). The module
 * was "peer" before #18; mcp__peer (core/channel.h) is what a transport
 * says about the caller, a different thing. */
#ifndef MCP_OUTBOUND_OUTBOUND_H
#define MCP_OUTBOUND_OUTBOUND_H

#include "mcp/server.h"

/* notifications/roots/list_changed from a client. */
void mcp__roots_list_changed(mcp_server_t *s, mcp_session_t *session);

#endif
