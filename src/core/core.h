/* SPDX-License-Identifier: MIT */
/* core.h - the call and session core: the structures of a server, its
 * sessions and calls, and what feature modules (tools, resources, prompts,
 * completion, tasks, outbound) use to answer, fail, notify, log, list and ask
 * the client. Features include this header; the dispatcher (src/server)
 * sits above them and registers nothing itself: each feature registers
 * its own method rows (mcp__server_add_methods). Transports include
 * server/dispatch.h only.
 *
 * Locking: server->lock guards the session list and configuration read at
 * request time; the tool catalog has its own rwlock (catalog/catalog.h); each
 * session has its own mutex for its state, in-flight calls and pending
 * outbound requests. Lock order: server->lock before session->lock; never
 * call a channel's send while holding a session lock.
 */
#ifndef MCP_CORE_CORE_H
#define MCP_CORE_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "core/cache_hint.h"
#include "core/channel.h"
#include "core/listen.h"
#include "core/methods.h"
#include "core/request_state.h"
#include "jsonrpc/jsonrpc.h"
#include "mcp/relay.h"
#include "mcp/roots.h"
#include "mcp/server.h"

#define MCP__MAX_VERSION_LEN 16
#define MCP__INLINE_SLOTS    256 /* tools tracked for running inline */

struct mcp_server {
  char *name, *version, *title, *description, *website_url, *instructions;
  json_t *icons; /* array or NULL */
  size_t page_size;
  size_t max_message_bytes;
  size_t max_json_depth;
  unsigned worker_threads;
  int request_timeout_ms;
  bool tools_list_changed;
  /* "format" asserts in the schemas of tools added from now on
   * (mcp_server_set_format_assertion; a tool's own setting wins) */
  bool assert_formats;
  /* A transport started serving (mcp__server_start_serving): tasks are
   * enabled before serving or not at all, so from now on a tool that needs
   * them is refused when added. */
  atomic_bool serving;

  mcp_log_fn log_fn;
  void *log_user_data;
  mcp_log_level log_min;
  bool log_params; /* request log lines carry params (request_log.h) */
  /* OpenTelemetry traces (request_span.h): the exporter, NULL when off,
   * and the sampler (mcp__sampler) with its ratio */
  struct mcp__otlp *otlp;
  struct mcp__metrics *metrics; /* OpenTelemetry metrics, NULL when off */
  int trace_sampler;
  double trace_ratio;
  /* the OTLP encodings (mcp__otlp_protocol) of the trace and metric
   * exporters: 0, http/protobuf, unless the API or environment said */
  int otlp_traces_protocol, otlp_metrics_protocol;
  /* mcp_server_set_stdout_guard(false): serve stdio on fd 1 itself */
  bool stdout_unguarded;

  mcp__catalog tools; /* of mcp_tool_t (entry first) */
  /* resources, resource templates, prompts (src/resources, src/prompts) */
  mcp__catalog resources, templates, prompts;
  bool resources_subscribe, resources_list_changed, prompts_list_changed;
  mcp__cache_hint cache_hints[MCP__CACHE_TARGETS]; /* under lock */
  mcp_roots_changed_fn roots_changed_fn;           /* roots.h; may be NULL */
  void *roots_changed_user_data;

  pthread_mutex_t lock;
  mcp_session_t *sessions; /* doubly linked via next/prev */

  struct mcp__task_runner *tasks;    /* NULL unless tasks are enabled */
  const mcp__task_hooks *task_hooks; /* installed with tasks (methods.h) */
  /* the store tasks run on (borrowed; set with tasks): the transport
   * shares DPoP replay keys through it when it is PostgreSQL */
  struct mcp_store *task_store;
  /* the task store mcp_server_run opened (--store): freed by
   * mcp_server_free once the task runner is down */
  struct mcp_store *run_store;
  /* Delivers a resource update here (installed by src/resources). */
  mcp_status (*resource_updated_local)(mcp_server_t *s, const char *uri);

  /* Per tool-name hash: recent fast runs, negative after a slow one, and
   * consecutive slow runs on a network thread (inline_runs.c). */
  atomic_int inline_streak[MCP__INLINE_SLOTS];
  atomic_int inline_strikes[MCP__INLINE_SLOTS];

  mcp__method_table method_tables[MCP__METHOD_TABLES]; /* methods.h */
  size_t method_tables_count;
  mcp__method_slot method_slots[MCP__METHOD_SLOTS];
  mcp__extension_fn extensions[MCP__EXTENSIONS]; /* methods.h (discover) */
  size_t extensions_count;
  struct mcp__skills *skills; /* src/skills; NULL until a skill is added */

  mcp__listen_registry listen; /* subscriptions/listen streams (listen.h) */

  mcp__state_key state_key; /* seals requestState (under lock) */
  int64_t state_ttl_ms;

  mcp_relay relay; /* fan-out to other replicas (relay.c); ops may be NULL */
};

typedef enum mcp__session_state {
  MCP__SESSION_NEW = 0,     /* no initialize yet */
  MCP__SESSION_INITIALIZED, /* initialize answered */
  MCP__SESSION_READY,       /* notifications/initialized received */
  MCP__SESSION_CLOSED
} mcp__session_state;

/* ---- server_state.c: what every feature reports through ----------------- */
/* Sends msg to the notify stream of every session for which wants(session,
 * ud) is true (called under the server lock; it may take session locks).
 * MCP_ERR_NOMEM when not every wanted session could be collected; those
 * that were still get the message. */
mcp_status mcp__notify_sessions(mcp_server_t *s,
                                bool (*wants)(mcp_session_t *, void *),
                                void *ud, const mcp__buf *msg);
/* relay.c: the local halves of mcp_server_broadcast and
 * mcp_server_notify_resource_updated (what a relay delivers), and the
 * publishing of what happened here to the other replicas. */
mcp_status mcp__server_broadcast_local(mcp_server_t *s, const char *method,
                                       json_t *params);
/* (the resources module defines it and installs it as
 * server->resource_updated_local, so the relay in core reaches it without
 * naming the module) */
mcp_status mcp__server_resource_updated_local(mcp_server_t *s, const char *uri);
/* Whether a relay is set (read under the server lock: it is closed while
 * task threads still publish). */
bool mcp__relay_active(mcp_server_t *s);
void mcp__relay_publish_broadcast(mcp_server_t *s, const char *method,
                                  const json_t *params);
void mcp__relay_publish_resource_updated(mcp_server_t *s, const char *uri);
/* Publishes event (steals; NULL ignored) when s has a relay. */
void mcp__relay_publish_event(mcp_server_t *s, json_t *event);
void mcp__relay_close(mcp_server_t *s);
/* relay_answers.c: server-to-client requests of shared 2025-11-25
 * sessions answered through another replica (relay ops version 2). The
 * call waiting for request id of se starts (waiting) or stops waiting. */
void mcp__relay_await(mcp_session_t *se, int64_t id, bool waiting);
/* A response no call of this process waits for: handed to the replica that
 * waits (MCP_OK), or MCP_ERR_NOT_FOUND (nobody waits: ignore it),
 * MCP_ERR_CLOSED (the replica that asked is gone), MCP_ERR_UNSUPPORTED (no
 * relay that routes answers, or a session of this process alone). */
mcp_status mcp__relay_forward_answer(mcp_server_t *s, mcp_session_t *se,
                                     const mcp__message *msg);
/* The relay's {"kind":"answer"} event: the answer to the waiting call. */
mcp_status mcp__relay_deliver_answer(mcp_server_t *s, const json_t *event);
bool mcp__icon_append(json_t **icons, const char *src, const char *mime_type,
                      const char *sizes, const char *theme);
/* Why mcp__icon_append would refuse src and theme (a static sentence for
 * the setters to report), or NULL when they are acceptable. */
const char *mcp__icon_problem(const char *src, const char *theme);

/* ---- session.c ----------------------------------------------------------- */
void mcp__session_retain(mcp_session_t *s);
/* Sends msg to the session's standalone stream (if any). */
void mcp__session_notify(mcp_session_t *s, const char *msg, size_t len);
/* Like mcp__session_notify with MCP__SEND_LIVE added to flags: MCP_OK only
 * when the message reached a connected stream. */
mcp_status mcp__session_notify_live(mcp_session_t *s, const char *msg,
                                    size_t len, unsigned flags);
void mcp__session_add_inflight(mcp_session_t *s, mcp_call_t *call);
void mcp__session_remove_inflight(mcp_session_t *s, mcp_call_t *call);
/* notifications/cancelled: raise the flag of the matching in-flight call. */
void mcp__session_cancel(mcp_session_t *s, const json_t *request_id);
/* A client response: wake the waiting outbound request, which takes
 * msg->root over (msg->root is NULL then). false when no request of this
 * process waits for it. */
bool mcp__session_deliver_response(mcp_session_t *s, mcp__message *msg);
bool mcp__session_is_ready(mcp_session_t *s);
bool mcp__session_is_closed(mcp_session_t *s);
/* The transport's id of a session (HTTP: Mcp-Session-Id): whether it is id;
 * a malloc'd copy (NULL: none); the listed session with that id (retained,
 * or NULL). */
bool mcp__session_id_is(mcp_session_t *s, const char *id);
char *mcp__session_id_copy(mcp_session_t *s);
mcp_session_t *mcp__server_session_by_id(mcp_server_t *srv, const char *id);
/* initialize: records the negotiated version, the client's capabilities
 * (caps is stolen, even on failure) and info (borrowed; may be NULL).
 * false when the session was initialized already. */
bool mcp__session_initialize(mcp_session_t *s, const char *version,
                             json_t *caps, json_t *info);
/* notifications/initialized. */
void mcp__session_mark_ready(mcp_session_t *s);
/* logging/setLevel. */
void mcp__session_set_log_level(mcp_session_t *s, mcp_log_level level);
/* The session's state, version (into version[n]) and client capabilities
 * and info (borrowed: the session keeps them while it lives). A ready
 * session also lists track (may be NULL) in flight, as
 * mcp__session_add_inflight, under the same lock. */
mcp__session_state mcp__session_snapshot(mcp_session_t *s, char *version,
                                         size_t n, json_t **caps, json_t **info,
                                         mcp_call_t *track);
/* Wakes whatever waits on the session (its condition variable): a task's
 * state changed for a waiting tasks/result. */
void mcp__session_wake(mcp_session_t *s);
/* A random key naming this session as the creator of tasks (tasks/list
 * without authentication), made on first use; NULL if the CSPRNG failed. */
const char *mcp__session_owner_key(mcp_session_t *s);
/* True when s is ready and its owner key (never made here) is key: the
 * session, maybe adopted from another replica, that created a task
 * (session_share.c). */
bool mcp__session_has_owner_key(mcp_session_t *s, const char *key);

/* Named sets of strings a session keeps for feature modules. */
typedef enum mcp__session_set {
  MCP__SET_SUBSCRIPTIONS,   /* resources/subscribe URIs (resources) */
  MCP__SET_URL_ELICITATIONS /* elicitation ids sent to the client (outbound) */
} mcp__session_set;
/* Adds (add) or removes key. MCP_ERR_NOMEM when it cannot be added. */
mcp_status mcp__session_set_update(mcp_session_t *s, mcp__session_set set,
                                   const char *key, bool add);
/* True when the session (ready ones only, when ready_only) holds a key for
 * which match(key, ud) is true; with take, that key is removed. */
bool mcp__session_set_match(mcp_session_t *s, mcp__session_set set,
                            bool ready_only,
                            bool (*match)(const char *key, const void *ud),
                            const void *ud, bool take);
/* The first session of s holding key in set, which is removed from it
 * (returns a counted reference, or NULL). */
mcp_session_t *mcp__server_take_session_key(mcp_server_t *s,
                                            mcp__session_set set,
                                            const char *key);

/* ---- call.c -------------------------------------------------------------- */
/* Sends a message related to this call on its stream (progress, logs,
 * server-to-client requests). */
mcp_status mcp__call_send(mcp_call_t *call, const mcp__buf *msg);
/* The JSON-RPC error a failed handler produces. */
void mcp__call_error_for_status(mcp_call_t *call, mcp_status st, int *code,
                                const char **message, json_t **data);
int mcp__rpc_code_for_status(mcp_status st);
/* Sets the call's protocol error and returns the matching status, so a
 * handler can `return mcp__call_fail(call, -32602, "...")`. */
mcp_status mcp__call_fail(mcp_call_t *call, int code, const char *message);

/* Records that the call needs a client capability the request did not
 * declare: name, and member inside it (e.g. "elicitation", "url") or NULL.
 * Returns MCP_ERR_CAPABILITY; in 2026-07-28 the answer is -32021 with
 * data.requiredCapabilities. */
mcp_status mcp__call_missing_capability(mcp_call_t *call, const char *name,
                                        const char *member);

/* ---- the call, from outside core (call_access.c) ------------------------- */
/* mcp_call_t is opaque outside src/core (its layout is in call_internal.h):
 * features and the dispatcher read it through the public accessors of
 * mcp/call.h and the readers below, and change it only through these
 * functions. */

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

/* Readers beyond mcp/call.h. */
/* The session the call belongs to, or NULL (stateless). */
mcp_session_t *mcp__call_session(const mcp_call_t *call);
/* What the transport said about the caller (valid until the handler
 * returns; a task's call keeps only the subject). */
const mcp__peer *mcp__call_peer(const mcp_call_t *call);
/* A result the method encoded itself (see mcp__call_finish). */
mcp__buf *mcp__call_raw_result(mcp_call_t *call);
/* Whether the handler chose a protocol error (mcp_call_set_error). */
bool mcp__call_has_error(const mcp_call_t *call);

/* The request's params. A request decoded by mcp__jsonrpc_decode_server
 * keeps them as a tape until somebody needs them as jansson values:
 * mcp_call_params builds them then (once, thread-safe). These readers do
 * not build them unless they must. */
/* Member name of params (borrowed), or NULL when absent; builds the params
 * only when the member is there. */
json_t *mcp__call_paramn(const mcp_call_t *call, const char *name,
                         size_t name_len);
static inline json_t *mcp__call_param(const mcp_call_t *call,
                                      const char *name) {
  return mcp__call_paramn(call, name, strlen(name)); /* folded for literals */
}

/* The params as a tape (root: an object), or NULL when the request did not
 * come that way (then use mcp_call_params). Valid for the call's life. */
const mcp__tnode *mcp__call_params_tape(const mcp_call_t *call);
/* Member name of params as a string without a NUL byte: true with *s (not
 * NUL-terminated when read from the tape) and *len; false when absent or
 * not such a string. Never builds the params. */
bool mcp__call_param_stringn(const mcp_call_t *call, const char *name,
                             size_t name_len, const char **s, size_t *len);
static inline bool mcp__call_param_string(const mcp_call_t *call,
                                          const char *name, const char **s,
                                          size_t *len) {
  return mcp__call_param_stringn(call, name, strlen(name), s, len);
}
/* params._meta as jansson values (borrowed, valid for the call's life), or
 * NULL when absent: while the params are not built, only _meta is built
 * (once, thread-safe), so a 2026-07-28 request's era facts cost no more
 * than its _meta. */
json_t *mcp__call_meta_object(const mcp_call_t *call);
/* Whether params._meta has member name; builds nothing. */
bool mcp__call_meta_hasn(const mcp_call_t *call, const char *name,
                         size_t name_len);
static inline bool mcp__call_meta_has(const mcp_call_t *call,
                                      const char *name) {
  return mcp__call_meta_hasn(call, name, strlen(name));
}
/* Whether the params exist as jansson values yet (tests, diagnostics). */
bool mcp__call_params_built(const mcp_call_t *call);

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

/* ---- list.c -------------------------------------------------------------- */
/* A paginated list result {field: [...], nextCursor?} of catalog c; list
 * names the cursor's namespace; caching hints of target (cache_hint.h). */
mcp_status mcp__list_catalog(mcp_call_t *call, mcp__catalog *c,
                             const char *list, const char *field,
                             mcp_cache_target target, json_t **result);

#endif
