/* SPDX-License-Identifier: MIT */
/* internal.h - the dispatcher's private declarations (src/server): the
 * server object's lifecycle, the methods it serves itself (initialize,
 * ping, server/discover, logging/setLevel, subscriptions/listen) and the
 * capabilities it derives from what the feature modules hold. Feature
 * modules include the core headers (core/feature.h, ...), never this
 * header.
 */
#ifndef MCP_SERVER_INTERNAL_H
#define MCP_SERVER_INTERNAL_H

#include "core/call_life.h"
#include "core/feature.h"
#include "core/listen.h"
#include "core/relay.h"
#include "core/sessions.h"
#include "server/dispatch.h"

/* ---- lifecycle.c --------------------------------------------------------- */
mcp_status mcp__handle_initialize(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_discover(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_set_level(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_ping(mcp_call_t *call, json_t **result);
/* The rows of the methods above and subscriptions/listen. */
mcp_status mcp__lifecycle_register(mcp_server_t *s);

/* ---- listen_method.c ----------------------------------------------------- */
mcp_status mcp__handle_subscriptions_listen(mcp_call_t *call, json_t **result);

#endif
