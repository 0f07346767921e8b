/* SPDX-License-Identifier: MIT */
/* dpop.h - DPoP proofs at the resource server (RFC 9449 4.3, 7.1): the
 * proof's form and signature (with the public JWK it carries), htm/htu
 * against the request, the iat window, ath against the access token, the
 * server's nonce, and a bounded jti replay cache (per mcp_auth_t). */
#ifndef MCP_AUTH_DPOP_H
#define MCP_AUTH_DPOP_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/status.h"

typedef struct mcp_auth mcp_auth_t;

/* The proof's algorithms ("ES256 EdDSA RS256 PS256"), for algs= of the
 * DPoP challenge. */
#define MCP__DPOP_ALGS "ES256 EdDSA RS256 PS256"

typedef enum mcp__dpop_result {
  MCP__DPOP_OK = 0,
  MCP__DPOP_INVALID,   /* 401 invalid_dpop_proof */
  MCP__DPOP_NONCE,     /* 401 use_dpop_nonce (send the current nonce) */
  MCP__DPOP_BUSY       /* the replay cache is full: 503 */
} mcp__dpop_result;

/* What the proof is checked against. */
typedef struct mcp__dpop_check {
  const char *proof;       /* the DPoP header */
  const char *htm;         /* the request's method */
  const char *scheme;      /* "http" or "https" */
  const char *host;        /* the Host header (NULL: only alt_htu fits) */
  const char *path;        /* the request path, without query */
  const char *alt_htu;     /* also accepted (the resource URL), or NULL */
  const char *token;       /* the access token (ath) */
  int64_t now_s;
} mcp__dpop_check;

/* What the replicas' shared replay record is to be told of an accepted
 * proof (mcp__auth_set_jti_recorder). */
typedef struct mcp__dpop_record {
  bool needed; /* a shared record is installed */
  unsigned char key[32];
  int64_t until_s, now_s;
} mcp__dpop_record;

/* Verifies c->proof; *jkt gets the RFC 7638 thumbprint of its key
 * (malloc'd) when MCP__DPOP_OK. why: a static description otherwise. The
 * jti is remembered (replays within the window are refused), in the shared
 * record too. */
mcp__dpop_result mcp__dpop_verify(mcp_auth_t *a, const mcp__dpop_check *c,
                                  char **jkt, const char **why);
/* The same with the local replay cache only: *rec says what the shared
 * record is still to be told (mcp__dpop_record_shared, or the replay
 * recorder's threads: replay_record.c) before the proof may be accepted. */
mcp__dpop_result mcp__dpop_verify_local(mcp_auth_t *a, const mcp__dpop_check *c,
                                        char **jkt, const char **why,
                                        mcp__dpop_record *rec);
/* Tells the shared record of rec on this thread: MCP__DPOP_OK when new,
 * MCP__DPOP_INVALID for a replay another replica saw, MCP__DPOP_BUSY when
 * it could not be recorded; *why then. */
mcp__dpop_result mcp__dpop_record_shared(mcp_auth_t *a,
                                         const mcp__dpop_record *rec,
                                         const char **why);
/* The result of a record asked elsewhere (st: the recorder's status). */
mcp__dpop_result mcp__dpop_record_result(mcp_status st, const char **why);
/* The nonce a client must put in its proofs now (malloc'd), or NULL when
 * the server asks for none. */
char *mcp__dpop_current_nonce(mcp_auth_t *a, int64_t now_s);
void mcp__dpop_fini(mcp_auth_t *a);

#endif
