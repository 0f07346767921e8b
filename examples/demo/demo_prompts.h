/* SPDX-License-Identifier: MIT */
/* demo_prompts.h - the demo's prompts. */
#ifndef DEMO_PROMPTS_H
#define DEMO_PROMPTS_H

#include <mcp/mcp.h>

#include "demo_db.h"

/* Registers customer_brief (argument customer_id, required; completion of
 * the ids): a user message asking for a short account review, built from
 * the customer's row and open orders. db is borrowed and must outlive the
 * server. err is filled on failure. */
mcp_status demo_register_prompts(mcp_server_t *server, demo_db *db,
                                 mcp_error_t *err);

#endif
