/* SPDX-License-Identifier: MIT */
/* demo_skills.h - the demo's skill (Agent Skills over MCP, SEP-2640). */
#ifndef DEMO_SKILLS_H
#define DEMO_SKILLS_H

#include <mcp/mcp.h>

/* Publishes the skill "flight-booking": how to find a flight and book an
 * order with this server's own tools (get_flight_details, lookup_customer,
 * process_order), with a reference file, and enables
 * resources/directory/read. */
mcp_status demo_register_skills(mcp_server_t *server, mcp_error_t *err);

#endif
