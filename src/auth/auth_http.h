/* SPDX-License-Identifier: MIT */
/* auth_http.h - what the HTTP transport asks the resource server. The
 * transport hands over the request's facts and gets either a grant (the
 * subject and scopes of a valid token) or a finished HTTP reply (metadata
 * document, 401, 403, 503) to send as it is. No crypto or token parsing
 * happens in the transport. */
#ifndef MCP_AUTH_HTTP_H
#define MCP_AUTH_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/auth.h"

typedef struct mcp__auth_request {
  const char *http_method;   /* "GET", "POST", ... */
  const char *path;          /* request path */
  const char *authorization; /* Authorization header or NULL */
  bool repeated_authorization;
  const char *host;     /* Host header or NULL */
  const char *endpoint; /* the MCP endpoint path, e.g. "/mcp" */
  bool tls;             /* served over HTTPS */
  const char *dpop;     /* DPoP header (RFC 9449) or NULL */
  bool repeated_dpop;
} mcp__auth_request;

/* A complete HTTP answer; every string is malloc'd (or NULL). */
typedef struct mcp__auth_reply {
  unsigned status;
  char *www_authenticate; /* WWW-Authenticate value or NULL */
  char *body;             /* application/json */
  size_t body_len;
  unsigned retry_after_s; /* Retry-After of a 503, else 0 */
  char *dpop_nonce;       /* DPoP-Nonce value or NULL */
} mcp__auth_reply;

typedef enum mcp__admit {
  MCP__ADMIT_GRANTED = 1, /* *subject and *scopes are set (malloc'd) */
  MCP__ADMIT_REPLY,       /* send *reply instead of serving the request */
  MCP__ADMIT_PENDING      /* the token is being introspected: see below */
} mcp__admit;

/* An admission waiting for token introspection (RFC 7662), which runs on
 * the mcp_auth_t's introspection threads, never on the caller's. */
typedef struct mcp__auth_wait mcp__auth_wait;
/* Called once, on an introspection thread, when the answer is in (or its
 * deadline passed): the caller resumes the request and calls
 * mcp__auth_admit_resume on its own thread. Must not block. */
typedef void (*mcp__auth_ready_fn)(void *ctx);

/* Headers stage: serves the protected-resource metadata, or checks the
 * bearer token. Call for every request before routing by path. Never
 * waits for a network answer: it runs on the transport's network threads.
 * A token whose keys are being fetched gets a 503 with Retry-After; a
 * token to introspect that the cache does not hold gives
 * MCP__ADMIT_PENDING with *wait set: ready(ctx) follows once (within the
 * introspection deadline, below the transport's request deadline), unless
 * mcp__auth_wait_cancel takes it back first. So does a granted DPoP proof
 * that the replicas' shared replay record must learn of (a database
 * call). */
mcp__admit mcp__auth_admit(mcp_auth_t *a, const mcp__auth_request *req,
                           char **subject, char **scopes,
                           mcp__auth_reply *reply, mcp__auth_ready_fn ready,
                           void *ctx, mcp__auth_wait **wait);
/* After ready: the admission's outcome as mcp__auth_admit would have given
 * it (GRANTED or REPLY; a 503 with Retry-After when the introspection
 * endpoint or the DPoP replay record failed or did not answer in time), or
 * MCP__ADMIT_PENDING again when a granted DPoP proof is still to be told to
 * the replicas' replay record: the same wait is waited for again, and ready
 * follows again. req: the same request's facts. Frees wait unless
 * PENDING. */
mcp__admit mcp__auth_admit_resume(mcp_auth_t *a, mcp__auth_wait *wait,
                                  const mcp__auth_request *req, char **subject,
                                  char **scopes, mcp__auth_reply *reply);
/* The request went away before ready: true when ready will not be called
 * (free wait now); false when it ran or is running (free wait once it
 * has). */
bool mcp__auth_wait_cancel(mcp_auth_t *a, mcp__auth_wait *wait);
void mcp__auth_wait_free(mcp__auth_wait *wait);
/* Body stage of a POST: the scopes that the JSON-RPC message (len bytes
 * of body, already checked for size and depth) needs against the granted
 * ones. MCP__ADMIT_GRANTED when all are held (nothing is allocated), else a
 * 403 insufficient_scope reply naming the scopes needed. */
mcp__admit mcp__auth_authorize(mcp_auth_t *a, const mcp__auth_request *req,
                               const char *scopes, const char *body, size_t len,
                               mcp__auth_reply *reply);
void mcp__auth_reply_free(mcp__auth_reply *reply);
/* Starts fetching the keys when they come from a URL or the issuer (a
 * server starts: its first tokens find them at hand). Returns at once. */
void mcp__auth_prefetch(mcp_auth_t *a);

/* A DPoP replay record shared by the replicas (the transport installs
 * store/dpop_jti.h's when the server's store is PostgreSQL): records the
 * 32-byte replay key of an accepted proof until expires_ms (wall clock);
 * MCP_OK when new, MCP_ERR_EXISTS for a replay, any other status when it
 * could not be recorded (the proof is then refused with a 503). It returns
 * within timeout_ms (MCP_ERR_TIMEOUT past it): the callers' threads are
 * never held longer by a database that stopped answering. */
typedef mcp_status (*mcp__jti_recorder_fn)(void *ctx,
                                           const unsigned char key[32],
                                           int64_t expires_ms, int64_t now_ms,
                                           int64_t timeout_ms,
                                           mcp_error_t *err);
/* Installs fn (NULL: none) with ctx; the local cache stays in front. Set
 * before serving, cleared before ctx goes away (returns once no call of
 * the old fn runs). The HTTP transport's admissions call it on the
 * mcp_auth_t's replay record threads, never on a network thread. */
void mcp__auth_set_jti_recorder(mcp_auth_t *a, mcp__jti_recorder_fn fn,
                                void *ctx);
/* Whether granted scopes satisfy the rules of resources/read on uri (and
 * those of every request): notifications about a resource go only to
 * streams whose caller may read it. policy is the mcp_auth_t. Fits
 * mcp__peer.may_read. */
bool mcp__auth_may_read(const void *policy, const char *scopes,
                        const char *uri);

#endif
