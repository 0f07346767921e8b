/* SPDX-License-Identifier: MIT */
/* request_metrics.h - a request's data point of the
 * mcp.server.operation.duration histogram (telemetry/metrics.h), with the
 * conventions' attributes: mcp.method.name, gen_ai.tool.name or
 * gen_ai.prompt.name, error.type, mcp.protocol.version, network.transport.
 * Off (no exporter) a call records nothing and nothing here runs. */
#ifndef MCP_CORE_REQUEST_METRICS_H
#define MCP_CORE_REQUEST_METRICS_H

#include <jansson.h>

#include "mcp/call.h"

/* The call ends: its duration since mcp__call_new, recorded. */
void mcp__metrics_end(mcp_call_t *call, const json_t *result, int code);
/* A session ends (mcp__session_close): the mcp.server.session.duration
 * value since its initialize, once. */
void mcp__metrics_session(mcp_session_t *se);

#endif
