/* SPDX-License-Identifier: MIT */
/* elicit.c - elicitation/create in form and URL mode, the
 * URLElicitationRequiredError and notifications/elicitation/complete.
 *
 * URL elicitation ids are remembered per session so the completion
 * notification reaches only the client that was sent the elicitation
 * (spec: elicitation, URL mode).
 */
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "core/sessions.h"
#include "mcp/elicit.h"
#include "mcp/schema.h"

static const char *const action_names[] = {"accept", "decline", "cancel"};

const char *mcp_elicit_action_name(mcp_elicit_action a) {
  return (unsigned)a <= MCP_ELICIT_CANCEL ? action_names[a] : NULL;
}

/* Which modes the client declared: elicitation {} alone means form only. */
static bool client_has_mode(const mcp_call_t *call, const char *mode) {
  json_t *e =
      json_object_get(mcp_call_client_capabilities(call), "elicitation");
  if (!json_is_object(e))
    return false;
  if (json_object_get(e, mode))
    return true;
  return strcmp(mode, "form") == 0 && json_object_get(e, "url") == NULL;
}

static mcp_status parse_action(json_t *result, mcp_elicit_action *action,
                               mcp_error_t *err) {
  const char *a = json_string_value(json_object_get(result, "action"));
  for (int i = 0; a && i <= MCP_ELICIT_CANCEL; i++)
    if (strcmp(a, action_names[i]) == 0) {
      *action = (mcp_elicit_action)i;
      return MCP_OK;
    }
  return mcp_error_set(err, MCP_ERR_PEER,
                       "the client's ElicitResult has no valid action");
}

/* Checks accepted content against the requested schema (spec: servers
 * SHOULD validate); compiled per request, as schemas are small. */
static mcp_status check_content(json_t *schema, json_t *content,
                                mcp_error_t *err) {
  mcp_schema_t *compiled = NULL;
  mcp_error_t detail;
  mcp_status st = mcp_schema_compile(schema, NULL, &compiled, &detail);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "requestedSchema: %s", detail.message);
  mcp_validation_t *v = NULL;
  st = mcp_schema_validate(compiled, content, &v);
  if (st == MCP_ERR_INVALID)
    mcp_error_set(
        err, st, "the client's answer does not match the schema: %s: %s",
        mcp_validation_instance_location(v, 0), mcp_validation_message(v, 0));
  mcp_validation_free(v);
  mcp_schema_free(compiled);
  return st;
}

mcp_status mcp_call_elicit(mcp_call_t *call, const char *message,
                           json_t *requested_schema, int timeout_ms,
                           mcp_elicit_action *action, json_t **content,
                           mcp_error_t *err) {
  if (content)
    *content = NULL;
  if (call == NULL || message == NULL || action == NULL) {
    json_decref(requested_schema);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "mcp_call_elicit: the %s is NULL",
                         call == NULL      ? "call"
                         : message == NULL ? "message"
                                           : "action pointer");
  }
  mcp_status st = mcp_elicit_schema_check(requested_schema, err);
  if (st != MCP_OK) {
    json_decref(requested_schema);
    return st;
  }
  if (!client_has_mode(call, "form")) {
    json_decref(requested_schema);
    return mcp_error_set(
        err, mcp__call_missing_capability(call, "elicitation", NULL),
        "the client did not declare form elicitation");
  }
  /* mode is left out: "form" is its default, and clients of earlier
   * protocol versions do not know the member. */
  json_t *params = json_pack("{s:s,s:O}", "message", message, "requestedSchema",
                             requested_schema);
  json_t *result = NULL;
  st = params ? mcp_call_request(call, "elicitation/create", params, timeout_ms,
                                 &result, err)
              : mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  if (st == MCP_OK)
    st = parse_action(result, action, err);
  if (st == MCP_OK && *action == MCP_ELICIT_ACCEPT) {
    json_t *c = json_object_get(result, "content");
    if (c == NULL)
      c = json_object();
    else if (json_is_object(c))
      json_incref(c);
    else
      c = NULL, st = mcp_error_set(err, MCP_ERR_PEER,
                                   "the client's content is not an object");
    if (st == MCP_OK)
      st = c ? check_content(requested_schema, c, err) : MCP_ERR_NOMEM;
    if (st == MCP_OK && content)
      *content = c;
    else
      json_decref(c);
  }
  json_decref(result);
  json_decref(requested_schema);
  return st;
}

static bool url_is_valid(const char *url) {
  if (url == NULL)
    return false;
  bool scheme =
      strncmp(url, "https://", 8) == 0 || strncmp(url, "http://", 7) == 0;
  for (const char *p = url; *p; p++)
    if ((unsigned char)*p <= 0x20 || *p == 0x7f)
      return false;
  return scheme && strlen(url) > 8;
}

/* Remembers that this session was sent the elicitation id. */
static mcp_status remember(mcp_call_t *call, const char *id) {
  mcp_session_t *se = mcp__call_session(call);
  if (se == NULL)
    return MCP_ERR_UNSUPPORTED;
  return mcp__session_set_update(se, MCP__SET_URL_ELICITATIONS, id, true);
}

static mcp_status check_url_args(mcp_call_t *call, const char *message,
                                 const char *url, const char *id,
                                 mcp_error_t *err) {
  if (call == NULL || message == NULL || id == NULL || *id == '\0')
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "URL elicitation: the %s",
                         call == NULL      ? "call is NULL"
                         : message == NULL ? "message is NULL"
                                           : "elicitation id is empty");
  if (!url_is_valid(url))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "url must be an absolute http(s) URL");
  if (!mcp_call_is_stateless(call) && mcp__call_session(call) == NULL)
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "URL elicitation needs a session");
  if (!client_has_mode(call, "url"))
    return mcp_error_set(
        err, mcp__call_missing_capability(call, "elicitation", "url"),
        "the client did not declare elicitation.url");
  return MCP_OK;
}

mcp_status mcp_call_elicit_url(mcp_call_t *call, const char *message,
                               const char *url, const char *elicitation_id,
                               int timeout_ms, mcp_elicit_action *action,
                               mcp_error_t *err) {
  mcp_status st = check_url_args(call, message, url, elicitation_id, err);
  if (st == MCP_OK && action == NULL)
    st = mcp_error_set(err, MCP_ERR_INVALID_ARG,
                       "mcp_call_elicit_url: the action pointer is NULL");
  if (st != MCP_OK)
    return st;
  /* 2026-07-28 has no elicitationId nor completion notification: the
   * handler keeps its correlation in its round state (call.h). */
  if (!mcp_call_is_stateless(call) &&
      (st = remember(call, elicitation_id)) != MCP_OK)
    return mcp_error_set(err, st, "%s", mcp_strerror(st));
  json_t *params =
      mcp_call_is_stateless(call)
          ? json_pack("{s:s,s:s,s:s}", "mode", "url", "message", message, "url",
                      url)
          : json_pack("{s:s,s:s,s:s,s:s}", "mode", "url", "message", message,
                      "elicitationId", elicitation_id, "url", url);
  json_t *result = NULL;
  st = params ? mcp_call_request(call, "elicitation/create", params, timeout_ms,
                                 &result, err)
              : mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  if (st == MCP_OK)
    st = parse_action(result, action, err);
  json_decref(result);
  return st;
}

mcp_status mcp_call_url_elicitation_required(mcp_call_t *call,
                                             const char *message,
                                             const char *url,
                                             const char *elicitation_id) {
  mcp_status st = check_url_args(call, message, url, elicitation_id, NULL);
  if (st != MCP_OK)
    return st;
  if (mcp_call_is_stateless(call)) {
    /* 2026-07-28 has no -32042: the URL goes out as a question of a
     * multi-round request; once the client answered, the handler runs on. */
    mcp_elicit_action action;
    return mcp_call_elicit_url(call, message, url, elicitation_id, 0, &action,
                               NULL);
  }
  if ((st = remember(call, elicitation_id)) != MCP_OK)
    return st;
  json_t *data = json_pack("{s:[{s:s,s:s,s:s,s:s}]}", "elicitations", "mode",
                           "url", "elicitationId", elicitation_id, "url", url,
                           "message", message);
  if (data == NULL)
    return MCP_ERR_NOMEM;
  st = mcp_call_set_error(call, MCP_RPC_URL_ELICITATION_REQUIRED,
                          "This request requires more information.", data);
  /* Any failure status will do: the error chosen above is what is sent. */
  return st == MCP_OK ? MCP_ERR_STATE : st;
}

mcp_status mcp_server_notify_elicitation_complete(mcp_server_t *s,
                                                  const char *elicitation_id) {
  if (s == NULL || elicitation_id == NULL)
    return MCP_ERR_INVALID_ARG;
  json_t *params = json_pack("{s:s}", "elicitationId", elicitation_id);
  mcp__buf msg;
  mcp__buf_init(&msg);
  bool ok = params && mcp__jsonrpc_encode_notification(
                          &msg, "notifications/elicitation/complete", params);
  json_decref(params);
  if (!ok) {
    mcp__buf_free(&msg);
    return MCP_ERR_NOMEM;
  }
  mcp_session_t *target = mcp__server_take_session_key(
      s, MCP__SET_URL_ELICITATIONS, elicitation_id);
  if (target) {
    mcp__session_notify(target, msg.data, msg.len);
    mcp__session_release(target);
  }
  mcp__buf_free(&msg);
  return target ? MCP_OK : MCP_ERR_NOT_FOUND;
}
