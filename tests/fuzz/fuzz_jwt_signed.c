/* SPDX-License-Identifier: MIT */
/* fuzz_jwt_signed.c - libFuzzer: the claim checks of bearer tokens
 * (include/mcp/auth.h), which fuzz_jwt cannot reach (no input of its carries
 * a valid signature). The harness holds the Ed25519 key of the JWKS it
 * configures and signs whatever it is given, so every input is a token with
 * a valid signature and the verdict rests on the header and the claims.
 *
 * Input: HEADER_JSON "\n" CLAIMS_JSON, or CLAIMS_JSON alone (the header is
 * then {"alg":"EdDSA","kid":"d","typ":"at+jwt"}); the bytes are encoded as
 * they are, so malformed JSON, duplicate keys and odd types reach the
 * parser too.
 *
 * Oracle: a token the library accepts must satisfy the rules the docs
 * promise (docs/auth.md), checked here independently: header alg EdDSA, no
 * crit, typ absent or a JWT type; claims an object without duplicate keys,
 * iss the issuer, aud the resource (or an array holding it), exp a number
 * not in the past, nbf absent or not in the future, sub a non-empty string;
 * and the subject it reports is that sub. The start also requires a known
 * good token to pass, so the harness cannot silently test nothing. */
#include <jansson.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "mcp/auth.h"
#include "util/base64.h"

#define ISSUER "https://issuer.example.test"
#define RESOURCE "https://mcp.example.test/mcp"
#define DEFAULT_HEADER "{\"alg\":\"EdDSA\",\"kid\":\"d\",\"typ\":\"at+jwt\"}"

static mcp_auth_t *auth;
static EVP_PKEY *key;

/* base64url(header) "." base64url(claims) "." base64url(Ed25519 signature) */
static char *sign_token(const char *header, size_t hn, const char *claims,
                        size_t cn) {
  char *h = mcp__base64url_encode((const unsigned char *)header, hn);
  char *c = mcp__base64url_encode((const unsigned char *)claims, cn);
  if (h == NULL || c == NULL)
    abort();
  size_t signed_len = strlen(h) + 1 + strlen(c);
  char *input = malloc(signed_len + 1);
  if (input == NULL)
    abort();
  snprintf(input, signed_len + 1, "%s.%s", h, c);
  free(h);
  free(c);
  unsigned char sig[64];
  size_t sig_len = sizeof sig;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  if (md == NULL || EVP_DigestSignInit(md, NULL, NULL, NULL, key) != 1 ||
      EVP_DigestSign(md, sig, &sig_len, (const unsigned char *)input,
                     signed_len) != 1)
    abort();
  EVP_MD_CTX_free(md);
  char *s = mcp__base64url_encode(sig, sig_len);
  size_t total = signed_len + 1 + strlen(s) + 1;
  char *token = malloc(total);
  if (token == NULL)
    abort();
  snprintf(token, total, "%s.%s", input, s);
  free(input);
  free(s);
  return token;
}

static mcp_status verify(const char *token, char **sub) {
  char *scopes = NULL;
  mcp_error_t err;
  *sub = NULL;
  mcp_status st = mcp_auth_verify(auth, token, sub, &scopes, &err);
  free(scopes);
  return st;
}

static void setup(void) {
  key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
  unsigned char raw[32];
  size_t rl = sizeof raw;
  if (key == NULL || EVP_PKEY_get_raw_public_key(key, raw, &rl) != 1)
    abort();
  char path[] = "/tmp/fuzz-jwks-signed-XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (f == NULL)
    abort();
  char *x = mcp__base64url_encode(raw, rl);
  fprintf(f,
          "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"d\","
          "\"x\":\"%s\"}]}",
          x);
  free(x);
  fclose(f);
  if (mcp_auth_new(RESOURCE, &auth) != MCP_OK ||
      mcp_auth_set_issuer(auth, ISSUER) != MCP_OK ||
      mcp_auth_set_jwks_file(auth, path) != MCP_OK ||
      mcp_auth_set_leeway_s(auth, 0) != MCP_OK ||
      mcp_auth_set_refresh_interval_s(auth, 86400) != MCP_OK)
    abort();
  /* a good token must pass (keys may load in the background: a few tries) */
  char good[256];
  snprintf(good, sizeof good,
           "{\"iss\":\"" ISSUER "\",\"aud\":\"" RESOURCE "\",\"sub\":\"alice\","
           "\"exp\":%lld,\"scope\":\"read\"}",
           (long long)time(NULL) + 3600);
  char *token = sign_token(DEFAULT_HEADER, strlen(DEFAULT_HEADER), good,
                           strlen(good));
  char *sub = NULL;
  mcp_status st = MCP_ERR_PEER;
  for (int i = 0; i < 100 && st != MCP_OK; i++) {
    st = verify(token, &sub);
    if (st != MCP_OK)
      usleep(50 * 1000);
  }
  free(token);
  unlink(path);
  if (st != MCP_OK || sub == NULL || strcmp(sub, "alice") != 0) {
    fprintf(stderr, "fuzz_jwt_signed: a good token was refused\n");
    abort();
  }
  free(sub);
}

static const char *str_of(const json_t *v) {
  const char *s = json_string_value(v);
  return s ? s : "";
}

static bool typ_ok(const json_t *typ) {
  if (typ == NULL)
    return true;
  const char *t = json_string_value(typ);
  return t && (strcasecmp(t, "JWT") == 0 || strcasecmp(t, "at+jwt") == 0 ||
               strcasecmp(t, "application/at+jwt") == 0);
}

static bool aud_holds_resource(const json_t *aud) {
  if (json_is_string(aud))
    return strcmp(json_string_value(aud), RESOURCE) == 0;
  size_t i;
  const json_t *v;
  json_array_foreach(aud, i, v) {
    if (json_is_string(v) && strcmp(json_string_value(v), RESOURCE) == 0)
      return true;
  }
  return false;
}

/* Whether an accepted token obeys the documented rules; prints the first
 * broken one. */
static bool acceptable(const char *header, size_t hn, const char *claims,
                       size_t cn, const char *sub_given, time_t before) {
  json_t *h = json_loadb(header, hn, JSON_REJECT_DUPLICATES, NULL);
  json_t *c = json_loadb(claims, cn, JSON_REJECT_DUPLICATES, NULL);
  const char *why = NULL;
  if (!json_is_object(h))
    why = "header not a JSON object";
  else if (strcmp(str_of(json_object_get(h, "alg")), "EdDSA") != 0)
    why = "alg is not EdDSA";
  else if (json_object_get(h, "crit") != NULL)
    why = "crit present";
  else if (!typ_ok(json_object_get(h, "typ")))
    why = "typ not a JWT type";
  else if (!json_is_object(c))
    why = "claims not a JSON object without duplicate keys";
  else if (strcmp(str_of(json_object_get(c, "iss")), ISSUER) != 0)
    why = "another issuer";
  else if (!aud_holds_resource(json_object_get(c, "aud")))
    why = "another audience";
  else if (!json_is_number(json_object_get(c, "exp")) ||
           json_number_value(json_object_get(c, "exp")) < (double)before)
    why = "exp missing, not a number or past";
  else if (json_object_get(c, "nbf") != NULL &&
           (!json_is_number(json_object_get(c, "nbf")) ||
            json_number_value(json_object_get(c, "nbf")) >
                (double)time(NULL)))
    why = "nbf not a number or in the future";
  else if (!json_is_string(json_object_get(c, "sub")) ||
           json_string_value(json_object_get(c, "sub"))[0] == '\0')
    why = "no subject";
  else if (sub_given == NULL ||
           strcmp(sub_given, json_string_value(json_object_get(c, "sub"))) !=
               0)
    why = "the subject reported is not the token's sub";
  if (why)
    fprintf(stderr, "fuzz_jwt_signed: accepted a token with %s\n", why);
  json_decref(h);
  json_decref(c);
  return why == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (auth == NULL)
    setup();
  const char *in = (const char *)data;
  const char *nl = memchr(in, '\n', size);
  const char *header = DEFAULT_HEADER, *claims = in;
  size_t hn = strlen(DEFAULT_HEADER), cn = size;
  if (nl) {
    header = in;
    hn = (size_t)(nl - in);
    claims = nl + 1;
    cn = size - hn - 1;
  }
  time_t before = time(NULL);
  char *token = sign_token(header, hn, claims, cn);
  char *sub = NULL;
  if (verify(token, &sub) == MCP_OK &&
      !acceptable(header, hn, claims, cn, sub, before))
    abort();
  free(sub);
  free(token);
  return 0;
}
