/* SPDX-License-Identifier: MIT */
/* era_modern.h - admission of 2026-07-28 requests (per-request _meta,
 * SEP-2243 header checks, version, log level). */
#ifndef MCP_SERVER_ERA_MODERN_H
#define MCP_SERVER_ERA_MODERN_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/status.h"
#include "server/dispatch.h"

/* The member of params._meta naming a 2026-07-28 request's version. */
#define MCP__META_VERSION "io.modelcontextprotocol/protocolVersion"

/* Whether a request belongs to 2026-07-28: a modern MCP-Protocol-Version
 * header, an unknown one, or meta_version (params._meta has a
 * MCP__META_VERSION member). */
bool mcp__is_modern_request(const mcp__peer *peer, bool meta_version);

/* Checks call's _meta and (over HTTP) its headers, and fills the era facts
 * (version, client capabilities and info). false after answering the
 * request with the error. */
bool mcp__modern_bind(mcp_call_t *call);

#endif
