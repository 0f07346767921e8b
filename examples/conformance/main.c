/* SPDX-License-Identifier: MIT */
/* main.c - mcp-conformance-server: the fixture the official MCP conformance
 * suite (@modelcontextprotocol/conformance, server scenarios) expects.
 *
 *   mcp-conformance-server --http HOST:PORT   (endpoint /mcp)
 *   mcp-conformance-server --stdio
 *
 * Every tool, resource and prompt name below is fixed by the suite; see
 * docs/conformance.md for what each scenario calls and what it gets back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mcp/mcp.h>

#include "scenarios.h"

/* A 1x1 red PNG and a tiny silent 8 kHz mono WAV. */
static const char PNG_B64[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIA"
    "X8jx0gAAAABJRU5ErkJggg==";
static const char WAV_B64[] =
    "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- tools --------------------------------------------------------------- */

static mcp_status simple_text(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "This is a simple text response for testing.");
  return MCP_OK;
}

static mcp_status image_content(mcp_call_t *call, json_t *args, mcp_result_t *r,
                                void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_image(r, PNG_B64, "image/png");
  return MCP_OK;
}

static mcp_status audio_content(mcp_call_t *call, json_t *args, mcp_result_t *r,
                                void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_audio(r, WAV_B64, "audio/wav");
  return MCP_OK;
}

static mcp_status embedded_resource(mcp_call_t *call, json_t *args,
                                    mcp_result_t *r, void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text_resource(r, "test://embedded-resource",
                               "This is an embedded resource content.",
                               "text/plain");
  return MCP_OK;
}

static mcp_status multiple_content(mcp_call_t *call, json_t *args,
                                   mcp_result_t *r, void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "Multiple content types test:");
  mcp_result_add_image(r, PNG_B64, "image/png");
  mcp_result_add_text_resource(r, "test://mixed-content-resource",
                               "{\"test\":\"data\",\"value\":123}",
                               "application/json");
  return MCP_OK;
}

static mcp_status with_logging(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)args, (void)ud;
  mcp_call_logf(call, MCP_LOG_INFO, "conformance", "Tool execution started");
  sleep_ms(50);
  mcp_call_logf(call, MCP_LOG_INFO, "conformance", "Tool processing data");
  sleep_ms(50);
  mcp_call_logf(call, MCP_LOG_INFO, "conformance", "Tool execution completed");
  mcp_result_add_text(r, "Tool with logging executed successfully");
  return MCP_OK;
}

static mcp_status with_progress(mcp_call_t *call, json_t *args, mcp_result_t *r,
                                void *ud) {
  (void)args, (void)ud;
  for (int step = 0; step <= 100; step += 50) {
    if (mcp_call_is_cancelled(call))
      return MCP_ERR_CANCELLED;
    mcp_call_progress(call, step, 100, NULL);
    if (step < 100)
      sleep_ms(50);
  }
  mcp_result_add_text(r, "Tool with progress executed successfully");
  return MCP_OK;
}

static mcp_status error_handling(mcp_call_t *call, json_t *args,
                                 mcp_result_t *r, void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_result_set_error(
      r, "This tool intentionally returns an error for testing");
}

static mcp_status sampling(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)ud;
  mcp_sampling_t *req = NULL;
  json_t *res = NULL;
  mcp_error_t err = {0};
  mcp_status st = mcp_sampling_new(100, &req);
  if (st == MCP_OK)
    st = mcp_sampling_add_text(req, MCP_ROLE_USER,
                               mcp_arg_string_or(args, "prompt", ""));
  if (st == MCP_OK)
    st = mcp_call_sample(call, req, 0, &res, &err);
  mcp_sampling_free(req);
  if (st != MCP_OK)
    return mcp_result_set_error(r, "Sampling failed: %s", err.message);
  const char *text = mcp_sampling_result_text(res);
  mcp_result_add_textf(r, "LLM response: %s", text ? text : "(no text)");
  json_decref(res);
  return MCP_OK;
}

/* "User response: action=..., content={...}" for any elicitation. */
static mcp_status elicit_and_report(mcp_call_t *call, mcp_result_t *r,
                                    const char *message, const char *schema,
                                    const char *prefix) {
  mcp_elicit_action action;
  json_t *content = NULL;
  mcp_error_t err = {0};
  mcp_status st = mcp_call_elicit(call, message, json_loads(schema, 0, NULL), 0,
                                  &action, &content, &err);
  if (st != MCP_OK)
    return mcp_result_set_error(r, "Elicitation failed: %s", err.message);
  char *dump = content ? json_dumps(content, JSON_COMPACT) : NULL;
  mcp_result_add_textf(r, "%s: action=%s, content=%s", prefix,
                       mcp_elicit_action_name(action), dump ? dump : "{}");
  free(dump);
  json_decref(content);
  return MCP_OK;
}

static mcp_status elicitation(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)ud;
  return elicit_and_report(
      call, r, mcp_arg_string_or(args, "message", "Please provide your info"),
      "{\"type\":\"object\",\"properties\":{"
      "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
      "\"email\":{\"type\":\"string\",\"description\":\"User's email "
      "address\"}},\"required\":[\"username\",\"email\"]}",
      "User response");
}

static mcp_status elicitation_defaults(mcp_call_t *call, json_t *args,
                                       mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  return elicit_and_report(
      call, r, "Please review and update the form fields with defaults",
      "{\"type\":\"object\",\"properties\":{"
      "\"name\":{\"type\":\"string\",\"description\":\"User name\","
      "\"default\":\"John Doe\"},"
      "\"age\":{\"type\":\"integer\",\"description\":\"User age\","
      "\"default\":30},"
      "\"score\":{\"type\":\"number\",\"description\":\"User score\","
      "\"default\":95.5},"
      "\"status\":{\"type\":\"string\",\"description\":\"User status\","
      "\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
      "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification "
      "status\",\"default\":true}}}",
      "Elicitation completed");
}

static mcp_status elicitation_enums(mcp_call_t *call, json_t *args,
                                    mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  return elicit_and_report(
      call, r, "Please select options from the enum fields",
      "{\"type\":\"object\",\"properties\":{"
      "\"untitledSingle\":{\"type\":\"string\",\"description\":\"Select one "
      "option\",\"enum\":[\"option1\",\"option2\",\"option3\"]},"
      "\"titledSingle\":{\"type\":\"string\",\"description\":\"Select one "
      "option with titles\",\"oneOf\":["
      "{\"const\":\"value1\",\"title\":\"First Option\"},"
      "{\"const\":\"value2\",\"title\":\"Second Option\"},"
      "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
      "\"legacyEnum\":{\"type\":\"string\",\"description\":\"Select one "
      "option (legacy)\",\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
      "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
      "\"untitledMulti\":{\"type\":\"array\",\"description\":\"Select "
      "multiple options\",\"minItems\":1,\"maxItems\":3,\"items\":{\"type\":"
      "\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
      "\"titledMulti\":{\"type\":\"array\",\"description\":\"Select "
      "multiple options with titles\",\"minItems\":1,\"maxItems\":3,"
      "\"items\":{\"anyOf\":["
      "{\"const\":\"value1\",\"title\":\"First Choice\"},"
      "{\"const\":\"value2\",\"title\":\"Second Choice\"},"
      "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}}}",
      "Elicitation completed");
}

static mcp_status schema_2020_12(mcp_call_t *call, json_t *args,
                                 mcp_result_t *r, void *ud) {
  (void)call, (void)ud;
  char *dump = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
  mcp_result_add_textf(r, "JSON Schema 2020-12 tool called with: %s",
                       dump ? dump : "{}");
  free(dump);
  return MCP_OK;
}

static mcp_status reconnection(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)args, (void)ud;
  /* Long enough that a transport polling with SSE (SEP-1699) closes the
   * stream before the result is ready. */
  for (int i = 0; i < 10 && !mcp_call_is_cancelled(call); i++)
    sleep_ms(50);
  mcp_result_add_text(r, "Reconnection test completed successfully");
  return MCP_OK;
}

static const conformance_tool tools[] = {
    {"test_simple_text", "Tests simple text content response", NULL,
     simple_text},
    {"test_image_content", "Tests image content response", NULL, image_content},
    {"test_audio_content", "Tests audio content response", NULL, audio_content},
    {"test_embedded_resource", "Tests embedded resource content response", NULL,
     embedded_resource},
    {"test_multiple_content_types",
     "Tests response with multiple content types (text, image, resource)", NULL,
     multiple_content},
    {"test_tool_with_logging",
     "Tests tool that emits log messages during "
     "execution",
     NULL, with_logging},
    {"test_tool_with_progress",
     "Tests tool that reports progress "
     "notifications",
     NULL, with_progress},
    {"test_error_handling", "Tests error response handling", NULL,
     error_handling},
    {"test_sampling",
     "Tests server-initiated sampling (LLM completion "
     "request)",
     "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
     "\"description\":\"The prompt to send to the LLM\"}},\"required\":["
     "\"prompt\"]}",
     sampling},
    {"test_elicitation",
     "Tests server-initiated elicitation (user input "
     "request)",
     "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
     "\"description\":\"The message to show the user\"}},\"required\":["
     "\"message\"]}",
     elicitation},
    {"test_elicitation_sep1034_defaults",
     "Tests elicitation with default values (SEP-1034)", NULL,
     elicitation_defaults},
    {"test_elicitation_sep1330_enums",
     "Tests elicitation with enum schema variants (SEP-1330)", NULL,
     elicitation_enums},
    {"json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
     "\"type\":\"object\",\"$defs\":{\"address\":{\"$anchor\":\"address\","
     "\"type\":\"object\",\"properties\":{\"street\":{\"type\":\"string\"},"
     "\"city\":{\"type\":\"string\"}}}},\"properties\":{\"name\":{\"type\":"
     "\"string\"},\"address\":{\"$ref\":\"#address\"},\"contact\":{\"type\":"
     "\"string\"}},\"allOf\":[{\"anyOf\":[{\"required\":[\"name\"]},"
     "{\"required\":[\"address\"]}]}],\"if\":{\"required\":[\"contact\"]},"
     "\"then\":{\"properties\":{\"contact\":{\"minLength\":3}}},\"else\":"
     "{\"properties\":{\"contact\":true}},\"additionalProperties\":false}",
     schema_2020_12},
    {"test_reconnection",
     "Tests SSE stream reconnection (SEP-1699): answers "
     "after a short delay",
     NULL, reconnection},
};

/* ---- resources ----------------------------------------------------------- */

static mcp_status read_static_text(mcp_call_t *call, const char *uri,
                                   json_t *vars, mcp_read_result_t *out,
                                   void *ud) {
  (void)call, (void)vars, (void)ud;
  return mcp_read_result_add_text(
      out, uri, "This is the content of the static text resource.",
      "text/plain");
}

static mcp_status read_static_binary(mcp_call_t *call, const char *uri,
                                     json_t *vars, mcp_read_result_t *out,
                                     void *ud) {
  (void)call, (void)vars, (void)ud;
  /* The PNG above, as bytes. */
  static const unsigned char png[] = {
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
      0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
      0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00,
      0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0,
      0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00,
      0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
  return mcp_read_result_add_blob(out, uri, png, sizeof png, "image/png");
}

static mcp_status read_watched(mcp_call_t *call, const char *uri, json_t *vars,
                               mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)ud;
  return mcp_read_result_add_text(out, uri, "Watched resource content",
                                  "text/plain");
}

static mcp_status read_template(mcp_call_t *call, const char *uri, json_t *vars,
                                mcp_read_result_t *out, void *ud) {
  (void)call, (void)ud;
  json_t *doc = json_pack("{s:O,s:b,s:s++}", "id", json_object_get(vars, "id"),
                          "templateTest", 1, "data", "Data for ID: ",
                          json_string_value(json_object_get(vars, "id")), "");
  char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(doc);
  if (text == NULL)
    return MCP_ERR_NOMEM;
  mcp_status st = mcp_read_result_add_text(out, uri, text, "application/json");
  free(text);
  return st;
}

static mcp_status complete_id(mcp_call_t *call, const char *argument,
                              const char *value, json_t *context,
                              mcp_completion_t *out, void *ud) {
  (void)call, (void)argument, (void)context, (void)ud;
  static const char *const ids[] = {"1", "2", "3", "123", "456"};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
    if (strncmp(ids[i], value, strlen(value)) == 0)
      mcp_completion_add(out, ids[i]);
  return MCP_OK;
}

static mcp_status add_resource(mcp_server_t *s, const char *uri,
                               const char *name, const char *description,
                               const char *mime, mcp_resource_read_fn fn) {
  mcp_resource_t *r = NULL;
  mcp_status st = mcp_resource_new(uri, name, &r);
  if (st == MCP_OK)
    st = mcp_resource_set_description(r, description);
  if (st == MCP_OK)
    st = mcp_resource_set_mime_type(r, mime);
  if (st == MCP_OK)
    st = mcp_resource_set_handler(r, fn, NULL, NULL);
  if (st != MCP_OK) {
    mcp_resource_free(r);
    return st;
  }
  return mcp_server_add_resource(s, r);
}

static mcp_status add_resources(mcp_server_t *s) {
  mcp_status st = add_resource(s, "test://static-text", "Static Text Resource",
                               "A static text resource for testing",
                               "text/plain", read_static_text);
  if (st == MCP_OK)
    st = add_resource(s, "test://static-binary", "Static Binary Resource",
                      "A static binary resource (image) for testing",
                      "image/png", read_static_binary);
  if (st == MCP_OK)
    st = add_resource(s, "test://watched-resource", "Watched Resource",
                      "A resource that can be subscribed to", "text/plain",
                      read_watched);
  mcp_resource_template_t *t = NULL;
  if (st == MCP_OK)
    st = mcp_resource_template_new("test://template/{id}/data",
                                   "Resource Template", &t);
  if (st == MCP_OK)
    st = mcp_resource_template_set_description(
        t, "A resource template with parameter substitution");
  if (st == MCP_OK)
    st = mcp_resource_template_set_mime_type(t, "application/json");
  if (st == MCP_OK)
    st = mcp_resource_template_set_handler(t, read_template, NULL, NULL);
  if (st == MCP_OK)
    st = mcp_resource_template_set_completion(t, "id", complete_id, NULL, NULL);
  if (t && st != MCP_OK) {
    mcp_resource_template_free(t);
    return st;
  }
  return st == MCP_OK ? mcp_server_add_resource_template(s, t) : st;
}

/* ---- prompts ------------------------------------------------------------- */

static mcp_status simple_prompt(mcp_call_t *call, json_t *args,
                                mcp_prompt_result_t *out, void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_prompt_add_text(out, MCP_ROLE_USER,
                             "This is a simple prompt for testing.")
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

static mcp_status prompt_with_args(mcp_call_t *call, json_t *args,
                                   mcp_prompt_result_t *out, void *ud) {
  (void)call, (void)ud;
  char text[1024];
  snprintf(text, sizeof text, "Prompt with arguments: arg1='%s', arg2='%s'",
           mcp_arg_string_or(args, "arg1", ""),
           mcp_arg_string_or(args, "arg2", ""));
  return mcp_prompt_add_text(out, MCP_ROLE_USER, text) ? MCP_OK : MCP_ERR_NOMEM;
}

static mcp_status prompt_with_resource(mcp_call_t *call, json_t *args,
                                       mcp_prompt_result_t *out, void *ud) {
  (void)call, (void)ud;
  if (!mcp_prompt_add_text_resource(
          out, MCP_ROLE_USER, mcp_arg_string_or(args, "resourceUri", ""),
          "Embedded resource content for testing.", "text/plain"))
    return MCP_ERR_INVALID_PARAMS;
  return mcp_prompt_add_text(out, MCP_ROLE_USER,
                             "Please process the embedded resource above.")
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

static mcp_status prompt_with_image(mcp_call_t *call, json_t *args,
                                    mcp_prompt_result_t *out, void *ud) {
  (void)call, (void)args, (void)ud;
  if (!mcp_prompt_add_image(out, MCP_ROLE_USER, PNG_B64, "image/png") ||
      !mcp_prompt_add_text(out, MCP_ROLE_USER,
                           "Please analyze the image above."))
    return MCP_ERR_NOMEM;
  return MCP_OK;
}

static mcp_status complete_words(mcp_call_t *call, const char *argument,
                                 const char *value, json_t *context,
                                 mcp_completion_t *out, void *ud) {
  (void)call, (void)argument, (void)context, (void)ud;
  static const char *const words[] = {"paris", "park",    "party",
                                      "test",  "testing", "tested"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strncmp(words[i], value, strlen(value)) == 0)
      mcp_completion_add(out, words[i]);
  return MCP_OK;
}

static mcp_status add_prompt(mcp_server_t *s, const char *name,
                             const char *description, mcp_prompt_fn fn,
                             const char *const *args, bool complete) {
  mcp_prompt_t *p = NULL;
  mcp_status st = mcp_prompt_new(name, &p);
  if (st == MCP_OK)
    st = mcp_prompt_set_description(p, description);
  for (size_t i = 0; st == MCP_OK && args && args[i]; i += 2) {
    st = mcp_prompt_add_argument(p, args[i], NULL, args[i + 1], true);
    if (st == MCP_OK && complete)
      st = mcp_prompt_set_completion(p, args[i], complete_words, NULL, NULL);
  }
  if (st == MCP_OK)
    st = mcp_prompt_set_handler(p, fn, NULL, NULL);
  if (st != MCP_OK) {
    mcp_prompt_free(p);
    return st;
  }
  return mcp_server_add_prompt(s, p);
}

static mcp_status add_prompts(mcp_server_t *s) {
  static const char *const two[] = {"arg1", "First test argument", "arg2",
                                    "Second test argument", NULL};
  static const char *const uri[] = {"resourceUri",
                                    "URI of the resource to embed", NULL};
  mcp_status st =
      add_prompt(s, "test_simple_prompt", "A simple prompt without arguments",
                 simple_prompt, NULL, false);
  if (st == MCP_OK)
    st = add_prompt(s, "test_prompt_with_arguments",
                    "A prompt with required arguments", prompt_with_args, two,
                    true);
  if (st == MCP_OK)
    st = add_prompt(s, "test_prompt_with_embedded_resource",
                    "A prompt that includes an embedded resource",
                    prompt_with_resource, uri, false);
  if (st == MCP_OK)
    st = add_prompt(s, "test_prompt_with_image",
                    "A prompt that includes image content", prompt_with_image,
                    NULL, false);
  return st;
}

/* ---- main ---------------------------------------------------------------- */

mcp_status conformance_add_tools(mcp_server_t *s, const conformance_tool *table,
                                 size_t n) {
  mcp_status st = MCP_OK;
  for (size_t i = 0; st == MCP_OK && i < n; i++) {
    mcp_tool_t *t = NULL;
    mcp_error_t err = {0};
    st = mcp_tool_new(table[i].name, &t);
    if (st == MCP_OK)
      st = mcp_tool_set_description(t, table[i].description);
    if (st == MCP_OK && table[i].input)
      st = mcp_tool_set_input_schema_text(t, table[i].input);
    if (st == MCP_OK)
      st = mcp_tool_set_handler(t, table[i].fn, NULL, NULL);
    if (st != MCP_OK) {
      mcp_tool_free(t);
      break;
    }
    if ((st = mcp_server_add_tool(s, t, &err)) != MCP_OK)
      fprintf(stderr, "mcp-conformance-server: %s: %s\n", table[i].name,
              err.message);
  }
  return st;
}

static mcp_status build(mcp_server_t *s, mcp_store_t **store) {
  mcp_status st =
      conformance_add_tools(s, tools, sizeof tools / sizeof tools[0]);
  if (st == MCP_OK)
    st = conformance_add_modern(s);
  if (st == MCP_OK)
    st = conformance_add_extensions(s, store);
  if (st == MCP_OK)
    st = mcp_server_set_resources_subscribe(s, true);
  if (st == MCP_OK)
    st = add_resources(s);
  if (st == MCP_OK)
    st = add_prompts(s);
  return st;
}

static void usage(FILE *f) {
  fputs("usage: mcp-conformance-server (--http HOST:PORT | --stdio |\n"
        "                              --scenario NAME)\n"
        "  --http H:P       serve Streamable HTTP on http://H:P/mcp\n"
        "  --stdio          serve MCP over stdin/stdout\n"
        "  --scenario NAME  print the requests of one conformance scenario\n"
        "                   and exactly what this server answers (NAME list:\n"
        "                   --scenario list)\n",
        f);
}

int main(int argc, char **argv) {
  const char *http = NULL, *scenario = NULL;
  bool stdio = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--http") == 0 && i + 1 < argc)
      http = argv[++i];
    else if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc)
      scenario = argv[++i];
    else if (strcmp(argv[i], "--stdio") == 0)
      stdio = true;
    else if (strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if ((http != NULL) + stdio + (scenario != NULL) != 1) {
    usage(stderr);
    return 2;
  }
  mcp_server_t *server = NULL;
  mcp_store_t *store = NULL;
  mcp_status st = mcp_server_new("mcp-conformance-server", "1.0.0", &server);
  if (st == MCP_OK)
    st = build(server, &store);
  if (st == MCP_OK && scenario != NULL) {
    int rc = conformance_show_scenario(server, scenario, stdout);
    mcp_server_free(server);
    mcp_store_free(store);
    return rc;
  }
  mcp_error_t err = {0};
  if (st == MCP_OK) /* OpenTelemetry traces (OTEL_* environment) */
    st = mcp_server_otlp_from_env(server, &err);
  if (err.message[0] != '\0')
    fprintf(stderr, "mcp-conformance-server: %s\n", err.message);
  if (st == MCP_OK)
    st = stdio ? mcp_server_serve_stdio(server)
               : mcp_server_serve_http(server, http);
  if (st != MCP_OK)
    fprintf(stderr, "mcp-conformance-server: %s\n", mcp_strerror(st));
  mcp_server_free(server);
  mcp_store_free(store);
  return st == MCP_OK ? 0 : 1;
}
