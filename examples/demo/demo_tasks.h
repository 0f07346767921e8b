/* SPDX-License-Identifier: MIT */
/* demo_tasks.h - the demo's long-running tools (MCP tasks). */
#ifndef DEMO_TASKS_H
#define DEMO_TASKS_H

#include <mcp/mcp.h>

/* Registers start_long_export (taskSupport required), reindex_catalog
 * (optional) and archive_orders (optional; asks for confirmation through
 * elicitation). */
mcp_status demo_register_task_tools(mcp_server_t *server, mcp_error_t *err);

#endif
