/* SPDX-License-Identifier: MIT */
/* fuzz_jwt.c - libFuzzer: bearer tokens as the resource server checks them
 * (include/mcp/auth.h): segment split, base64url, header and claims JSON,
 * alg and kid selection, signature checks with real keys (RSA, EC P-256,
 * Ed25519, made at start with OpenSSL and loaded from a JWKS file), claim
 * checks. Input: the token. Nothing may crash, leak or be accepted: no
 * input can carry a valid signature. */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/auth.h"
#include "util/base64.h"

static mcp_auth_t *auth;

static void put_bn(FILE *f, EVP_PKEY *pk, const char *param, int pad) {
  BIGNUM *bn = NULL;
  EVP_PKEY_get_bn_param(pk, param, &bn);
  unsigned char buf[600];
  int n = pad ? BN_bn2binpad(bn, buf, pad) : BN_bn2bin(bn, buf);
  char *s = mcp__base64url_encode(buf, (size_t)n);
  fputs(s, f);
  free(s);
  BN_free(bn);
}

static void setup(void) {
  char path[] = "/tmp/fuzz-jwks-XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (f == NULL)
    abort();
  EVP_PKEY *rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
  EVP_PKEY *ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  EVP_PKEY *ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
  fputs("{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"r\",\"n\":\"", f);
  put_bn(f, rsa, OSSL_PKEY_PARAM_RSA_N, 0);
  fputs("\",\"e\":\"", f);
  put_bn(f, rsa, OSSL_PKEY_PARAM_RSA_E, 0);
  fputs("\"},{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"e\",\"x\":\"", f);
  put_bn(f, ec, OSSL_PKEY_PARAM_EC_PUB_X, 32);
  fputs("\",\"y\":\"", f);
  put_bn(f, ec, OSSL_PKEY_PARAM_EC_PUB_Y, 32);
  unsigned char raw[32];
  size_t rl = sizeof raw;
  EVP_PKEY_get_raw_public_key(ed, raw, &rl);
  char *x = mcp__base64url_encode(raw, rl);
  fprintf(
      f,
      "\"},{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"d\",\"x\":\"%s\"}]}",
      x);
  free(x);
  fclose(f);
  EVP_PKEY_free(rsa);
  EVP_PKEY_free(ec);
  EVP_PKEY_free(ed);
  if (mcp_auth_new("https://mcp.example.test/mcp", &auth) != MCP_OK ||
      mcp_auth_set_issuer(auth, "https://issuer.example.test") != MCP_OK ||
      mcp_auth_set_jwks_file(auth, path) != MCP_OK ||
      mcp_auth_set_refresh_interval_s(auth, 86400) != MCP_OK)
    abort();
  char *sub = NULL, *scopes = NULL;
  mcp_error_t err;
  mcp_auth_verify(auth, "e30.e30.e30", &sub, &scopes, &err); /* loads keys */
  unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (auth == NULL)
    setup();
  char *token = malloc(size + 1);
  if (token == NULL)
    return 0;
  memcpy(token, data, size);
  token[size] = '\0';
  char *sub = NULL, *scopes = NULL;
  mcp_error_t err;
  if (mcp_auth_verify(auth, token, &sub, &scopes, &err) == MCP_OK)
    abort(); /* a forged token passed */
  free(token);
  return 0;
}
