/* SPDX-License-Identifier: MIT */
/* auth_internal.h - the resource server's configuration and caches, shared
 * by auth.c (API), keys.c (JWKS sources), jwt.c (JWT checks),
 * introspect.c (RFC 7662), scopes.c (scope rules) and admit.c (HTTP
 * admission for the transport).
 *
 * Locks: keys_lock guards the current key set and the discovery state;
 * cache_lock the introspection cache. Neither is held during a fetch
 * except keys_lock, which serialises refreshes (one fetch at a time; the
 * others wait for its result instead of fetching too). */
#ifndef MCP_AUTH_INTERNAL_H
#define MCP_AUTH_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "auth/jwk.h"
#include "mcp/auth.h"

#define MCP__AUTH_MAX_TOKEN 8192 /* longer bearer tokens get a 401 */

/* The outcome of checking a token. */
typedef enum mcp__verdict {
  MCP__TOKEN_OK = 0,
  MCP__TOKEN_INVALID,    /* 401 invalid_token */
  MCP__TOKEN_UNAVAILABLE /* keys or introspection unreachable: 503 */
} mcp__verdict;

/* Who a valid token speaks for. */
typedef struct mcp__principal {
  char *subject;
  char *scopes; /* space-separated, "" when none */
  int64_t exp;  /* seconds since the epoch, 0 when unknown */
} mcp__principal;

void mcp__principal_clear(mcp__principal *p);

typedef struct mcp__scope_rule {
  char *method; /* "*" for all */
  char *name;   /* tool/prompt name or resource URI, or NULL */
  char *scopes; /* space-separated */
} mcp__scope_rule;

typedef struct mcp__icache_entry {
  unsigned char key[32]; /* SHA-256 of the token: tokens are not kept */
  mcp__principal p;
  int64_t expires_ms; /* monotonic */
  bool used;
} mcp__icache_entry;

struct mcp_auth {
  char *resource;
  char *issuer;
  char *jwks_file, *jwks_uri, *cainfo;
  char *introspection, *client_id, *client_secret;
  int leeway_s, refresh_s;
  char **scopes_supported;
  size_t nscopes_supported;
  mcp__scope_rule *rules;
  size_t nrules;

  pthread_mutex_t keys_lock;
  mcp__jwks *keys;           /* current set or NULL */
  bool discovered;           /* discovery ran successfully */
  char *found_jwks_uri;      /* from discovery */
  char *found_introspection; /* from discovery */
  int64_t last_refresh_ms;   /* monotonic; 0: never */
  bool refresh_ever;

  pthread_mutex_t cache_lock;
  mcp__icache_entry *cache;
  size_t cache_max;
  int cache_ttl_s;
};

/* ---- keys.c -------------------------------------------------------------- */
/* The current key set (counted), loading it on first use; when kid is
 * given and unknown, refreshes once if the refresh interval allows. NULL
 * with *unavailable set when no keys could be obtained. */
mcp__jwks *mcp__auth_keys(mcp_auth_t *a, const char *kid, bool *unavailable,
                          mcp_error_t *err);
/* Whether JWTs can be checked (a JWKS file, URI or issuer is set). */
bool mcp__auth_has_keys(const mcp_auth_t *a);
/* The introspection endpoint (configured or discovered) or NULL. */
const char *mcp__auth_introspection_endpoint(mcp_auth_t *a);

/* ---- jwt.c --------------------------------------------------------------- */
/* Whether token has the shape of a JWS compact serialization (3 parts). */
bool mcp__looks_like_jwt(const char *token);
mcp__verdict mcp__jwt_check(mcp_auth_t *a, const char *token, int64_t now_s,
                            mcp__principal *out, mcp_error_t *err);

/* ---- introspect.c -------------------------------------------------------- */
mcp__verdict mcp__introspect(mcp_auth_t *a, const char *token, int64_t now_s,
                             mcp__principal *out, mcp_error_t *err);
void mcp__icache_free(mcp_auth_t *a);

/* ---- auth.c -------------------------------------------------------------- */
/* Checks a token: JWT when keys are configured and it looks like one, else
 * introspection when configured. */
mcp__verdict mcp__auth_check_token(mcp_auth_t *a, const char *token,
                                   mcp__principal *out, mcp_error_t *err);
/* True when scopes (space-separated) holds scope. */
bool mcp__scope_has(const char *scopes, const char *scope);
/* The same for the n bytes at scope (not NUL-terminated). */
bool mcp__scope_has_n(const char *scopes, const char *scope, size_t n);

#endif
