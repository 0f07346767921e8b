/* SPDX-License-Identifier: MIT */
/* cmd_inspect.c - "mcpc inspect": a quality report on a server. Findings are
 * PASS / WARN / FAIL lines (or JSON); any FAIL (a MUST broken) gives exit 1.
 * See docs/mcpc.md for the list of checks. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "mcp/schema.h"
#include "mcp/tool.h"

typedef struct inspect {
  pthread_mutex_t lock; /* the observer runs on the client's threads */
  json_t *findings;
  int failures, warnings, passes;
  size_t messages, invalid;
  /* Traffic kept for validation once the version is known: incoming
   * messages (copies) and the method of each request id sent. */
  json_t *received, *sent;
} inspect;

/* The schemas embedded at build time (cli/CMakeLists.txt). */
extern const unsigned char mcpc_schema_2025_11_25[];
extern const size_t mcpc_schema_2025_11_25_len;
extern const unsigned char mcpc_schema_2026_07_28[];
extern const size_t mcpc_schema_2026_07_28_len;

/* The result type a method answers with, per schema $defs. */
static const char *result_def(const char *method, const json_t *result) {
  const char *rt = json_string_value(json_object_get(result, "resultType"));
  if (rt != NULL && strcmp(rt, "input_required") == 0)
    return "InputRequiredResult";
  if (rt != NULL && strcmp(rt, "task") == 0)
    return NULL; /* an extension's type: not in the core schema */
  static const char *const MAP[][2] = {
      {"initialize", "InitializeResult"},
      {"server/discover", "DiscoverResult"},
      {"tools/list", "ListToolsResult"},
      {"tools/call", "CallToolResult"},
      {"resources/list", "ListResourcesResult"},
      {"resources/templates/list", "ListResourceTemplatesResult"},
      {"resources/read", "ReadResourceResult"},
      {"prompts/list", "ListPromptsResult"},
      {"prompts/get", "GetPromptResult"},
      {"completion/complete", "CompleteResult"}};
  for (size_t i = 0; i < sizeof MAP / sizeof *MAP; i++)
    if (strcmp(method, MAP[i][0]) == 0)
      return MAP[i][1];
  return NULL;
}

static void add(inspect *in, const char *level, const char *check,
                const char *subject, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&in->lock);
  json_array_append_new(in->findings,
                        json_pack("{s:s,s:s,s:s,s:s}", "level", level, "check",
                                  check, "subject", subject ? subject : "",
                                  "message", msg));
  if (strcmp(level, "FAIL") == 0)
    in->failures++;
  else if (strcmp(level, "WARN") == 0)
    in->warnings++;
  else if (strcmp(level, "PASS") == 0)
    in->passes++;
  pthread_mutex_unlock(&in->lock);
}

static void observe(mcp_client_t *c, bool incoming, json_t *msg, void *ud) {
  inspect *in = ud;
  if (!incoming) {
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *id = json_object_get(msg, "id");
    if (method != NULL && json_is_integer(id)) {
      char key[32];
      snprintf(key, sizeof key, "%" JSON_INTEGER_FORMAT,
               json_integer_value(id));
      pthread_mutex_lock(&in->lock);
      json_object_set_new(in->sent, key, json_string(method));
      pthread_mutex_unlock(&in->lock);
    }
    return;
  }
  if (json_is_string(msg)) {
    add(in, "FAIL", "transport", NULL, "not a JSON-RPC message: %.120s",
        json_string_value(msg));
    return;
  }
  pthread_mutex_lock(&in->lock);
  in->messages++;
  /* validated at the end, against the negotiated version's schema (the
   * version is known only once connected); bounded */
  if (json_array_size(in->received) < 10000)
    json_array_append_new(in->received, json_deep_copy(msg));
  pthread_mutex_unlock(&in->lock);
}

/* Compiles {"$ref": "<uri>#/$defs/<def>"} against the registered schema. */
static mcp_schema_t *compile_def(mcp_schema_options_t *opts, const char *uri,
                                 const char *def) {
  char ref[300];
  snprintf(ref, sizeof ref, "{\"$ref\":\"%s#/$defs/%s\"}", uri, def);
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  if (mcp_schema_compile_text(ref, strlen(ref), opts, &s, &err) != MCP_OK)
    return NULL;
  return s;
}

/* Validates the kept traffic: every message against JSONRPCMessage and
 * every result against its method's result type, in the schema of the
 * negotiated version (embedded, or --spec / MCP_SPEC_SCHEMA). */
static void validate_traffic(inspect *in, const mcpc_ctx *ctx,
                             const char *version) {
  bool modern = version != NULL && strcmp(version, "2026-07-28") >= 0;
  const char *path = ctx->spec ? ctx->spec : getenv("MCP_SPEC_SCHEMA");
  json_error_t je;
  json_t *doc = NULL;
  char where[300];
  if (path != NULL) {
    doc = json_load_file(path, 0, &je);
    snprintf(where, sizeof where, "%s", path);
  } else {
    const unsigned char *bytes =
        modern ? mcpc_schema_2026_07_28 : mcpc_schema_2025_11_25;
    size_t len =
        modern ? mcpc_schema_2026_07_28_len : mcpc_schema_2025_11_25_len;
    doc = len ? json_loadb((const char *)bytes, len, 0, &je) : NULL;
    snprintf(where, sizeof where, "the embedded MCP %s schema",
             modern ? "2026-07-28" : "2025-11-25");
  }
  if (doc == NULL) {
    add(in, "WARN", "schema", NULL,
        "no MCP schema (built without ../shared/spec, and no --spec): "
        "messages are not validated");
    return;
  }
  const char *uri = "https://modelcontextprotocol.io/schema/inspect.json";
  mcp_schema_registry_t *reg = NULL;
  mcp_schema_options_t *opts = NULL;
  mcp_error_t err;
  mcp_schema_t *message = NULL;
  bool added = mcp_schema_registry_new(&reg) == MCP_OK &&
               mcp_schema_registry_add(reg, uri, doc, &err) == MCP_OK;
  if (reg != NULL)
    doc = NULL; /* the registry took it */
  if (added && mcp_schema_options_new(&opts) == MCP_OK &&
      mcp_schema_options_set_registry(opts, reg) == MCP_OK)
    message = compile_def(opts, uri, "JSONRPCMessage");
  if (message == NULL) {
    add(in, "WARN", "schema", NULL, "cannot use %s as the MCP schema", where);
  } else {
    add(in, "PASS", "schema", NULL, "validating messages against %s", where);
    size_t i, results = 0, bad = 0;
    json_t *m;
    json_array_foreach(in->received, i, m) {
      char *text = NULL;
      if (!mcp_schema_is_valid(message, m)) {
        text = json_dumps(m, JSON_COMPACT);
        add(in, "FAIL", "schema", NULL,
            "message does not match JSONRPCMessage of MCP %s: %.200s",
            modern ? "2026-07-28" : "2025-11-25", text ? text : "");
        free(text);
        bad++;
        continue;
      }
      json_t *result = json_object_get(m, "result");
      json_t *id = json_object_get(m, "id");
      if (result == NULL || !json_is_integer(id))
        continue;
      char key[32];
      snprintf(key, sizeof key, "%" JSON_INTEGER_FORMAT,
               json_integer_value(id));
      const char *method = json_string_value(json_object_get(in->sent, key));
      const char *def = method ? result_def(method, result) : NULL;
      mcp_schema_t *rs = def ? compile_def(opts, uri, def) : NULL;
      if (rs == NULL)
        continue;
      results++;
      if (!mcp_schema_is_valid(rs, result)) {
        text = json_dumps(result, JSON_COMPACT);
        add(in, "FAIL", "result", method, "does not match %s of MCP %s: %.200s",
            def, modern ? "2026-07-28" : "2025-11-25", text ? text : "");
        free(text);
        bad++;
      }
      mcp_schema_free(rs);
    }
    if (bad == 0)
      add(in, "PASS", "schema", NULL,
          "%zu messages valid, %zu results match their result type",
          json_array_size(in->received), results);
  }
  mcp_schema_free(message);
  mcp_schema_options_free(opts);
  mcp_schema_registry_free(reg);
  json_decref(doc);
}

/* A sample value for a property schema. */
static json_t *sample(json_t *s) {
  json_t *v;
  if ((v = json_object_get(s, "const")) != NULL)
    return json_incref(v);
  if ((v = json_object_get(s, "default")) != NULL)
    return json_incref(v);
  if (json_array_size(v = json_object_get(s, "enum")) > 0)
    return json_incref(json_array_get(v, 0));
  if (json_array_size(v = json_object_get(s, "examples")) > 0)
    return json_incref(json_array_get(v, 0));
  const char *type = json_string_value(json_object_get(s, "type"));
  if (type == NULL && json_is_array(json_object_get(s, "type")))
    type = json_string_value(json_array_get(json_object_get(s, "type"), 0));
  json_t *min = json_object_get(s, "minimum");
  if (type == NULL || strcmp(type, "string") == 0)
    return json_string("sample");
  if (strcmp(type, "integer") == 0)
    return json_integer(json_is_number(min) ? (json_int_t)json_number_value(min)
                                            : 1);
  if (strcmp(type, "number") == 0)
    return json_real(json_is_number(min) ? json_number_value(min) : 1.0);
  if (strcmp(type, "boolean") == 0)
    return json_true();
  if (strcmp(type, "array") == 0)
    return json_array();
  if (strcmp(type, "null") == 0)
    return json_null();
  json_t *obj = json_object();
  size_t i;
  json_t *name;
  json_t *props = json_object_get(s, "properties");
  json_array_foreach(json_object_get(s, "required"), i, name) {
    if (json_is_string(name))
      json_object_set_new(
          obj, json_string_value(name),
          sample(json_object_get(props, json_string_value(name))));
  }
  return obj;
}

static void check_schema(inspect *in, const char *tool, const char *which,
                         json_t *schema) {
  if (schema == NULL)
    return;
  if (!json_is_object(schema) ||
      !json_is_string(json_object_get(schema, "type")) ||
      strcmp(json_string_value(json_object_get(schema, "type")), "object") !=
          0) {
    add(in, "FAIL", which, tool, "%s root must be {\"type\": \"object\"}",
        which);
    return;
  }
  mcp_validation_t *v = NULL;
  if (mcp_schema_check_meta(schema, &v) == MCP_OK) {
    add(in, "PASS", which, tool, "%s is a valid 2020-12 schema", which);
  } else {
    add(in, "FAIL", which, tool, "%s breaks the 2020-12 meta-schema: %s at %s",
        which,
        v && mcp_validation_count(v) ? mcp_validation_message(v, 0) : "?",
        v && mcp_validation_count(v) ? mcp_validation_instance_location(v, 0)
                                     : "");
  }
  mcp_validation_free(v);
}

static void check_tool(inspect *in, mcp_client_t *c, json_t *t, bool call_all) {
  const char *name = json_string_value(json_object_get(t, "name"));
  if (name == NULL || !mcp_tool_name_is_valid(name)) {
    add(in, "FAIL", "name", name,
        "tool name breaks the naming rules "
        "(1-128 of A-Z a-z 0-9 _ - .)");
    if (name == NULL)
      return;
  }
  const char *d = json_string_value(json_object_get(t, "description"));
  if (d == NULL || d[0] == '\0')
    add(in, "WARN", "description", name,
        "no description: models choose "
        "tools by it");
  json_t *input = json_object_get(t, "inputSchema");
  if (input == NULL)
    add(in, "FAIL", "inputSchema", name, "inputSchema is required");
  check_schema(in, name, "inputSchema", input);
  json_t *output = json_object_get(t, "outputSchema");
  check_schema(in, name, "outputSchema", output);
  size_t i;
  json_t *icon;
  json_array_foreach(json_object_get(t, "icons"), i, icon) {
    const char *src = json_string_value(json_object_get(icon, "src"));
    if (src == NULL ||
        (strncmp(src, "https:", 6) != 0 && strncmp(src, "data:", 5) != 0))
      add(in, "FAIL", "icons", name,
          "icon src must be https: or data:, got "
          "%.80s",
          src ? src : "(none)");
  }
  json_t *ann = json_object_get(t, "annotations");
  bool ro = json_is_true(json_object_get(ann, "readOnlyHint"));
  if (ro && json_is_true(json_object_get(ann, "destructiveHint")))
    add(in, "WARN", "annotations", name,
        "readOnlyHint true with destructiveHint true contradicts itself");
  if (ro && json_is_false(json_object_get(ann, "idempotentHint")))
    add(in, "WARN", "annotations", name,
        "readOnlyHint true with idempotentHint false is unlikely");
  if (!ro && !call_all)
    return;
  json_t *args = sample(input);
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st =
      mcp_client_call_tool(c, name, args, NULL, NULL, &result, &err);
  json_decref(args);
  if (st != MCP_OK) {
    add(in, "WARN", "call", name, "sample call failed: %s", err.message);
  } else if (json_is_true(json_object_get(result, "isError"))) {
    add(in, "WARN", "call", name, "sample call returned isError");
  } else if (output != NULL) {
    json_t *sc = json_object_get(result, "structuredContent");
    mcp_schema_t *compiled = NULL;
    if (sc == NULL) {
      add(in, "FAIL", "structuredContent", name,
          "tool has an outputSchema but returned no structuredContent");
    } else if (mcp_schema_compile(output, NULL, &compiled, &err) == MCP_OK) {
      mcp_validation_t *v = NULL;
      if (mcp_schema_validate(compiled, sc, &v) == MCP_OK)
        add(in, "PASS", "structuredContent", name, "matches outputSchema");
      else
        add(in, "FAIL", "structuredContent", name,
            "does not match outputSchema: %s at \"%s\"",
            v && mcp_validation_count(v) ? mcp_validation_message(v, 0) : "?",
            v && mcp_validation_count(v)
                ? mcp_validation_instance_location(v, 0)
                : "");
      mcp_validation_free(v);
    }
    mcp_schema_free(compiled);
  } else {
    add(in, "PASS", "call", name, "sample call succeeded");
  }
  json_decref(result);
}

int mcpc_cmd_inspect(mcpc_ctx *ctx, int argc, char **argv) {
  bool call_all = false;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--call-tools") == 0)
      call_all = true;
    else
      return mcpc_usage("inspect [--call-tools] [--spec SCHEMA_JSON]");
  }
  inspect in = {.findings = json_array(),
                .received = json_array(),
                .sent = json_object()};
  pthread_mutex_init(&in.lock, NULL);
  ctx->observer = observe;
  ctx->observer_ud = &in;
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c != NULL) {
    json_t *tools = NULL;
    mcp_error_t err;
    if (mcp_client_server_has(c, "tools")) {
      if (mcp_client_list_tools(c, &tools, &err) == MCP_OK) {
        size_t i;
        json_t *t;
        json_array_foreach(tools, i, t) check_tool(&in, c, t, call_all);
      } else {
        add(&in, "FAIL", "tools/list", NULL, "%s", err.message);
      }
    }
    json_decref(tools);
    if (mcp_client_ping(c, &err) != MCP_OK)
      add(&in, "FAIL", "ping", NULL, "ping failed: %s", err.message);
    json_t *init = json_incref(mcp_client_initialize_result(c));
    json_t *info = json_incref(mcp_client_server_info(c));
    char *version = strdup(mcp_client_protocol_version(c));
    mcp_client_close(c);
    validate_traffic(&in, ctx, version);
    free(version);
    int scored = in.passes + in.failures + in.warnings;
    int score = scored ? (100 * in.passes + 50 * in.warnings) / scored : 0;
    if (ctx->json) {
      json_t *o = json_pack(
          "{s:O,s:s,s:O,s:i,s:i,s:i}", "server", info ? info : json_null(),
          "protocol",
          json_string_value(json_object_get(init, "protocolVersion"))
              ? json_string_value(json_object_get(init, "protocolVersion"))
              : "2026-07-28",
          "findings", in.findings, "failures", in.failures, "warnings",
          in.warnings, "score", score);
      mcpc_print_json(o);
      json_decref(o);
    } else {
      size_t i;
      json_t *f;
      json_array_foreach(in.findings, i, f) {
        const char *subject = json_string_value(json_object_get(f, "subject"));
        printf("%s %s%s%s: %s\n",
               json_string_value(json_object_get(f, "level")),
               json_string_value(json_object_get(f, "check")),
               subject[0] ? " " : "", subject,
               json_string_value(json_object_get(f, "message")));
      }
      printf("%zu messages received; %d failures, %d warnings; score %d/100\n",
             in.messages, in.failures, in.warnings, score);
    }
    json_decref(init);
    json_decref(info);
    rc = in.failures > 0 ? MCPC_FAIL : MCPC_OK;
  }
  json_decref(in.received);
  json_decref(in.sent);
  json_decref(in.findings);
  pthread_mutex_destroy(&in.lock);
  return rc;
}
