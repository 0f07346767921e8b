/* SPDX-License-Identifier: MIT */
/* relay.h - what happened here published to the other replicas of a
 * server, and their events delivered here (relay.c, relay_answers.c;
 * mcp/relay.h is the application's side).
 */
#ifndef MCP_CORE_RELAY_H
#define MCP_CORE_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "jsonrpc/jsonrpc.h"
#include "mcp/server.h"

/* Whether a relay is set (read under the server lock: it is closed while
 * task threads still publish). */
bool mcp__relay_active(mcp_server_t *s);
void mcp__relay_publish_broadcast(mcp_server_t *s, const char *method,
                                  const json_t *params);
void mcp__relay_publish_resource_updated(mcp_server_t *s, const char *uri);
/* Publishes event (steals; NULL ignored) when s has a relay. */
void mcp__relay_publish_event(mcp_server_t *s, json_t *event);
void mcp__relay_close(mcp_server_t *s);
/* relay_answers.c: server-to-client requests of shared 2025-11-25
 * sessions answered through another replica (relay ops version 2). The
 * call waiting for request id of se starts (waiting) or stops waiting. */
void mcp__relay_await(mcp_session_t *se, int64_t id, bool waiting);
/* A response no call of this process waits for: handed to the replica that
 * waits (MCP_OK), or MCP_ERR_NOT_FOUND (nobody waits: ignore it),
 * MCP_ERR_CLOSED (the replica that asked is gone), MCP_ERR_UNSUPPORTED (no
 * relay that routes answers, or a session of this process alone). */
mcp_status mcp__relay_forward_answer(mcp_server_t *s, mcp_session_t *se,
                                     const mcp__message *msg);
/* The relay's {"kind":"answer"} event: the answer to the waiting call. */
mcp_status mcp__relay_deliver_answer(mcp_server_t *s, const json_t *event);

#endif
