/* SPDX-License-Identifier: MIT */
/* demo_replica.c - the demo as a replica: toggle_beta_tool shows a list
 * change made on one replica reaching the clients of all (the relay of
 * docs/deploy.md). */
#include "demo_replica.h"

static mcp_status beta_echo(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)call, (void)ud;
  mcp_result_add_textf(r, "beta: %s", mcp_arg_string_or(args, "text", ""));
  return MCP_OK;
}

static mcp_status toggle(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)call, (void)args;
  mcp_server_t *s = ud;
  if (mcp_server_remove_tool(s, "beta_echo") == MCP_OK) {
    mcp_result_add_text(r, "beta_echo removed");
    return MCP_OK;
  }
  mcp_tool_t *t = NULL;
  mcp_status st = mcp_tool_new("beta_echo", &t);
  if (st == MCP_OK) {
    mcp_tool_set_description(t, "Echoes text (added by toggle_beta_tool).");
    st = mcp_tool_set_handler(t, beta_echo, NULL, NULL);
  }
  if (st == MCP_OK)
    st = mcp_server_add_tool(s, t, NULL);
  else
    mcp_tool_free(t);
  if (st == MCP_OK)
    mcp_result_add_text(r, "beta_echo added");
  else
    mcp_result_set_error(r, "cannot add beta_echo: %s", mcp_strerror(st));
  return MCP_OK;
}

mcp_status demo_register_replica_tools(mcp_server_t *server, mcp_error_t *err) {
  mcp_status st = mcp_server_set_tools_list_changed(server, true);
  mcp_tool_t *t = NULL;
  if (st == MCP_OK)
    st = mcp_tool_new("toggle_beta_tool", &t);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "toggle_beta_tool");
  mcp_tool_set_description(t, "Adds the tool beta_echo, or removes it: every "
                              "replica's clients hear the list change.");
  mcp_tool_set_handler(t, toggle, server, NULL);
  return mcp_server_add_tool(server, t, err);
}
