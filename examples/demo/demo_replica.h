/* SPDX-License-Identifier: MIT */
/* demo_replica.h - what the demo adds when it runs as one of several
 * replicas on PostgreSQL (--store postgres://...). */
#ifndef DEMO_REPLICA_H
#define DEMO_REPLICA_H

#include <mcp/mcp.h>

/* Announces tools/list_changed and registers toggle_beta_tool, which adds
 * or removes the tool beta_echo on this replica: the list change reaches
 * the clients of every replica (listen streams, GET streams). */
mcp_status demo_register_replica_tools(mcp_server_t *server, mcp_error_t *err);

#endif
