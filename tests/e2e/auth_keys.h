/* SPDX-License-Identifier: MIT */
/* auth_keys.h - signing keys and access tokens made in the test with
 * OpenSSL for the resource-server tests: RSA (RS256, PS256), EC P-256
 * (ES256), Ed25519 (EdDSA), JWK export, JWT signing, and the forgeries the
 * verifier must refuse (alg none, HS256 keyed with the public key).
 * Header-only like http_client.h (one executable per *_test.c). */
#ifndef MCP_TEST_AUTH_KEYS_H
#define MCP_TEST_AUTH_KEYS_H

#include <jansson.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/base64.h"

static EVP_PKEY *tk_gen(const char *type) {
  EVP_PKEY *pk = NULL;
  if (strcmp(type, "RSA") == 0)
    pk = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
  else if (strcmp(type, "EC") == 0)
    pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  else
    pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
  return pk;
}

static json_t *tk_b64_bn(EVP_PKEY *pk, const char *param, int pad) {
  BIGNUM *bn = NULL;
  EVP_PKEY_get_bn_param(pk, param, &bn);
  unsigned char buf[1024];
  int n = pad ? BN_bn2binpad(bn, buf, pad) : BN_bn2bin(bn, buf);
  BN_free(bn);
  char *s = mcp__base64url_encode(buf, (size_t)n);
  json_t *j = json_string(s);
  free(s);
  return j;
}

/* The public JWK of pk with kid and, when alg is not NULL, "alg". */
static json_t *tk_jwk(EVP_PKEY *pk, const char *kid, const char *alg) {
  json_t *k = json_object();
  switch (EVP_PKEY_get_base_id(pk)) {
  case EVP_PKEY_RSA:
    json_object_set_new(k, "kty", json_string("RSA"));
    json_object_set_new(k, "n", tk_b64_bn(pk, OSSL_PKEY_PARAM_RSA_N, 0));
    json_object_set_new(k, "e", tk_b64_bn(pk, OSSL_PKEY_PARAM_RSA_E, 0));
    break;
  case EVP_PKEY_EC:
    json_object_set_new(k, "kty", json_string("EC"));
    json_object_set_new(k, "crv", json_string("P-256"));
    json_object_set_new(k, "x", tk_b64_bn(pk, OSSL_PKEY_PARAM_EC_PUB_X, 32));
    json_object_set_new(k, "y", tk_b64_bn(pk, OSSL_PKEY_PARAM_EC_PUB_Y, 32));
    break;
  default: {
    unsigned char raw[32];
    size_t n = sizeof raw;
    EVP_PKEY_get_raw_public_key(pk, raw, &n);
    char *s = mcp__base64url_encode(raw, n);
    json_object_set_new(k, "kty", json_string("OKP"));
    json_object_set_new(k, "crv", json_string("Ed25519"));
    json_object_set_new(k, "x", json_string(s));
    free(s);
  }
  }
  if (kid)
    json_object_set_new(k, "kid", json_string(kid));
  if (alg)
    json_object_set_new(k, "alg", json_string(alg));
  return k;
}

/* Writes {"keys":[...]} (steals keys) to path. */
static void tk_write_jwks(const char *path, json_t *keys) {
  json_t *doc = json_pack("{s:o}", "keys", keys);
  json_dump_file(doc, path, JSON_COMPACT);
  json_decref(doc);
}

/* The PEM text of pk's public key (what an attacker who wants an HS256
 * token to pass uses as the HMAC secret). */
static char *tk_public_pem(EVP_PKEY *pk, size_t *len) {
  BIO *b = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(b, pk);
  char *data = NULL;
  long n = BIO_get_mem_data(b, &data);
  char *out = malloc((size_t)n + 1);
  memcpy(out, data, (size_t)n);
  out[n] = '\0';
  BIO_free(b);
  *len = (size_t)n;
  return out;
}

/* Signs input with pk for alg; returns the base64url signature. */
static char *tk_sign(EVP_PKEY *pk, const char *alg, const char *input) {
  size_t in_len = strlen(input);
  unsigned char sig[1024];
  size_t slen = sizeof sig;
  if (strcmp(alg, "none") == 0)
    return strdup("");
  if (strcmp(alg, "HS256") == 0) {
    size_t kl;
    char *key = tk_public_pem(pk, &kl);
    unsigned int ml = 0;
    HMAC(EVP_sha256(), key, (int)kl, (const unsigned char *)input, in_len, sig,
         &ml);
    free(key);
    return mcp__base64url_encode(sig, ml);
  }
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_PKEY_CTX *pctx = NULL;
  bool ed = strcmp(alg, "EdDSA") == 0;
  EVP_DigestSignInit(md, &pctx, ed ? NULL : EVP_sha256(), NULL, pk);
  if (strcmp(alg, "PS256") == 0) {
    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
  }
  EVP_DigestSign(md, sig, &slen, (const unsigned char *)input, in_len);
  EVP_MD_CTX_free(md);
  if (strcmp(alg, "ES256") == 0) { /* DER -> R || S */
    const unsigned char *p = sig;
    ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)slen);
    unsigned char rs[64];
    BN_bn2binpad(ECDSA_SIG_get0_r(es), rs, 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(es), rs + 32, 32);
    ECDSA_SIG_free(es);
    return mcp__base64url_encode(rs, 64);
  }
  return mcp__base64url_encode(sig, slen);
}

/* A compact JWS of claims signed by pk (alg); header and claims are
 * stolen. */
static char *tk_jws(EVP_PKEY *pk, const char *alg, json_t *header,
                    json_t *claims) {
  char *hs = json_dumps(header, JSON_COMPACT),
       *cs = json_dumps(claims, JSON_COMPACT);
  char *h64 = mcp__base64url_encode(hs, strlen(hs));
  char *c64 = mcp__base64url_encode(cs, strlen(cs));
  char *input = NULL;
  if (asprintf(&input, "%s.%s", h64, c64) < 0)
    abort();
  char *sig = tk_sign(pk, alg, input);
  char *jws = NULL;
  if (asprintf(&jws, "%s.%s", input, sig) < 0)
    abort();
  free(hs);
  free(cs);
  free(h64);
  free(c64);
  free(input);
  free(sig);
  json_decref(header);
  json_decref(claims);
  return jws;
}

/* A compact JWS of claims (steals) with header {"alg":alg,"kid":kid}
 * signed by pk. */
static char *tk_token(EVP_PKEY *pk, const char *alg, const char *kid,
                      json_t *claims) {
  json_t *h = json_pack("{s:s,s:s}", "alg", alg, "typ", "at+jwt");
  if (kid)
    json_object_set_new(h, "kid", json_string(kid));
  return tk_jws(pk, alg, h, claims);
}

/* The DPoP "ath" of token (RFC 9449 4.2): base64url of its SHA-256. */
__attribute__((unused)) static char *tk_ath(const char *token) {
  unsigned char md[32];
  unsigned int n = 0;
  EVP_Digest(token, strlen(token), md, &n, EVP_sha256(), NULL);
  return mcp__base64url_encode(md, n);
}

/* The header of a DPoP proof by pk (RFC 9449 4.2): typ, alg, public jwk. */
__attribute__((unused)) static json_t *tk_dpop_header(EVP_PKEY *pk,
                                                    const char *alg,
                                                    const char *typ) {
  return json_pack("{s:s,s:s,s:o}", "typ", typ ? typ : "dpop+jwt", "alg", alg,
                   "jwk", tk_jwk(pk, NULL, NULL));
}

/* Claims of a token valid now for issuer/audience, for sub with scope. */
static json_t *tk_claims(const char *iss, const char *aud, const char *sub,
                         const char *scope) {
  long now = (long)time(NULL);
  json_t *c =
      json_pack("{s:s,s:s,s:s,s:I,s:I}", "iss", iss, "aud", aud, "sub", sub,
                "iat", (json_int_t)now, "exp", (json_int_t)(now + 300));
  if (scope)
    json_object_set_new(c, "scope", json_string(scope));
  return c;
}

#endif
