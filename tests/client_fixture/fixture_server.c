/* SPDX-License-Identifier: MIT */
/* fixture_server.c - a small stdio MCP server for the client tests:
 * "slow" reports progress in 4 steps (readOnlyHint, outputSchema {steps}),
 * "bad_output" returns structuredContent violating its outputSchema
 * (readOnlyHint) and "echo" returns its arguments. The subscribable resource
 * test://ticking is announced as updated every 100 ms. Page size 2, so listing
 * the tools takes two pages (cursor following).
 *
 * With --raw it is not a libmcp server but a hand-written JSON-RPC loop that
 * does what libmcp would refuse to (see raw_main): tools that break MUSTs
 * (invalid name, an http: icon, output against its schema), held requests
 * answered in reverse order, cursors that repeat or never end, and sloppy
 * envelopes (tools "sloppy" and "sloppy_error", not listed). */
#include <pthread.h>
#include <stdatomic.h>
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

static atomic_bool stop_ticking;

static void *ticker(void *arg) {
  mcp_server_t *s = arg;
  while (!atomic_load(&stop_ticking)) {
    struct timespec ts = {0, 100 * 1000000L};
    nanosleep(&ts, NULL);
    mcp_server_notify_resource_updated(s, "test://ticking");
  }
  return NULL;
}

static mcp_status read_ticking(mcp_call_t *call, const char *uri, json_t *vars,
                               mcp_read_result_t *out, void *ud) {
  return mcp_read_result_add_text(out, uri, "tick", "text/plain");
}

static mcp_status add_ticking(mcp_server_t *s) {
  mcp_resource_t *r = NULL;
  mcp_status st = mcp_server_set_resources_subscribe(s, true);
  if (st == MCP_OK)
    st = mcp_resource_new("test://ticking", "ticking", &r);
  if (st == MCP_OK)
    st = mcp_resource_set_handler(r, read_ticking, NULL, NULL);
  if (st != MCP_OK) {
    mcp_resource_free(r);
    return st;
  }
  return mcp_server_add_resource(s, r);
}

/* ---- --raw --------------------------------------------------------------- */

static void put(json_t *msg) {
  char *text = json_dumps(msg, JSON_COMPACT);
  if (text != NULL)
    printf("%s\n", text);
  fflush(stdout);
  free(text);
  json_decref(msg);
}

static void answer(json_t *id, json_t *result) {
  put(json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result));
}

static json_t *raw_tools(void) {
  return json_pack(
      "[{s:s,s:s,s:{s:s}},"
      "{s:s,s:s,s:{s:s},s:[{s:s}]},"
      "{s:s,s:s,s:{s:s},s:{s:s,s:{s:{s:s}},s:[s]},s:{s:b}},"
      "{s:s,s:s,s:{s:s}}]",
      "name", "bad name!", "description", "Its name breaks the naming rules",
      "inputSchema", "type", "object", /* */
      "name", "icon_tool", "description",
      "Has an icon served over http:", "inputSchema", "type", "object", "icons",
      "src", "http://example.com/icon.png", /* */
      "name", "bad_output", "description", "Breaks its own outputSchema",
      "inputSchema", "type", "object", "outputSchema", "type", "object",
      "properties", "steps", "type", "integer", "required", "steps",
      "annotations", "readOnlyHint", 1, /* */
      "name", "hold", "description",
      "Held until four calls wait, then all answered in reverse order",
      "inputSchema", "type", "object");
}

/* Paginated lists: prompts/list repeats its cursor, resources/list never
 * ends, resources/templates/list has three pages. */
static json_t *raw_page(const char *method, json_t *params) {
  const char *cursor = json_string_value(json_object_get(params, "cursor"));
  int page = cursor ? atoi(cursor + 1) : 0;
  char next[32];
  snprintf(next, sizeof next, "p%d", page + 1);
  if (strcmp(method, "prompts/list") == 0)
    return json_pack("{s:[{s:s}],s:s}", "prompts", "name", "loop", "nextCursor",
                     "again");
  if (strcmp(method, "resources/list") == 0)
    return json_pack("{s:[{s:s++,s:s}],s:s}", "resources", "uri", "test://r/",
                     next, "", "name", "r", "nextCursor", next);
  json_t *r = json_pack("{s:[{s:s,s:s}]}", "resourceTemplates", "uriTemplate",
                        "test://t/{x}", "name", next);
  if (page < 2)
    json_object_set_new(r, "nextCursor", json_string(next));
  return r;
}

static int raw_main(void) {
  json_t *held = json_array(); /* held tools/call requests */
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) > 0) {
    json_t *msg = json_loadb(line, (size_t)n, 0, NULL);
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *id = json_object_get(msg, "id");
    json_t *params = json_object_get(msg, "params");
    if (method == NULL || id == NULL) {
      json_decref(msg);
      continue; /* notifications and answers */
    }
    if (strcmp(method, "initialize") == 0) {
      answer(id, json_pack("{s:s,s:{s:{},s:{},s:{}},s:{s:s,s:s}}",
                           "protocolVersion", "2025-11-25", "capabilities",
                           "tools", "resources", "prompts", "serverInfo",
                           "name", "raw-fixture", "version", "1.0"));
    } else if (strcmp(method, "ping") == 0) {
      answer(id, json_object());
    } else if (strcmp(method, "tools/list") == 0) {
      answer(id, json_pack("{s:o}", "tools", raw_tools()));
    } else if (strcmp(method, "prompts/list") == 0 ||
               strcmp(method, "resources/list") == 0 ||
               strcmp(method, "resources/templates/list") == 0) {
      answer(id, raw_page(method, params));
    } else if (strcmp(method, "tools/call") == 0) {
      const char *name = json_string_value(json_object_get(params, "name"));
      if (name != NULL && strcmp(name, "bad_output") == 0) {
        answer(id, json_pack("{s:[{s:s,s:s}],s:{s:s}}", "content", "type",
                             "text", "text", "{\"steps\":\"many\"}",
                             "structuredContent", "steps", "many"));
      } else if (name != NULL && strcmp(name, "sloppy") == 0) {
        /* envelopes without "jsonrpc": a log message, then the answer */
        put(json_pack("{s:s,s:{s:s,s:s}}", "method", "notifications/message",
                      "params", "level", "info", "data", "sloppy"));
        put(json_pack("{s:O,s:{s:[{s:s,s:s}]}}", "id", id, "result", "content",
                      "type", "text", "text", "sloppy"));
      } else if (name != NULL && strcmp(name, "sloppy_error") == 0) {
        /* an error object whose code is not an integer */
        put(json_pack("{s:s,s:O,s:{s:s,s:s}}", "jsonrpc", "2.0", "id", id,
                      "error", "code", "odd", "message", "odd code"));
      } else if (name != NULL && strcmp(name, "hold") == 0) {
        json_array_append(held, msg);
        /* four waiting: answer newest first, each after its own progress
         * and an unrelated notification */
        bool drain = json_array_size(held) >= 4;
        while (drain && json_array_size(held) > 0) {
          json_t *h =
              json_incref(json_array_get(held, json_array_size(held) - 1));
          json_array_remove(held, json_array_size(held) - 1);
          json_t *hp = json_object_get(h, "params");
          json_t *token =
              json_object_get(json_object_get(hp, "_meta"), "progressToken");
          if (token != NULL)
            put(json_pack("{s:s,s:s,s:{s:O,s:i,s:i}}", "jsonrpc", "2.0",
                          "method", "notifications/progress", "params",
                          "progressToken", token, "progress", 1, "total", 1));
          put(json_pack("{s:s,s:s,s:{s:s,s:s}}", "jsonrpc", "2.0", "method",
                        "notifications/message", "params", "level", "debug",
                        "data", "answering a held call"));
          char *args = json_dumps(json_object_get(hp, "arguments"),
                                  JSON_COMPACT | JSON_SORT_KEYS);
          answer(json_object_get(h, "id"),
                 json_pack("{s:[{s:s,s:s}]}", "content", "type", "text", "text",
                           args ? args : "{}"));
          free(args);
          json_decref(h);
        }
      } else {
        put(json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id,
                      "error", "code", -32602, "message", "Unknown tool"));
      }
    } else {
      put(json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id,
                    "error", "code", -32601, "message", "Method not found"));
    }
    json_decref(msg);
  }
  free(line);
  json_decref(held);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--raw") == 0)
    return raw_main();
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
    st = add_ticking(s);
  pthread_t tick;
  bool ticking = st == MCP_OK && pthread_create(&tick, NULL, ticker, s) == 0;
  if (st == MCP_OK)
    st = mcp_server_serve_stdio(s);
  atomic_store(&stop_ticking, true);
  if (ticking)
    pthread_join(tick, NULL);
  mcp_server_free(s);
  return st == MCP_OK ? 0 : 1;
}
