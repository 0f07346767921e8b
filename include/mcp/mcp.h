/* SPDX-License-Identifier: MIT */
/* mcp.h - umbrella header for libmcp. See docs/ for a guide per header.
 *
 * Ownership of JSON, for every function of the public headers:
 * - a `const json_t *` argument is borrowed: the function reads it during the
 *   call (and may keep a reference, as mcp_schema_compile does) and the
 *   caller keeps its own reference;
 * - a plain `json_t *` argument is stolen, even on failure: the function owns
 *   it from the call on and releases it on every error path, so
 *   `mcp_result_set_structured(r, json_pack(...))` never leaks. NULL there
 *   is read as "building the value failed" and reported (MCP_ERR_NOMEM or a
 *   refusal kept in the object), never dereferenced;
 * - a `json_t **out` argument returns a new reference the caller releases
 *   with json_decref ("returns new" in the comments);
 * - a `json_t *` return value is borrowed unless its comment says
 *   "returns new";
 * - the JSON a library-called handler receives (tool arguments, prompt
 *   arguments, template variables, completion context, client
 *   notifications) is lent for the duration of the call: json_incref what
 *   you keep.
 * docs/guide/conventions.md says the same with examples. */
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
