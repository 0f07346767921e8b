/* SPDX-License-Identifier: MIT */
/* input_required.c - multi-round requests of 2026-07-28 (SEP-2322).
 *
 * One handler serves both eras. In a 2025-11-25 session mcp_call_request
 * sends a real server-to-client request and waits. In 2026-07-28 the server
 * may not send requests, so the handler is re-run: its Nth question of a
 * run gets the key "qN"; a question whose answer the client already gave
 * (inputResponses of this retry, or of an earlier round kept in the sealed
 * requestState) is answered at once; one without an answer is recorded and
 * MCP_ERR_INPUT_REQUIRED is returned, which the handler passes up. The
 * response is then {resultType: "input_required", inputRequests,
 * requestState} and the client retries with the answers. Only answers to
 * the questions the requestState names as open are used (issue #25 N7:
 * answers without a requestState are refused, -32602, and answers to keys
 * it does not name are ignored, so a question is never skipped by
 * answering it before it was asked). Keys are stable
 * because the handler asks the same questions in the same order given the
 * same answers; whatever it must remember besides lives in its round state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/call_internal.h"
#include "core/request_state.h"
#include "util/buf.h"

/* Methods whose handlers may ask (DELTA 4). */
static bool may_ask(const char *method) {
  return strcmp(method, "tools/call") == 0 ||
         strcmp(method, "prompts/get") == 0 ||
         strcmp(method, "resources/read") == 0;
}

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static mcp__state_binding binding_of(const mcp_call_t *call) {
  const char *method = call->msg.method;
  bool resource = strcmp(method, "resources/read") == 0;
  json_t *target = mcp__call_param(call, resource ? "uri" : "name");
  return (mcp__state_binding){
      method, json_is_string(target) ? json_string_value(target) : "",
      resource ? NULL : mcp__call_param(call, "arguments"), call->peer.subject,
      wall_ms()};
}

/* Whether params (a tape) has inputResponses or requestState: one walk
 * over its members for both, instead of a lookup each, since most requests
 * have neither. */
static bool has_input_members(const mcp__tnode *params) {
  if (params->type != MCP__J_OBJECT)
    return false;
  for (const mcp__tnode *k = params + 1, *end = params + params->skip;
       k != end; k += 1 + k[1].skip)
    if (!k->dead && ((k->n == 14 && memcmp(k->v.s, "inputResponses", 14) == 0) ||
                     (k->n == 12 && memcmp(k->v.s, "requestState", 12) == 0)))
      return true;
  return false;
}

mcp_status mcp__input_open(mcp_call_t *call, const char **why) {
  if (!may_ask(call->msg.method))
    return MCP_OK;
  const mcp__tnode *tape =
      mcp__call_params_built(call) ? NULL : mcp__call_params_tape(call);
  if (tape != NULL && !has_input_members(tape))
    return MCP_OK; /* no answers, no state: nothing to open */
  json_t *responses = mcp__call_param(call, "inputResponses");
  json_t *token = mcp__call_param(call, "requestState");
  if (responses && !json_is_object(responses)) {
    *why = "Invalid params: inputResponses must be an object";
    return MCP_ERR_INVALID_PARAMS;
  }
  if (token && !json_is_string(token)) {
    *why = "Invalid params: requestState must be a string";
    return MCP_ERR_INVALID_PARAMS;
  }
  if (responses && json_object_size(responses) && token == NULL) {
    *why = "Invalid params: inputResponses must come with the requestState "
           "of the input_required result they answer";
    return MCP_ERR_INVALID_PARAMS;
  }
  json_t *answers = NULL, *open = NULL;
  if (token) {
    mcp__state_binding b = binding_of(call);
    mcp_server_t *s = call->server;
    pthread_mutex_lock(&s->lock);
    mcp__state_key key = s->state_key;
    pthread_mutex_unlock(&s->lock);
    mcp_status st = mcp__state_open(&key, &b, json_string_value(token),
                                    &answers, &call->round_state, &open, why);
    memset(&key, 0, sizeof key);
    if (st != MCP_OK) {
      if (st == MCP_ERR_INVALID)
        st = MCP_ERR_INVALID_PARAMS;
      return st;
    }
  }
  if (responses && json_object_size(responses) && json_array_size(open)) {
    if (answers == NULL && (answers = json_object()) == NULL) {
      json_decref(open);
      return MCP_ERR_NOMEM;
    }
    /* Only objects answering an open question are answers; anything else
     * is ignored like an extra key, so the question is asked (again) when
     * the handler gets to it. */
    size_t i;
    json_t *key;
    json_array_foreach(open, i, key) {
      json_t *v = json_is_string(key)
                      ? json_object_get(responses, json_string_value(key))
                      : NULL;
      if (json_is_object(v))
        json_object_set(answers, json_string_value(key), v);
    }
  }
  json_decref(open);
  call->answers = answers;
  return MCP_OK;
}

mcp_status mcp__input_request(mcp_call_t *call, const char *method,
                              json_t *params, json_t **result,
                              mcp_error_t *err) {
  if (!may_ask(call->msg.method)) {
    json_decref(params);
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "%s cannot ask the client for input in 2026-07-28 "
                         "(only tools/call, prompts/get and resources/read)",
                         call->msg.method);
  }
  char key[sizeof call->next_key];
  if (call->next_key[0])
    memcpy(key, call->next_key, sizeof key);
  else
    snprintf(key, sizeof key, "q%u", call->questions);
  call->questions++;
  call->next_key[0] = '\0';
  json_t *answer = json_object_get(call->answers, key);
  if (answer) {
    json_decref(params);
    *result = json_incref(answer);
    return MCP_OK;
  }
  /* roots/list has no parameters, but the request shape wants the member */
  json_t *request = json_pack("{s:s,s:o}", "method", method, "params",
                              params ? json_incref(params) : json_object());
  json_decref(params);
  if (request && call->asked == NULL)
    call->asked = json_object();
  if (request == NULL || call->asked == NULL ||
      json_object_set_new(call->asked, key, request) != 0)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  return mcp_error_set(err, MCP_ERR_INPUT_REQUIRED,
                       "the client must answer %s first (2026-07-28: return "
                       "this status from the handler)",
                       method);
}

bool mcp__input_required_result(mcp_call_t *call, mcp__buf *out) {
  mcp_server_t *s = call->server;
  pthread_mutex_lock(&s->lock);
  mcp__state_key key = s->state_key;
  int64_t ttl = s->state_ttl_ms;
  pthread_mutex_unlock(&s->lock);
  mcp__state_binding b = binding_of(call);
  /* Earlier answers travel on: the retry carries only the new ones. */
  char *token =
      mcp__state_seal(&key, &b, ttl, call->answers, call->round_state,
                      call->asked);
  memset(&key, 0, sizeof key);
  json_t *res =
      token ? json_pack("{s:s,s:O,s:s}", "resultType", "input_required",
                        "inputRequests", call->asked, "requestState", token)
            : NULL;
  free(token);
  bool ok = res && mcp__jsonrpc_encode_result(out, call->msg.id, res);
  json_decref(res);
  return ok;
}

mcp_status mcp_call_set_question_key(mcp_call_t *call, const char *key) {
  if (call == NULL || key == NULL || *key == '\0' ||
      strlen(key) >= sizeof call->next_key)
    return MCP_ERR_INVALID_ARG;
  memcpy(call->next_key, key, strlen(key) + 1);
  return MCP_OK;
}

mcp_status mcp_call_set_round_state(mcp_call_t *call, json_t *state) {
  if (call == NULL || state == NULL) {
    json_decref(state);
    return MCP_ERR_INVALID_ARG;
  }
  json_decref(call->round_state);
  call->round_state = state;
  return MCP_OK;
}

json_t *mcp_call_round_state(const mcp_call_t *call) {
  return call ? call->round_state : NULL;
}

mcp_status mcp_server_set_request_state_key(mcp_server_t *s, const void *key,
                                            size_t len) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (key == NULL || len < MCP__STATE_KEY_MIN || len > MCP__STATE_KEY_MAX)
    return mcp__refuse(s,
                       "mcp_server_set_request_state_key: %s%zu bytes; %d to "
                       "%d",
                       key == NULL ? "NULL key, " : "", len,
                       MCP__STATE_KEY_MIN, MCP__STATE_KEY_MAX);
  pthread_mutex_lock(&s->lock);
  memcpy(s->state_key.bytes, key, len);
  s->state_key.len = len;
  pthread_mutex_unlock(&s->lock);
  return MCP_OK;
}

mcp_status mcp_server_set_request_state_ttl_ms(mcp_server_t *s,
                                               int64_t ttl_ms) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (ttl_ms <= 0)
    return mcp__refuse(s,
                       "mcp_server_set_request_state_ttl_ms: %lld; more than "
                       "0",
                       (long long)ttl_ms);
  pthread_mutex_lock(&s->lock);
  s->state_ttl_ms = ttl_ms;
  pthread_mutex_unlock(&s->lock);
  return MCP_OK;
}
