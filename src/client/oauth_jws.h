/* SPDX-License-Identifier: MIT */
/* oauth_jws.h - the signatures the OAuth client makes (RFC 7515 compact
 * JWS with OpenSSL 3): client assertions (private_key_jwt, RFC 7523 2.2)
 * and DPoP proofs (RFC 9449) with their public JWK and its RFC 7638
 * thumbprint. */
#ifndef MCP_CLIENT_OAUTH_JWS_H
#define MCP_CLIENT_OAUTH_JWS_H

#include <jansson.h>

#include "mcp/status.h"

typedef struct mcp__jws_key mcp__jws_key;

/* A private key in PEM (PKCS#8 or traditional) signing with alg (ES256,
 * RS256, PS256 or EdDSA; NULL: the key type's usual one). NULL with err
 * set when the PEM is not a private key of that algorithm. */
mcp__jws_key *mcp__jws_key_from_pem(const char *pem, const char *alg,
                                    mcp_error_t *err);
/* A fresh P-256 key signing with ES256 (a DPoP key). */
mcp__jws_key *mcp__jws_key_generate(mcp_error_t *err);
void mcp__jws_key_free(mcp__jws_key *k);
const char *mcp__jws_key_alg(const mcp__jws_key *k);

/* The public key as a JWK with only its required members (new
 * reference). */
json_t *mcp__jws_public_jwk(const mcp__jws_key *k);
/* RFC 7638: base64url(SHA-256(the required members, sorted, compact)). */
char *mcp__jws_thumbprint(const json_t *jwk);

/* header (borrowed; "alg" is set) . claims (borrowed), signed; malloc'd
 * compact serialization or NULL. */
char *mcp__jws_sign(const mcp__jws_key *k, const json_t *header,
                    const json_t *claims);

/* A DPoP proof (RFC 9449 4.2) for htm on htu (its query and fragment
 * removed): typ dpop+jwt, the public jwk, jti, iat, plus ath =
 * base64url(SHA-256(access_token)) when access_token is not NULL and nonce
 * when not NULL. malloc'd, or NULL. */
char *mcp__dpop_proof(const mcp__jws_key *k, const char *htm, const char *htu,
                      const char *access_token, const char *nonce);

#endif
