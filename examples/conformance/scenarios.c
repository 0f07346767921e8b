/* SPDX-License-Identifier: MIT */
/* scenarios.c - prints the exact payloads of one conformance scenario.
 *
 * The suite's scenarios are request/response exchanges; this replays the
 * requests a scenario makes (after the usual initialize) against the
 * server over a pipe, through the ordinary stdio transport, and prints each
 * request with everything the server wrote back: results, errors,
 * notifications and server-to-client requests. Scenarios about the HTTP
 * transport itself (DNS rebinding, SSE streams) have no stdio form; their
 * entry explains what the suite checks instead.
 *
 * 2026-07-28 scenarios (tasks-*, sep-2640-*) send no initialize: every
 * request carries its era's _meta. "$TASK" and "$STATE" in a request are
 * replaced by the last taskId and requestState the server answered, so a
 * replay can follow a task it created.
 */
#include "scenarios.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct scenario {
  const char *name;
  const char *about;
  const char *capabilities; /* client capabilities for initialize, or
                               NULL: a 2026-07-28 scenario, no initialize */
  const char *requests[8];  /* params-complete JSON-RPC messages */
} scenario;

#define CALL(id, tool, args)                                                   \
  "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":"  \
  "{\"name\":\"" tool "\",\"arguments\":" args "}}"

/* 2026-07-28 _meta: the era, and client capabilities (with or without the
 * tasks extension). */
#define META(caps)                                                             \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define EXT_CAPS                                                               \
  "{\"elicitation\":{},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}"
#define MCALL(id, tool, args, caps)                                            \
  "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":"  \
  "{\"name\":\"" tool "\",\"arguments\":" args "," META(caps) "}}"
#define TASK(id, method, extra)                                                \
  "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"" method "\",\"params\":"  \
  "{\"taskId\":\"$TASK\"" extra "," META(EXT_CAPS) "}}"
#define MODERN(id, method, params)                                             \
  "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"" method "\",\"params\":"  \
  "{" params META("{}") "}}"

static const scenario scenarios[] = {
    {"server-initialize",
     "initialize answers with version, info, capabilities",
     "{}",
     {NULL}},
    {"ping",
     "ping answers {}",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"}},
    {"logging-set-level",
     "logging/setLevel answers {}",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\","
      "\"params\":{\"level\":\"info\"}}"}},
    {"completion-complete",
     "completion of a prompt argument",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"completion/complete\","
      "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
      "\"test_prompt_with_arguments\"},\"argument\":{\"name\":\"arg1\","
      "\"value\":\"pa\"}}}"}},
    {"tools-list",
     "every tool with its schema",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"}},
    {"json-schema-2020-12",
     "tools/list keeps the 2020-12 schema verbatim",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"}},
    {"tools-call-simple-text",
     "one text block",
     "{}",
     {CALL(2, "test_simple_text", "{}")}},
    {"tools-call-image",
     "one image block",
     "{}",
     {CALL(2, "test_image_content", "{}")}},
    {"tools-call-audio",
     "one audio block",
     "{}",
     {CALL(2, "test_audio_content", "{}")}},
    {"tools-call-embedded-resource",
     "one embedded resource",
     "{}",
     {CALL(2, "test_embedded_resource", "{}")}},
    {"tools-call-mixed-content",
     "text, image and resource",
     "{}",
     {CALL(2, "test_multiple_content_types", "{}")}},
    {"tools-call-with-logging",
     "log notifications, then the result",
     "{}",
     {CALL(2, "test_tool_with_logging", "{}")}},
    {"tools-call-with-progress",
     "progress notifications, then the result",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
      "{\"name\":\"test_tool_with_progress\",\"arguments\":{},\"_meta\":"
      "{\"progressToken\":\"p1\"}}}"}},
    {"tools-call-error",
     "an isError result",
     "{}",
     {CALL(2, "test_error_handling", "{}")}},
    {"tools-call-sampling",
     "sampling/createMessage to the client; this replay answers it",
     "{\"sampling\":{}}",
     {CALL(2, "test_sampling", "{\"prompt\":\"Hello\"}"),
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"role\":\"assistant\","
      "\"content\":{\"type\":\"text\",\"text\":\"Hi there\"},\"model\":"
      "\"replay\"}}"}},
    {"tools-call-elicitation",
     "elicitation/create to the client; this replay accepts",
     "{\"elicitation\":{}}",
     {CALL(2, "test_elicitation", "{\"message\":\"Who are you?\"}"),
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\","
      "\"content\":{\"username\":\"ada\",\"email\":\"ada@example.com\"}}}"}},
    {"elicitation-sep1034-defaults",
     "the elicitation schema with defaults; this replay declines",
     "{\"elicitation\":{}}",
     {CALL(2, "test_elicitation_sep1034_defaults", "{}"),
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"decline\"}}"}},
    {"elicitation-sep1330-enums",
     "the five enum variants; this replay cancels",
     "{\"elicitation\":{}}",
     {CALL(2, "test_elicitation_sep1330_enums", "{}"),
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"cancel\"}}"}},
    {"resources-list",
     "the static resources",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/list\"}"}},
    {"resources-read-text",
     "a text resource",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
      "{\"uri\":\"test://static-text\"}}"}},
    {"resources-read-binary",
     "a blob resource",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
      "{\"uri\":\"test://static-binary\"}}"}},
    {"resources-templates-read",
     "a read through the URI template",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
      "{\"uri\":\"test://template/123/data\"}}"}},
    {"resources-subscribe",
     "subscribe answers {}",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
      "\"params\":{\"uri\":\"test://watched-resource\"}}"}},
    {"resources-unsubscribe",
     "subscribe, then unsubscribe",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
      "\"params\":{\"uri\":\"test://watched-resource\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/unsubscribe\","
      "\"params\":{\"uri\":\"test://watched-resource\"}}"}},
    {"prompts-list",
     "the prompts",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/list\"}"}},
    {"prompts-get-simple",
     "a prompt without arguments",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":"
      "{\"name\":\"test_simple_prompt\"}}"}},
    {"prompts-get-with-args",
     "a prompt with two required arguments",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":"
      "{\"name\":\"test_prompt_with_arguments\",\"arguments\":{\"arg1\":"
      "\"first\",\"arg2\":\"second\"}}}"}},
    {"prompts-get-embedded-resource",
     "a prompt embedding a resource",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":"
      "{\"name\":\"test_prompt_with_embedded_resource\",\"arguments\":"
      "{\"resourceUri\":\"test://example-resource\"}}}"}},
    {"prompts-get-with-image",
     "a prompt with an image",
     "{}",
     {"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":"
      "{\"name\":\"test_prompt_with_image\"}}"}},
    {"server-sse-polling",
     "HTTP only: the suite calls test_reconnection over POST and looks for "
     "an SSE priming event and retry field; over stdio it is a plain call",
     "{}",
     {CALL(2, "test_reconnection", "{}")}},
    {"server-sse-multiple-streams",
     "HTTP only: concurrent GET and POST streams on one session; each "
     "message must travel on exactly one stream (no stdio form)",
     "{}",
     {NULL}},
    {"dns-rebinding-protection",
     "HTTP only: requests with a foreign Host or Origin header must get 4xx "
     "(403 here, from the loopback guard) (no stdio form)",
     "{}",
     {NULL}},
    /* 2026-07-28 extensions: tasks (SEP-2663) */
    {"tasks-lifecycle",
     "sync greet; slow_compute becomes a task (flat CreateTaskResult), "
     "tasks/get inlines the result; failing_job completes with isError; "
     "cancel acks {}",
     NULL,
     {MCALL(1, "greet", "{\"name\":\"World\"}", EXT_CAPS),
      MCALL(2, "slow_compute", "{\"seconds\":0,\"label\":\"replay\"}",
            EXT_CAPS),
      TASK(3, "tasks/get", ""), MCALL(4, "failing_job", "{}", EXT_CAPS),
      TASK(5, "tasks/cancel", ""), TASK(6, "tasks/get", "")}},
    {"tasks-capability-negotiation",
     "discover declares the extension; without it tasks/get is -32021 and "
     "slow_compute runs synchronously",
     NULL,
     {MODERN(1, "server/discover", ""),
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/get\",\"params\":{"
      "\"taskId\":\"gate-test\"," META("{}") "}}",
      MCALL(3, "slow_compute", "{\"seconds\":0}", "{}")}},
    {"tasks-wire-fields",
     "ttlMs and pollIntervalMs, never ttl or pollInterval",
     NULL,
     {MCALL(1, "slow_compute", "{\"seconds\":0}", EXT_CAPS),
      TASK(2, "tasks/get", "")}},
    {"tasks-request-state-removal",
     "no requestState on CreateTaskResult nor on tasks/get",
     NULL,
     {MCALL(1, "slow_compute", "{\"seconds\":60}", EXT_CAPS),
      TASK(2, "tasks/get", ""), TASK(3, "tasks/cancel", "")}},
    {"tasks-mrtr-input",
     "confirm_delete parks input_required with inputRequests; tasks/update "
     "answers and the task completes",
     NULL,
     {MCALL(1, "confirm_delete", "{\"filename\":\"a.txt\"}", EXT_CAPS),
      TASK(2, "tasks/get", ""),
      TASK(3, "tasks/update",
           ",\"inputResponses\":{\"confirm_delete\":{\"action\":\"accept\","
           "\"content\":{\"confirm\":true}}}"),
      TASK(4, "tasks/get", "")}},
    {"tasks-request-headers",
     "HTTP only: Mcp-Method and Mcp-Name (the task id) must match the body "
     "(-32020, HTTP 400); over stdio the same requests without headers",
     NULL,
     {MCALL(1, "slow_compute", "{\"seconds\":60}", EXT_CAPS),
      TASK(2, "tasks/get", ""), TASK(3, "tasks/cancel", "")}},
    {"tasks-dispatch-and-envelope",
     "tasks/result and tasks/list are -32601; a legacy task param is "
     "ignored; an unknown task id is -32602",
     NULL,
     {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/result\",\"params\":{"
      "\"taskId\":\"x\"," META(EXT_CAPS) "}}",
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/"
      "list\",\"params\":{" META(EXT_CAPS) "}}",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"greet\",\"arguments\":{},\"task\":{\"ttl\":60000}," META(
          EXT_CAPS) "}}",
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/get\",\"params\":{"
      "\"taskId\":\"tasks-conformance-nonexistent-12345\"," META(
          EXT_CAPS) "}}"}},
    {"tasks-status-notifications",
     "the suite skips it (pending its subscriptions/listen rewrite); "
     "notifications/tasks go to listen streams naming the task in taskIds",
     NULL,
     {NULL}},
    {"tasks-required-task-error",
     "failing_job requires a task: -32021 with requiredCapabilities without "
     "the extension",
     NULL,
     {MCALL(1, "failing_job", "{}", "{}")}},
    {"tasks-mrtr-composition",
     "test_tool_with_task asks first (input_required), then its retry "
     "becomes a task whose result has the answer",
     NULL,
     {MCALL(1, "test_tool_with_task", "{}", EXT_CAPS),
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"test_tool_with_task\",\"arguments\":{},\"requestState\":"
      "\"$STATE\",\"inputResponses\":{\"user_name\":{\"action\":\"accept\","
      "\"content\":{\"name\":\"Alice\"}}}," META(EXT_CAPS) "}}",
      TASK(3, "tasks/get", "")}},
    /* 2026-07-28 extensions: skills (SEP-2640) */
    {"sep-2640-skills-enumeration",
     "skills/list entries with digests and sizes; skills/get; -32602 for an "
     "unknown skill",
     NULL,
     {MODERN(1, "skills/list", ""),
      MODERN(2, "skills/get", "\"uri\":\"skill://conformance-echo/SKILL.md\","),
      MODERN(3, "skills/get",
             "\"uri\":\"skill://mcp-conformance-nonexistent-skill-9f3a2b/"
             "SKILL.md\",")}},
    {"sep-2640-skills-manifest",
     "SKILL.md is a text/markdown resource named and described from its "
     "front matter",
     NULL,
     {MODERN(1, "resources/list", ""),
      MODERN(2, "resources/read",
             "\"uri\":\"skill://conformance-echo/SKILL.md\",")}},
    {"sep-2640-skills-directory",
     "resources/directory/read lists the skill's children "
     "(inode/directory for subdirectories); a file URI is -32602",
     NULL,
     {MODERN(1, "resources/directory/read",
             "\"uri\":\"skill://conformance-echo\","),
      MODERN(2, "resources/directory/read",
             "\"uri\":\"skill://conformance-echo/SKILL.md\",")}},
};

#define COUNT (sizeof scenarios / sizeof scenarios[0])

typedef struct serving {
  mcp_server_t *server;
  int in_fd, out_fd;
} serving;

static void *serve_main(void *arg) {
  serving *s = arg;
  mcp_server_serve_fds(s->server, s->in_fd, s->out_fd);
  close(s->out_fd); /* the reader sees the end */
  return NULL;
}

/* The last taskId and requestState the server answered ($TASK, $STATE). */
static char last_task[128], last_state[4096];

static void remember(const char *buf, size_t n, const char *key, char *slot,
                     size_t cap) {
  size_t kl = strlen(key);
  for (size_t i = 0; i + kl < n; i++)
    if (memcmp(buf + i, key, kl) == 0) {
      const char *v = buf + i + kl, *end = memchr(v, '"', n - i - kl);
      if (end && (size_t)(end - v) < cap) {
        memcpy(slot, v, (size_t)(end - v));
        slot[end - v] = '\0';
      }
    }
}

/* Prints every line the server writes within quiet_ms of silence. */
static void drain(int fd, FILE *out, int quiet_ms) {
  char buf[65536];
  struct pollfd p = {.fd = fd, .events = POLLIN};
  while (poll(&p, 1, quiet_ms) > 0) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0)
      return;
    remember(buf, (size_t)n, "\"taskId\":\"", last_task, sizeof last_task);
    remember(buf, (size_t)n, "\"requestState\":\"", last_state,
             sizeof last_state);
    fputs("  <- ", out);
    for (ssize_t i = 0; i < n; i++) {
      fputc(buf[i], out);
      if (buf[i] == '\n' && i + 1 < n)
        fputs("  <- ", out);
    }
  }
}

static void send_line(int fd, const char *line, FILE *out) {
  char buf[8192];
  const char *t = strstr(line, "$TASK"), *s = strstr(line, "$STATE");
  if (t || s) { /* one placeholder per request */
    const char *at = t ? t : s;
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - line), line,
             t ? last_task : last_state, at + (t ? 5 : 6));
    line = buf;
  }
  fprintf(out, "  -> %s\n", line);
  size_t len = strlen(line);
  if (write(fd, line, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
    fprintf(out, "  (write failed)\n");
}

int conformance_show_scenario(mcp_server_t *server, const char *name,
                              FILE *out) {
  const scenario *sc = NULL;
  for (size_t i = 0; i < COUNT; i++)
    if (strcmp(scenarios[i].name, name) == 0)
      sc = &scenarios[i];
  if (sc == NULL) {
    fprintf(out, "unknown scenario '%s'; known:\n", name);
    for (size_t i = 0; i < COUNT; i++)
      fprintf(out, "  %s\n", scenarios[i].name);
    return 2;
  }
  int to_server[2], from_server[2];
  if (pipe(to_server) != 0 || pipe(from_server) != 0)
    return 1;
  serving s = {server, to_server[0], from_server[1]};
  pthread_t th;
  if (pthread_create(&th, NULL, serve_main, &s) != 0)
    return 1;
  fprintf(out, "scenario %s: %s\n", sc->name, sc->about);
  if (sc->capabilities) { /* 2025-11-25: the handshake first */
    char init[512];
    snprintf(init, sizeof init,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
             "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
             "%s,\"clientInfo\":{\"name\":\"conformance-replay\",\"version\":"
             "\"1\"}}}",
             sc->capabilities);
    send_line(to_server[1], init, out);
    drain(from_server[0], out, 300);
    send_line(to_server[1],
              "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
              out);
  }
  for (int i = 0; i < 8 && sc->requests[i]; i++) {
    send_line(to_server[1], sc->requests[i], out);
    drain(from_server[0], out, 800); /* tools with pauses answer within */
  }
  close(to_server[1]);
  drain(from_server[0], out, 2000);
  pthread_join(th, NULL);
  close(to_server[0]);
  close(from_server[0]);
  return 0;
}
