/* SPDX-License-Identifier: MIT */
/* dispatch.h - the one way into a server, for transports.
 *
 * A transport decodes nothing itself: it hands bytes to mcp__server_accept,
 * which parses them, answers client responses and notifications at once, and
 * for a request returns a prepared call that the transport runs (now, or on
 * a worker) with mcp__call_run. Everything a request produces - the response
 * and the notifications and server-to-client requests tied to it - goes to
 * the reply channel the transport supplied; session-wide messages go to the
 * session's notify channel.
 */
#ifndef MCP_SERVER_DISPATCH_H
#define MCP_SERVER_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/call.h"
#include "mcp/server.h"

/* Flags for mcp__channel.send */
#define MCP__SEND_FINAL        1u /* the response that ends the exchange */
#define MCP__SEND_NOTIFICATION 2u /* a notification */
#define MCP__SEND_REQUEST      4u /* a server-to-client request */
/* Deliver only to a stream with a connected client; otherwise fail with
 * MCP_ERR_CLOSED and keep nothing (the sender queues the message itself).
 * Channels that are always connected (stdio) may ignore it. */
#define MCP__SEND_LIVE 8u

/* Where messages go. send must accept one whole message (no newline) and may
 * be called from any thread; it must not call back into the server. */
typedef struct mcp__channel {
  mcp_status (*send)(void *ctx, const char *msg, size_t len, unsigned flags);
  /* Optional: called exactly once when a prepared call is finished with the
   * channel (after its final send, or when a cancelled call sends nothing). */
  void (*done)(void *ctx);
  void *ctx;
  /* The transport instance the channel belongs to (stdio transport, HTTP
   * server), so that it can end the streams it holds when it stops; may
   * be NULL. */
  const void *owner;
} mcp__channel;

/* One HTTP header: for Mcp-Param-* headers name is what follows the
 * prefix, as sent. */
typedef struct mcp__header {
  const char *name, *value;
} mcp__header;

/* Facts the transport knows about the sender. The strings are borrowed for
 * the time of mcp__server_accept and the handler's run (not for a task that
 * takes the call over). */
typedef struct mcp__peer {
  const char *subject;         /* authenticated subject or NULL */
  const char *scopes;          /* its granted scopes (space-separated) */
  const char *protocol_header; /* MCP-Protocol-Version header or NULL */
  /* HTTP (2026-07-28 header checks, SEP-2243); all unset on stdio. */
  bool http;
  bool repeated_header; /* an Mcp-* header came more than once */
  const char *method_header, *name_header; /* Mcp-Method, Mcp-Name or NULL */
  const mcp__header *param_headers;        /* Mcp-Param-* */
  size_t param_header_count;
} mcp__peer;

/* Creates a session (returns a counted reference, release with
 * mcp__session_release) registered with the server. notify may have a NULL
 * send. */
mcp_status mcp__session_new(mcp_server_t *s, mcp__channel notify,
                            mcp_session_t **out);
/* A session for one self-contained legacy request (stateless HTTP): already
 * initialized with protocol version `version` (NULL: "2025-03-26"), empty
 * client capabilities, and input closed (no client can answer a
 * server-to-client request). Returns a counted reference. */
mcp_status mcp__session_new_stateless(mcp_server_t *s, const char *version,
                                      mcp_session_t **out);
void mcp__session_set_notify(mcp_session_t *s, mcp__channel notify);
/* Marks the session closed: pending outbound requests fail, in-flight calls
 * see cancellation. */
void mcp__session_close(mcp_session_t *s);
void mcp__session_release(mcp_session_t *s);
/* The client can no longer answer (its input ended): server-to-client
 * requests fail at once with MCP_ERR_CLOSED, running calls go on. */
void mcp__session_input_closed(mcp_session_t *s);

/* Outcome of mcp__server_accept. */
typedef enum mcp__accept {
  MCP__ACCEPT_REQUEST = 1, /* *call is set: run it with mcp__call_run */
  MCP__ACCEPT_HANDLED,     /* a notification or response; nothing to send */
  MCP__ACCEPT_REJECTED     /* malformed; an error reply (if any) was sent */
} mcp__accept;

/* Parses len bytes and routes them. session may be NULL only for stateless
 * (2026-07-28) traffic. For MCP__ACCEPT_REQUEST the call owns the message and
 * holds a session reference; it is registered as in flight so that a
 * notifications/cancelled arriving before it runs is honoured. */
mcp__accept mcp__server_accept(mcp_server_t *s, mcp_session_t *session,
                               const mcp__peer *peer, const char *bytes,
                               size_t len, mcp__channel reply,
                               mcp_call_t **call);
/* Whether a transport should pass bytes to mcp__server_accept on its
 * receiving thread rather than hand them to a worker unparsed: everything
 * that is not plainly an ordinary request. Client responses (no "method")
 * and notifications (cancellations above all) must never wait behind busy
 * workers; initialize must run before requests pipelined behind it and ping
 * is answered at once. Deliberately coarse (a substring test, no parse): a
 * request that merely mentions these words is also accepted at once, which
 * costs a little speed and nothing else. */
bool mcp__must_accept_at_once(const char *bytes, size_t len);

/* Runs the handler on the calling thread, sends the response (unless the
 * call was cancelled) and frees the call. */
void mcp__call_run(mcp_call_t *call);
/* Lets the call's handler answer later, from another thread: a blocked
 * tasks/result then frees its worker and the response (and done) come when
 * the task ends. Only for transports whose channel accepts send and done
 * from any thread at any time. Call before mcp__call_run. */
void mcp__call_allow_suspend(mcp_call_t *call);
/* The session's standalone stream is open again (HTTP GET): messages of
 * tasks queued while no stream could carry them are delivered now. */
void mcp__session_stream_opened(mcp_session_t *s);
/* The method of a prepared call (borrowed). */
const char *mcp__call_method(const mcp_call_t *call);
/* Cancels a prepared call's flag (transport shutdown). */
void mcp__call_cancel(mcp_call_t *call);

/* True for a legacy (2024-11-05 .. 2025-11-25) / modern (2026-07-28)
 * protocol version this server serves. */
bool mcp__version_is_supported(const char *version);
bool mcp__version_is_modern(const char *version);
/* Every served version, modern first (returns new JSON array). */
json_t *mcp__supported_versions_json(void);

/* The client of the reply channel whose context is ctx is gone (HTTP: the
 * connection of a streamed answer closed; stdio: input ended): its
 * subscriptions/listen streams end without a response. Cheap when it has
 * none. */
void mcp__server_channel_gone(mcp_server_t *s, const void *ctx);
/* The transport `owner` stops: the subscriptions/listen streams on its
 * channels end with their final result (server-initiated end). */
void mcp__server_end_streams(mcp_server_t *s, const void *owner);

/* Sends a JSON-RPC error with no id to reply (e.g. an oversize line). */
void mcp__reply_error(mcp__channel reply, int code, const char *message);

#endif
