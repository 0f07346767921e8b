/* SPDX-License-Identifier: MIT */
/* fuzz_server.c - libFuzzer: server message handling. The first byte picks
 * the client's capabilities (elicitation, sampling, roots, tasks) and
 * whether messages go to an initialized session or are served statelessly
 * (2026-07-28, session NULL); the rest is newline-separated JSON-RPC
 * messages, each accepted and run as a transport would. The server (tools
 * with schemas, a resource, a template, a prompt, tasks on a memory store)
 * is built once. Answers are discarded; a crash, leak, hang or sanitizer
 * report is a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "server/internal.h"

static mcp_server_t *server;
static mcp_store_t *store;

static mcp_status discard(void *ctx, const char *msg, size_t len,
                          unsigned flags) {
  (void)ctx, (void)msg, (void)len, (void)flags;
  return MCP_OK;
}

static mcp_status echo(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)ud;
  const char *text = NULL;
  if (mcp_arg_string(args, "text", &text) == MCP_OK)
    mcp_result_add_text(r, text);
  mcp_call_progress(call, 1, 2, "half");
  mcp_call_log(call, MCP_LOG_INFO, "echo", json_string("logged"));
  int64_t n = 0;
  if (mcp_arg_integer(args, "n", &n) == MCP_OK)
    mcp_result_set_structured(r, json_pack("{s:I}", "n", (json_int_t)n));
  return MCP_OK;
}

static void build(void) {
  mcp_server_new("fuzz", "1", &server);
  mcp_server_set_log_level(server, MCP_LOG_EMERGENCY);
  mcp_server_set_worker_threads(server, 1);
  mcp_tool_t *t;
  mcp_tool_new("echo", &t);
  mcp_tool_set_input_schema_text(
      t, "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
         "\"maxLength\":64},\"n\":{\"type\":\"integer\",\"minimum\":0}},"
         "\"additionalProperties\":false}");
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  mcp_tool_set_handler(t, echo, NULL, NULL);
  mcp_server_add_tool(server, t, NULL);
  mcp_tool_new("must", &t);
  mcp_tool_set_task_support(t, MCP_TASK_REQUIRED);
  mcp_tool_set_handler(t, echo, NULL, NULL);
  mcp_server_add_tool(server, t, NULL);
  mcp_store_memory_new(&store);
  mcp_server_enable_tasks(server, store, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (server == NULL)
    build();
  if (size == 0)
    return 0;
  unsigned pick = data[0];
  mcp__channel out = {discard, NULL, NULL, NULL, false};
  mcp_session_t *se = NULL;
  bool modern = pick & 0x80;
  if (!modern) {
    if (mcp__session_new(server, out, &se) != MCP_OK)
      return 0;
    char init[512];
    snprintf(init, sizeof init,
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
             "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
             "{%s%s%s%s},\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}",
             pick & 1 ? "\"elicitation\":{}," : "",
             pick & 2 ? "\"sampling\":{}," : "",
             pick & 4 ? "\"roots\":{}," : "",
             pick & 8 ? "\"tasks\":{}" : "\"experimental\":{}");
    const char *msgs[] = {
        init, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"};
    for (int i = 0; i < 2 && !(pick & 0x40); i++) {
      mcp_call_t *call = NULL;
      if (mcp__server_accept(server, se, NULL, msgs[i], strlen(msgs[i]), out,
                             &call) == MCP__ACCEPT_REQUEST)
        mcp__call_run(call);
    }
  }
  const char *p = (const char *)data + 1, *end = (const char *)data + size;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    mcp_call_t *call = NULL;
    if (n > 0 && mcp__server_accept(server, se, NULL, p, n, out, &call) ==
                     MCP__ACCEPT_REQUEST)
      mcp__call_run(call);
    p = nl ? nl + 1 : end;
  }
  if (se) {
    mcp__session_close(se);
    mcp__session_release(se);
  }
  return 0;
}
