/* SPDX-License-Identifier: MIT */
/* demo_resources.h - the demo's resources: the sales reports that
 * build_report links to (reports://sales/{period}). */
#ifndef DEMO_RESOURCES_H
#define DEMO_RESOURCES_H

#include <mcp/mcp.h>

#include "demo_db.h"

/* Registers the report template on server; db is borrowed and must outlive
 * it. err is filled on failure. */
mcp_status demo_register_resources(mcp_server_t *server, demo_db *db,
                                   mcp_error_t *err);

#endif
