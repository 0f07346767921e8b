/* SPDX-License-Identifier: MIT */
/* keys.c - where verification keys come from: a JWKS file, a JWKS URL, or
 * the issuer's metadata (RFC 8414, then OpenID Connect discovery); the
 * current set is cached and refreshed when a token names an unknown kid, at
 * most once per refresh interval. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth_internal.h"
#include "auth/fetch.h"
#include "util/clock.h"

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool mcp__auth_has_keys(const mcp_auth_t *a) {
  return a->jwks_file || a->jwks_uri || a->issuer;
}

/* GET url as a JSON object. */
static mcp_status fetch_json(mcp_auth_t *a, const char *url, json_t **out,
                             mcp_error_t *err) {
  mcp__fetch_request req = {url, NULL, NULL, NULL, a->cainfo, 5000};
  long status = 0;
  char *body = NULL;
  size_t len = 0;
  mcp_status s = mcp__fetch(&req, &status, &body, &len, err);
  if (s != MCP_OK)
    return s;
  if (status != 200) {
    free(body);
    return mcp_error_set(err, MCP_ERR_IO, "%s: HTTP status %ld", url, status);
  }
  json_error_t je;
  *out = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
  free(body);
  if (!json_is_object(*out)) {
    json_decref(*out);
    *out = NULL;
    return mcp_error_set(err, MCP_ERR_IO, "%s: not a JSON object", url);
  }
  return MCP_OK;
}

/* RFC 8414 3.1: the well-known segment goes between host and path. */
static char *inserted_url(const char *issuer, const char *suffix) {
  const char *scheme = strstr(issuer, "://");
  if (scheme == NULL)
    return NULL;
  const char *path = strchr(scheme + 3, '/');
  size_t host_len = path ? (size_t)(path - issuer) : strlen(issuer);
  const char *rest = path ? path : "";
  size_t rest_len = strlen(rest);
  while (rest_len > 0 && rest[rest_len - 1] == '/')
    rest_len--;
  char *url = NULL;
  if (asprintf(&url, "%.*s%s%.*s", (int)host_len, issuer, suffix, (int)rest_len,
               rest) < 0)
    return NULL;
  return url;
}

/* OpenID Connect Discovery 4: appended to the issuer. */
static char *appended_url(const char *issuer, const char *suffix) {
  size_t n = strlen(issuer);
  while (n > 0 && issuer[n - 1] == '/')
    n--;
  char *url = NULL;
  if (asprintf(&url, "%.*s%s", (int)n, issuer, suffix) < 0)
    return NULL;
  return url;
}

/* Finds jwks_uri and introspection_endpoint. keys_lock held. */
static mcp_status discover(mcp_auth_t *a, mcp_error_t *err) {
  if (a->discovered)
    return MCP_OK;
  char *urls[3] = {
      inserted_url(a->issuer, "/.well-known/oauth-authorization-server"),
      appended_url(a->issuer, "/.well-known/openid-configuration"),
      inserted_url(a->issuer, "/.well-known/openid-configuration")};
  mcp_status s =
      mcp_error_set(err, MCP_ERR_IO, "no metadata for issuer %s", a->issuer);
  for (int i = 0; i < 3 && !a->discovered; i++) {
    json_t *doc = NULL;
    if (urls[i] == NULL || fetch_json(a, urls[i], &doc, err) != MCP_OK)
      continue;
    const char *iss = json_string_value(json_object_get(doc, "issuer"));
    const char *jwks = json_string_value(json_object_get(doc, "jwks_uri"));
    const char *intro =
        json_string_value(json_object_get(doc, "introspection_endpoint"));
    if (iss == NULL || strcmp(iss, a->issuer) != 0) {
      /* RFC 8414 3.3: metadata for another issuer must not be used */
      s = mcp_error_set(err, MCP_ERR_IO, "%s names issuer %s, not %s", urls[i],
                        iss ? iss : "(none)", a->issuer);
    } else {
      free(a->found_jwks_uri);
      free(a->found_introspection);
      a->found_jwks_uri = jwks ? strdup(jwks) : NULL;
      a->found_introspection = intro ? strdup(intro) : NULL;
      a->discovered = true;
      s = MCP_OK;
    }
    json_decref(doc);
  }
  for (int i = 0; i < 3; i++)
    free(urls[i]);
  return s;
}

static mcp__jwks *load_file(const char *path, mcp_error_t *err) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    mcp_error_set(err, MCP_ERR_IO, "cannot open JWKS file %s", path);
    return NULL;
  }
  char *text = malloc(MCP__FETCH_MAX_BYTES + 1);
  size_t n = text ? fread(text, 1, MCP__FETCH_MAX_BYTES + 1, f) : 0;
  fclose(f);
  mcp__jwks *s = NULL;
  if (text == NULL)
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  else if (n > MCP__FETCH_MAX_BYTES)
    mcp_error_set(err, MCP_ERR_LIMIT, "JWKS file %s is too large", path);
  else
    s = mcp__jwks_parse_text(text, n, err);
  free(text);
  return s;
}

/* A fresh key set from the configured source. keys_lock held. */
static mcp__jwks *load_keys(mcp_auth_t *a, mcp_error_t *err) {
  if (a->jwks_file)
    return load_file(a->jwks_file, err);
  const char *uri = a->jwks_uri;
  if (uri == NULL) {
    if (discover(a, err) != MCP_OK)
      return NULL;
    uri = a->found_jwks_uri;
    if (uri == NULL) {
      mcp_error_set(err, MCP_ERR_IO, "issuer %s publishes no jwks_uri",
                    a->issuer);
      return NULL;
    }
  }
  json_t *doc = NULL;
  if (fetch_json(a, uri, &doc, err) != MCP_OK)
    return NULL;
  mcp__jwks *s = mcp__jwks_parse(doc, err);
  json_decref(doc);
  return s;
}

mcp__jwks *mcp__auth_keys(mcp_auth_t *a, const char *kid, bool *unavailable,
                          mcp_error_t *err) {
  *unavailable = false;
  pthread_mutex_lock(&a->keys_lock);
  int64_t now = now_ms();
  bool due = !a->refresh_ever ||
             now - a->last_refresh_ms >= (int64_t)a->refresh_s * 1000;
  bool need =
      a->keys == NULL || (kid != NULL && mcp__jwks_find(a->keys, kid) == NULL);
  /* Without any keys, retry sooner: the first load may have met an
   * authorization server that was still starting. */
  if (a->keys == NULL && a->refresh_ever &&
      now - a->last_refresh_ms >= (a->refresh_s < 5 ? a->refresh_s : 5) * 1000)
    due = true;
  bool tried = need && due;
  if (tried) {
    a->refresh_ever = true;
    a->last_refresh_ms = now;
    mcp__jwks *fresh = load_keys(a, err);
    if (fresh) {
      mcp__jwks_release(a->keys);
      a->keys = fresh;
    }
  }
  mcp__jwks *k = a->keys;
  mcp__jwks_retain(k);
  pthread_mutex_unlock(&a->keys_lock);
  if (k == NULL) {
    *unavailable = true;
    if (!tried)
      mcp_error_set(err, MCP_ERR_IO, "no signing keys available");
  }
  return k;
}

const char *mcp__auth_introspection_endpoint(mcp_auth_t *a) {
  if (a->introspection)
    return a->introspection;
  if (a->client_id == NULL || a->issuer == NULL)
    return NULL;
  pthread_mutex_lock(&a->keys_lock);
  mcp_error_t err;
  if (!a->discovered)
    discover(a, &err);
  const char *e = a->found_introspection;
  pthread_mutex_unlock(&a->keys_lock);
  return e; /* stable once discovered: discovery runs once */
}
