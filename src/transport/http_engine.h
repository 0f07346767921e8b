/* SPDX-License-Identifier: MIT */
/* http_engine.h - the transport's own HTTP/1.1 server engine (epoll, no
 * libmicrohttpd), private to src/transport.
 *
 * The request layer (http_request.c, http_stream.c, http_limits.c,
 * http_cors.c, http_tls.c) talks to its HTTP server through the narrow
 * table of mhd.h: start/stop/quiesce a daemon; a request callback with
 * method, path, header lookup, body chunks and the peer address; respond
 * now (a response queued in the callback), respond later (suspend the
 * connection, resume it from any thread, the callback runs again) or stream
 * (a response whose body a reader callback produces, suspending while it
 * has nothing). This engine implements that table itself:
 *
 *   http_engine.c  event loops (epoll, 2 by default), accept spread over
 *                  them (EPOLLEXCLUSIVE), cross-thread wake-ups (eventfd),
 *                  timeouts, daemon start/stop/quiesce
 *   http_conn.c    a connection: request head and body (http_parse.c),
 *                  keep-alive and pipelining in order, 100-continue, the
 *                  output queue (buffer or chunked reader, backpressure),
 *                  suspend/resume, close detection while parked
 *   http_tls_ossl.c TLS 1.2+ through OpenSSL 3
 *
 * Which implementation serves a process is chosen when its first HTTP
 * server starts (mhd.c): libmicrohttpd or this engine.
 */
#ifndef MCP_TRANSPORT_HTTP_ENGINE_H
#define MCP_TRANSPORT_HTTP_ENGINE_H

#include "transport/mhd.h"

/* The engine's table (same contract as libmicrohttpd's functions). */
const mcp__mhd_api *mcp__engine_api(void);

#endif
