/* SPDX-License-Identifier: MIT */
/* demo_tools.h - the demo server's tools (from the reference seeds). */
#ifndef DEMO_TOOLS_H
#define DEMO_TOOLS_H

#include <mcp/mcp.h>

#include "demo_db.h"

/* Registers every demo tool on server, in a stable order. db is borrowed and
 * must outlive the server. */
mcp_status demo_register_tools(mcp_server_t *server, demo_db *db,
                               mcp_error_t *err);

#endif
