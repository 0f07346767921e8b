/* SPDX-License-Identifier: MIT */
/* mcp.h - umbrella header for libmcp. See docs/ for a guide per header. */
#ifndef MCP_MCP_H
#define MCP_MCP_H

#include "mcp/apps.h"
#include "mcp/auth.h"
#include "mcp/cache.h"
#include "mcp/call.h"
#include "mcp/client.h"
#include "mcp/decl.h"
#include "mcp/completion.h"
#include "mcp/elicit.h"
#include "mcp/event_store.h"
#include "mcp/http.h"
#include "mcp/prompt.h"
#include "mcp/relay.h"
#include "mcp/resource.h"
#include "mcp/result.h"
#include "mcp/roots.h"
#include "mcp/sampling.h"
#include "mcp/schema.h"
#include "mcp/server.h"
#include "mcp/session_store.h"
#include "mcp/skill.h"
#include "mcp/status.h"
#include "mcp/stdio.h"
#include "mcp/store.h"
#include "mcp/task.h"
#include "mcp/tool.h"
#include "mcp/testing.h"
#include "mcp/tool_decl.h"
#include "mcp/version.h"

#endif
