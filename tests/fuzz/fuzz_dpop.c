/* SPDX-License-Identifier: MIT */
/* fuzz_dpop.c - libFuzzer: DPoP proofs as the resource server checks them
 * (src/auth/dpop.c, RFC 9449 4.3).
 *
 * Input: "raw:" PROOF (the DPoP header as it came: segment split,
 * base64url, JSON, the embedded jwk of any kind, signatures; nothing can be
 * accepted), or HEADER_JSON "\n" CLAIMS_JSON, or CLAIMS_JSON alone (the
 * header is then {"typ":"dpop+jwt","alg":"ES256","jwk":<the harness key>}),
 * signed with the harness's P-256 key so that the checks behind the
 * signature are reached; "NOW" in the claims becomes the current time.
 *
 * Oracle: a proof the library accepts must satisfy the rules checked here
 * independently: typ dpop+jwt, alg ES256, no crit, the jwk the harness's
 * public key (its thumbprint is the jkt reported), jti a non-empty string,
 * htm POST, htu the request URL (scheme and host in any case, RFC 9449 4.3
 * with RFC 3986 6.2.2.1 normalization; the path exact), iat an integer within 60 s, ath the hash
 * of the access token; and the same proof is refused when presented again
 * (replay). The start requires a known good proof to pass. */
#include <jansson.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/base64.h"
#include "auth/dpop.h"
#include "mcp/auth.h"

#define URL   "https://mcp.example.test/mcp"
#define TOKEN "the-access-token"

static mcp_auth_t *auth;
static EVP_PKEY *key;
static json_t *jwk;
static char *thumb, *ath;

static char *b64_bn(const char *param) {
  BIGNUM *bn = NULL;
  EVP_PKEY_get_bn_param(key, param, &bn);
  unsigned char buf[32];
  BN_bn2binpad(bn, buf, 32);
  BN_free(bn);
  return mcp__base64url_encode(buf, 32);
}

static char *sha256_b64(const char *s) {
  unsigned char md[32];
  unsigned int n = 0;
  EVP_Digest(s, strlen(s), md, &n, EVP_sha256(), NULL);
  return mcp__base64url_encode(md, n);
}

static char *sign(const char *h, size_t hn, const char *c, size_t cn) {
  char *h64 = mcp__base64url_encode(h, hn), *c64 = mcp__base64url_encode(c, cn);
  char *input = NULL, *out = NULL;
  if (asprintf(&input, "%s.%s", h64, c64) < 0)
    abort();
  unsigned char der[128], rs[64];
  size_t dl = sizeof der;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key);
  EVP_DigestSign(md, der, &dl, (const unsigned char *)input, strlen(input));
  EVP_MD_CTX_free(md);
  const unsigned char *p = der;
  ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)dl);
  BN_bn2binpad(ECDSA_SIG_get0_r(sig), rs, 32);
  BN_bn2binpad(ECDSA_SIG_get0_s(sig), rs + 32, 32);
  ECDSA_SIG_free(sig);
  char *s64 = mcp__base64url_encode(rs, 64);
  if (asprintf(&out, "%s.%s", input, s64) < 0)
    abort();
  free(h64);
  free(c64);
  free(s64);
  free(input);
  return out;
}

static mcp__dpop_result check(const char *proof, char **jkt) {
  mcp__dpop_check c = {proof, "POST", "https", "mcp.example.test", "/mcp",
                       URL,   TOKEN,  (int64_t)time(NULL)};
  const char *why = NULL;
  return mcp__dpop_verify(auth, &c, jkt, &why);
}

static void setup(void) {
  if (mcp_auth_new(URL, &auth) != MCP_OK)
    abort();
  key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  char *x = b64_bn(OSSL_PKEY_PARAM_EC_PUB_X), *y = b64_bn(OSSL_PKEY_PARAM_EC_PUB_Y);
  jwk = json_pack("{s:s,s:s,s:s,s:s}", "crv", "P-256", "kty", "EC", "x", x,
                  "y", y);
  char *text = json_dumps(jwk, JSON_COMPACT | JSON_SORT_KEYS);
  thumb = sha256_b64(text);
  ath = sha256_b64(TOKEN);
  free(text);
  free(x);
  free(y);
  /* a known good proof passes, once */
  json_t *h = json_pack("{s:s,s:s,s:O}", "typ", "dpop+jwt", "alg", "ES256",
                        "jwk", jwk);
  json_t *c = json_pack("{s:s,s:s,s:s,s:I,s:s}", "jti", "start", "htm", "POST",
                        "htu", URL, "iat", (json_int_t)time(NULL), "ath", ath);
  char *hs = json_dumps(h, JSON_COMPACT), *cs = json_dumps(c, JSON_COMPACT);
  char *proof = sign(hs, strlen(hs), cs, strlen(cs));
  char *jkt = NULL;
  if (check(proof, &jkt) != MCP__DPOP_OK || strcmp(jkt, thumb) != 0)
    abort();
  free(jkt);
  if (check(proof, &jkt) != MCP__DPOP_INVALID)
    abort();
  free(proof);
  free(hs);
  free(cs);
  json_decref(h);
  json_decref(c);
}

/* The oracle: what an accepted proof must be. */
/* htu is URL with the scheme and host in any case (they are
 * case-insensitive) and the path as it is. */
static bool htu_names_url(const char *htu) {
  const char *path = strstr(URL, "://");
  path = strchr(path + 3, '/');
  size_t origin = (size_t)(path - URL);
  return strlen(htu) == strlen(URL) && strncasecmp(htu, URL, origin) == 0 &&
         strcmp(htu + origin, path) == 0;
}

static bool acceptable(const char *h, size_t hn, const char *c, size_t cn,
                       time_t before) {
  json_t *hj = json_loadb(h, hn, JSON_REJECT_DUPLICATES, NULL);
  json_t *cj = json_loadb(c, cn, JSON_REJECT_DUPLICATES, NULL);
  const char *typ = json_string_value(json_object_get(hj, "typ"));
  const char *alg = json_string_value(json_object_get(hj, "alg"));
  const json_t *k = json_object_get(hj, "jwk");
  const json_t *jti = json_object_get(cj, "jti");
  const json_t *iat = json_object_get(cj, "iat");
  const char *htm = json_string_value(json_object_get(cj, "htm"));
  const char *htu = json_string_value(json_object_get(cj, "htu"));
  const char *a = json_string_value(json_object_get(cj, "ath"));
  time_t after = time(NULL);
  bool ok = json_is_object(hj) && json_is_object(cj) && typ &&
            strcmp(typ, "dpop+jwt") == 0 && alg && strcmp(alg, "ES256") == 0 &&
            json_object_get(hj, "crit") == NULL && json_is_object(k) &&
            json_equal(json_object_get(k, "x"), json_object_get(jwk, "x")) &&
            json_equal(json_object_get(k, "y"), json_object_get(jwk, "y")) &&
            json_is_string(jti) && json_string_length(jti) > 0 && htm &&
            strcmp(htm, "POST") == 0 && htu &&
            htu_names_url(htu) && json_is_integer(iat) &&
            json_integer_value(iat) >= (json_int_t)before - 60 &&
            json_integer_value(iat) <= (json_int_t)after + 60 && a &&
            strcmp(a, ath) == 0;
  json_decref(hj);
  json_decref(cj);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (auth == NULL)
    setup();
  const char *in = (const char *)data;
  char *jkt = NULL;
  if (size >= 4 && memcmp(in, "raw:", 4) == 0) {
    char *proof = strndup(in + 4, size - 4);
    if (check(proof, &jkt) == MCP__DPOP_OK)
      abort(); /* no input carries a signature of a key it does not hold */
    free(proof);
    return 0;
  }
  char *dh = NULL;
  const char *nl = memchr(in, '\n', size);
  const char *h, *c = in;
  size_t hn, cn = size;
  if (nl) {
    h = in;
    hn = (size_t)(nl - in);
    c = nl + 1;
    cn = size - hn - 1;
  } else {
    json_t *hj = json_pack("{s:s,s:s,s:O}", "typ", "dpop+jwt", "alg", "ES256",
                           "jwk", jwk);
    dh = json_dumps(hj, JSON_COMPACT);
    json_decref(hj);
    h = dh;
    hn = strlen(dh);
  }
  time_t before = time(NULL);
  /* "NOW" (with its quotes) in the claims becomes the current time, so
   * that the checks behind iat are reached */
  char *cc = NULL;
  const char *now_at = memmem(c, cn, "\"NOW\"", 5);
  if (now_at != NULL) {
    size_t at = (size_t)(now_at - c);
    if (asprintf(&cc, "%.*s%lld%.*s", (int)at, c, (long long)before,
                 (int)(cn - at - 5), now_at + 5) < 0)
      abort();
    c = cc;
    cn = strlen(cc);
  }
  char *proof = sign(h, hn, c, cn);
  if (check(proof, &jkt) == MCP__DPOP_OK) {
    if (!acceptable(h, hn, c, cn, before) || strcmp(jkt, thumb) != 0)
      abort();
    free(jkt);
    jkt = NULL;
    if (check(proof, &jkt) == MCP__DPOP_OK)
      abort(); /* a replay must never pass */
  }
  free(jkt);
  free(proof);
  free(dh);
  free(cc);
  return 0;
}
