/* SPDX-License-Identifier: MIT */
/* oauth_jws.c - compact JWS signing for client assertions and DPoP proofs
 * with OpenSSL 3 (see oauth_jws.h). */
#include "client/oauth_jws.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/oauth_http.h"
#include "util/base64.h"

struct mcp__jws_key {
  EVP_PKEY *pkey;
  char alg[8];
};

/* The algorithm a key of this type signs with when none is named. */
static const char *default_alg(EVP_PKEY *pkey) {
  if (EVP_PKEY_is_a(pkey, "EC"))
    return "ES256";
  if (EVP_PKEY_is_a(pkey, "RSA"))
    return "RS256";
  if (EVP_PKEY_is_a(pkey, "ED25519"))
    return "EdDSA";
  return NULL;
}

static bool alg_fits(EVP_PKEY *pkey, const char *alg) {
  if (strcmp(alg, "ES256") == 0) {
    char group[32] = "";
    size_t gl = 0;
    return EVP_PKEY_is_a(pkey, "EC") &&
           EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME,
                                          group, sizeof group, &gl) == 1 &&
           strcmp(group, "prime256v1") == 0;
  }
  if (strcmp(alg, "RS256") == 0 || strcmp(alg, "PS256") == 0)
    return EVP_PKEY_is_a(pkey, "RSA") && EVP_PKEY_get_bits(pkey) >= 2048;
  if (strcmp(alg, "EdDSA") == 0)
    return EVP_PKEY_is_a(pkey, "ED25519");
  return false;
}

mcp__jws_key *mcp__jws_key_from_pem(const char *pem, const char *alg,
                                    mcp_error_t *err) {
  BIO *bio = BIO_new_mem_buf(pem, -1);
  EVP_PKEY *pkey =
      bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
  BIO_free(bio);
  if (pkey == NULL) {
    mcp_error_set(err, MCP_ERR_INVALID_ARG,
                  "the client key is not a PEM private key");
    return NULL;
  }
  const char *a = alg ? alg : default_alg(pkey);
  if (a == NULL || !alg_fits(pkey, a)) {
    mcp_error_set(err, MCP_ERR_INVALID_ARG,
                  "the client key cannot sign with %s (ES256 needs a P-256 "
                  "key, RS256/PS256 an RSA key of 2048 bits or more, EdDSA "
                  "an Ed25519 key)",
                  a ? a : "any supported algorithm");
    EVP_PKEY_free(pkey);
    return NULL;
  }
  mcp__jws_key *k = calloc(1, sizeof *k);
  if (k == NULL) {
    EVP_PKEY_free(pkey);
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    return NULL;
  }
  k->pkey = pkey;
  snprintf(k->alg, sizeof k->alg, "%s", a);
  return k;
}

mcp__jws_key *mcp__jws_key_generate(mcp_error_t *err) {
  EVP_PKEY *pkey = EVP_EC_gen("P-256");
  mcp__jws_key *k = pkey ? calloc(1, sizeof *k) : NULL;
  if (k == NULL) {
    EVP_PKEY_free(pkey);
    mcp_error_set(err, MCP_ERR_NOMEM, "cannot generate a P-256 key");
    return NULL;
  }
  k->pkey = pkey;
  snprintf(k->alg, sizeof k->alg, "ES256");
  return k;
}

void mcp__jws_key_free(mcp__jws_key *k) {
  if (k == NULL)
    return;
  EVP_PKEY_free(k->pkey);
  free(k);
}

const char *mcp__jws_key_alg(const mcp__jws_key *k) {
  return k->alg;
}

/* A BIGNUM parameter of the key, left-padded to width bytes (0: its own
 * length), base64url. */
static char *bn_param(EVP_PKEY *pkey, const char *name, int width) {
  BIGNUM *bn = NULL;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1)
    return NULL;
  int n = width ? width : BN_num_bytes(bn);
  unsigned char *buf = malloc((size_t)n + 1);
  char *out = NULL;
  if (buf && BN_bn2binpad(bn, buf, n) == n)
    out = mcp__base64url_encode(buf, (size_t)n);
  free(buf);
  BN_free(bn);
  return out;
}

json_t *mcp__jws_public_jwk(const mcp__jws_key *k) {
  json_t *jwk = NULL;
  if (EVP_PKEY_is_a(k->pkey, "EC")) {
    char *x = bn_param(k->pkey, OSSL_PKEY_PARAM_EC_PUB_X, 32);
    char *y = bn_param(k->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, 32);
    if (x && y)
      jwk = json_pack("{s:s,s:s,s:s,s:s}", "kty", "EC", "crv", "P-256", "x",
                      x, "y", y);
    free(x);
    free(y);
  } else if (EVP_PKEY_is_a(k->pkey, "RSA")) {
    char *n = bn_param(k->pkey, OSSL_PKEY_PARAM_RSA_N, 0);
    char *e = bn_param(k->pkey, OSSL_PKEY_PARAM_RSA_E, 0);
    if (n && e)
      jwk = json_pack("{s:s,s:s,s:s}", "kty", "RSA", "n", n, "e", e);
    free(n);
    free(e);
  } else if (EVP_PKEY_is_a(k->pkey, "ED25519")) {
    unsigned char raw[32];
    size_t rl = sizeof raw;
    char *x = EVP_PKEY_get_raw_public_key(k->pkey, raw, &rl) == 1
                  ? mcp__base64url_encode(raw, rl)
                  : NULL;
    if (x)
      jwk = json_pack("{s:s,s:s,s:s}", "kty", "OKP", "crv", "Ed25519", "x", x);
    free(x);
  }
  return jwk;
}

char *mcp__jws_thumbprint(const json_t *jwk) {
  /* RFC 7638 3.2: only the required members; jansson sorts the keys */
  const char *kty = json_string_value(json_object_get(jwk, "kty"));
  static const char *const ec[] = {"crv", "kty", "x", "y", NULL};
  static const char *const rsa[] = {"e", "kty", "n", NULL};
  static const char *const okp[] = {"crv", "kty", "x", NULL};
  const char *const *members = kty == NULL                 ? NULL
                               : strcmp(kty, "EC") == 0  ? ec
                               : strcmp(kty, "RSA") == 0 ? rsa
                               : strcmp(kty, "OKP") == 0 ? okp
                                                         : NULL;
  if (members == NULL)
    return NULL;
  json_t *req = json_object();
  for (size_t i = 0; members[i]; i++) {
    json_t *v = json_object_get(jwk, members[i]);
    if (!json_is_string(v)) {
      json_decref(req);
      return NULL;
    }
    json_object_set(req, members[i], v);
  }
  char *text = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(req);
  if (text == NULL)
    return NULL;
  unsigned char md[32];
  unsigned int ml = 0;
  char *out = EVP_Digest(text, strlen(text), md, &ml, EVP_sha256(), NULL) == 1
                  ? mcp__base64url_encode(md, ml)
                  : NULL;
  free(text);
  return out;
}

/* The JSON text of v, base64url. */
static char *b64_json(const json_t *v) {
  char *text = json_dumps(v, JSON_COMPACT);
  char *out = text ? mcp__base64url_encode(text, strlen(text)) : NULL;
  free(text);
  return out;
}

/* A DER ECDSA signature as JWS wants it: r and s, 32 bytes each. */
static bool der_to_raw(const unsigned char *der, size_t len,
                       unsigned char raw[64]) {
  ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &der, (long)len);
  if (sig == NULL)
    return false;
  const BIGNUM *r, *s;
  ECDSA_SIG_get0(sig, &r, &s);
  bool ok = BN_bn2binpad(r, raw, 32) == 32 && BN_bn2binpad(s, raw + 32, 32) == 32;
  ECDSA_SIG_free(sig);
  return ok;
}

char *mcp__jws_sign(const mcp__jws_key *k, const json_t *header,
                    const json_t *claims) {
  json_t *h = json_deep_copy(header);
  json_object_set_new(h, "alg", json_string(k->alg));
  char *hb = b64_json(h), *cb = b64_json(claims);
  json_decref(h);
  char *input = NULL, *out = NULL;
  if (hb && cb && asprintf(&input, "%s.%s", hb, cb) < 0)
    input = NULL;
  free(hb);
  free(cb);
  if (input == NULL)
    return NULL;
  bool ed = strcmp(k->alg, "EdDSA") == 0;
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX *pctx = NULL;
  size_t sl = 0;
  unsigned char *sig = NULL;
  if (ctx &&
      EVP_DigestSignInit(ctx, &pctx, ed ? NULL : EVP_sha256(), NULL,
                         k->pkey) == 1 &&
      (strcmp(k->alg, "PS256") != 0 ||
       (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) ==
            1)) &&
      EVP_DigestSign(ctx, NULL, &sl, (const unsigned char *)input,
                     strlen(input)) == 1 &&
      (sig = malloc(sl)) != NULL &&
      EVP_DigestSign(ctx, sig, &sl, (const unsigned char *)input,
                     strlen(input)) == 1) {
    unsigned char raw[64];
    char *sb = NULL;
    if (strcmp(k->alg, "ES256") == 0)
      sb = der_to_raw(sig, sl, raw) ? mcp__base64url_encode(raw, 64) : NULL;
    else
      sb = mcp__base64url_encode(sig, sl);
    if (sb && asprintf(&out, "%s.%s", input, sb) < 0)
      out = NULL;
    free(sb);
  }
  free(sig);
  EVP_MD_CTX_free(ctx);
  free(input);
  return out;
}

char *mcp__dpop_proof(const mcp__jws_key *k, const char *htm, const char *htu,
                      const char *access_token, const char *nonce) {
  json_t *jwk = mcp__jws_public_jwk(k);
  char *jti = mcp__random_b64url();
  /* RFC 9449 4.2: htu without query and fragment */
  char *bare = strndup(htu, strcspn(htu, "?#"));
  json_t *header = jwk ? json_pack("{s:s,s:o}", "typ", "dpop+jwt", "jwk", jwk)
                       : NULL;
  json_t *claims =
      jti && bare ? json_pack("{s:s,s:s,s:s,s:I}", "jti", jti, "htm", htm,
                              "htu", bare, "iat", (json_int_t)time(NULL))
                  : NULL;
  if (claims && access_token) {
    unsigned char md[32];
    unsigned int ml = 0;
    char *ath = EVP_Digest(access_token, strlen(access_token), md, &ml,
                           EVP_sha256(), NULL) == 1
                    ? mcp__base64url_encode(md, ml)
                    : NULL;
    json_object_set_new(claims, "ath", ath ? json_string(ath) : json_null());
    free(ath);
  }
  if (claims && nonce)
    json_object_set_new(claims, "nonce", json_string(nonce));
  char *proof = header && claims ? mcp__jws_sign(k, header, claims) : NULL;
  json_decref(header);
  json_decref(claims);
  free(jti);
  free(bare);
  return proof;
}
