/* SPDX-License-Identifier: MIT */
/* scenarios.h - `mcp-conformance-server --scenario NAME`: shows what one
 * conformance scenario sends and exactly what this server answers. */
#ifndef CONFORMANCE_SCENARIOS_H
#define CONFORMANCE_SCENARIOS_H

#include <stdio.h>

#include <mcp/mcp.h>

/* Runs scenario name against server (built, not yet serving) over an
 * in-process stdio pipe and prints each request and every message the server
 * sends back to out. Returns 0, or 2 for an unknown name (listing the
 * known ones on out). */
int conformance_show_scenario(mcp_server_t *server, const char *name,
                              FILE *out);

/* One fixture tool: input is its inputSchema text or NULL ({}). */
typedef struct conformance_tool {
  const char *name, *description, *input;
  mcp_tool_fn fn;
} conformance_tool;

/* Adds the n tools of table to server (main.c). */
mcp_status conformance_add_tools(mcp_server_t *server,
                                 const conformance_tool *table, size_t n);

/* Adds the fixtures of the 2026-07-28 scenarios (modern.c). */
mcp_status conformance_add_modern(mcp_server_t *server);

/* Enables tasks on a new in-memory *store (free it after the server) and
 * adds the fixtures of the tasks-* and sep-2640-* scenarios
 * (extensions.c). */
mcp_status conformance_add_extensions(mcp_server_t *server,
                                      mcp_store_t **store);
/* Publishes the skills of the sep-2640-* scenarios (skills.c). */
mcp_status conformance_add_skills(mcp_server_t *server);

#endif
