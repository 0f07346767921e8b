/* SPDX-License-Identifier: MIT */
/* http_serve.h - the blocking HTTP helpers behind mcp_server_serve_http,
 * shared with mcp_server_run (src/server/run.c). */
#ifndef MCP_TRANSPORT_HTTP_SERVE_H
#define MCP_TRANSPORT_HTTP_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "mcp/http.h"

/* Splits "HOST:PORT" or "[V6ADDR]:PORT" into host (copied, NUL-terminated,
 * shorter than host_len) and port (0..65535). MCP_ERR_INVALID_ARG when
 * malformed. */
mcp_status mcp__http_parse_host_port(const char *s, char *host, size_t host_len,
                                     uint16_t *port);

/* Starts server with o, calls started(h, user_data) when non-NULL once it
 * listens, serves until SIGINT or SIGTERM and stops gracefully. A start
 * failure is returned with err filled (err may be NULL). */
mcp_status mcp__http_serve_until_signal(mcp_server_t *server,
                                        const mcp_http_options_t *o,
                                        void (*started)(mcp_http_server_t *h,
                                                        void *user_data),
                                        void *user_data, mcp_error_t *err);

#endif
