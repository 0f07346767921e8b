/* SPDX-License-Identifier: MIT */
/* auth.c - the mcp_auth_t object: configuration, token checks (JWT or
 * introspection) and the scope helpers of mcp_call_t. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/auth_internal.h"
#include "auth/dpop.h"
#include "util/str.h"

void mcp__principal_clear(mcp__principal *p) {
  free(p->subject);
  free(p->scopes);
  free(p->jkt);
  p->subject = p->scopes = p->jkt = NULL;
  p->exp = 0;
}

int64_t mcp__numeric_date(double seconds) {
  const double last = 253402300799.0; /* 9999-12-31T23:59:59Z */
  if (!(seconds > 0)) /* also NaN */
    return 0;
  return seconds >= last ? (int64_t)last : (int64_t)seconds;
}

mcp_status mcp_auth_new(const char *resource, mcp_auth_t **out) {
  if (out == NULL || resource == NULL || resource[0] == '\0')
    return MCP_ERR_INVALID_ARG;
  mcp_auth_t *a = calloc(1, sizeof *a);
  if (a == NULL || (a->resource = strdup(resource)) == NULL) {
    free(a);
    return MCP_ERR_NOMEM;
  }
  a->leeway_s = 60;
  a->refresh_s = 30;
  a->cache_max = 1024;
  a->cache_ttl_s = 60;
  a->dpop_mode = MCP_AUTH_DPOP_ACCEPT;
  a->dpop_window_s = 60;
  a->dpop_seen_max = 65536;
  pthread_mutex_init(&a->dpop_lock, NULL);
  mcp__auth_keys_init(a);
  pthread_mutex_init(&a->cache_lock, NULL);
  mcp__introspect_init(a);
  mcp__replay_record_init(a);
  *out = a;
  return MCP_OK;
}

void mcp_auth_free(mcp_auth_t *a) {
  if (a == NULL)
    return;
  /* first: the introspection and replay record threads and the key
   * fetcher read the configuration */
  mcp__introspect_fini(a);
  mcp__replay_record_fini(a);
  mcp__auth_keys_fini(a);
  free(a->resource);
  free(a->issuer);
  free(a->jwks_file);
  free(a->jwks_uri);
  free(a->cainfo);
  free(a->introspection);
  free(a->client_id);
  free(a->client_secret);
  for (size_t i = 0; i < a->nscopes_supported; i++)
    free(a->scopes_supported[i]);
  free(a->scopes_supported);
  for (size_t i = 0; i < a->nrules; i++) {
    free(a->rules[i].method);
    free(a->rules[i].name);
    free(a->rules[i].scopes);
  }
  free(a->rules);
  mcp__icache_free(a);
  pthread_mutex_destroy(&a->cache_lock);
  mcp__dpop_fini(a);
  pthread_mutex_destroy(&a->dpop_lock);
  free(a);
}

mcp_status mcp_auth_set_issuer(mcp_auth_t *a, const char *issuer) {
  if (a == NULL || (issuer && strstr(issuer, "://") == NULL))
    return MCP_ERR_INVALID_ARG;
  return mcp__str_replace(&a->issuer, issuer);
}

mcp_status mcp_auth_set_jwks_file(mcp_auth_t *a, const char *path) {
  return a ? mcp__str_replace(&a->jwks_file, path) : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_auth_set_jwks_uri(mcp_auth_t *a, const char *url) {
  return a ? mcp__str_replace(&a->jwks_uri, url) : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_auth_set_cainfo(mcp_auth_t *a, const char *path) {
  return a ? mcp__str_replace(&a->cainfo, path) : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_auth_set_introspection(mcp_auth_t *a, const char *endpoint,
                                      const char *client_id,
                                      const char *client_secret) {
  if (a == NULL)
    return MCP_ERR_INVALID_ARG;
  if (mcp__str_replace(&a->introspection, endpoint) != MCP_OK ||
      mcp__str_replace(&a->client_id, client_id) != MCP_OK ||
      mcp__str_replace(&a->client_secret, client_secret) != MCP_OK)
    return MCP_ERR_NOMEM;
  return MCP_OK;
}

mcp_status mcp_auth_set_introspection_cache(mcp_auth_t *a, size_t max_entries,
                                            int max_ttl_s) {
  if (a == NULL || max_ttl_s < 0 || max_entries > 1000000)
    return MCP_ERR_INVALID_ARG;
  mcp__icache_free(a);
  a->cache_max = max_entries;
  a->cache_ttl_s = max_ttl_s;
  return MCP_OK;
}

mcp_status mcp_auth_set_leeway_s(mcp_auth_t *a, int seconds) {
  if (a == NULL || seconds < 0 || seconds > 600)
    return MCP_ERR_INVALID_ARG;
  a->leeway_s = seconds;
  return MCP_OK;
}

mcp_status mcp_auth_set_refresh_interval_s(mcp_auth_t *a, int seconds) {
  if (a == NULL || seconds < 0 || seconds > 86400)
    return MCP_ERR_INVALID_ARG;
  a->refresh_s = seconds;
  return MCP_OK;
}

/* A scope token is 1*NQCHAR without spaces (RFC 6749 3.3); quotes and
 * backslashes would break the WWW-Authenticate header. */
static bool scope_text_ok(const char *s, bool list) {
  if (s == NULL || s[0] == '\0')
    return false;
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == '"' || *s == '\\' || *s == 0x7f ||
        (*s == ' ' && !list))
      return false;
  return true;
}

mcp_status mcp_auth_add_scope_supported(mcp_auth_t *a, const char *scope) {
  if (a == NULL || !scope_text_ok(scope, false))
    return MCP_ERR_INVALID_ARG;
  for (size_t i = 0; i < a->nscopes_supported; i++)
    if (strcmp(a->scopes_supported[i], scope) == 0)
      return MCP_OK; /* listed once, however many rules name it */
  char **l =
      realloc(a->scopes_supported, (a->nscopes_supported + 1) * sizeof *l);
  if (l == NULL)
    return MCP_ERR_NOMEM;
  a->scopes_supported = l;
  if ((l[a->nscopes_supported] = strdup(scope)) == NULL)
    return MCP_ERR_NOMEM;
  a->nscopes_supported++;
  return MCP_OK;
}

mcp_status mcp_auth_require_scopes(mcp_auth_t *a, const char *method,
                                   const char *name, const char *scopes) {
  if (a == NULL || method == NULL || method[0] == '\0' ||
      !scope_text_ok(scopes, true))
    return MCP_ERR_INVALID_ARG;
  mcp__scope_rule *r = realloc(a->rules, (a->nrules + 1) * sizeof *r);
  if (r == NULL)
    return MCP_ERR_NOMEM;
  a->rules = r;
  mcp__scope_rule *n = &r[a->nrules];
  n->method = strdup(method);
  n->name = name ? strdup(name) : NULL;
  n->scopes = strdup(scopes);
  if (n->method == NULL || n->scopes == NULL || (name && n->name == NULL)) {
    free(n->method);
    free(n->name);
    free(n->scopes);
    return MCP_ERR_NOMEM;
  }
  a->nrules++;
  return MCP_OK;
}

mcp__verdict mcp__auth_check_token(mcp_auth_t *a, const char *token,
                                   mcp__key_wait wait,
                                   const mcp__auth_async *async,
                                   mcp__key_state *keys, mcp__principal *out,
                                   mcp_error_t *err) {
  memset(out, 0, sizeof *out);
  memset(keys, 0, sizeof *keys);
  if (token == NULL || token[0] == '\0') {
    mcp_error_set(err, MCP_ERR_PEER, "no token");
    return MCP__TOKEN_INVALID;
  }
  if (strlen(token) > MCP__AUTH_MAX_TOKEN) {
    mcp_error_set(err, MCP_ERR_PEER, "the token is too long");
    return MCP__TOKEN_INVALID;
  }
  int64_t now = (int64_t)time(NULL);
  if (mcp__auth_has_keys(a) && mcp__looks_like_jwt(token) &&
      (a->jwks_file || a->jwks_uri || a->client_id == NULL))
    return mcp__jwt_check(a, token, now, wait, keys, out, err);
  mcp__verdict v = mcp__introspect(
      a, token, now, async ? async->ready : NULL, async ? async->ctx : NULL,
      async ? async->wait : NULL, &keys->retry_after_s, out, err);
  keys->unavailable = v == MCP__TOKEN_UNAVAILABLE;
  return v;
}

mcp_status mcp_auth_verify(mcp_auth_t *a, const char *token, char **subject,
                           char **scopes, mcp_error_t *err) {
  if (a == NULL || token == NULL || subject == NULL || scopes == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "missing argument");
  mcp__principal p;
  mcp__key_state keys;
  mcp__verdict v =
      mcp__auth_check_token(a, token, MCP__KEYS_WAIT, NULL, &keys, &p, err);
  if (v == MCP__TOKEN_INVALID)
    return MCP_ERR_PEER;
  if (v != MCP__TOKEN_OK)
    return MCP_ERR_IO;
  *subject = p.subject;
  *scopes = p.scopes;
  free(p.jkt); /* the binding is the transport's business (DPoP) */
  return MCP_OK;
}

bool mcp__scope_has(const char *scopes, const char *scope) {
  return scope != NULL && mcp__scope_has_n(scopes, scope, strlen(scope));
}

bool mcp__scope_has_n(const char *scopes, const char *scope, size_t n) {
  if (scopes == NULL || scope == NULL || n == 0)
    return false;
  for (const char *p = scopes; *p;) {
    while (*p == ' ')
      p++;
    size_t len = strcspn(p, " ");
    if (len == n && strncmp(p, scope, n) == 0)
      return true;
    p += len;
  }
  return false;
}

bool mcp_call_has_scope(const mcp_call_t *call, const char *scope) {
  return mcp__scope_has(mcp_call_scopes(call), scope);
}
