/* SPDX-License-Identifier: MIT */
/* http_options.h - the HTTP transport's configuration record, shared by
 * http_options.c (setters, defaults, copy) and http_request.c (reader). */
#ifndef MCP_TRANSPORT_HTTP_OPTIONS_H
#define MCP_TRANSPORT_HTTP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/auth.h"
#include "mcp/http.h"
#include "mcp/session_store.h"

struct mcp_http_options {
  char *address;  /* bind address (host name or literal) */
  uint16_t port;  /* 0: any */
  char *endpoint; /* "/mcp" */
  char **origins; /* allow-list; empty: the default for the bind */
  size_t norigins;
  char **hosts;
  size_t nhosts;
  char **cors; /* CORS allow-list (http_cors.c); empty: CORS off */
  size_t ncors;
  bool cors_credentials;
  bool stateless, get_stream, always_sse, sse_poll;
  size_t max_body, max_header, max_depth, max_sessions, max_connections;
  int64_t idle_ms;
  unsigned workers, io_threads, conn_timeout_s;
  int engine; /* mcp_http_engine */
  int retry_ms, heartbeat_ms, shutdown_ms;
  /* admission (http_limits.c) */
  size_t max_conns_per_addr, max_streams, max_streams_per_session;
  int64_t request_timeout_ms;
  unsigned retry_after_s;
  /* bytes a stream may hold for a client that does not read: each
   * subscriptions/listen or GET stream, all streams together
   * (http_stream.c) */
  size_t stream_buffer, stream_buffer_total;
  bool store_set;             /* store was chosen (maybe "none") */
  mcp_event_store store;      /* borrowed */
  mcp_session_store sessions; /* borrowed; ops NULL: not shared */
  mcp_auth_t *auth;           /* borrowed, or NULL (include/mcp/auth.h) */
  char *tls_cert, *tls_key;   /* PEM files, or NULL for plain HTTP */
  /* the Prometheus endpoint (http_metrics.c): its path (NULL: off) and
   * the client addresses it answers */
  char *metrics_path;
  struct mcp__cidr *metrics_allow;
  size_t nmetrics_allow;
  /* why setters refused their arguments, one per line (NULL: none);
   * mcp_http_server_start refuses such options with them in err (not
   * copied: a running server's copy is of accepted options only) */
  char *refusals;
};

/* Deep copy (returns new, NULL on allocation failure). */
mcp_http_options_t *mcp__http_options_copy(const mcp_http_options_t *o);
/* A setter refusing its argument: keeps why in o (for
 * mcp_http_server_start) and returns MCP_ERR_INVALID_ARG. */
mcp_status mcp__http_options_refuse(mcp_http_options_t *o, const char *what,
                                    const char *why);
/* MCP_ERR_UNSUPPORTED, with err saying why, when the environment variable
 * MCP_HTTP_ENGINE asks for an engine other than the own one (o may be
 * NULL: the defaults). */
mcp_status mcp__http_engine_check(const mcp_http_options_t *o,
                                  mcp_error_t *err);
/* Appends a copy of value to a string list. */
bool mcp__http_list_add(char ***list, size_t *count, const char *value);

#endif
