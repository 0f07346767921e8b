/* SPDX-License-Identifier: MIT */
/* call_life.h - the life of a call, for whoever owns one besides the core:
 * the dispatcher makes and binds it, a task takes it over, tasks/result
 * suspends it, a 2026-07-28 multi-round request records its questions and
 * answers, and it ends with mcp__call_finish (or mcp__call_complete,
 * mcp__call_release). mcp_call_t is opaque outside src/core (its layout is
 * in core/call_internal.h); a method handler needs core/feature.h only.
 */
#ifndef MCP_CORE_CALL_LIFE_H
#define MCP_CORE_CALL_LIFE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/channel.h"
#include "core/sessions.h"
#include "jsonrpc/jsonrpc.h"
#include "mcp/call.h"
#include "mcp/server.h"
#include "util/buf.h"

/* The dispatcher: a call for request msg (taken over, also on failure:
 * msg is cleared), answered on reply; peer (may be NULL) is copied, its
 * strings lent for the request. MCP_ERR_NOMEM after answering the request
 * with an internal error. */
mcp_status mcp__call_new(mcp_server_t *s, mcp__message *msg, mcp__channel reply,
                         const mcp__peer *peer, mcp_call_t **out);
/* Answers the call's request with a JSON-RPC error on its channel (the
 * call stays the caller's to release). */
void mcp__call_reply_error(mcp_call_t *call, int code, const char *message,
                           const json_t *data);
/* The size of the call's request in bytes, for the request log. */
void mcp__call_set_request_bytes(mcp_call_t *call, size_t bytes);
/* tools/call answered with an isError result (for the request log). */
void mcp__call_note_tool_error(mcp_call_t *call);
/* 2026-07-28: the call is stateless, speaks version, with the client's
 * capabilities and info from its _meta (borrowed from the params). */
void mcp__call_bind_modern(mcp_call_t *call, const char *version, json_t *caps,
                           json_t *info);
/* The same with caps and info (may be NULL) built for the call: stolen. */
void mcp__call_bind_modern_owned(mcp_call_t *call, const char *version,
                                 json_t *caps, json_t *info);
/* The same with caps (an object) and info (an object, or NULL) still on
 * the call's params tape (mcp__call_meta_tape): they become jansson values
 * only when something asks for them (mcp_call_client_capabilities,
 * mcp_call_client_info; mcp_call_client_has reads the tape). Their keys
 * must hold no NUL byte (jansson's keys cannot). */
void mcp__call_bind_modern_tape(mcp_call_t *call, const char *version,
                                const mcp__tnode *caps,
                                const mcp__tnode *info);
/* 2025-11-25: the call belongs to session (a counted reference is taken,
 * unless the call's channel pins the session: see mcp__channel) and speaks
 * its version with its capabilities and info; a ready session lists it in
 * flight at once (mcp__call_track then has nothing to do). Returns the
 * session's state. */
mcp__session_state mcp__call_bind_session(mcp_call_t *call,
                                          mcp_session_t *session);
/* The call outlives its transport exchange (handed to a task, rebound):
 * it takes its own reference on a session its channel pinned. */
void mcp__call_unpin_session(mcp_call_t *call);
/* Lists the call among the in-flight calls of its session, or, for a
 * stateless call that came on a connection with a session (stdio in
 * 2026-07-28), of that one, so notifications/cancelled reaches it. */
void mcp__call_track(mcp_call_t *call, mcp_session_t *connection);

/* Tasks: a handler that sets a handoff takes the call over (mcp__call_run
 * sends the response, ends the transport exchange and calls handoff
 * instead of freeing the call; the new owner frees it with
 * mcp__call_release). task_input is told before (waiting true) and after
 * each server-to-client request. */
void mcp__call_set_task(mcp_call_t *call, const char *task_id,
                        void (*task_input)(mcp_call_t *call, bool waiting),
                        void (*handoff)(mcp_call_t *call, void *ctx),
                        void *ctx);
/* Forgets the task id (task_id NULL) or sets it again. */
void mcp__call_set_task_id(mcp_call_t *call, const char *task_id);
/* Whether a handoff is set and has not run yet. */
bool mcp__call_is_handed_off(const mcp_call_t *call);
/* The ctx of the call's handoff (kept after the handoff ran), or NULL. */
void *mcp__call_handoff_ctx(const mcp_call_t *call);
/* (mcp__call_cancel, channel.h, raises the call's cancellation flag) */
/* Sends msg on the call's channel as is (no cancellation check). */
mcp_status mcp__call_send_raw(mcp_call_t *call, const char *msg, size_t len,
                              unsigned flags);
/* A call taken over: from now on it answers on reply, and of its caller
 * only subject (kept by the new owner) remains; it leaves its session's
 * in-flight list. */
void mcp__call_rebind(mcp_call_t *call, mcp__channel reply,
                      const char *subject);

/* Suspension (tasks/result over HTTP): when the transport allows it, a
 * handler may call mcp__call_suspend and return MCP_OK without a result;
 * mcp__call_run then calls suspend(call, ctx) and returns, and whoever
 * suspend handed the call to finishes it with mcp__call_complete. */
bool mcp__call_can_suspend(const mcp_call_t *call);
void mcp__call_suspend(mcp_call_t *call, void (*suspend)(mcp_call_t *, void *),
                       void *ctx);
/* Takes back mcp__call_suspend before the handler returns. */
void mcp__call_unsuspend(mcp_call_t *call);

/* 2026-07-28 multi-round requests: the questions asked in this run
 * without an answer (an object, or NULL), taken over by the caller with
 * take; reset_round forgets them before the handler runs again from the
 * top; add_answer records an answer (value is copied). */
json_t *mcp__call_asked(const mcp_call_t *call);
json_t *mcp__call_take_asked(mcp_call_t *call);
void mcp__call_reset_round(mcp_call_t *call);
mcp_status mcp__call_add_answer(mcp_call_t *call, const char *key,
                                const json_t *value);

/* ---- input_required.c (2026-07-28 multi-round requests) ------------------ */
/* Opens a retry's requestState and inputResponses into call->answers and
 * call->round_state. Non-OK with *why (a static message) to answer with. */
mcp_status mcp__input_open(mcp_call_t *call, const char **why);
/* The 2026-07-28 side of mcp_call_request: the answer when the client gave
 * it, else the question recorded and MCP_ERR_INPUT_REQUIRED. */
mcp_status mcp__input_request(mcp_call_t *call, const char *method,
                              json_t *params, json_t **result,
                              mcp_error_t *err);
/* Encodes the InputRequiredResult response of call into out. */
bool mcp__input_required_result(mcp_call_t *call, mcp__buf *out);

/* ---- call_finish.c: the end of a call ------------------------------------ */
/* Sends the response for st/result (result is stolen; nothing is sent for
 * a cancelled call), then frees the call and ends the transport exchange,
 * or hands the call over (see mcp_call.handoff). */
void mcp__call_finish(mcp_call_t *call, mcp_status st, json_t *result);
/* Drops the parsed request of a call that lives on (a parked listen
 * stream), keeping only its id and method; params become {} and whatever
 * was borrowed from the request (client capabilities and info, progress
 * token) NULL. false when out of memory (nothing changed). */
bool mcp__call_shed_request(mcp_call_t *call);
/* Frees a call taken over through handoff (its reply channel is already
 * done). */
void mcp__call_release(mcp_call_t *call);
/* Finishes a suspended call (see mcp_call.pending): sends the response for
 * st/result (result is stolen; nothing is sent when the call was
 * cancelled), frees the call and ends the transport exchange. */
void mcp__call_complete(mcp_call_t *call, mcp_status st, json_t *result);

#endif
