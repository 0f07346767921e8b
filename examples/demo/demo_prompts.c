/* SPDX-License-Identifier: MIT */
/* demo_prompts.c - the demo's prompt: customer_brief.
 *
 * prompts/get customer_brief {customer_id: "C001"} answers one user message
 * that carries the customer's record and open orders from the database and
 * asks the model for a short account review. An unknown id is -32602
 * (invalid params), the same in both protocol eras. */
#include "demo_prompts.h"

#include <stdio.h>
#include <string.h>

static mcp_status customer_brief(mcp_call_t *call, json_t *args,
                                 mcp_prompt_result_t *out, void *ud) {
  sqlite3 *db = demo_db_handle(ud);
  const char *id = mcp_arg_string_or(args, "customer_id", "");
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT name, coalesce(city, '-'), balance FROM "
                         "customers WHERE id = ?1",
                         -1, &q, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(q, 1, id, -1, SQLITE_TRANSIENT);
  char text[1024];
  int rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    snprintf(text, sizeof text,
             "Write a three-sentence account review of customer %s: %s from "
             "%s, balance %.2f.",
             id, (const char *)sqlite3_column_text(q, 0),
             (const char *)sqlite3_column_text(q, 1),
             sqlite3_column_double(q, 2));
  sqlite3_finalize(q);
  if (rc == SQLITE_DONE) {
    snprintf(text, sizeof text, "Invalid params: no customer %s", id);
    mcp_call_set_error(call, MCP_RPC_INVALID_PARAMS, text, NULL);
    return MCP_ERR_INVALID_PARAMS;
  }
  if (rc != SQLITE_ROW)
    return MCP_ERR_IO;

  size_t n = strlen(text);
  if (sqlite3_prepare_v2(db,
                         "SELECT id, amount FROM orders WHERE customer_id = "
                         "?1 AND status = 'open' ORDER BY id",
                         -1, &q, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(q, 1, id, -1, SQLITE_TRANSIENT);
  int orders = 0;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW && n < sizeof text - 64) {
    n += (size_t)snprintf(text + n, sizeof text - n, "%s %s (%.2f)",
                          orders++ ? "," : " Open orders:",
                          (const char *)sqlite3_column_text(q, 0),
                          sqlite3_column_double(q, 1));
  }
  sqlite3_finalize(q);
  if (orders == 0)
    snprintf(text + n, sizeof text - n, " No open orders.");
  else if (n < sizeof text - 1)
    snprintf(text + n, sizeof text - n, ".");
  mcp_prompt_result_set_description(out, "Account review of one customer");
  return mcp_prompt_add_text(out, MCP_ROLE_USER, text) ? MCP_OK : MCP_ERR_NOMEM;
}

static mcp_status complete_id(mcp_call_t *call, const char *argument,
                              const char *value, json_t *context,
                              mcp_completion_t *out, void *ud) {
  (void)call, (void)argument, (void)context;
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(demo_db_handle(ud),
                         "SELECT id FROM customers WHERE substr(id, 1, "
                         "length(?1)) = ?1 ORDER BY id",
                         -1, &q, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(q, 1, value, -1, SQLITE_TRANSIENT);
  while (sqlite3_step(q) == SQLITE_ROW)
    mcp_completion_add(out, (const char *)sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
  return MCP_OK;
}

mcp_status demo_register_prompts(mcp_server_t *server, demo_db *db,
                                 mcp_error_t *err) {
  mcp_prompt_t *p = NULL;
  mcp_status st = mcp_prompt_new("customer_brief", &p);
  if (st == MCP_OK)
    st = mcp_prompt_set_title(p, "Customer brief");
  if (st == MCP_OK)
    st = mcp_prompt_set_description(
        p, "Asks for a short account review of one customer, with the "
           "customer's record and open orders filled in");
  if (st == MCP_OK)
    st = mcp_prompt_add_argument(p, "customer_id", "Customer",
                                 "Customer id such as C001", true);
  if (st == MCP_OK)
    st = mcp_prompt_set_completion(p, "customer_id", complete_id, db, NULL);
  if (st == MCP_OK)
    st = mcp_prompt_set_handler(p, customer_brief, db, NULL);
  if (st != MCP_OK) {
    mcp_prompt_free(p);
    return mcp_error_set(err, st, "cannot define prompt customer_brief: %s",
                         mcp_strerror(st));
  }
  st = mcp_server_add_prompt(server, p);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "cannot add prompt customer_brief: %s",
                         mcp_strerror(st));
  return MCP_OK;
}
