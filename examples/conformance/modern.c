/* SPDX-License-Identifier: MIT */
/* modern.c - the fixtures of the 2026-07-28 server scenarios: multi-round
 * requests (input-required-result-*), capability and logging probes
 * (server-stateless), header-mirrored arguments (SEP-2243) and a 2020-12
 * schema that uses composition, conditionals and $anchor (SEP-2106).
 *
 * Each multi-round fixture is an ordinary handler that asks with
 * mcp_call_elicit / mcp_call_sample / mcp_call_list_roots; the library
 * turns the questions into input_required results and the retries into
 * answers (mcp/call.h).
 */
#include "scenarios.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"

static json_t *text_schema(const char *property) {
  return json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties",
                   property, "type", "string", "required", property);
}

/* Asks for one string property under key; on MCP_OK *value is a copy. */
static mcp_status ask_string(mcp_call_t *call, const char *key,
                             const char *message, const char *property,
                             char **value) {
  *value = NULL;
  mcp_call_set_question_key(call, key);
  mcp_elicit_action action;
  json_t *content = NULL;
  mcp_status st = mcp_call_elicit(call, message, text_schema(property), 0,
                                  &action, &content, NULL);
  if (st == MCP_OK) {
    const char *v = json_string_value(json_object_get(content, property));
    *value = strdup(action == MCP_ELICIT_ACCEPT && v ? v : "(declined)");
  }
  json_decref(content);
  return st;
}

static mcp_status irr_elicitation(mcp_call_t *call, json_t *args,
                                  mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  char *name;
  mcp_status st =
      ask_string(call, "user_name", "What is your name?", "name", &name);
  if (st == MCP_OK)
    mcp_result_add_textf(r, "Hello, %s!", name);
  free(name);
  return st;
}

static mcp_status ask_sample(mcp_call_t *call, const char *key,
                             const char *prompt, int max_tokens,
                             json_t **answer) {
  mcp_sampling_t *req;
  mcp_status st = mcp_sampling_new(max_tokens, &req);
  if (st == MCP_OK)
    st = mcp_sampling_add_text(req, MCP_ROLE_USER, prompt);
  if (st == MCP_OK) {
    mcp_call_set_question_key(call, key);
    st = mcp_call_sample(call, req, 0, answer, NULL);
  }
  mcp_sampling_free(req);
  return st;
}

static mcp_status irr_sampling(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)args, (void)ud;
  json_t *answer = NULL;
  mcp_status st = ask_sample(call, "capital_question",
                             "What is the capital of France?", 100, &answer);
  if (st == MCP_OK) {
    const char *text = mcp_sampling_result_text(answer);
    mcp_result_add_textf(r, "The model says: %s", text ? text : "(no text)");
  }
  json_decref(answer);
  return st;
}

static mcp_status ask_roots(mcp_call_t *call, const char *key, json_t **roots) {
  mcp_call_set_question_key(call, key);
  return mcp_call_list_roots(call, 0, roots, NULL);
}

static mcp_status irr_list_roots(mcp_call_t *call, json_t *args,
                                 mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  json_t *roots = NULL;
  mcp_status st = ask_roots(call, "client_roots", &roots);
  if (st == MCP_OK) {
    char *dump = json_dumps(roots, JSON_COMPACT);
    mcp_result_add_textf(r, "Client roots: %s", dump ? dump : "[]");
    free(dump);
  }
  json_decref(roots);
  return st;
}

/* The state proves the retry came back through this server: "state-ok". */
static mcp_status irr_request_state(mcp_call_t *call, json_t *args,
                                    mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  json_t *kept = mcp_call_round_state(call);
  if (kept == NULL)
    mcp_call_set_round_state(call, json_pack("{s:s}", "step", "confirm"));
  mcp_call_set_question_key(call, "confirm");
  mcp_elicit_action action;
  json_t *content = NULL;
  json_t *schema =
      json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties", "ok",
                "type", "boolean", "required", "ok");
  mcp_status st = mcp_call_elicit(call, "Please confirm", schema, 0, &action,
                                  &content, NULL);
  json_decref(content);
  if (st != MCP_OK)
    return st;
  const char *step = json_string_value(json_object_get(kept, "step"));
  mcp_result_add_textf(r, "%s: confirmed (%s)",
                       step && strcmp(step, "confirm") == 0 ? "state-ok"
                                                            : "state-missing",
                       mcp_elicit_action_name(action));
  return MCP_OK;
}

/* Three questions in one round: ask them all, then pass the status up. */
static mcp_status irr_multiple(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)args, (void)ud;
  char *name = NULL;
  json_t *greeting = NULL, *roots = NULL;
  mcp_status st[3] = {
      ask_string(call, "user_name", "What is your name?", "name", &name),
      ask_sample(call, "greeting", "Generate a greeting", 50, &greeting),
      ask_roots(call, "client_roots", &roots)};
  mcp_status out = MCP_OK;
  for (int i = 0; i < 3; i++)
    if (st[i] != MCP_OK && out != MCP_ERR_INPUT_REQUIRED)
      out = st[i];
  if (out == MCP_OK) {
    const char *g = mcp_sampling_result_text(greeting);
    mcp_result_add_textf(r, "%s, %s! (%zu roots)", g ? g : "Hello", name,
                         json_array_size(roots));
  }
  free(name);
  json_decref(greeting);
  json_decref(roots);
  return out;
}

static mcp_status irr_multi_round(mcp_call_t *call, json_t *args,
                                  mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  char *name = NULL, *color = NULL;
  mcp_status st =
      ask_string(call, "step1", "Step 1: What is your name?", "name", &name);
  if (st == MCP_OK)
    st = ask_string(call, "step2", "Step 2: What is your favorite color?",
                    "color", &color);
  if (st == MCP_OK)
    mcp_result_add_textf(r, "%s likes %s", name, color);
  free(name);
  free(color);
  return st;
}

/* A client that declared only sampling is asked only through sampling. */
static mcp_status irr_capabilities(mcp_call_t *call, json_t *args,
                                   mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  json_t *answer = NULL;
  mcp_status st;
  if (mcp_call_client_has(call, "elicitation")) {
    char *name;
    st = ask_string(call, "user_name", "What is your name?", "name", &name);
    if (st == MCP_OK)
      mcp_result_add_textf(r, "Hello, %s!", name);
    free(name);
  } else {
    st = ask_sample(call, "capital_question", "What is the capital of France?",
                    100, &answer);
    if (st == MCP_OK)
      mcp_result_add_text(r, "sampled");
  }
  json_decref(answer);
  return st;
}

static mcp_status missing_capability(mcp_call_t *call, json_t *args,
                                     mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  mcp_status st = mcp_call_require_capability(call, "sampling");
  if (st == MCP_OK)
    mcp_result_add_text(r, "the client declared sampling");
  return st;
}

static mcp_status streaming_elicitation(mcp_call_t *call, json_t *args,
                                        mcp_result_t *r, void *ud) {
  char *name;
  (void)args, (void)ud;
  mcp_call_progress(call, 0, 1, "asking");
  mcp_status st =
      ask_string(call, "user_name", "What is your name?", "name", &name);
  if (st == MCP_OK)
    mcp_result_add_textf(r, "Hello, %s!", name);
  free(name);
  return st;
}

static mcp_status logging_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)args, (void)ud;
  mcp_call_logf(call, MCP_LOG_INFO, "conformance", "logging tool ran");
  mcp_result_add_text(r, "logged (if the request asked for a level)");
  return MCP_OK;
}

static mcp_status header_echo(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)call, (void)ud;
  char *dump = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
  mcp_result_add_textf(r, "headers matched: %s", dump ? dump : "{}");
  free(dump);
  return MCP_OK;
}

static mcp_status prompt_irr(mcp_call_t *call, json_t *args,
                             mcp_prompt_result_t *out, void *ud) {
  (void)args, (void)ud;
  char *context;
  mcp_status st =
      ask_string(call, "user_context", "What context should the prompt use?",
                 "context", &context);
  if (st == MCP_OK) {
    char text[512];
    snprintf(text, sizeof text, "Answer using this context: %s", context);
    if (mcp_prompt_add_text(out, MCP_ROLE_USER, text) == NULL)
      st = MCP_ERR_NOMEM;
  }
  free(context);
  return st;
}

/* Changes the tool list (adds or removes test_dynamic_tool), which sends
 * notifications/tools/list_changed to the listen streams that asked. */
static mcp_status dynamic_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "dynamic");
  return MCP_OK;
}

static mcp_status trigger_tool_change(mcp_call_t *call, json_t *args,
                                      mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  mcp_server_t *s = mcp_call_server(call);
  if (mcp_server_remove_tool(s, "test_dynamic_tool") == MCP_OK) {
    mcp_result_add_text(r, "removed test_dynamic_tool");
    return MCP_OK;
  }
  mcp_tool_t *t = NULL;
  mcp_status st = mcp_tool_new("test_dynamic_tool", &t);
  if (st == MCP_OK)
    st = mcp_tool_set_description(t, "Comes and goes with each trigger");
  if (st == MCP_OK)
    st = mcp_tool_set_handler(t, dynamic_tool, NULL, NULL);
  if (st != MCP_OK) {
    mcp_tool_free(t);
    return st;
  }
  st = mcp_server_add_tool(s, t, NULL);
  if (st == MCP_OK)
    mcp_result_add_text(r, "added test_dynamic_tool");
  return st;
}

static mcp_status dynamic_prompt(mcp_call_t *call, json_t *args,
                                 mcp_prompt_result_t *out, void *ud) {
  (void)call, (void)args, (void)ud;
  return mcp_prompt_add_text(out, MCP_ROLE_USER, "dynamic") ? MCP_OK
                                                            : MCP_ERR_NOMEM;
}

/* The same for the prompt list (test_dynamic_prompt). */
static mcp_status trigger_prompt_change(mcp_call_t *call, json_t *args,
                                        mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  mcp_server_t *s = mcp_call_server(call);
  if (mcp_server_remove_prompt(s, "test_dynamic_prompt") == MCP_OK) {
    mcp_result_add_text(r, "removed test_dynamic_prompt");
    return MCP_OK;
  }
  mcp_prompt_t *p = NULL;
  mcp_status st = mcp_prompt_new("test_dynamic_prompt", &p);
  if (st == MCP_OK)
    st = mcp_prompt_set_description(p, "Comes and goes with each trigger");
  if (st == MCP_OK)
    st = mcp_prompt_set_handler(p, dynamic_prompt, NULL, NULL);
  if (st != MCP_OK) {
    mcp_prompt_free(p);
    return st;
  }
  st = mcp_server_add_prompt(s, p);
  if (st == MCP_OK)
    mcp_result_add_text(r, "added test_dynamic_prompt");
  return st;
}

static const conformance_tool fixtures[] = {
    {"test_input_required_result_elicitation",
     "Asks the user's name (multi-round request)", NULL, irr_elicitation},
    {"test_input_required_result_sampling",
     "Asks the client's model a question (multi-round request)", NULL,
     irr_sampling},
    {"test_input_required_result_list_roots",
     "Asks for the client's roots (multi-round request)", NULL, irr_list_roots},
    {"test_input_required_result_request_state",
     "Keeps state across rounds in requestState", NULL, irr_request_state},
    {"test_input_required_result_multiple_inputs",
     "Asks three questions in one round", NULL, irr_multiple},
    {"test_input_required_result_multi_round", "Asks in two rounds", NULL,
     irr_multi_round},
    {"test_input_required_result_tampered_state",
     "Rejects an altered requestState", NULL, irr_elicitation},
    {"test_input_required_result_capabilities",
     "Asks only through capabilities the client declared", NULL,
     irr_capabilities},
    {"test_missing_capability", "Needs the client's sampling capability", NULL,
     missing_capability},
    {"test_streaming_elicitation",
     "Reports progress, then asks the user's name", NULL,
     streaming_elicitation},
    {"test_logging_tool", "Logs one message at info level", NULL, logging_tool},
    {"test_trigger_tool_change",
     "Adds or removes test_dynamic_tool (tools/list_changed)", NULL,
     trigger_tool_change},
    {"test_trigger_prompt_change",
     "Adds or removes test_dynamic_prompt (prompts/list_changed)", NULL,
     trigger_prompt_change},
    {"test_header_params",
     "Arguments mirrored in Mcp-Param-* headers (SEP-2243)",
     "{\"type\":\"object\",\"properties\":{"
     "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
     "\"priority\":{\"type\":\"integer\",\"x-mcp-header\":\"Priority\"},"
     "\"query\":{\"type\":\"string\"}},\"required\":[\"region\"]}",
     header_echo},
};

mcp_status conformance_add_modern(mcp_server_t *s) {
  mcp_status st =
      conformance_add_tools(s, fixtures, sizeof fixtures / sizeof fixtures[0]);
  mcp_prompt_t *p = NULL;
  if (st == MCP_OK)
    st = mcp_prompt_new("test_input_required_result_prompt", &p);
  if (st == MCP_OK)
    st = mcp_prompt_set_description(p, "Asks for context before rendering");
  if (st == MCP_OK)
    st = mcp_prompt_set_handler(p, prompt_irr, NULL, NULL);
  if (st == MCP_OK)
    return mcp_server_add_prompt(s, p);
  mcp_prompt_free(p);
  return st;
}
