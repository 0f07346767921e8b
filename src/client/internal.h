/* SPDX-License-Identifier: MIT */
/* internal.h - the client object and the transport interface it drives.
 *
 * The core (client.c) owns request ids, the table of requests waiting for an
 * answer, and the routing of every incoming message. A transport only moves
 * bytes: send() hands it one serialized message, and it calls
 * mcp__client_receive() for each message that arrives. Two transports exist,
 * chosen at connect time, so they sit behind a small vtable. */
#ifndef MCP_CLIENT_INTERNAL_H
#define MCP_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "mcp/client.h"
#include "util/buf.h"

typedef struct mcp__ctransport mcp__ctransport;

typedef struct mcp__ctransport_ops {
  /* Sends one message (len bytes of compact JSON). request_id is the id when
   * the message is a request (the transport may need to wait for its answer,
   * HTTP does), else NULL. MCP_ERR_NOT_FOUND means the server no longer
   * knows the session the message was sent in (HTTP 404 to a request
   * carrying a session id): the core then starts a new session. */
  mcp_status (*send)(mcp__ctransport *t, const char *bytes, size_t len,
                     const json_t *request_id, mcp_error_t *err);
  /* The negotiated protocol version became known (HTTP sends it as a
   * header from now on). */
  void (*set_protocol_version)(mcp__ctransport *t, const char *version);
  const char *(*session_id)(mcp__ctransport *t);
  /* Forgets the session (id, protocol version, standalone stream) so the
   * next message starts a new one; NULL when the transport has no sessions.
   * Called with no request of this transport in its send step except the
   * caller's own. */
  void (*reset_session)(mcp__ctransport *t);
  /* Ends the connection and frees the transport. */
  void (*close)(mcp__ctransport *t);
} mcp__ctransport_ops;

struct mcp__ctransport {
  const mcp__ctransport_ops *ops;
  mcp_client_t *client;
};

struct mcp_client_options {
  char **argv; /* NULL-terminated, or NULL */
  char *url;
  char **headers; /* "Name: value", NULL-terminated */
  size_t nheaders;
  char *bearer;
  char *cacert; /* CA bundle for https, NULL: the system store */
  mcp_client_token_fn token_fn; /* OAuth and other token providers */
  void *token_ud;
  char *name, *version, *protocol_version;
  int timeout_ms;
  mcp_client_notification_fn on_notification;
  void *notification_ud;
  mcp_client_request_fn sampling, elicitation, roots;
  void *sampling_ud, *elicitation_ud, *roots_ud;
  json_t *sampling_caps, *elicitation_caps, *roots_caps;
  mcp_client_observer_fn observer;
  void *observer_ud;
};

/* One request waiting for its answer. Lives on the waiting thread's stack. */
typedef struct mcp__pending {
  struct mcp__pending *next;
  int64_t id;
  int64_t progress_token; /* 0: none */
  mcp_client_progress_fn progress;
  void *progress_ud;
  bool done;
  json_t *response; /* the whole response message once done */
} mcp__pending;

struct mcp_client {
  mcp_client_options_t opts; /* deep copy */
  mcp__ctransport *transport;
  pthread_mutex_t lock;
  pthread_cond_t cond; /* signalled when a pending request completes */
  mcp__pending *pending;
  int64_t next_id;
  bool closed; /* the transport reported the end of the connection */
  json_t *init_result;
  char *protocol_version;
  /* Session restarts (HTTP 404): restart_lock lets one thread re-initialize
   * while the others wait; session_gen counts restarts (under lock), so a
   * request that failed in an old session does not restart a new one.
   * Results of earlier initializes stay in retired until close, since
   * callers may still hold them (they are documented as borrowed for the
   * client's lifetime). */
  pthread_mutex_t restart_lock;
  uint64_t session_gen;
  json_t *retired;
};

/* Called by transports for each incoming message (takes msg: steals). */
void mcp__client_receive(mcp_client_t *c, json_t *msg);
/* Parses one incoming message of len bytes (json_loadb flags) and receives
 * it; text that does not parse reaches the observer as a JSON string, so a
 * tester can report it. */
void mcp__client_receive_text(mcp_client_t *c, const char *text, size_t len,
                              size_t flags);
/* Called by transports when the connection ended (reader EOF). */
void mcp__client_closed(mcp_client_t *c);
/* True while the request with this id still waits for its answer. */
bool mcp__client_is_pending(mcp_client_t *c, const json_t *id);
/* Serializes and sends msg (borrowed) through the transport. */
mcp_status mcp__client_send(mcp_client_t *c, json_t *msg,
                            const json_t *request_id, mcp_error_t *err);

/* Sleeps ms milliseconds, resuming after signal handlers. */
static inline void mcp__client_sleep_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Transport constructors (client.c picks one). */
mcp_status mcp__ctransport_stdio_new(mcp_client_t *c, char *const *argv,
                                     mcp__ctransport **out, mcp_error_t *err);
mcp_status mcp__ctransport_http_new(mcp_client_t *c, mcp__ctransport **out,
                                    mcp_error_t *err);

/* Options deep copy / release (options.c). */
mcp_status mcp__client_options_copy(mcp_client_options_t *dst,
                                    const mcp_client_options_t *src);
void mcp__client_options_clear(mcp_client_options_t *o);

#endif
