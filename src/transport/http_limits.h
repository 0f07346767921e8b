/* SPDX-License-Identifier: MIT */
/* http_limits.h - connection and stream admission of the HTTP transport
 * (issue #16 items 1 and 2): total connections, connections per client
 * address, a deadline for a request's head and body, long-lived SSE
 * responses per session and in total.
 *
 * Every connection the engine accepts is registered (its notify-connection
 * callback) with its phase: waiting for a request head, reading a body,
 * active (answer pending), or streaming (an SSE response of any kind: GET,
 * resumption, a POST upgraded to SSE, subscriptions/listen). When a new
 * connection would exceed the total or per-address limit, the connection
 * that has waited longest for its request (of the same address for the
 * per-address limit) is shut down for it; when no connection is waiting,
 * the new connection's request is answered 503 (total) or 429 (address)
 * with Retry-After and the connection closes. Waiting and reading
 * connections past the request deadline are shut down by the housekeeper.
 * So slow clients (slowloris) can neither hold every slot nor keep one past
 * the deadline. Only the engine's network threads and the housekeeper
 * call in here; one mutex guards the table, and a connection's own phase
 * changes of every request take it only when the stream count moves
 * (http_limits.c says why that is safe).
 */
#ifndef MCP_TRANSPORT_HTTP_LIMITS_H
#define MCP_TRANSPORT_HTTP_LIMITS_H

#include "transport/http_engine.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mcp_http_server mcp_http_server_t;
typedef struct hs_limits hs_limits;
typedef struct hs_session hs_session;

/* Refusals: what a request must be answered with, or HS_ADMIT_OK. */
enum hs_admit {
  HS_ADMIT_OK = 0,
  HS_ADMIT_BUSY = 503,    /* the server-wide limit is reached */
  HS_ADMIT_TOO_MANY = 429 /* the client's (address, session) share is used */
};

/* Counters for tests and the soak report. */
typedef struct hs_limits_stats {
  size_t connections, streams, evicted, deadline_closed, refused;
} hs_limits_stats;

/* Creates the table for h (h->o holds the limits); NULL when out of memory. */
hs_limits *mcp__hs_limits_new(mcp_http_server_t *h, size_t max_connections);
void mcp__hs_limits_free(hs_limits *l);
/* The connection limit to give the engine: above ours, so that it
 * accepts the connections we answer 503/429 to or evict for. */
size_t mcp__hs_limits_engine_cap(const hs_limits *l);

/* The server a connection belongs to (its socket context holds it), or
 * NULL for a connection that could not be registered (out of memory). */
mcp_http_server_t *mcp__hs_conn_server(mcp__he_conn *conn);

/* The engine's connection callback (cls: h). */
void mcp__hs_on_connection(void *cls, mcp__he_conn *conn,
                           void **socket_context,
                           enum mcp__he_notify code);

/* A request's head is in: returns the refusal decided when the connection
 * was accepted. with_body: a body follows (its deadline still runs). */
enum hs_admit mcp__hs_conn_request(hs_limits *l, mcp__he_conn *conn,
                                   bool with_body);
/* The body of the current request is complete. */
void mcp__hs_conn_body_done(hs_limits *l, mcp__he_conn *conn);
/* The current request is over; the connection waits for the next one. */
void mcp__hs_conn_request_done(hs_limits *l, mcp__he_conn *conn);
/* May session hs (NULL: none) open another long-lived SSE response? */
enum hs_admit mcp__hs_stream_admit(hs_limits *l, const hs_session *hs);
/* The connection now carries an SSE response of session hs (may be NULL);
 * counted until its request is done. */
void mcp__hs_conn_streaming(hs_limits *l, mcp__he_conn *conn,
                            const hs_session *hs);
/* Shuts down connections past the request deadline (housekeeper). */
void mcp__hs_limits_tick(hs_limits *l, int64_t now_ms);
hs_limits_stats mcp__hs_limits_stats(hs_limits *l);

#endif
