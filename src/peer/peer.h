/* SPDX-License-Identifier: MIT */
/* peer.h - what the dispatcher tells the peer module (requests to the
 * client: elicitation, sampling, roots). */
#ifndef MCP_PEER_PEER_H
#define MCP_PEER_PEER_H

#include "mcp/server.h"

/* notifications/roots/list_changed from a client. */
void mcp__roots_list_changed(mcp_server_t *s, mcp_session_t *session);

#endif
