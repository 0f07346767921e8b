/* SPDX-License-Identifier: MIT */
/* oauth.h - OAuth 2.1 for MCP clients (libmcp-client): authorization code
 * with PKCE against the authorization server an MCP server names, or a
 * grant without a user (client credentials, JWT bearer for workload
 * identity, enterprise-managed ID-JAG), client_secret_basic/post or
 * private_key_jwt, and DPoP-bound tokens (RFC 9449).
 *
 * On a 401 the HTTP transport asks the mcp_oauth_t (installed with
 * mcp_client_options_use_oauth) for a token: it finds the protected-resource
 * metadata (RFC 9728: the challenge's resource_metadata, else the
 * well-known URLs of the server), the authorization server's metadata (RFC
 * 8414, then OpenID Connect discovery), a client id (pre-registered, else a
 * client ID metadata document URL when the server supports them, else
 * dynamic client registration, RFC 7591), then runs the authorization code
 * flow with PKCE (S256) through a loopback redirect: the browser is opened
 * with xdg-open when present, otherwise the URL is printed on stderr. The
 * token request names the resource (RFC 8707). Refresh tokens are used
 * before a new login; a 403 insufficient_scope triggers a new authorization
 * with the union of the scopes (step-up). Tokens can be kept in a file
 * (mode 0600).
 *
 * Ownership: mcp_oauth_new returns an object owned by the caller, freed
 * with mcp_oauth_free after the clients using it are closed. Strings are
 * copied.
 *
 * Thread safety: one flow at a time (an internal lock); usable by the
 * client's threads.
 */
#ifndef MCP_OAUTH_H
#define MCP_OAUTH_H

#include <jansson.h>
#include <stdbool.h>

#include "mcp/client.h"
#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_oauth mcp_oauth_t;

/* server_url: the MCP endpoint (also the RFC 8707 resource). */
MCP_API mcp_status mcp_oauth_new(const char *server_url, mcp_oauth_t **out);
MCP_API void mcp_oauth_free(mcp_oauth_t *a);

/* A pre-registered client (client_secret may be NULL for a public one). */
MCP_API mcp_status mcp_oauth_set_client(mcp_oauth_t *a, const char *client_id,
                                        const char *client_secret);
/* The https URL of this client's metadata document, used as client_id when
 * the authorization server supports client ID metadata documents. */
MCP_API mcp_status mcp_oauth_set_client_metadata_url(mcp_oauth_t *a,
                                                     const char *url);
/* Keeps tokens in path (created with mode 0600; one entry per server
 * URL) and reads them from there. */
MCP_API mcp_status mcp_oauth_set_token_file(mcp_oauth_t *a, const char *path);
/* CA bundle for https requests to the authorization server. */
MCP_API mcp_status mcp_oauth_set_cacert(mcp_oauth_t *a, const char *path);

typedef enum mcp_oauth_mode {
  MCP_OAUTH_BROWSER = 0, /* xdg-open the authorization URL, or print it */
  MCP_OAUTH_PRINT,       /* print the URL only */
  /* Fetch the authorization URL and take the redirect it answers with:
   * for authorization servers that approve without a user (tests). */
  MCP_OAUTH_FOLLOW,
  /* Never start an authorization: only stored or refreshed tokens are
   * used, a login is refused with MCP_ERR_STATE (non-interactive use). */
  MCP_OAUTH_NONE
} mcp_oauth_mode;
MCP_API mcp_status mcp_oauth_set_mode(mcp_oauth_t *a, mcp_oauth_mode mode);

/* How a pre-registered client authenticates at the token endpoint:
 * "client_secret_basic" (the default with a secret), "client_secret_post"
 * or "none". MCP_ERR_INVALID_ARG without mcp_oauth_set_client first, or
 * for a secret method without a secret. */
MCP_API mcp_status mcp_oauth_set_client_auth_method(mcp_oauth_t *a,
                                                    const char *method);
/* A pre-registered client authenticating with private_key_jwt (RFC 7523
 * 2.2): each token request carries an assertion (iss = sub = client_id,
 * aud = the authorization server's issuer, 5 minutes) signed with
 * private_key_pem (PEM, PKCS#8 or traditional). alg: "ES256" (P-256),
 * "RS256" or "PS256" (RSA, 2048 bits or more), "EdDSA" (Ed25519), or NULL
 * for the key type's usual one. A key that cannot sign with alg is
 * refused here, with a message. */
MCP_API mcp_status mcp_oauth_set_client_key(mcp_oauth_t *a,
                                            const char *client_id,
                                            const char *private_key_pem,
                                            const char *alg, mcp_error_t *err);

/* The grant a login runs. The default asks a user (authorization code with
 * PKCE); the others need none, so they also run in MCP_OAUTH_NONE mode,
 * and again on a 401 (they have no refresh token). */
typedef enum mcp_oauth_grant {
  MCP_OAUTH_GRANT_AUTHORIZATION_CODE = 0,
  /* OAuth client credentials (SEP-1046): the pre-registered client's own
   * access (mcp_oauth_set_client or mcp_oauth_set_client_key) */
  MCP_OAUTH_GRANT_CLIENT_CREDENTIALS,
  /* RFC 7523 JWT bearer with the assertion of mcp_oauth_set_assertion
   * (workload identity federation, SEP-1933: a token the platform issued
   * the workload, audience the authorization server) */
  MCP_OAUTH_GRANT_JWT_BEARER,
  /* enterprise-managed authorization (SEP-990): the IdP of
   * mcp_oauth_set_enterprise_idp exchanges the user's ID token for an
   * ID-JAG (RFC 8693 token exchange), presented as a JWT bearer grant */
  MCP_OAUTH_GRANT_ENTERPRISE
} mcp_oauth_grant;
MCP_API mcp_status mcp_oauth_set_grant(mcp_oauth_t *a, mcp_oauth_grant grant);
/* The JWT of MCP_OAUTH_GRANT_JWT_BEARER (copied). */
MCP_API mcp_status mcp_oauth_set_assertion(mcp_oauth_t *a, const char *jwt);
/* The IdP of MCP_OAUTH_GRANT_ENTERPRISE: its token endpoint, this client's
 * id there (and secret, sent as client_secret_post; NULL: none) and the
 * user's ID token it issued (copied). */
MCP_API mcp_status mcp_oauth_set_enterprise_idp(mcp_oauth_t *a,
                                                const char *token_endpoint,
                                                const char *client_id,
                                                const char *client_secret,
                                                const char *id_token);
/* DPoP (RFC 9449): token requests carry a proof of a P-256 key made for
 * this object (ES256), so the authorization server binds the tokens to it;
 * a token of type DPoP is then sent as "Authorization: DPoP" with a fresh
 * proof of each request (htm, htu without query, iat, jti, ath). A
 * use_dpop_nonce refusal is retried once with the server's DPoP-Nonce, at
 * the token endpoint and at the MCP server. DPoP-bound tokens are not
 * written to the token file (the key is never). */
MCP_API mcp_status mcp_oauth_set_dpop(mcp_oauth_t *a, bool enabled);

/* Runs the whole flow now. www_authenticate: a challenge the server sent
 * (NULL: discover from the server URL). */
MCP_API mcp_status mcp_oauth_login(mcp_oauth_t *a, const char *www_authenticate,
                                   mcp_error_t *err);
/* Forgets the tokens (and removes them from the token file). */
MCP_API mcp_status mcp_oauth_logout(mcp_oauth_t *a);
/* {"server", "logged_in", "scope", "expires_at", "refreshable",
 * "authorization_server", "client_id"} (new reference). */
MCP_API json_t *mcp_oauth_status(mcp_oauth_t *a);

/* Makes the client's HTTP transport get tokens from a (borrowed). */
MCP_API mcp_status mcp_client_options_use_oauth(mcp_client_options_t *o,
                                                mcp_oauth_t *a);

#ifdef __cplusplus
}
#endif

#endif
