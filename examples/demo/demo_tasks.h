/* SPDX-License-Identifier: MIT */
/* demo_tasks.h - the demo's long-running tools (MCP tasks). */
#ifndef DEMO_TASKS_H
#define DEMO_TASKS_H

#include <mcp/mcp.h>

/* Registers start_long_export (taskSupport required), reindex_catalog
 * (optional) and archive_orders (optional; asks for confirmation through
 * elicitation). */
mcp_status demo_register_task_tools(mcp_server_t *server, mcp_error_t *err);

/* The result of an export of rows rows in format (csv or json): text, a
 * resource_link and structuredContent {rows, format, uri}; task_id names
 * the file (NULL: an inline call). */
void demo_export_result(mcp_result_t *r, long rows, const char *format,
                        const char *task_id);

#endif
