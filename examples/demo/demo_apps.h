/* SPDX-License-Identifier: MIT */
/* demo_apps.h - the demo's MCP App (apps.h): ui://demo/orders, the order
 * book as a table with an export button, shown by the tool show_orders. */
#ifndef DEMO_APPS_H
#define DEMO_APPS_H

#include <mcp/mcp.h>

#include "demo_db.h"

/* Registers ui://demo/orders (its HTML read from apps_dir/orders.html)
 * and show_orders; db is borrowed and must outlive the server. err is
 * filled on failure. */
mcp_status demo_register_apps(mcp_server_t *server, demo_db *db,
                              const char *apps_dir, mcp_error_t *err);

#endif
