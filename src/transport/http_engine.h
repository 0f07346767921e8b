/* SPDX-License-Identifier: MIT */
/* http_engine.h - the interface between the HTTP request layer and the
 * transport's HTTP/1.1 engine, private to src/transport.
 *
 * The request layer (http_request.c, http_stream.c, http_limits.c,
 * http_cors.c, http_tls.c, http_daemon.c) sees only what is below: start,
 * quiesce and stop an engine on a listening socket (one config struct); a
 * table of per-request callbacks (on_head, on_body, on_end, on_resume:
 * curl's Curl_cftype and h2o's on_req are the models) with header lookup
 * and the peer address at hand; respond now (a response queued in a
 * callback), respond later (suspend the connection, resume it from any
 * thread: on_resume runs) or stream (a response whose body a reader
 * callback produces, suspending while it has nothing). The engine behind it:
 *
 *   http_engine.c  event loops (epoll, 2 by default), accept spread over
 *                  them (EPOLLEXCLUSIVE), cross-thread wake-ups (eventfd),
 *                  timeouts, start/stop/quiesce
 *   http_conn.c    a connection: request head and body (http_parse.c, where
 *                  every framing decision is made), keep-alive and
 *                  pipelining in order, 100-continue, the output queue
 *                  (buffer or chunked reader, backpressure), suspend/resume,
 *                  close detection while parked
 *   http_tls_ossl.c TLS 1.2+ through OpenSSL 3
 *
 * libmicrohttpd served behind the same calls until 2026-12-04 and was
 * removed (docs/http.md, Engines). Each server starts its own engine: no
 * state is shared between servers.
 *
 * Threads: the request, completion and connection callbacks run on the
 * connection's loop thread; resume may be called from any thread; a
 * response may be built on any thread and queued on the loop thread.
 */
#ifndef MCP_TRANSPORT_HTTP_ENGINE_H
#define MCP_TRANSPORT_HTTP_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "transport/http_parse.h"

typedef struct mcp__he_daemon mcp__he_daemon;
typedef struct mcp__he_conn mcp__he_conn;
typedef struct mcp__he_resp mcp__he_resp;

/* Statuses the request layer answers with. */
#define MCP__HTTP_OK                     200
#define MCP__HTTP_ACCEPTED               202
#define MCP__HTTP_NO_CONTENT             204
#define MCP__HTTP_BAD_REQUEST            400
#define MCP__HTTP_FORBIDDEN              403
#define MCP__HTTP_NOT_FOUND              404
#define MCP__HTTP_METHOD_NOT_ALLOWED     405
#define MCP__HTTP_NOT_ACCEPTABLE         406
#define MCP__HTTP_CONFLICT               409
#define MCP__HTTP_CONTENT_TOO_LARGE      413
#define MCP__HTTP_UNSUPPORTED_MEDIA_TYPE 415
#define MCP__HTTP_TOO_MANY_REQUESTS      429
#define MCP__HTTP_INTERNAL_SERVER_ERROR  500
#define MCP__HTTP_NOT_IMPLEMENTED        501
#define MCP__HTTP_SERVICE_UNAVAILABLE    503

#define MCP__HTTP_HEADER_ALLOW             "Allow"
#define MCP__HTTP_HEADER_CACHE_CONTROL     "Cache-Control"
#define MCP__HTTP_HEADER_CONNECTION        "Connection"
#define MCP__HTTP_HEADER_CONTENT_LENGTH    "Content-Length"
#define MCP__HTTP_HEADER_CONTENT_TYPE      "Content-Type"
#define MCP__HTTP_HEADER_RETRY_AFTER       "Retry-After"
#define MCP__HTTP_HEADER_TRANSFER_ENCODING "Transfer-Encoding"
#define MCP__HTTP_HEADER_WWW_AUTHENTICATE  "WWW-Authenticate"

/* A callback's verdict: go on, or close the connection. */
enum mcp__he_result { MCP__HE_NO = 0, MCP__HE_YES = 1 };

/* Why a request ended (the completion callback). */
enum mcp__he_end {
  MCP__HE_END_COMPLETED_OK = 0,
  MCP__HE_END_WITH_ERROR,
  MCP__HE_END_TIMEOUT_REACHED,
  MCP__HE_END_DAEMON_SHUTDOWN,
  MCP__HE_END_READ_ERROR,
  MCP__HE_END_CLIENT_ABORT
};

/* A connection opened or closed (the connection callback). */
enum mcp__he_notify { MCP__HE_NOTIFY_STARTED = 0, MCP__HE_NOTIFY_CLOSED };

/* What a buffer response does with its bytes. */
enum mcp__he_mem {
  MCP__HE_MEM_PERSISTENT, /* borrowed: they outlive the response */
  MCP__HE_MEM_MUST_FREE,  /* stolen: free()d with the response */
  MCP__HE_MEM_MUST_COPY   /* copied now */
};

/* A body reader's answers besides a byte count (0: nothing now, the
 * connection waits for a resume). */
#define MCP__HE_READER_END   ((ssize_t)-1)
#define MCP__HE_READER_ERROR ((ssize_t)-2)
#define MCP__HE_SIZE_UNKNOWN UINT64_MAX

/* What the engine calls for each request, in this order: on_head once
 * the head is in (*req is NULL: the callee may set it; framing was decided
 * by the parser already), on_body for each piece of the body (bytes
 * borrowed for the call), on_end once the body is complete (at once when
 * there is none), and on_resume each time a suspended connection is
 * resumed, until one of them queues a response. A suspension that another
 * thread has already resumed gets on_resume at once. Every callback runs
 * on the connection's loop thread and returns MCP__HE_NO to close the
 * connection. A response queued before the body ends answers the request;
 * the rest of the body is dropped and the connection closes after it. */
typedef struct mcp__he_handler {
  enum mcp__he_result (*on_head)(void *cls, mcp__he_conn *conn,
                                 const char *method, const char *path,
                                 const char *version, void **req);
  enum mcp__he_result (*on_body)(void *cls, mcp__he_conn *conn, void **req,
                                 const char *data, size_t len);
  enum mcp__he_result (*on_end)(void *cls, mcp__he_conn *conn, void **req);
  enum mcp__he_result (*on_resume)(void *cls, mcp__he_conn *conn,
                                   void **req);
} mcp__he_handler;
/* The request ended (answered, or its connection closed); *req is what
 * on_head left there. */
typedef void (*mcp__he_completed_fn)(void *cls, mcp__he_conn *conn,
                                     void **req, enum mcp__he_end why);
/* A connection opened or closed; *socket_context is the caller's. */
typedef void (*mcp__he_notify_fn)(void *cls, mcp__he_conn *conn,
                                  void **socket_context,
                                  enum mcp__he_notify code);
/* A streamed body: up to max bytes at buf for position pos. */
typedef ssize_t (*mcp__he_reader_fn)(void *cls, uint64_t pos, char *buf,
                                     size_t max);
typedef void (*mcp__he_reader_free_fn)(void *cls);
/* One header field; return MCP__HE_NO to stop. */
typedef enum mcp__he_result (*mcp__he_value_fn)(void *cls, const char *key,
                                                const char *value);

typedef struct mcp__he_config {
  int listen_fd;        /* listening socket, consumed (closed on failure) */
  unsigned loops;       /* event loops; 0: 2 */
  size_t head_max;      /* bytes of a request head */
  unsigned timeout_s;   /* idle connection timeout; 0: none */
  unsigned conn_limit;  /* connections at most; 0: no bound */
  const char *tls_cert; /* PEM text of certificate and key, or NULL */
  const char *tls_key;
  const mcp__he_handler *handler; /* borrowed for the engine's life */
  mcp__he_completed_fn on_completed;
  mcp__he_notify_fn on_connection;
  void *cls; /* first argument of every callback */
} mcp__he_config;

/* Starts the engine's loops on cfg->listen_fd; NULL with errno set when it
 * cannot (the descriptor is closed then). */
mcp__he_daemon *mcp__he_start(const mcp__he_config *cfg);
/* Stops accepting and returns the listening descriptor (the caller closes
 * it), or -1 when already quiesced. Open connections are served on. */
int mcp__he_quiesce(mcp__he_daemon *d);
/* Closes every connection (completion callbacks run) and frees d. */
void mcp__he_stop(mcp__he_daemon *d);
/* Connections open now. */
unsigned mcp__he_connections(mcp__he_daemon *d);

/* A request header's value (borrowed until the request ends), or NULL. */
const char *mcp__he_lookup(mcp__he_conn *c, const char *name);
/* The first value of a field the parser indexes (mcp__hp_known), or NULL;
 * how many fields carry it; how many are named Mcp-Param-*. */
const char *mcp__he_known(mcp__he_conn *c, enum mcp__hp_known k);
unsigned mcp__he_known_count(mcp__he_conn *c, enum mcp__hp_known k);
unsigned mcp__he_param_count(mcp__he_conn *c);
/* Whether Content-Length frames the request's body; *n: that length. */
bool mcp__he_body_length(mcp__he_conn *c, uint64_t *n);
/* Calls it for each header field in order; returns how many it saw. */
int mcp__he_values(mcp__he_conn *c, mcp__he_value_fn it, void *cls);
/* The connection's socket context (set by the connection callback), its
 * descriptor and its peer's address. */
void *mcp__he_socket_context(mcp__he_conn *c);
int mcp__he_fd(mcp__he_conn *c);
const struct sockaddr *mcp__he_client_addr(mcp__he_conn *c);
/* The current request's target as on_head saw it (borrowed until the
 * request ends), or NULL. */
const char *mcp__he_path(mcp__he_conn *c);
/* The current request's HTTP minor version (1.0: 0, 1.1: 1). */
int mcp__he_http_minor(mcp__he_conn *c);

/* Answers the current request with status and r (r is referenced, the
 * caller still destroys its own reference); on the loop thread, in the
 * request callback or a resumed one. */
enum mcp__he_result mcp__he_queue(mcp__he_conn *c, unsigned status,
                                  mcp__he_resp *r);
/* Parks the connection (in the request callback); resume may be called
 * from any thread, and the request callback runs again. A request parked
 * in on_head keeps its body unread until it is resumed: when on_resume
 * then neither answers nor suspends again, the body is read (on_body,
 * on_end) as if on_head had returned without suspending. */
void mcp__he_suspend(mcp__he_conn *c);
void mcp__he_resume(mcp__he_conn *c);

/* A response with a body of size bytes at data (mode says who owns them),
 * or one whose body reader produces it (size MCP__HE_SIZE_UNKNOWN: chunked
 * in HTTP/1.1); NULL when out of memory. */
mcp__he_resp *mcp__he_resp_buffer(size_t size, void *data,
                                  enum mcp__he_mem mode);
mcp__he_resp *mcp__he_resp_callback(uint64_t size, size_t block,
                                    mcp__he_reader_fn reader, void *cls,
                                    mcp__he_reader_free_fn reader_free);
/* Adds a header field (copied); "Connection: close" closes after it. */
enum mcp__he_result mcp__he_resp_header(mcp__he_resp *r, const char *name,
                                        const char *value);
/* The same for a name and value the library wrote itself (nl and vl bytes,
 * NUL-terminated, no CR or LF, a name that is not empty): not searched
 * for CR and LF on every response. MCP__HE_RESP_HEADER_LITERAL takes two
 * string literals (the "" makes anything else a compile error). */
enum mcp__he_result mcp__he_resp_header_trusted(mcp__he_resp *r,
                                                const char *name, size_t nl,
                                                const char *value, size_t vl);
#define MCP__HE_RESP_HEADER_LITERAL(r, name, value)                            \
  mcp__he_resp_header_trusted((r), "" name, sizeof(name) - 1, "" value,        \
                              sizeof(value) - 1)
void mcp__he_resp_destroy(mcp__he_resp *r);

#endif
