/* SPDX-License-Identifier: MIT */
/* elicit.h - asking the user something through the client
 * (elicitation/create), in form mode or URL mode, and the
 * URLElicitationRequiredError (-32042).
 *
 * Form mode sends a message and a requestedSchema: a flat object whose
 * properties are primitives from the spec's restricted subset - string
 * (title, description, minLength, maxLength, format email|uri|date|date-time,
 * default), number or integer (minimum, maximum, default), boolean
 * (default), and the enum variants of SEP-1330: untitled single-select
 * {type:string, enum}, titled single-select {type:string, oneOf:[{const,
 * title}]}, legacy {type:string, enum, enumNames}, untitled multi-select
 * {type:array, items:{type:string, enum}, minItems?, maxItems?} and titled
 * multi-select {type:array, items:{anyOf:[{const, title}]}}; defaults
 * (SEP-1034) on all of them. mcp_call_elicit checks the schema before
 * sending anything, and checks an accepted answer against it.
 *
 * URL mode sends a URL the user should open (for anything sensitive:
 * credentials, payments); only when the client declared elicitation.url.
 * Its completion is announced with mcp_server_notify_elicitation_complete,
 * which reaches only the client the elicitation was sent to.
 *
 * Never ask for passwords, API keys or other secrets in form mode.
 * Thread safety: the mcp_call_* functions are called from the handler.
 */
#ifndef MCP_ELICIT_H
#define MCP_ELICIT_H

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ElicitResult.action */
typedef enum mcp_elicit_action {
  MCP_ELICIT_ACCEPT = 0,
  MCP_ELICIT_DECLINE,
  MCP_ELICIT_CANCEL
} mcp_elicit_action;

/* "accept", "decline", "cancel"; NULL when out of range. */
MCP_API const char *mcp_elicit_action_name(mcp_elicit_action action);

/* MCP_OK when schema (borrowed) is a valid requestedSchema; else
 * MCP_ERR_SCHEMA with err naming the offending property. */
MCP_API mcp_status mcp_elicit_schema_check(const json_t *schema,
                                           mcp_error_t *err);

/* Form mode. message is copied; requested_schema: steals, even on failure.
 * timeout_ms <= 0 uses the server default. On MCP_OK *action is set and,
 * for accept, *content (may be NULL to ignore) is a new reference to the
 * submitted object ({} when the client sent none), already checked against
 * the schema; else *content is NULL.
 * Errors: MCP_ERR_SCHEMA (bad schema, nothing sent), MCP_ERR_CAPABILITY (the
 * client did not declare form elicitation), MCP_ERR_PEER (a JSON-RPC error or
 * a malformed result from the client), MCP_ERR_INVALID (accepted content
 * does not match the schema), MCP_ERR_TIMEOUT (no answer in time; the
 * client is sent notifications/cancelled), MCP_ERR_CANCELLED,
 * MCP_ERR_UNSUPPORTED (stateless request). */
MCP_API mcp_status mcp_call_elicit(mcp_call_t *call, const char *message,
                                   json_t *requested_schema, int timeout_ms,
                                   mcp_elicit_action *action, json_t **content,
                                   mcp_error_t *err);

/* URL mode: asks the user to open url (an absolute http(s) URL) and waits
 * for consent. elicitation_id must be unique within the server; both are
 * copied. accept means consent to open the URL, not completion of the flow.
 * MCP_ERR_CAPABILITY unless the client declared elicitation.url. */
MCP_API mcp_status mcp_call_elicit_url(mcp_call_t *call, const char *message,
                                       const char *url,
                                       const char *elicitation_id,
                                       int timeout_ms,
                                       mcp_elicit_action *action,
                                       mcp_error_t *err);

/* 2026-07-28 knows no -32042: there the URL is sent as a question of a
 * multi-round request (call.h): MCP_ERR_INPUT_REQUIRED until the client
 * answered, then MCP_OK (check again whether the flow completed).
 * 2025-11-25: makes the call fail with URLElicitationRequiredError (-32042)
 * whose data.elicitations holds one URL-mode elicitation {mode:"url",
 * elicitationId, url, message}. Return its result from the handler:
 *   return mcp_call_url_elicitation_required(call, "Sign in", url, id);
 * Returns MCP_ERR_CAPABILITY (and sets nothing) when the client did not
 * declare elicitation.url; otherwise a failure status that makes the server
 * send the error. */
MCP_API mcp_status
mcp_call_url_elicitation_required(mcp_call_t *call, const char *message,
                                  const char *url, const char *elicitation_id);

/* Sends notifications/elicitation/complete {elicitationId} to the session
 * that was sent that URL elicitation (by mcp_call_elicit_url or
 * mcp_call_url_elicitation_required), and forgets the id.
 * MCP_ERR_NOT_FOUND when no live session was sent it. Safe from any
 * thread. */
MCP_API mcp_status mcp_server_notify_elicitation_complete(
    mcp_server_t *s, const char *elicitation_id);

#ifdef __cplusplus
}
#endif
#endif
