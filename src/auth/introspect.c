/* SPDX-License-Identifier: MIT */
/* introspect.c - opaque access tokens through RFC 7662 token introspection,
 * with a bounded cache keyed by the token's SHA-256 (the token itself is
 * not kept). Only active answers are cached, never past the token's exp. */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/auth_internal.h"
#include "auth/fetch.h"

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool principal_copy(mcp__principal *dst, const mcp__principal *src) {
  dst->subject = strdup(src->subject);
  dst->scopes = strdup(src->scopes);
  dst->exp = src->exp;
  dst->jkt = src->jkt ? strdup(src->jkt) : NULL;
  if (dst->subject && dst->scopes && (src->jkt == NULL || dst->jkt))
    return true;
  mcp__principal_clear(dst);
  return false;
}

static bool cache_get(mcp_auth_t *a, const unsigned char key[32],
                      mcp__principal *out) {
  bool hit = false;
  int64_t now = mono_ms();
  pthread_mutex_lock(&a->cache_lock);
  for (size_t i = 0; i < a->cache_max && a->cache; i++) {
    mcp__icache_entry *e = &a->cache[i];
    if (!e->used || memcmp(e->key, key, 32) != 0)
      continue;
    if (now >= e->expires_ms) {
      e->used = false;
      mcp__principal_clear(&e->p);
    } else {
      hit = principal_copy(out, &e->p);
    }
    break;
  }
  pthread_mutex_unlock(&a->cache_lock);
  return hit;
}

/* Stores p for ttl_ms: a free or expired slot, else the one expiring
 * first. */
static void cache_put(mcp_auth_t *a, const unsigned char key[32],
                      const mcp__principal *p, int64_t ttl_ms) {
  if (a->cache_max == 0 || ttl_ms <= 0)
    return;
  int64_t now = mono_ms();
  pthread_mutex_lock(&a->cache_lock);
  if (a->cache == NULL)
    a->cache = calloc(a->cache_max, sizeof *a->cache);
  mcp__icache_entry *slot = NULL;
  for (size_t i = 0; a->cache && i < a->cache_max; i++) {
    mcp__icache_entry *e = &a->cache[i];
    if (!e->used || now >= e->expires_ms) {
      slot = e;
      break;
    }
    if (slot == NULL || e->expires_ms < slot->expires_ms)
      slot = e;
  }
  if (slot) {
    mcp__principal_clear(&slot->p);
    slot->used = principal_copy(&slot->p, p);
    memcpy(slot->key, key, 32);
    slot->expires_ms = now + ttl_ms;
  }
  pthread_mutex_unlock(&a->cache_lock);
}

void mcp__icache_free(mcp_auth_t *a) {
  for (size_t i = 0; a->cache && i < a->cache_max; i++)
    mcp__principal_clear(&a->cache[i].p);
  free(a->cache);
  a->cache = NULL;
}

static char *form_encode(const char *token) {
  static const char hex[] = "0123456789ABCDEF";
  const char *prefix = "token=", *suffix = "&token_type_hint=access_token";
  size_t n = strlen(token);
  char *out = malloc(strlen(prefix) + 3 * n + strlen(suffix) + 1);
  if (out == NULL)
    return NULL;
  char *p = out + strlen(strcpy(out, prefix));
  for (const unsigned char *t = (const unsigned char *)token; *t; t++) {
    if ((*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z') ||
        (*t >= '0' && *t <= '9') || *t == '-' || *t == '_' || *t == '.' ||
        *t == '~') {
      *p++ = (char)*t;
    } else {
      *p++ = '%';
      *p++ = hex[*t >> 4];
      *p++ = hex[*t & 15];
    }
  }
  strcpy(p, suffix);
  return out;
}

static bool aud_has(const json_t *aud, const char *resource) {
  if (aud == NULL)
    return true; /* RFC 7662: optional; the AS vouches for the token */
  if (json_is_string(aud))
    return strcmp(json_string_value(aud), resource) == 0;
  size_t i;
  const json_t *v;
  json_array_foreach(aud, i, v) {
    if (json_is_string(v) && strcmp(json_string_value(v), resource) == 0)
      return true;
  }
  return false;
}

static mcp__verdict judge(mcp_auth_t *a, const json_t *doc, int64_t now_s,
                          mcp__principal *out, mcp_error_t *err) {
  if (!json_is_true(json_object_get(doc, "active"))) {
    mcp_error_set(err, MCP_ERR_PEER, "the token is not active");
    return MCP__TOKEN_INVALID;
  }
  const char *iss = json_string_value(json_object_get(doc, "iss"));
  const json_t *exp = json_object_get(doc, "exp");
  const char *sub = json_string_value(json_object_get(doc, "sub"));
  if (sub == NULL)
    sub = json_string_value(json_object_get(doc, "username"));
  const char *scope = json_string_value(json_object_get(doc, "scope"));
  const char *why = NULL;
  if (a->issuer && iss && strcmp(iss, a->issuer) != 0)
    why = "the token was issued by another issuer";
  else if (!aud_has(json_object_get(doc, "aud"), a->resource))
    why = "the token is for another audience";
  else if (exp && (!json_is_number(exp) ||
                   (double)now_s > json_number_value(exp) + a->leeway_s))
    why = "the token expired";
  else if (sub == NULL || sub[0] == '\0')
    why = "the token has no subject";
  if (why) {
    mcp_error_set(err, MCP_ERR_PEER, "%s", why);
    return MCP__TOKEN_INVALID;
  }
  out->subject = strdup(sub);
  out->scopes = strdup(scope ? scope : "");
  out->exp = exp ? mcp__numeric_date(json_number_value(exp)) : 0;
  const char *jkt =
      json_string_value(json_object_get(json_object_get(doc, "cnf"), "jkt"));
  out->jkt = jkt ? strdup(jkt) : NULL;
  if (out->subject == NULL || out->scopes == NULL ||
      (jkt != NULL && out->jkt == NULL)) {
    mcp__principal_clear(out);
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    return MCP__TOKEN_UNAVAILABLE;
  }
  return MCP__TOKEN_OK;
}

mcp__verdict mcp__introspect(mcp_auth_t *a, const char *token, int64_t now_s,
                             mcp__principal *out, mcp_error_t *err) {
  memset(out, 0, sizeof *out);
  const char *endpoint = mcp__auth_introspection_endpoint(a);
  if (endpoint == NULL) {
    mcp_error_set(err, MCP_ERR_PEER, "the token is not a JWT");
    return MCP__TOKEN_INVALID;
  }
  unsigned char key[32];
  unsigned int klen = 0;
  EVP_Digest(token, strlen(token), key, &klen, EVP_sha256(), NULL);
  if (cache_get(a, key, out)) {
    if (out->exp == 0 || now_s <= out->exp + a->leeway_s)
      return MCP__TOKEN_OK;
    mcp__principal_clear(out);
  }
  char *form = form_encode(token);
  if (form == NULL) {
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    return MCP__TOKEN_UNAVAILABLE;
  }
  mcp__fetch_request req = {endpoint,         form,      a->client_id,
                            a->client_secret, a->cainfo, 5000,
                            NULL};
  long status = 0;
  char *body = NULL;
  size_t len = 0;
  mcp_status s = mcp__fetch(&req, &status, &body, &len, err);
  free(form);
  if (s != MCP_OK)
    return MCP__TOKEN_UNAVAILABLE;
  json_t *doc = status == 200 ? json_loadb(body, len, 0, NULL) : NULL;
  free(body);
  if (!json_is_object(doc)) {
    json_decref(doc);
    mcp_error_set(err, MCP_ERR_IO, "introspection failed (HTTP %ld)", status);
    return MCP__TOKEN_UNAVAILABLE;
  }
  mcp__verdict v = judge(a, doc, now_s, out, err);
  json_decref(doc);
  if (v == MCP__TOKEN_OK) {
    int64_t ttl = (int64_t)a->cache_ttl_s * 1000;
    if (out->exp && (out->exp - now_s) * 1000 < ttl)
      ttl = (out->exp - now_s) * 1000;
    cache_put(a, key, out, ttl);
  }
  return v;
}
