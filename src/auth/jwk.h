/* SPDX-License-Identifier: MIT */
/* jwk.h - JSON Web Key Sets (RFC 7517) turned into OpenSSL public keys, each
 * pinned to the signature algorithms its kind allows.
 *
 * Accepted keys: RSA (2048 bits or more; RS256 and PS256, or the one its
 * `alg` names), EC P-256 (ES256), OKP Ed25519 (EdDSA). Symmetric keys
 * ("oct"), other curves, keys whose `use` is not "sig" and keys whose `alg`
 * does not fit their kind are skipped, never an error: a JWKS may carry keys
 * for other consumers. */
#ifndef MCP_AUTH_JWK_H
#define MCP_AUTH_JWK_H

#include <jansson.h>
#include <openssl/evp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "mcp/status.h"

/* Algorithm bits. */
#define MCP__ALG_RS256 1u
#define MCP__ALG_PS256 2u
#define MCP__ALG_ES256 4u
#define MCP__ALG_EDDSA 8u

/* The bit of a JWS "alg" name, 0 for anything not accepted ("none", HS256,
 * RS384, ...). */
unsigned mcp__alg_bit(const char *name);

typedef struct mcp__jwk {
  char *kid; /* or NULL */
  unsigned algs;
  EVP_PKEY *pkey;
} mcp__jwk;

/* An immutable key set, reference-counted so that verifiers keep using one
 * while a refresh replaces it. */
typedef struct mcp__jwks {
  atomic_int refs;
  size_t n;
  mcp__jwk *keys;
} mcp__jwks;

/* Parses a JWKS document ({"keys":[...]}); returns a set with one
 * reference (maybe empty when no key was usable) or NULL with err set. */
mcp__jwks *mcp__jwks_parse(const json_t *doc, mcp_error_t *err);
/* The same from text. */
mcp__jwks *mcp__jwks_parse_text(const char *text, size_t len, mcp_error_t *err);
void mcp__jwks_retain(mcp__jwks *s);
void mcp__jwks_release(mcp__jwks *s);
/* The key with this kid, or NULL. */
const mcp__jwk *mcp__jwks_find(const mcp__jwks *s, const char *kid);

/* One JWK (a DPoP proof's key), as a set's keys are read; false when it
 * is not usable. mcp__jwk_clear frees what it holds. */
bool mcp__jwk_parse(const json_t *jwk, mcp__jwk *k);
void mcp__jwk_clear(mcp__jwk *k);

/* Verifies sig over msg with key k for algorithm bit alg (which k must
 * admit). true when valid. */
bool mcp__jwk_verify(const mcp__jwk *k, unsigned alg, const unsigned char *msg,
                     size_t msg_len, const unsigned char *sig, size_t sig_len);

#endif
