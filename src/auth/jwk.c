/* SPDX-License-Identifier: MIT */
/* jwk.c - JWKS parsing and JWS signature checks with OpenSSL 3. */
#include "auth/jwk.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"

#define MIN_RSA_BITS 2048

unsigned mcp__alg_bit(const char *name) {
  if (name == NULL)
    return 0;
  if (strcmp(name, "RS256") == 0)
    return MCP__ALG_RS256;
  if (strcmp(name, "PS256") == 0)
    return MCP__ALG_PS256;
  if (strcmp(name, "ES256") == 0)
    return MCP__ALG_ES256;
  if (strcmp(name, "EdDSA") == 0)
    return MCP__ALG_EDDSA;
  return 0;
}

/* A base64url member decoded, or NULL. */
static unsigned char *member_bytes(const json_t *jwk, const char *name,
                                   size_t *len) {
  const char *v = json_string_value(json_object_get(jwk, name));
  if (v == NULL)
    return NULL;
  return mcp__base64url_decode(v, strlen(v), len);
}

static EVP_PKEY *from_params(const char *type, OSSL_PARAM_BLD *bld) {
  EVP_PKEY *pkey = NULL;
  OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
  if (params && ctx && EVP_PKEY_fromdata_init(ctx) > 0 &&
      EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
    pkey = NULL;
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  return pkey;
}

static EVP_PKEY *rsa_key(const json_t *jwk) {
  size_t nl = 0, el = 0;
  unsigned char *n = member_bytes(jwk, "n", &nl);
  unsigned char *e = member_bytes(jwk, "e", &el);
  EVP_PKEY *pkey = NULL;
  BIGNUM *bn = n ? BN_bin2bn(n, (int)nl, NULL) : NULL;
  BIGNUM *be = e ? BN_bin2bn(e, (int)el, NULL) : NULL;
  OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
  if (bn && be && bld && BN_num_bits(bn) >= MIN_RSA_BITS &&
      BN_num_bits(bn) <= 16384 && BN_is_odd(be) && !BN_is_one(be) &&
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) &&
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be))
    pkey = from_params("RSA", bld);
  OSSL_PARAM_BLD_free(bld);
  BN_free(bn);
  BN_free(be);
  free(n);
  free(e);
  return pkey;
}

static EVP_PKEY *ec_key(const json_t *jwk) {
  const char *crv = json_string_value(json_object_get(jwk, "crv"));
  if (crv == NULL || strcmp(crv, "P-256") != 0)
    return NULL;
  size_t xl = 0, yl = 0;
  unsigned char *x = member_bytes(jwk, "x", &xl);
  unsigned char *y = member_bytes(jwk, "y", &yl);
  EVP_PKEY *pkey = NULL;
  if (x && y && xl == 32 && yl == 32) {
    unsigned char pub[65];
    pub[0] = 0x04; /* uncompressed point */
    memcpy(pub + 1, x, 32);
    memcpy(pub + 33, y, 32);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    if (bld &&
        OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
                                        "prime256v1", 0) &&
        OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub,
                                         sizeof pub))
      pkey = from_params("EC", bld); /* rejects points off the curve */
    OSSL_PARAM_BLD_free(bld);
  }
  free(x);
  free(y);
  return pkey;
}

static EVP_PKEY *okp_key(const json_t *jwk) {
  const char *crv = json_string_value(json_object_get(jwk, "crv"));
  if (crv == NULL || strcmp(crv, "Ed25519") != 0)
    return NULL;
  size_t xl = 0;
  unsigned char *x = member_bytes(jwk, "x", &xl);
  EVP_PKEY *pkey =
      x && xl == 32 ? EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, xl)
                    : NULL;
  free(x);
  return pkey;
}

/* Fills k from one JWK; false when the key is not usable here. */
static bool parse_key(const json_t *jwk, mcp__jwk *k) {
  const char *kty = json_string_value(json_object_get(jwk, "kty"));
  const char *use = json_string_value(json_object_get(jwk, "use"));
  const json_t *alg_j = json_object_get(jwk, "alg");
  const json_t *kid_j = json_object_get(jwk, "kid");
  if (kty == NULL || (use && strcmp(use, "sig") != 0) ||
      (alg_j && !json_is_string(alg_j)) || (kid_j && !json_is_string(kid_j)))
    return false;
  unsigned kind, pinned = mcp__alg_bit(json_string_value(alg_j));
  if (alg_j && pinned == 0)
    return false; /* an algorithm we never accept (HS256, none, RS512...) */
  EVP_PKEY *pkey;
  if (strcmp(kty, "RSA") == 0) {
    kind = MCP__ALG_RS256 | MCP__ALG_PS256;
    pkey = (pinned == 0 || (pinned & kind)) ? rsa_key(jwk) : NULL;
  } else if (strcmp(kty, "EC") == 0) {
    kind = MCP__ALG_ES256;
    pkey = (pinned == 0 || (pinned & kind)) ? ec_key(jwk) : NULL;
  } else if (strcmp(kty, "OKP") == 0) {
    kind = MCP__ALG_EDDSA;
    pkey = (pinned == 0 || (pinned & kind)) ? okp_key(jwk) : NULL;
  } else {
    return false; /* "oct" above all: never HMAC */
  }
  if (pkey == NULL)
    return false;
  k->pkey = pkey;
  k->algs = pinned ? pinned : kind;
  k->kid = kid_j ? strdup(json_string_value(kid_j)) : NULL;
  if (kid_j && k->kid == NULL) {
    EVP_PKEY_free(pkey);
    return false;
  }
  return true;
}

bool mcp__jwk_parse(const json_t *jwk, mcp__jwk *k) {
  memset(k, 0, sizeof *k);
  return json_is_object(jwk) && parse_key(jwk, k);
}

void mcp__jwk_clear(mcp__jwk *k) {
  free(k->kid);
  EVP_PKEY_free(k->pkey);
  memset(k, 0, sizeof *k);
}

mcp__jwks *mcp__jwks_parse(const json_t *doc, mcp_error_t *err) {
  const json_t *keys = json_object_get(doc, "keys");
  if (!json_is_array(keys)) {
    mcp_error_set(err, MCP_ERR_PARSE, "a JWKS needs a \"keys\" array");
    return NULL;
  }
  mcp__jwks *s = calloc(1, sizeof *s);
  size_t n = json_array_size(keys);
  if (s == NULL || (n && (s->keys = calloc(n, sizeof *s->keys)) == NULL)) {
    free(s);
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    return NULL;
  }
  atomic_init(&s->refs, 1);
  for (size_t i = 0; i < n; i++)
    if (parse_key(json_array_get(keys, i), &s->keys[s->n]))
      s->n++;
  return s;
}

mcp__jwks *mcp__jwks_parse_text(const char *text, size_t len,
                                mcp_error_t *err) {
  json_error_t je;
  json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
  if (doc == NULL) {
    mcp_error_set(err, MCP_ERR_PARSE, "JWKS: %s", je.text);
    return NULL;
  }
  mcp__jwks *s = mcp__jwks_parse(doc, err);
  json_decref(doc);
  return s;
}

void mcp__jwks_retain(mcp__jwks *s) {
  if (s)
    atomic_fetch_add(&s->refs, 1);
}

void mcp__jwks_release(mcp__jwks *s) {
  if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
    return;
  for (size_t i = 0; i < s->n; i++) {
    free(s->keys[i].kid);
    EVP_PKEY_free(s->keys[i].pkey);
  }
  free(s->keys);
  free(s);
}

const mcp__jwk *mcp__jwks_find(const mcp__jwks *s, const char *kid) {
  for (size_t i = 0; s && i < s->n; i++)
    if (s->keys[i].kid && strcmp(s->keys[i].kid, kid) == 0)
      return &s->keys[i];
  return NULL;
}

/* JWS ES256 signatures are R || S (32 bytes each); OpenSSL wants DER. */
static unsigned char *es256_der(const unsigned char *sig, size_t len,
                                size_t *der_len) {
  if (len != 64)
    return NULL;
  ECDSA_SIG *es = ECDSA_SIG_new();
  BIGNUM *r = BN_bin2bn(sig, 32, NULL), *s = BN_bin2bn(sig + 32, 32, NULL);
  unsigned char *der = NULL;
  if (es && r && s && ECDSA_SIG_set0(es, r, s)) {
    r = s = NULL; /* owned by es */
    int n = i2d_ECDSA_SIG(es, &der);
    if (n <= 0)
      der = NULL;
    else
      *der_len = (size_t)n;
  }
  BN_free(r);
  BN_free(s);
  ECDSA_SIG_free(es);
  return der;
}

bool mcp__jwk_verify(const mcp__jwk *k, unsigned alg, const unsigned char *msg,
                     size_t msg_len, const unsigned char *sig, size_t sig_len) {
  if ((k->algs & alg) == 0)
    return false;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  if (md == NULL)
    return false;
  EVP_PKEY_CTX *pctx = NULL;
  bool ok = false;
  unsigned char *der = NULL;
  size_t der_len = 0;
  switch (alg) {
  case MCP__ALG_RS256:
  case MCP__ALG_PS256:
    if (EVP_PKEY_get_base_id(k->pkey) != EVP_PKEY_RSA ||
        EVP_DigestVerifyInit(md, &pctx, EVP_sha256(), NULL, k->pkey) <= 0)
      break;
    if (alg == MCP__ALG_PS256 &&
        (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) <= 0 ||
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) <= 0 ||
         EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) <= 0))
      break;
    if (alg == MCP__ALG_RS256 &&
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) <= 0)
      break;
    ok = EVP_DigestVerify(md, sig, sig_len, msg, msg_len) == 1;
    break;
  case MCP__ALG_ES256:
    der = es256_der(sig, sig_len, &der_len);
    ok = der && EVP_PKEY_get_base_id(k->pkey) == EVP_PKEY_EC &&
         EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, k->pkey) > 0 &&
         EVP_DigestVerify(md, der, der_len, msg, msg_len) == 1;
    break;
  case MCP__ALG_EDDSA:
    ok = EVP_PKEY_get_base_id(k->pkey) == EVP_PKEY_ED25519 &&
         EVP_DigestVerifyInit(md, NULL, NULL, NULL, k->pkey) > 0 &&
         EVP_DigestVerify(md, sig, sig_len, msg, msg_len) == 1;
    break;
  default:
    break;
  }
  OPENSSL_free(der);
  EVP_MD_CTX_free(md);
  return ok;
}
