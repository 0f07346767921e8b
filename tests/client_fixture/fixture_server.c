/* fixture_server.c - a small stdio MCP server for the client tests:
 * "slow" reports progress in 4 steps (readOnlyHint, outputSchema {steps}),
 * "bad_output" returns structuredContent violating its outputSchema
 * (readOnlyHint) and "echo" returns its arguments. Page size 2, so listing
 * the tools takes two pages (cursor following). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mcp/mcp.h>

static mcp_status slow(mcp_call_t *call, json_t *args, mcp_result_t *result,
                       void *ud) {
  for (int i = 1; i <= 4; i++) {
    struct timespec ts = {0, 150 * 1000000L};
    nanosleep(&ts, NULL);
    char msg[32];
    snprintf(msg, sizeof msg, "step %d of 4", i);
    mcp_call_progress(call, i, 4, msg);
  }
  mcp_result_add_text(result, "{\"steps\":4}");
  return mcp_result_set_structured(result, json_pack("{s:i}", "steps", 4));
}

static mcp_status bad_output(mcp_call_t *call, json_t *args,
                             mcp_result_t *result, void *ud) {
  mcp_result_add_text(result, "{\"steps\":\"many\"}");
  return mcp_result_set_structured(result, json_pack("{s:s}", "steps", "many"));
}

static mcp_status echo(mcp_call_t *call, json_t *args, mcp_result_t *result,
                       void *ud) {
  char *text = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
  mcp_result_add_text(result, text ? text : "");
  free(text);
  return MCP_OK;
}

static mcp_status add(mcp_server_t *s, const char *name, const char *desc,
                      mcp_tool_fn fn, const char *output, bool read_only) {
  mcp_tool_t *t = NULL;
  mcp_error_t err;
  mcp_status st = mcp_tool_new(name, &t);
  if (st == MCP_OK)
    st = mcp_tool_set_description(t, desc);
  if (st == MCP_OK)
    st = mcp_tool_set_input_schema_text(t, "{\"type\":\"object\"}");
  if (st == MCP_OK && output != NULL)
    st = mcp_tool_set_output_schema_text(t, output);
  if (st == MCP_OK && read_only)
    st = mcp_tool_set_hint(t, MCP_HINT_READ_ONLY, true);
  if (st == MCP_OK)
    st = mcp_tool_set_handler(t, fn, NULL, NULL);
  if (st != MCP_OK) {
    mcp_tool_free(t);
    return st;
  }
  return mcp_server_add_tool(s, t, &err);
}

int main(int argc, char **argv) {
  bool broken = argc > 1 && strcmp(argv[1], "--bad-output") == 0;
  mcp_server_t *s = NULL;
  const char *steps =
      "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\"}},"
      "\"required\":[\"steps\"]}";
  mcp_status st = mcp_server_new("client-fixture", "1.0", &s);
  if (st == MCP_OK)
    st = mcp_server_set_page_size(s, 2);
  if (st == MCP_OK)
    st =
        add(s, "slow", "Counts to four, reporting progress", slow, steps, true);
  if (st == MCP_OK)
    st = add(s, "echo", "Returns its arguments", echo, NULL, false);
  if (st == MCP_OK && broken)
    st = add(s, "bad_output", "Breaks its own output schema", bad_output, steps,
             true);
  if (st == MCP_OK)
    st = mcp_server_serve_stdio(s);
  mcp_server_free(s);
  return st == MCP_OK ? 0 : 1;
}
