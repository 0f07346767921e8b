/* SPDX-License-Identifier: MIT */
/* http_cors.h - CORS for browser clients of the Streamable HTTP transport:
 * the allow-list (mcp_http_options_add_cors_origin), preflight OPTIONS
 * answers and the Access-Control-* headers of every other answer. Off
 * (nothing sent, OPTIONS 405) until an origin is added. */
#ifndef MCP_TRANSPORT_HTTP_CORS_H
#define MCP_TRANSPORT_HTTP_CORS_H

#include <stdbool.h>
#include <stddef.h>

#include "transport/http_engine.h"

#include "transport/http_options.h"

/* True when CORS is on and origin (may be NULL: false) is on its list. */
bool mcp__hs_cors_allows(const mcp_http_options_t *o, const char *origin);
/* mcp__he_queue plus the CORS headers when the request's Origin is
 * allowed. Every answer of the transport goes through it. */
enum mcp__he_result mcp__hs_queue_response(mcp__he_conn *conn,
                                           unsigned status,
                                           mcp__he_resp *resp);
/* Answers an OPTIONS request (CORS on): 204 with the preflight headers for
 * an allowed Origin, 403 otherwise. methods: the Allow value. */
enum mcp__he_result mcp__hs_cors_preflight(const mcp_http_options_t *o,
                                           mcp__he_conn *conn,
                                           const char *methods);
/* Access-Control-Allow-Headers for a preflight whose
 * Access-Control-Request-Headers is requested (may be NULL): the fixed
 * request headers of MCP, then each requested Mcp-Param-* name (token
 * characters, as given); other requested names are left out, so the browser
 * refuses them. Writes at most cap bytes (NUL included) to out; returns
 * false when it did not fit (out then holds the fixed part). Pure. */
bool mcp__cors_allow_headers(const char *requested, char *out, size_t cap);

#endif
