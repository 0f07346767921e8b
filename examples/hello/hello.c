/* SPDX-License-Identifier: MIT */
/* hello.c - the smallest useful libmcp server: one tool over stdio.
 *
 *   cc hello.c $(pkg-config --cflags --libs libmcp) -o hello
 */
#include <mcp/mcp.h>

static mcp_status greet(mcp_call_t *call, json_t *args, mcp_result_t *result,
                        void *user_data) {
  (void)call, (void)user_data;
  const char *name = mcp_arg_string_or(args, "name", "world");
  mcp_result_add_textf(result, "Hello, %s!", name);
  return MCP_OK;
}

int main(void) {
  mcp_server_t *server;
  if (mcp_server_new("hello", "1.0.0", &server) != MCP_OK)
    return 1;
  mcp_tool_t *tool;
  mcp_tool_new("greet", &tool);
  mcp_tool_set_description(tool, "Greets someone by name");
  mcp_tool_set_input_schema_text(
      tool, "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
            "\"string\"}},\"required\":[\"name\"]}");
  mcp_tool_set_handler(tool, greet, NULL, NULL);
  mcp_error_t err;
  if (mcp_server_add_tool(server, tool, &err) != MCP_OK) /* takes the tool */
    return 1;
  mcp_status st = mcp_server_serve_stdio(server); /* until stdin closes */
  mcp_server_free(server);
  return st == MCP_OK ? 0 : 1;
}
