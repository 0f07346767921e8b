/* SPDX-License-Identifier: MIT */
/* sampling.c - building sampling/createMessage requests and sending them.
 *
 * Capability rules are enforced before anything is sent: tools and
 * toolChoice need the client's sampling.tools (the client MUST reject them
 * otherwise), includeContext other than "none" needs sampling.context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "mcp/sampling.h"
#include "util/str.h"

struct mcp_sampling {
  int max_tokens;
  json_t *messages; /* array of SamplingMessage */
  char *system_prompt;
  bool has_temperature;
  double temperature;
  json_t *stop;         /* array or NULL */
  json_t *hints;        /* array or NULL */
  double priorities[3]; /* cost, speed, intelligence; < 0 unset */
  mcp_include_context context;
  json_t *metadata, *tools;
  char *tool_choice;
  /* why setters refused their arguments, one per line (NULL: none);
   * mcp_call_sample refuses such a request with them in err */
  char *refusals;
};

/* A setter refusing its argument keeps why in the request, for
 * mcp_call_sample's err: the mistake shows even where the setter's status
 * went unchecked. */
static mcp_status refuse(mcp_sampling_t *s, const char *what,
                         const char *why) {
  return mcp__str_add_line(&s->refusals, "%s: %s", what, why) == MCP_OK
             ? MCP_ERR_INVALID_ARG
             : MCP_ERR_NOMEM;
}

/* A set_ setter that accepted its value takes its refusal back. */
static mcp_status accepted(mcp_sampling_t *s, const char *setter,
                           mcp_status st) {
  if (st == MCP_OK)
    mcp__str_drop_lines(&s->refusals, setter);
  return st;
}

mcp_status mcp_sampling_new(int max_tokens, mcp_sampling_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (max_tokens <= 0)
    return MCP_ERR_INVALID_ARG;
  mcp_sampling_t *s = calloc(1, sizeof *s);
  if (s == NULL || (s->messages = json_array()) == NULL) {
    free(s);
    return MCP_ERR_NOMEM;
  }
  s->max_tokens = max_tokens;
  s->priorities[0] = s->priorities[1] = s->priorities[2] = -1;
  *out = s;
  return MCP_OK;
}

void mcp_sampling_free(mcp_sampling_t *s) {
  if (s == NULL)
    return;
  json_decref(s->messages);
  free(s->system_prompt);
  json_decref(s->stop);
  json_decref(s->hints);
  json_decref(s->metadata);
  json_decref(s->tools);
  free(s->tool_choice);
  free(s->refusals);
  free(s);
}

mcp_status mcp_sampling_add_message(mcp_sampling_t *s, mcp_role role,
                                    json_t *content) {
  if (content == NULL)
    return MCP_ERR_NOMEM;
  if (s == NULL || (role != MCP_ROLE_USER && role != MCP_ROLE_ASSISTANT) ||
      !(json_is_object(content) || json_is_array(content))) {
    json_decref(content);
    return s == NULL ? MCP_ERR_INVALID_ARG
                     : refuse(s, "mcp_sampling_add_message",
                              role != MCP_ROLE_USER &&
                                      role != MCP_ROLE_ASSISTANT
                                  ? "the role is not a mcp_role"
                                  : "content must be an object or an array");
  }
  json_t *m = json_pack("{s:s,s:o}", "role",
                        role == MCP_ROLE_USER ? "user" : "assistant", "content",
                        content);
  return m && json_array_append_new(s->messages, m) == 0 ? MCP_OK
                                                         : MCP_ERR_NOMEM;
}

mcp_status mcp_sampling_add_text(mcp_sampling_t *s, mcp_role role,
                                 const char *text) {
  if (text == NULL)
    return s ? refuse(s, "mcp_sampling_add_text", "the text is NULL")
             : MCP_ERR_INVALID_ARG;
  return mcp_sampling_add_message(
      s, role, json_pack("{s:s,s:s}", "type", "text", "text", text));
}

mcp_status mcp_sampling_set_system_prompt(mcp_sampling_t *s, const char *p) {
  return s ? mcp__str_replace(&s->system_prompt, p) : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_sampling_set_temperature(mcp_sampling_t *s, double t) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (!(t >= 0))
    return refuse(s, "mcp_sampling_set_temperature", "must be 0 or more");
  s->has_temperature = true;
  s->temperature = t;
  return accepted(s, "mcp_sampling_set_temperature", MCP_OK);
}

static mcp_status push_string(json_t **arr, const char *v) {
  if (v == NULL)
    return MCP_ERR_INVALID_ARG;
  if (*arr == NULL && (*arr = json_array()) == NULL)
    return MCP_ERR_NOMEM;
  return json_array_append_new(*arr, json_string(v)) == 0 ? MCP_OK
                                                          : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_sampling_add_stop_sequence(mcp_sampling_t *s, const char *v) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  return v ? push_string(&s->stop, v)
           : refuse(s, "mcp_sampling_add_stop_sequence", "the text is NULL");
}

mcp_status mcp_sampling_set_include_context(mcp_sampling_t *s,
                                            mcp_include_context ctx) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if ((unsigned)ctx > MCP_CONTEXT_ALL_SERVERS)
    return refuse(s, "mcp_sampling_set_include_context",
                  "not a mcp_include_context");
  s->context = ctx;
  return accepted(s, "mcp_sampling_set_include_context", MCP_OK);
}

mcp_status mcp_sampling_add_model_hint(mcp_sampling_t *s, const char *name) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  return name ? push_string(&s->hints, name)
              : refuse(s, "mcp_sampling_add_model_hint", "the name is NULL");
}

mcp_status mcp_sampling_set_priorities(mcp_sampling_t *s, double cost,
                                       double speed, double intelligence) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (cost > 1 || speed > 1 || intelligence > 1)
    return refuse(s, "mcp_sampling_set_priorities",
                  "each priority must be at most 1 (negative: unset)");
  s->priorities[0] = cost;
  s->priorities[1] = speed;
  s->priorities[2] = intelligence;
  return accepted(s, "mcp_sampling_set_priorities", MCP_OK);
}

mcp_status mcp_sampling_set_metadata(mcp_sampling_t *s, json_t *metadata) {
  if (s == NULL || !json_is_object(metadata)) {
    json_decref(metadata);
    return s ? refuse(s, "mcp_sampling_set_metadata", "must be an object")
             : MCP_ERR_INVALID_ARG;
  }
  json_decref(s->metadata);
  s->metadata = metadata;
  return accepted(s, "mcp_sampling_set_metadata", MCP_OK);
}

mcp_status mcp_sampling_set_tools(mcp_sampling_t *s, json_t *tools) {
  if (s == NULL || !json_is_array(tools)) {
    json_decref(tools);
    return s ? refuse(s, "mcp_sampling_set_tools", "must be an array")
             : MCP_ERR_INVALID_ARG;
  }
  json_decref(s->tools);
  s->tools = tools;
  return accepted(s, "mcp_sampling_set_tools", MCP_OK);
}

mcp_status mcp_sampling_set_tool_choice(mcp_sampling_t *s, const char *mode) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (mode == NULL || (strcmp(mode, "auto") && strcmp(mode, "required") &&
                       strcmp(mode, "none")))
    return refuse(s, "mcp_sampling_set_tool_choice",
                  "\"auto\", \"required\" or \"none\"");
  return accepted(s, "mcp_sampling_set_tool_choice",
                  mcp__str_replace(&s->tool_choice, mode));
}

json_t *mcp_sampling_to_json(const mcp_sampling_t *s) {
  if (s == NULL)
    return NULL;
  json_t *p = json_pack("{s:O,s:i}", "messages", s->messages, "maxTokens",
                        s->max_tokens);
  if (p == NULL)
    return NULL;
  if (s->system_prompt)
    json_object_set_new(p, "systemPrompt", json_string(s->system_prompt));
  if (s->has_temperature)
    json_object_set_new(p, "temperature", json_real(s->temperature));
  if (s->stop)
    json_object_set(p, "stopSequences", s->stop);
  static const char *const contexts[] = {NULL, "none", "thisServer",
                                         "allServers"};
  if (s->context != MCP_CONTEXT_UNSET)
    json_object_set_new(p, "includeContext", json_string(contexts[s->context]));
  static const char *const prio_names[] = {"costPriority", "speedPriority",
                                           "intelligencePriority"};
  json_t *prefs = json_object();
  if (s->hints) {
    json_t *hints = json_array();
    size_t i;
    json_t *h;
    json_array_foreach(s->hints, i, h)
        json_array_append_new(hints, json_pack("{s:O}", "name", h));
    json_object_set_new(prefs, "hints", hints);
  }
  for (int i = 0; i < 3; i++)
    if (s->priorities[i] >= 0)
      json_object_set_new(prefs, prio_names[i], json_real(s->priorities[i]));
  if (json_object_size(prefs))
    json_object_set_new(p, "modelPreferences", prefs);
  else
    json_decref(prefs);
  if (s->metadata)
    json_object_set(p, "metadata", s->metadata);
  if (s->tools)
    json_object_set(p, "tools", s->tools);
  if (s->tool_choice)
    json_object_set_new(p, "toolChoice",
                        json_pack("{s:s}", "mode", s->tool_choice));
  return p;
}

static bool sampling_has(const mcp_call_t *call, const char *sub) {
  json_t *caps = mcp_call_client_capabilities(call);
  return json_object_get(json_object_get(caps, "sampling"), sub) != NULL;
}

mcp_status mcp_call_sample(mcp_call_t *call, const mcp_sampling_t *req,
                           int timeout_ms, json_t **result, mcp_error_t *err) {
  if (result)
    *result = NULL;
  if (req != NULL && req->refusals != NULL) {
    char list[512];
    mcp__str_one_line(req->refusals, list, sizeof list);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "request refused: %s",
                         list);
  }
  if (call == NULL || req == NULL || result == NULL ||
      json_array_size(req->messages) == 0)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "a request with at least one message is required");
  if (!mcp_call_client_has(call, "sampling"))
    return mcp_error_set(err,
                         mcp__call_missing_capability(call, "sampling", NULL),
                         "the client did not declare the 'sampling' "
                         "capability");
  if ((req->tools || req->tool_choice) && !sampling_has(call, "tools"))
    return mcp_error_set(
        err, mcp__call_missing_capability(call, "sampling", "tools"),
        "the client did not declare sampling.tools");
  if ((req->context == MCP_CONTEXT_THIS_SERVER ||
       req->context == MCP_CONTEXT_ALL_SERVERS) &&
      !sampling_has(call, "context"))
    return mcp_error_set(
        err, mcp__call_missing_capability(call, "sampling", "context"),
        "the client did not declare sampling.context");
  json_t *params = mcp_sampling_to_json(req);
  if (params == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  json_t *res = NULL;
  mcp_status st = mcp_call_request(call, "sampling/createMessage", params,
                                   timeout_ms, &res, err);
  if (st != MCP_OK)
    return st;
  json_t *content = json_object_get(res, "content");
  if (!json_is_string(json_object_get(res, "role")) ||
      !json_is_string(json_object_get(res, "model")) ||
      !(json_is_object(content) || json_is_array(content))) {
    json_decref(res);
    return mcp_error_set(err, MCP_ERR_PEER,
                         "the client's CreateMessageResult is malformed");
  }
  *result = res;
  return MCP_OK;
}

const char *mcp_sampling_result_text(const json_t *result) {
  json_t *content = json_object_get(result, "content");
  if (json_is_object(content))
    return json_string_value(json_object_get(content, "text"));
  size_t i;
  json_t *b;
  json_array_foreach(content, i, b) {
    const char *type = json_string_value(json_object_get(b, "type"));
    if (type && strcmp(type, "text") == 0)
      return json_string_value(json_object_get(b, "text"));
  }
  return NULL;
}
