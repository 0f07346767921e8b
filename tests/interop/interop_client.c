/* SPDX-License-Identifier: MIT */
/* interop_client - libmcp-client against a server written with another
 * SDK (tests/interop/run-servers.sh starts the peers of tests/interop/peers).
 *
 *   interop_client [OPTIONS] -u URL
 *   interop_client [OPTIONS] -- COMMAND ARGS...
 *
 *   --protocol V   the era to ask for (auto, 2026-07-28, 2025-11-25)
 *   --expect V     fail unless the negotiated version is V
 *   --no-elicit    the peer cannot ask the client here: skip that step
 *   --task         call the peer's square tool as a task and wait for it
 *   --shared-cache the peer marks interop://greeting public with a ttlMs: a
 *                  second client attached to the same mcp_client_cache_t
 *                  reads it without sending resources/read
 *
 * Every peer offers the tools add, fail and archive (which asks the client
 * to confirm through an elicitation), the resource interop://greeting and
 * the prompt greet. The steps are what an application does: list tools,
 * call one, see an isError result, read the resource, get the prompt,
 * answer an elicitation through the client's handler, and (--task) run a
 * task. Prints "ok STEP" per step; exit 1 naming every step that failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcp/client.h>

static int failures;
static int asked;
static int reads_sent; /* resources/read requests the clients sent */
static char asked_message[256];

static void check(int ok, const char *step, const char *fmt,
                  const char *detail) {
  if (ok) {
    printf("ok %s\n", step);
    return;
  }
  fprintf(stderr, "interop_client: FAIL %s: ", step);
  fprintf(stderr, fmt, detail ? detail : "");
  fputc('\n', stderr);
  failures++;
}

/* The whole JSON text of v for a failure message (static buffer). */
static const char *text_of(const json_t *v) {
  static char buf[2048];
  char *s = v ? json_dumps(v, JSON_COMPACT) : NULL;
  snprintf(buf, sizeof buf, "%s", s ? s : "(null)");
  free(s);
  return buf;
}

static const char *str(const json_t *v) {
  const char *s = json_string_value(v);
  return s ? s : "";
}

/* The text of content[0] of a CallToolResult or a message, or "". */
static const char *first_text(const json_t *content) {
  const char *t =
      json_string_value(json_object_get(json_array_get(content, 0), "text"));
  return t ? t : "";
}

static mcp_status on_elicit(mcp_client_t *c, const char *method, json_t *params,
                            json_t **result, mcp_error_t *err, void *ud) {
  (void)c, (void)method, (void)err, (void)ud;
  asked++;
  snprintf(asked_message, sizeof asked_message, "%s",
           json_string_value(json_object_get(params, "message")));
  *result =
      json_pack("{s:s,s:{s:b}}", "action", "accept", "content", "confirm", 1);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

static void count_reads(mcp_client_t *c, bool incoming, json_t *msg, void *ud) {
  (void)c, (void)ud;
  const char *m = json_string_value(json_object_get(msg, "method"));
  if (!incoming && m != NULL && strcmp(m, "resources/read") == 0)
    reads_sent++;
}

static void run_task(mcp_client_t *c) {
  mcp_error_t err = {0};
  json_t *created = NULL, *task = NULL, *result = NULL;
  json_t *args = json_pack("{s:i}", "n", 7);
  mcp_status st = mcp_client_call_tool_task(c, "square", args, 0, NULL, NULL,
                                            &created, &err);
  const char *id = json_string_value(
      json_object_get(json_object_get(created, "task"), "taskId"));
  if (id == NULL) /* 2026-07-28: the CreateTaskResult carries taskId itself */
    id = json_string_value(json_object_get(created, "taskId"));
  check(st == MCP_OK && id != NULL, "task created", "%s",
        st == MCP_OK ? text_of(created) : err.message);
  if (id != NULL) {
    st = mcp_client_task_wait(c, id, 100, NULL, NULL, &task, &err);
    const char *status = json_string_value(json_object_get(task, "status"));
    check(st == MCP_OK && status && strcmp(status, "completed") == 0,
          "task completed", "%s", st == MCP_OK ? text_of(task) : err.message);
    st = mcp_client_task_result(c, id, &result, &err);
    check(st == MCP_OK && strcmp(first_text(json_object_get(result, "content")),
                                 "square=49") == 0,
          "task result square=49", "%s",
          st == MCP_OK ? text_of(result) : err.message);
  }
  json_decref(args);
  json_decref(created);
  json_decref(task);
  json_decref(result);
}

int main(int argc, char **argv) {
  const char *protocol = NULL, *expect = NULL, *url = NULL;
  int elicit = 1, task = 0, shared = 0, i = 1;
  for (; i < argc; i++) {
    if (strcmp(argv[i], "--protocol") == 0 && i + 1 < argc)
      protocol = argv[++i];
    else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
      expect = argv[++i];
    else if (strcmp(argv[i], "--no-elicit") == 0)
      elicit = 0;
    else if (strcmp(argv[i], "--task") == 0)
      task = 1;
    else if (strcmp(argv[i], "--shared-cache") == 0)
      shared = 1;
    else if (strcmp(argv[i], "-u") == 0 && i + 1 < argc)
      url = argv[++i];
    else if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    } else {
      fprintf(stderr, "usage: interop_client [--protocol V] [--expect V] "
                      "[--no-elicit] [--task] [--shared-cache] (-u URL | -- "
                      "COMMAND ARGS...)\n");
      return 2;
    }
  }
  if ((url == NULL) == (i >= argc)) {
    fprintf(stderr, "interop_client: give -u URL or -- COMMAND\n");
    return 2;
  }

  mcp_client_options_t *o = NULL;
  mcp_error_t err = {0};
  if (mcp_client_options_new(&o) != MCP_OK)
    return 1;
  if (url != NULL)
    mcp_client_options_set_url(o, url);
  else
    mcp_client_options_set_command(o, (const char *const *)&argv[i]);
  mcp_client_options_set_info(o, "libmcp-interop", "1.0.0");
  mcp_client_options_set_timeout_ms(o, 30000);
  if (protocol != NULL)
    mcp_client_options_set_protocol_version(o, protocol);
  mcp_client_options_set_elicitation_handler(o, on_elicit, NULL, NULL);
  mcp_client_options_set_observer(o, count_reads, NULL);
  mcp_client_cache_t *cache = NULL;
  if (mcp_client_cache_new(0, &cache) != MCP_OK)
    return 1;
  mcp_client_options_set_shared_cache(o, cache);
  mcp_client_t *c = NULL;
  mcp_status st = mcp_client_connect(o, &c, &err);
  if (st != MCP_OK) {
    fprintf(stderr, "interop_client: FAIL connect: %s\n", err.message);
    mcp_client_options_free(o);
    mcp_client_cache_free(cache);
    return 1;
  }
  const char *version = mcp_client_protocol_version(c);
  printf("protocol %s\n", version);
  if (expect != NULL)
    check(strcmp(version, expect) == 0, "protocol", "negotiated %s", version);

  json_t *tools = NULL, *r = NULL;
  st = mcp_client_list_tools(c, &tools, &err);
  int have_add = 0, have_archive = 0;
  size_t k;
  json_t *t;
  json_array_foreach(tools, k, t) {
    const char *name = json_string_value(json_object_get(t, "name"));
    have_add |= name && strcmp(name, "add") == 0;
    have_archive |= name && strcmp(name, "archive") == 0;
  }
  check(st == MCP_OK && have_add && have_archive, "tools/list", "%s",
        st == MCP_OK ? text_of(tools) : err.message);
  json_decref(tools);

  json_t *args = json_pack("{s:i,s:i}", "a", 20, "b", 22);
  st = mcp_client_call_tool(c, "add", args, NULL, NULL, &r, &err);
  json_decref(args);
  check(st == MCP_OK && !json_is_true(json_object_get(r, "isError")) &&
            json_integer_value(json_object_get(
                json_object_get(r, "structuredContent"), "sum")) == 42,
        "tools/call add", "%s", st == MCP_OK ? text_of(r) : err.message);
  json_decref(r);
  r = NULL;

  st = mcp_client_call_tool(c, "fail", NULL, NULL, NULL, &r, &err);
  check(st == MCP_OK && json_is_true(json_object_get(r, "isError")),
        "tools/call fail: isError", "%s",
        st == MCP_OK ? text_of(r) : err.message);
  json_decref(r);
  r = NULL;

  st = mcp_client_read_resource(c, "interop://greeting", &r, &err);
  check(st == MCP_OK &&
            strncmp(
                str(json_object_get(
                    json_array_get(json_object_get(r, "contents"), 0), "text")),
                "hello from ", 11) == 0,
        "resources/read", "%s", st == MCP_OK ? text_of(r) : err.message);
  json_decref(r);
  r = NULL;

  args = json_pack("{s:s}", "name", "Ada");
  st = mcp_client_get_prompt(c, "greet", args, &r, &err);
  json_decref(args);
  check(st == MCP_OK &&
            strstr(str(json_object_get(
                       json_object_get(
                           json_array_get(json_object_get(r, "messages"), 0),
                           "content"),
                       "text")),
                   "Ada") != NULL,
        "prompts/get", "%s", st == MCP_OK ? text_of(r) : err.message);
  json_decref(r);
  r = NULL;

  if (elicit) {
    args = json_pack("{s:i}", "older_than_days", 30);
    st = mcp_client_call_tool(c, "archive", args, NULL, NULL, &r, &err);
    json_decref(args);
    check(st == MCP_OK && asked == 1 && strstr(asked_message, "30 days"),
          "elicitation answered by the handler", "%s",
          st == MCP_OK ? asked_message : err.message);
    check(st == MCP_OK && strncmp(first_text(json_object_get(r, "content")),
                                  "archived 42 orders", 18) == 0,
          "tools/call archive after the elicitation", "%s",
          st == MCP_OK ? text_of(r) : err.message);
    json_decref(r);
    r = NULL;
  } else {
    printf("skip elicitation (the peer cannot ask the client here)\n");
  }

  if (task)
    run_task(c);

  if (shared) {
    /* another client of the same server, attached to the same cache */
    mcp_client_t *other = NULL;
    int before = reads_sent;
    st = mcp_client_connect(o, &other, &err);
    check(st == MCP_OK, "second client", "%s", err.message);
    if (st == MCP_OK) {
      st = mcp_client_read_resource(other, "interop://greeting", &r, &err);
      check(st == MCP_OK && reads_sent == before,
            "public result shared through mcp_client_cache_t", "%s",
            st == MCP_OK ? "resources/read was sent again" : err.message);
      json_decref(r);
      r = NULL;
      mcp_client_close(other);
    }
  }

  mcp_client_close(c);
  mcp_client_options_free(o);
  mcp_client_cache_free(cache);
  if (failures == 0)
    printf("interop_client: ok\n");
  return failures ? 1 : 0;
}
