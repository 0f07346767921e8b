/* SPDX-License-Identifier: MIT */
/* extensions.h - the 2026-07-28 extensions a server may declare under
 * capabilities.extensions: tasks (io.modelcontextprotocol/tasks, src/tasks/
 * ext_tasks.c) and skills (io.modelcontextprotocol/skills, src/skills). The
 * core reaches them only through the functions below. */
#ifndef MCP_SERVER_EXTENSIONS_H
#define MCP_SERVER_EXTENSIONS_H

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/server.h"

struct mcp__skills;

/* server/discover: adds the declared extensions to caps (and drops the
 * 2025-11-25 capabilities.tasks, which this era does not have). */
void mcp__extensions_discover(const mcp_server_t *s, json_t *caps);

/* ---- tasks (src/tasks/ext_tasks.c) --------------------------------------- */
mcp_status mcp__handle_ext_tasks_get(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_ext_tasks_update(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_ext_tasks_cancel(mcp_call_t *call, json_t **result);
void mcp__ext_tasks_capabilities(const mcp_server_t *s, json_t *caps);
/* A tools/call whose handler called mcp_call_continue_as_task: *result is
 * the CreateTaskResult; the call is handed over to the task. */
mcp_status mcp__tasks_call_started(mcp_call_t *call, json_t **result);

/* ---- skills (src/skills) ------------------------------------------------- */
mcp_status mcp__handle_skills_list(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_skills_get(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_directory_read(mcp_call_t *call, json_t **result);
void mcp__skills_capabilities(const mcp_server_t *s, json_t *caps);
void mcp__skills_free(struct mcp__skills *skills);

#endif
