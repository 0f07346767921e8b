/* SPDX-License-Identifier: MIT */
/* call_replay.h - a tools/call the server makes itself from a stored
 * request: the run of a task again on another replica after the one
 * running it died (src/tasks/rerun.c). */
#ifndef MCP_CORE_CALL_REPLAY_H
#define MCP_CORE_CALL_REPLAY_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp/server.h"

/* A tools/call call with params (stolen, even on failure): the stored
 * params of the original request. stateless: a 2026-07-28 request (version
 * and client capabilities from params._meta, as the dispatcher reads
 * them); else a 2025-11-25 request of protocol_version without a session
 * (the client's session lives on the replica that died: nothing can be
 * sent to it, and a question to the client fails). No progress token. The
 * call sends nothing until its reply channel is set (the task runner's
 * handoff does it). NULL when out of memory. Free with mcp__call_release. */
mcp_call_t *mcp__call_replay(mcp_server_t *s, const char *request_id,
                             json_t *params, bool stateless,
                             const char *protocol_version);

#endif
