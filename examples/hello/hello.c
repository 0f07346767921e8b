/* SPDX-License-Identifier: MIT */
/* hello.c - the smallest useful libmcp server: one tool, the standard
 * command line (--stdio by default, --http HOST:PORT, --help, --version,
 * --log-level; see mcp_server_run).
 *
 *   cc hello.c $(pkg-config --cflags --libs libmcp) -o hello
 */
#include <mcp/mcp.h>
#include <stdio.h>

static mcp_status greet(mcp_call_t *call, json_t *args, mcp_result_t *result,
                        void *user_data) {
  (void)call, (void)user_data;
  const char *name = mcp_arg_string_or(args, "name", "world");
  mcp_result_add_textf(result, "Hello, %s!", name);
  return MCP_OK;
}

static mcp_server_t *hello_server(void) {
  mcp_server_t *server;
  if (mcp_server_new("hello", "1.0.0", &server) != MCP_OK)
    return NULL;
  mcp_tool_t *tool;
  mcp_tool_new("greet", &tool);
  mcp_tool_set_description(tool, "Greets someone by name");
  mcp_tool_set_input_schema_text(
      tool, "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
            "\"string\"}},\"required\":[\"name\"]}");
  mcp_tool_set_handler(tool, greet, NULL, NULL);
  mcp_error_t err;
  /* takes the tool; refuses it when a setter above failed (a schema that is
   * not JSON: err says where) or the schema is not valid JSON Schema */
  if (mcp_server_add_tool(server, tool, &err) != MCP_OK) {
    fprintf(stderr, "%s\n", err.message);
    mcp_server_free(server);
    return NULL;
  }
  return server;
}

int main(int argc, char **argv) {
  mcp_server_t *server = hello_server();
  int rc = mcp_server_run(server, argc, argv); /* 1 when server is NULL */
  mcp_server_free(server);
  return rc;
}
