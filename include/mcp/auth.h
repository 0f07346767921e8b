/* SPDX-License-Identifier: MIT */
/* auth.h - OAuth 2.1 resource server for the Streamable HTTP transport
 * (MCP authorization, 2025-11-25 and 2026-07-28).
 *
 * An mcp_auth_t describes how bearer tokens are checked:
 *  - JWT access tokens signed with RS256, PS256, ES256 or EdDSA, verified
 *    with keys from a JWKS file or from the issuer's jwks_uri (found by RFC
 *    8414 / OpenID Connect discovery), cached, refreshed when a token names
 *    an unknown `kid` (at most once per refresh interval). Each key admits
 *    only the algorithm of its kind (its JWK `alg` when present); `none`
 *    and HMAC are never accepted. `iss` must equal the issuer, `aud` must
 *    contain the audience (RFC 8707), `exp` is required and `exp`/`nbf`
 *    are checked with a leeway (default 60 s);
 *  - opaque tokens through RFC 7662 introspection, with a bounded cache;
 *  - required scopes per method and per tool, prompt or resource, checked
 *    before the handler runs (403 insufficient_scope);
 *  - RFC 9728 protected-resource metadata served at
 *    /.well-known/oauth-protected-resource (and the path-suffixed form).
 * Attach it to a transport with mcp_http_options_set_auth. Handlers see the
 * token's subject with mcp_call_subject and its scopes with
 * mcp_call_scopes / mcp_call_has_scope. The token itself goes nowhere.
 *
 * Ownership: mcp_auth_new returns an object owned by the caller, freed with
 * mcp_auth_free after every HTTP server using it has stopped. Strings are
 * copied.
 *
 * Thread safety: configure from one thread before the first server starts;
 * afterwards mcp_auth_verify and the transport may use it from any thread
 * (its key and introspection caches are locked inside).
 */
#ifndef MCP_AUTH_H
#define MCP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/http.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_auth mcp_auth_t;

/* resource: this server's resource identifier (RFC 8707/9728), e.g.
 * "https://mcp.example.com/mcp"; tokens must name it in `aud` and it is the
 * `resource` of the metadata. */
MCP_API mcp_status mcp_auth_new(const char *resource, mcp_auth_t **out);
MCP_API void mcp_auth_free(mcp_auth_t *a);

/* The authorization server (exact `iss` of tokens, listed in the metadata's
 * authorization_servers). Without a JWKS file or URI its keys are found by
 * discovery at issuer + /.well-known/oauth-authorization-server, then
 * /.well-known/openid-configuration. */
MCP_API mcp_status mcp_auth_set_issuer(mcp_auth_t *a, const char *issuer);
/* Keys from a JWKS file (read at the first token and re-read, rate-limited,
 * when a token names an unknown kid). */
MCP_API mcp_status mcp_auth_set_jwks_file(mcp_auth_t *a, const char *path);
/* Keys from this URL instead of the discovered jwks_uri. */
MCP_API mcp_status mcp_auth_set_jwks_uri(mcp_auth_t *a, const char *url);
/* Opaque (non-JWT) tokens are sent to this RFC 7662 endpoint with HTTP
 * Basic client credentials (client_secret may be NULL). endpoint NULL: use
 * the discovered introspection_endpoint when credentials are given. */
MCP_API mcp_status mcp_auth_set_introspection(mcp_auth_t *a,
                                              const char *endpoint,
                                              const char *client_id,
                                              const char *client_secret);
/* Introspection answers are cached up to max_entries (default 1024) for at
 * most max_ttl_s (default 60) and never past the token's exp. 0 entries
 * disables the cache. */
MCP_API mcp_status mcp_auth_set_introspection_cache(mcp_auth_t *a,
                                                    size_t max_entries,
                                                    int max_ttl_s);
/* Clock skew allowed on exp and nbf, 0..600 s (default 60). */
MCP_API mcp_status mcp_auth_set_leeway_s(mcp_auth_t *a, int seconds);
/* Least time between two key refreshes caused by unknown kids, 0..86400 s
 * (default 30). */
MCP_API mcp_status mcp_auth_set_refresh_interval_s(mcp_auth_t *a, int seconds);
/* CA bundle for https fetches (discovery, JWKS, introspection); default:
 * the system store. */
MCP_API mcp_status mcp_auth_set_cainfo(mcp_auth_t *a, const char *path);
/* Adds a scope to the metadata's scopes_supported (also the scope hint of
 * a 401 when no method-wide scopes are required); a scope added again is
 * listed once. */
MCP_API mcp_status mcp_auth_add_scope_supported(mcp_auth_t *a,
                                                const char *scope);
/* Requires every scope of `scopes` (space-separated) for requests of
 * method ("tools/call", "resources/read", ... or "*" for every request)
 * and, when name is not NULL, only for the tool or prompt of that name or
 * the resource of that URI. Requirements add up. */
MCP_API mcp_status mcp_auth_require_scopes(mcp_auth_t *a, const char *method,
                                           const char *name,
                                           const char *scopes);

/* DPoP (RFC 9449). By default (MCP_AUTH_DPOP_ACCEPT) a request may carry
 * "Authorization: DPoP <token>" with a DPoP proof header: the proof must
 * be a dpop+jwt signed (ES256, EdDSA, RS256 or PS256) by the public JWK in
 * its header, name this request (htm; htu = scheme, Host and path, or the
 * resource URL, without query), be issued within the window (iat), carry
 * ath = base64url(SHA-256(token)) and a jti not seen before within the
 * window, and the token's cnf.jkt must be the RFC 7638 thumbprint of that
 * JWK. A token bound by cnf.jkt is refused as a Bearer token. With
 * MCP_AUTH_DPOP_REQUIRE every Bearer token is refused. Refusals answer 401
 * with a "WWW-Authenticate: DPoP algs=..." challenge and an error
 * (invalid_dpop_proof, use_dpop_nonce, invalid_token). */
typedef enum mcp_auth_dpop {
  MCP_AUTH_DPOP_ACCEPT = 0,
  MCP_AUTH_DPOP_REQUIRE
} mcp_auth_dpop;
MCP_API mcp_status mcp_auth_set_dpop(mcp_auth_t *a, mcp_auth_dpop mode);
/* How far a proof's iat may be from now, 1..600 s (default 60); also how
 * long a jti is remembered. */
MCP_API mcp_status mcp_auth_set_dpop_window_s(mcp_auth_t *a, int seconds);
/* Asks clients for a server nonce (RFC 9449 9) that changes every seconds
 * (1..86400; the previous one stays good) and is sent in DPoP-Nonce; 0
 * (the default): none. */
MCP_API mcp_status mcp_auth_set_dpop_nonce_s(mcp_auth_t *a, int seconds);
/* The secret nonces derive from (16..64 bytes, copied; default: random per
 * object). Replicas given the same secret (e.g. from
 * mcp_store_postgres_shared_secret) and the same nonce period accept each
 * other's nonces. Call after mcp_auth_set_dpop_nonce_s. */
MCP_API mcp_status mcp_auth_set_dpop_nonce_secret(mcp_auth_t *a,
                                                  const unsigned char *secret,
                                                  size_t len);
/* Slots of the jti replay cache, 64..16777216 (default 65536). When the
 * proofs of one window do not fit, further ones get a 503 (never a replay
 * let through). The cache is this object's own; when the server's tasks
 * run on a PostgreSQL store, the HTTP transport also records each accepted
 * proof there (table mcp_dpop_jti), so replicas on that database refuse
 * each other's replays, and a proof the database cannot record gets a 503
 * (docs/auth.md "DPoP"). */
MCP_API mcp_status mcp_auth_set_dpop_replay_cache(mcp_auth_t *a,
                                                  size_t slots);

/* Checks a bearer token as the transport does (no scope rules): MCP_OK with
 * *subject and *scopes (space-separated, "" when none) malloc'd for the
 * caller; MCP_ERR_PEER when the token is not acceptable, MCP_ERR_IO when
 * keys or introspection could not be fetched; err says why. */
MCP_API mcp_status mcp_auth_verify(mcp_auth_t *a, const char *token,
                                   char **subject, char **scopes,
                                   mcp_error_t *err);

/* Protects an HTTP transport with a (borrowed; it must outlive the server).
 * NULL removes it. Without auth, a server bound to an address that is not
 * loopback logs a warning at start. */
MCP_API mcp_status mcp_http_options_set_auth(mcp_http_options_t *o,
                                             mcp_auth_t *a);

#ifdef __cplusplus
}
#endif

#endif
