/* SPDX-License-Identifier: MIT */
/* fetch.h - the HTTP requests of the resource server (issuer discovery,
 * JWKS, token introspection), made with libcurl loaded on first use.
 *
 * libmcp does not link libcurl (servers that never fetch anything should not
 * map it and its TLS stack); the first fetch loads it with dlopen, like the
 * HTTP transport loads libmicrohttpd (transport/mhd.c). */
#ifndef MCP_AUTH_FETCH_H
#define MCP_AUTH_FETCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "mcp/status.h"

#define MCP__FETCH_MAX_BYTES (1u << 20) /* larger answers are refused */

typedef struct mcp__fetch_request {
  const char *url;
  const char *form;     /* POST body (application/x-www-form-urlencoded) or
                           NULL for a GET */
  const char *user;     /* HTTP Basic credentials or NULL */
  const char *password; /* with user */
  const char *cainfo;   /* CA bundle for https, NULL: the system store */
  long timeout_ms;      /* whole transfer; 0: 5000 */
  /* NULL, or a flag that ends the transfer when set (MCP_ERR_CANCELLED) */
  const atomic_bool *cancel;
} mcp__fetch_request;

/* Performs the request. On MCP_OK *status is the HTTP status and *body a
 * malloc'd NUL-terminated body (*len bytes), freed by the caller. Redirects
 * are not followed. MCP_ERR_UNSUPPORTED when libcurl cannot be loaded,
 * MCP_ERR_IO on a transfer failure, MCP_ERR_LIMIT over MCP__FETCH_MAX_BYTES;
 * err says which. */
mcp_status mcp__fetch(const mcp__fetch_request *req, long *status, char **body,
                      size_t *len, mcp_error_t *err);

#endif
