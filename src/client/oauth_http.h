/* SPDX-License-Identifier: MIT */
/* oauth_http.h - what the OAuth client needs below the flow: one HTTP
 * exchange without redirects, form encoding, PKCE values, the loopback
 * redirect listener and WWW-Authenticate parameters. */
#ifndef MCP_CLIENT_OAUTH_HTTP_H
#define MCP_CLIENT_OAUTH_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/status.h"
#include "util/buf.h"

typedef struct mcp__oreq {
  const char *url;
  const char *form;            /* POST body (form-encoded) or NULL: GET */
  const char *json;            /* POST body (JSON) or NULL */
  const char *user, *password; /* HTTP Basic or NULL */
  const char *cacert;
  const char *dpop; /* DPoP proof (RFC 9449) for a DPoP header, or NULL */
} mcp__oreq;

typedef struct mcp__oresp {
  long status;
  char *body;     /* NUL-terminated, malloc'd */
  char *location;   /* Location header or NULL */
  char *dpop_nonce; /* DPoP-Nonce header or NULL */
} mcp__oresp;

mcp_status mcp__oauth_http(const mcp__oreq *req, mcp__oresp *resp,
                           mcp_error_t *err);
void mcp__oresp_free(mcp__oresp *r);

/* The value of param name in a query string or fragment ("a=1&b=2"),
 * decoded, malloc'd; NULL when absent. */
char *mcp__query_param(const char *query, const char *name);

/* 32 random bytes, base64url (43 characters), malloc'd. */
char *mcp__random_b64url(void);
/* base64url(SHA-256(verifier)). */
char *mcp__pkce_s256(const char *verifier);

/* Parameter name of a Bearer challenge (unquoted), malloc'd, or NULL. */
char *mcp__challenge_param(const char *www_authenticate, const char *name);

/* A listener on 127.0.0.1 (ephemeral port) for the redirect. */
typedef struct mcp__redirect_listener {
  int fd;
  int port;
} mcp__redirect_listener;
mcp_status mcp__redirect_listen(mcp__redirect_listener *l, mcp_error_t *err);
/* Waits (timeout_ms) for the browser's GET, answers it with a short page,
 * returns its query string (malloc'd). */
mcp_status mcp__redirect_wait(mcp__redirect_listener *l, int timeout_ms,
                              char **query, mcp_error_t *err);
void mcp__redirect_close(mcp__redirect_listener *l);

#endif
