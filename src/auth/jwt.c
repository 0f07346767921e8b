/* SPDX-License-Identifier: MIT */
/* jwt.c - JWT access tokens (RFC 7519, RFC 9068) checked against the
 * configured keys: shape, header, signature with a key that admits the
 * header's alg, then iss, aud, exp, nbf. Keys named by the token itself
 * (jku, x5u, jwk) are never used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth/auth_internal.h"
#include "util/base64.h"

bool mcp__looks_like_jwt(const char *token) {
  const char *d1 = strchr(token, '.');
  const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
  return d2 != NULL && strchr(d2 + 1, '.') == NULL;
}

json_t *mcp__jws_segment_json(const char *p, size_t n) {
  size_t len = 0;
  unsigned char *raw = mcp__base64url_decode(p, n, &len);
  if (raw == NULL)
    return NULL;
  json_t *j = json_loadb((const char *)raw, len, JSON_REJECT_DUPLICATES, NULL);
  free(raw);
  if (!json_is_object(j)) {
    json_decref(j);
    return NULL;
  }
  return j;
}

static mcp__verdict invalid(mcp_error_t *err, const char *why) {
  mcp_error_set(err, MCP_ERR_PEER, "%s", why);
  return MCP__TOKEN_INVALID;
}

bool mcp__aud_names(const json_t *aud, const char *resource) {
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

/* "scope" (RFC 9068, space-separated) or "scp" (array or string). */
static char *scopes_of(const json_t *claims) {
  const json_t *s = json_object_get(claims, "scope");
  if (json_is_string(s))
    return strdup(json_string_value(s));
  s = json_object_get(claims, "scp");
  if (json_is_string(s))
    return strdup(json_string_value(s));
  size_t total = 1, i;
  const json_t *v;
  json_array_foreach(s, i, v) {
    if (json_is_string(v))
      total += strlen(json_string_value(v)) + 1;
  }
  char *out = malloc(total);
  if (out == NULL)
    return NULL;
  out[0] = '\0';
  json_array_foreach(s, i, v) {
    const char *t = json_string_value(v);
    if (t == NULL || strchr(t, ' '))
      continue;
    if (out[0])
      strcat(out, " ");
    strcat(out, t);
  }
  return out;
}

/* Registered time claims must be numbers (NumericDate). */
static bool time_claim(const json_t *claims, const char *name, bool required,
                       double *out) {
  const json_t *v = json_object_get(claims, name);
  if (v == NULL)
    return !required;
  if (!json_is_number(v))
    return false;
  *out = json_number_value(v);
  return true;
}

static mcp__verdict check_claims(mcp_auth_t *a, const json_t *claims,
                                 int64_t now, mcp__principal *out,
                                 mcp_error_t *err) {
  const char *iss = json_string_value(json_object_get(claims, "iss"));
  if (a->issuer && (iss == NULL || strcmp(iss, a->issuer) != 0))
    return invalid(err, "the token was issued by another issuer");
  if (!mcp__aud_names(json_object_get(claims, "aud"), a->resource))
    return invalid(err, "the token is for another audience");
  double exp = 0, nbf = 0;
  if (!time_claim(claims, "exp", true, &exp))
    return invalid(err, "the token has no valid exp");
  if (!time_claim(claims, "nbf", false, &nbf))
    return invalid(err, "the token has an invalid nbf");
  if ((double)now > exp + a->leeway_s)
    return invalid(err, "the token expired");
  if (nbf != 0 && (double)now + a->leeway_s < nbf)
    return invalid(err, "the token is not valid yet");
  const char *sub = json_string_value(json_object_get(claims, "sub"));
  if (sub == NULL || sub[0] == '\0')
    return invalid(err, "the token has no subject");
  out->subject = strdup(sub);
  out->scopes = scopes_of(claims);
  out->exp = mcp__numeric_date(exp);
  const json_t *cnf = json_object_get(claims, "cnf");
  const json_t *jkt = json_object_get(cnf, "jkt");
  if (cnf != NULL && (!json_is_object(cnf) ||
                      (jkt != NULL && !json_is_string(jkt)))) {
    mcp__principal_clear(out);
    return invalid(err, "the token has an invalid cnf claim");
  }
  out->jkt = jkt ? strdup(json_string_value(jkt)) : NULL;
  if (out->subject == NULL || out->scopes == NULL ||
      (jkt != NULL && out->jkt == NULL)) {
    mcp__principal_clear(out);
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    return MCP__TOKEN_UNAVAILABLE;
  }
  return MCP__TOKEN_OK;
}

static bool typ_ok(const json_t *typ) {
  if (typ == NULL)
    return true;
  const char *t = json_string_value(typ);
  return t && (strcasecmp(t, "JWT") == 0 || strcasecmp(t, "at+jwt") == 0 ||
               strcasecmp(t, "application/at+jwt") == 0);
}

/* Verifies the signature with the key the header names (or, without a kid,
 * any key admitting alg). */
static mcp__verdict check_signature(mcp_auth_t *a, mcp__key_wait wait,
                                    mcp__key_state *state,
                                    const json_t *header, unsigned alg,
                                    const char *token,
                                    size_t signed_len, const unsigned char *sig,
                                    size_t sig_len, mcp_error_t *err) {
  const json_t *kid_j = json_object_get(header, "kid");
  if (kid_j && !json_is_string(kid_j))
    return invalid(err, "the token's kid is not a string");
  const char *kid = json_string_value(kid_j);
  mcp__jwks *keys = mcp__auth_keys(a, kid, wait, state, err);
  if (keys == NULL)
    return MCP__TOKEN_UNAVAILABLE;
  bool ok = false, known = false;
  if (kid) {
    const mcp__jwk *k = mcp__jwks_find(keys, kid);
    known = k != NULL;
    ok = k && mcp__jwk_verify(k, alg, (const unsigned char *)token, signed_len,
                              sig, sig_len);
  } else {
    for (size_t i = 0; i < keys->n && !ok; i++) {
      known |= (keys->keys[i].algs & alg) != 0;
      ok = mcp__jwk_verify(&keys->keys[i], alg, (const unsigned char *)token,
                           signed_len, sig, sig_len);
    }
  }
  mcp__jwks_release(keys);
  if (ok)
    return MCP__TOKEN_OK;
  return invalid(err, known ? "the token's signature is invalid"
                            : "the token's signing key is unknown");
}

mcp__verdict mcp__jwt_check(mcp_auth_t *a, const char *token, int64_t now_s,
                            mcp__key_wait wait, mcp__key_state *keys,
                            mcp__principal *out, mcp_error_t *err) {
  memset(out, 0, sizeof *out);
  const char *d1 = strchr(token, '.');
  const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
  if (d2 == NULL || strchr(d2 + 1, '.') || d1 == token || d2 == d1 + 1 ||
      d2[1] == '\0')
    return invalid(err, "the token is not a signed JWT");
  json_t *header = mcp__jws_segment_json(token, (size_t)(d1 - token));
  if (header == NULL) {
    return invalid(err, "the token's header is malformed");
  }
  const json_t *alg_j = json_object_get(header, "alg");
  unsigned alg = mcp__alg_bit(json_string_value(alg_j));
  mcp__verdict v;
  size_t sig_len = 0;
  unsigned char *sig = NULL;
  json_t *claims = NULL;
  if (alg == 0)
    v = invalid(err, "the token's alg is not accepted");
  else if (json_object_get(header, "crit"))
    v = invalid(err, "the token has critical header parameters");
  else if (!typ_ok(json_object_get(header, "typ")))
    v = invalid(err, "the token's typ is not a JWT access token");
  else if ((sig = mcp__base64url_decode(d2 + 1, strlen(d2 + 1), &sig_len)) ==
           NULL)
    v = invalid(err, "the token's signature is malformed");
  else if ((claims = mcp__jws_segment_json(d1 + 1,
                                           (size_t)(d2 - d1 - 1))) == NULL)
    v = invalid(err, "the token's claims are malformed");
  else
    v = check_signature(a, wait, keys, header, alg, token, (size_t)(d2 - token), sig,
                        sig_len, err);
  if (v == MCP__TOKEN_OK)
    v = check_claims(a, claims, now_s, out, err);
  free(sig);
  json_decref(claims);
  json_decref(header);
  return v;
}
