/* SPDX-License-Identifier: MIT */
/* call_internal.h - the layout of a call, private to src/core.
 *
 * Features and the dispatcher see mcp_call_t as an opaque handle: they read
 * it through the public accessors (mcp/call.h) and change it through the
 * functions of core/call_life.h. Only src/core
 * includes this header (docs/layers.txt marks it private).
 */
#ifndef MCP_CORE_CALL_INTERNAL_H
#define MCP_CORE_CALL_INTERNAL_H

#include "core/inline_runs.h"
#include "core/server_internal.h"

typedef struct mcp__call_span mcp__call_span; /* request_span.c */

struct mcp_call {
  mcp_server_t *server;
  mcp_session_t *session;  /* counted reference, or NULL (stateless) */
  mcp_call_t *next, *prev; /* session->inflight, O(1) removal */
  bool tracked;            /* listed there (under its stripe's lock) */
  bool session_pinned;     /* session held by the transport, not by us */
  uint8_t stripe;          /* the session stripe that lists it */
  mcp__message msg;        /* owns the request */
  /* The params, owned; NULL until mcp_call_params builds them from
   * msg.params_tape (or an empty object when the request had none). */
  _Atomic(json_t *) params;
  /* params._meta built alone (mcp__call_meta_object) while the params are
   * not built, owned, or NULL */
  _Atomic(json_t *) meta;
  /* params._meta on the params tape (found once, when the call is made:
   * three readers want it), or NULL when absent or the params are not a
   * tape */
  const mcp__tnode *meta_tape;
  /* params.name on the tape likewise (found in the same walk: a tools/call
   * reads it three times), or NULL */
  const mcp__tnode *name_tape;
  mcp__channel reply;
  mcp__peer peer;
  bool stateless;
  char protocol_version[MCP__MAX_VERSION_LEN];
  json_t *client_capabilities; /* borrowed (session or _meta) */
  json_t *client_info;
  /* A 2026-07-28 request's client capabilities and info while they are
   * still objects on the params tape (mcp__call_bind_modern_tape), or
   * NULL: most handlers never look, so they become jansson values only
   * when asked (into owned_caps, owned_info). */
  const mcp__tnode *caps_tape, *info_tape;
  /* Built from the request's _meta for client_capabilities and
   * client_info (mcp__call_bind_modern_owned, or on demand from caps_tape
   * and info_tape), owned, or NULL */
  _Atomic(json_t *) owned_caps, owned_info;
  json_t *progress_token;
  double last_progress;
  bool has_progress;
  atomic_bool cancelled;
  pthread_mutex_t send_lock; /* serializes progress/log from many threads */
  /* A method may encode its result itself (tools/call does, to avoid
   * building a JSON tree only to serialize it): non-empty means "use this
   * text as the result object". */
  mcp__buf raw_result; /* its first bytes in raw_small, the last member */
  /* protocol error chosen by the handler */
  int error_code;
  char *error_message;
  json_t *error_data;
  /* Task-run calls (src/tasks). A handler that sets handoff takes the call
   * over: mcp__call_run sends the response (CreateTaskResult), ends the
   * transport exchange and calls handoff instead of freeing the call; the
   * new owner frees it later with mcp__call_release. */
  void (*handoff)(mcp_call_t *call, void *ctx);
  void *handoff_ctx;
  const char *task_id; /* the task this call runs as, or NULL */
  /* Told before (waiting true) and after a server-to-client request, so a
   * task can move to input_required and back. */
  void (*task_input)(mcp_call_t *call, bool waiting);
  /* Suspension (tasks/result over HTTP): with can_suspend set by the
   * transport, a handler may set pending and suspend and return MCP_OK
   * without a result; mcp__call_run then calls suspend(call, suspend_ctx)
   * and returns, and whoever suspend handed the call to finishes it with
   * mcp__call_complete. */
  bool can_suspend;
  bool pending;
  void (*suspend)(mcp_call_t *call, void *ctx);
  void *suspend_ctx;
  /* 2026-07-28 multi-round requests (input_required.c), all owned or NULL:
   * answers known to this run (earlier rounds from the sealed state, this
   * retry's inputResponses), questions asked in this run without an answer
   * (keys "q0", "q1", ... in the order asked), the handler's own state. */
  json_t *answers, *asked, *round_state;
  unsigned questions;
  char next_key[64]; /* key of the next question, or "" for "qN" */
  /* ClientCapabilities the request lacked (-32021 data), or NULL, and the
   * error message naming them (owned, made when the error is answered) */
  json_t *missing_caps;
  char *missing_caps_message;
  /* A 2026-07-28 request on a connection with a session (stdio): counted;
   * the call sits in its in-flight list so notifications/cancelled from
   * that client reaches it, though it is served without the session. */
  mcp_session_t *cancel_scope;
  /* The request log (request_log.h): when the call began, 0 when the log
   * was off then (nothing is measured); the request's size; whether a
   * tools/call answered with an isError result. */
  int64_t log_started_ns;
  size_t request_bytes;
  bool tool_error;
  /* Its OpenTelemetry span (request_span.h), or NULL: tracing off or not
   * sampled. */
  mcp__call_span *span;
  /* A task's span (request_span.h) once the request's ended, or NULL */
  mcp__call_span *task_span;
  /* When it began, for the duration histogram (request_metrics.h); 0 when
   * metrics are off */
  int64_t metrics_started_ns;
  /* Scheduling (schedule.c): a run timed for core/inline_runs.c (set when
   * it starts), the tool's slot, whether it ran on a receiving thread,
   * whether what it sends before its response counts against it (the
   * runner's holds_events), and whether it sent anything (under
   * send_lock). */
  bool timed, ran_here, events_count, emitted;
  int slot;
  mcp__inline_timer timer;
  /* raw_result's first bytes: most results fit. Last, so that a new call
   * is zeroed up to it only (mcp__call_new). Its size keeps the whole call
   * within glibc's per-thread cache (blocks up to 1032 bytes): a larger
   * call took malloc's and free's slow paths, about 300 instructions per
   * request (call_access.c checks it). */
  char raw_small[256];
};

/* The protocol version the call ran under, for its log line, span and data
 * point: its own copy, else its session's (an initialize: the version it
 * negotiated, which the call could not copy before the session had one),
 * written into buf when it comes from the session; "" when neither has
 * one. */
const char *mcp__call_version_seen(const mcp_call_t *call,
                                   char buf[MCP__MAX_VERSION_LEN]);

#endif
