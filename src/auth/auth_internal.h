/* SPDX-License-Identifier: MIT */
/* auth_internal.h - the resource server's configuration and caches, shared
 * by auth.c (API), keys.c (JWKS sources), jwt.c (JWT checks),
 * introspect.c (RFC 7662), dpop.c and replay_record.c (DPoP proofs and the
 * replicas' replay record), scopes.c (scope rules) and admit.c (HTTP
 * admission for the transport).
 *
 * Locks: keys_lock guards the current key set, the discovery state and the
 * key fetcher's schedule; cache_lock the introspection cache; intro_lock
 * the introspections in flight, their waiters and the endpoint's backoff;
 * rec_lock the replay records queued and running and their backoff.
 * None is held during a fetch or a database call: keys are fetched by the
 * fetcher thread of keys.c, one fetch at a time, and published under
 * keys_lock when it ends; tokens are introspected by the introspection
 * threads of introspect.c (a few), one fetch per distinct token in flight;
 * replay records are told by the threads of replay_record.c. No two of
 * these locks are held at once, and none while a waiter's ready callback
 * runs. */
#ifndef MCP_AUTH_INTERNAL_H
#define MCP_AUTH_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "auth/auth_http.h"
#include "auth/dpop.h"
#include "auth/jwk.h"
#include "mcp/auth.h"
#include "util/backoff.h"

#define MCP__AUTH_MAX_TOKEN 8192 /* longer bearer tokens get a 401 */

/* The outcome of checking a token. */
typedef enum mcp__verdict {
  MCP__TOKEN_OK = 0,
  MCP__TOKEN_INVALID,    /* 401 invalid_token */
  MCP__TOKEN_UNAVAILABLE, /* keys or introspection unreachable: 503 */
  MCP__TOKEN_PENDING      /* being introspected (an mcp__auth_wait) */
} mcp__verdict;

/* Who a valid token speaks for. */
typedef struct mcp__principal {
  char *subject;
  char *scopes; /* space-separated, "" when none */
  int64_t exp;  /* seconds since the epoch, 0 when unknown */
  char *jkt;    /* cnf.jkt (RFC 9449 6): the token is DPoP-bound, or NULL */
} mcp__principal;

void mcp__principal_clear(mcp__principal *p);

/* A NumericDate claim (RFC 7519 2) as whole seconds, clamped to the years
 * 1970..9999: a token may carry any JSON number, and converting one past
 * int64_t's range is undefined behaviour in C. */
int64_t mcp__numeric_date(double seconds);

typedef struct mcp__scope_rule {
  char *method; /* "*" for all */
  char *name;   /* tool/prompt name or resource URI, or NULL */
  char *scopes; /* space-separated */
} mcp__scope_rule;

typedef struct mcp__icache_entry {
  unsigned char key[32]; /* SHA-256 of the token: tokens are not kept */
  mcp__principal p;
  int64_t expires_ms; /* monotonic */
  bool used;
} mcp__icache_entry;

/* Introspection threads at most per mcp_auth_t: a hanging endpoint holds
 * this many transfers, never a network thread. */
#define MCP__INTROSPECTORS 4
/* Threads at most that tell the shared DPoP replay record (a database that
 * stops answering holds each until the record's deadline). */
#define MCP__RECORDERS 2
/* A DPoP replay record is answered within this (ms): past it the proof
 * gets a 503 and the record's database call has given up. */
#define MCP__REPLAY_RECORD_DEADLINE_MS 2000

struct mcp_auth {
  char *resource;
  char *issuer;
  char *jwks_file, *jwks_uri, *cainfo;
  char *introspection, *client_id, *client_secret;
  int leeway_s, refresh_s;
  char **scopes_supported;
  size_t nscopes_supported;
  mcp__scope_rule *rules;
  size_t nrules;

  pthread_mutex_t keys_lock;
  mcp__jwks *keys;           /* current set or NULL */
  bool discovered;           /* discovery ran successfully */
  char *found_jwks_uri;      /* from discovery */
  char *found_introspection; /* from discovery */
  /* the key fetcher (keys.c): started at the first fetch, joined by
   * mcp_auth_free */
  pthread_t fetcher;
  bool fetcher_started;
  pthread_cond_t fetch_wake;  /* the fetcher waits for work */
  pthread_cond_t fetch_done;  /* callers that may wait, for its end */
  bool fetch_wanted;          /* a fetch is asked for */
  bool fetch_keys;            /* ... and it is to fetch the JWKS too */
  bool fetching, fetching_keys; /* a fetch runs (keys_lock released) */
  bool fetch_stop;
  atomic_bool fetch_cancel;   /* ends a transfer under way (mcp_auth_free) */
  uint64_t fetches_done;      /* fetches ended so far */
  unsigned fetch_failures;    /* failed fetches in a row */
  int64_t next_fetch_ms;      /* monotonic: no refresh before (backoff) */
  char fetch_error[256];      /* why the last refresh failed, "" */

  /* DPoP (dpop.c): the mode, the proof's iat window, the nonce secret
   * (NULL: no nonce asked) and the jti replay cache under dpop_lock */
  mcp_auth_dpop dpop_mode;
  int dpop_window_s;
  int dpop_nonce_s; /* nonce lifetime, 0: no nonce */
  unsigned char dpop_nonce_key[32];
  pthread_mutex_t dpop_lock;
  struct mcp__dpop_seen *dpop_seen; /* open addressing, dpop_seen_max */
  size_t dpop_seen_max;
  /* the replay record every replica shares (mcp__auth_set_jti_recorder),
   * asked after the local cache, outside dpop_lock; NULL: local only */
  mcp__jti_recorder_fn jti_record;
  void *jti_record_ctx;

  pthread_mutex_t cache_lock;
  mcp__icache_entry *cache;
  size_t cache_max;
  int cache_ttl_s;

  /* token introspection (introspect.c) under intro_lock: the jobs queued
   * and running (one per distinct token), the threads that run them
   * (started as jobs come, at most MCP__INTROSPECTORS, joined by
   * mcp_auth_free), and the endpoint's backoff after failures */
  pthread_mutex_t intro_lock;
  pthread_cond_t intro_wake; /* the threads wait for jobs */
  pthread_cond_t intro_done; /* mcp_auth_verify's callers, for answers */
  struct mcp__intro_job *intro_queue, *intro_queue_tail, *intro_running;
  unsigned intro_jobs;   /* queued and running */
  unsigned intro_queued; /* of which queued */
  unsigned intro_threads, intro_idle;
  pthread_t intro_thread[MCP__INTROSPECTORS];
  bool intro_stop;
  atomic_bool intro_cancel;  /* ends transfers under way (mcp_auth_free) */
  mcp__backoff intro_backoff; /* after the endpoint failed */
  char intro_error[160];       /* why the last one failed */

  /* the shared DPoP replay record asked off the network threads
   * (replay_record.c) under rec_lock: the records queued and running, the
   * recorder threads (at most MCP__RECORDERS), each call bounded by its
   * record's deadline; the backoff after failures */
  pthread_mutex_t rec_lock;
  pthread_cond_t rec_wake;  /* recorders: a record is queued */
  pthread_cond_t rec_idle_cv; /* mcp__auth_set_jti_recorder: none runs */
  struct mcp__auth_wait *rec_queue, *rec_queue_tail, *rec_running;
  unsigned rec_queued, rec_busy;
  unsigned rec_threads, rec_idle;
  pthread_t rec_thread[MCP__RECORDERS];
  bool rec_stop;
  uint64_t rec_ids;
  mcp__backoff rec_backoff; /* after the record failed */
};

struct mcp__dpop_seen;
/* ---- keys.c -------------------------------------------------------------- */
/* Whether a token check may wait for a key fetch it needs: the public
 * mcp_auth_verify does (bounded by the fetch deadline); a transport's
 * network thread never does (503 with Retry-After at once). */
typedef enum mcp__key_wait { MCP__KEYS_WAIT, MCP__KEYS_NO_WAIT } mcp__key_wait;

/* Why no keys came back. */
typedef struct mcp__key_state {
  bool unavailable;       /* no answer now: 503 */
  unsigned retry_after_s; /* when to ask again (with unavailable) */
} mcp__key_state;

/* The fetcher's lock, conditions and thread (init in mcp_auth_new; fini in
 * mcp_auth_free: stops the fetcher and frees the keys and discovery). */
void mcp__auth_keys_init(mcp_auth_t *a);
void mcp__auth_keys_fini(mcp_auth_t *a);
/* The current key set (counted). Loads it on first use; when kid is given
 * and unknown, refreshes once if the schedule allows (refresh interval,
 * backoff after failures). A fetch runs on the fetcher thread: with
 * MCP__KEYS_NO_WAIT a set that may change once it ends is not returned
 * (NULL, state->unavailable). NULL with state->unavailable set when no keys
 * can be had now. */
mcp__jwks *mcp__auth_keys(mcp_auth_t *a, const char *kid, mcp__key_wait wait,
                          mcp__key_state *state, mcp_error_t *err);
/* Whether JWTs can be checked (a JWKS file, URI or issuer is set). */
bool mcp__auth_has_keys(const mcp_auth_t *a);
/* Whether opaque tokens may be introspected: an endpoint is configured,
 * or discovery may still find one (it did not run yet, or found one). */
bool mcp__auth_introspects(mcp_auth_t *a);
/* The introspection endpoint (configured or discovered) or NULL. Waits for
 * discovery until deadline_ms (monotonic) when it did not run yet: only
 * on an introspection thread. */
const char *mcp__auth_introspection_endpoint(mcp_auth_t *a,
                                             int64_t deadline_ms);

/* ---- jwt.c --------------------------------------------------------------- */
/* Whether token has the shape of a JWS compact serialization (3 parts). */
bool mcp__looks_like_jwt(const char *token);
/* Whether an "aud" claim (a string or an array of them) names resource;
 * an absent one (NULL) names nothing. jwt.c. */
bool mcp__aud_names(const json_t *aud, const char *resource);
/* One base64url segment of a compact JWS (a token's or a DPoP proof's
 * header or claims) decoded as a JSON object (duplicate members refused),
 * or NULL. */
json_t *mcp__jws_segment_json(const char *p, size_t n);
mcp__verdict mcp__jwt_check(mcp_auth_t *a, const char *token, int64_t now_s,
                            mcp__key_wait wait, mcp__key_state *keys,
                            mcp__principal *out, mcp_error_t *err);

/* ---- introspect.c -------------------------------------------------------- */
/* What an admission carries over a pending introspection (admit.c fills
 * the caller's part, introspect.c the answer under intro_lock). */
struct mcp__auth_wait {
  /* the caller's */
  mcp__auth_ready_fn ready; /* NULL: a blocked mcp_auth_verify */
  void *ctx;
  bool dpop;   /* Authorization: DPoP */
  char *jkt;   /* the DPoP proof's key thumbprint, or NULL */
  /* the answer's (intro_lock) */
  struct mcp__auth_wait *next; /* among its job's waiters */
  struct mcp__intro_job *job;  /* NULL once answered */
  bool done;
  mcp__verdict verdict;
  mcp__principal p;
  unsigned retry_after_s;
  char why[200];
  /* a DPoP replay record (replay_record.c, rec_lock): the principal of the
   * granted token waits in p meanwhile */
  bool recording;
  mcp__dpop_record rec;
  int rec_state; /* 1 queued, 2 running, 3 answered */
  uint64_t rec_id;
  int64_t rec_deadline_ms;
  mcp_status rec_status;
  struct mcp__auth_wait *rec_next;
};

/* ---- replay_record.c ------------------------------------------------------ */
void mcp__replay_record_init(mcp_auth_t *a);
void mcp__replay_record_fini(mcp_auth_t *a);
/* Queues w (its rec, ready and ctx set) for a recorder thread: true when
 * queued (ready follows once, by the deadline), false when the record is
 * backed off or cannot be queued (*retry_after_s: when to ask again). */
bool mcp__replay_record_queue(mcp_auth_t *a, mcp__auth_wait *w,
                              unsigned *retry_after_s);
/* The record's outcome once ready ran (MCP_ERR_IO while none came). */
mcp_status mcp__replay_record_take(mcp_auth_t *a, mcp__auth_wait *w,
                                   unsigned *retry_after_s);
/* Takes w back if it is still queued or running: true when ready will not
 * be called. */
bool mcp__replay_record_cancel(mcp_auth_t *a, mcp__auth_wait *w);
/* Waits until no record runs (the recorder is being changed). rec_lock
 * not held. */
void mcp__replay_record_quiesce(mcp_auth_t *a);

/* Answers from the cache at once; otherwise a job introspects the token on
 * an introspection thread: with ready (ready, ctx; *wait gets the waiter)
 * MCP__TOKEN_PENDING is returned at once, without ready (NULL) the call
 * waits for the answer (mcp_auth_verify). A failed or hanging endpoint is
 * backed off: meanwhile tokens not cached get MCP__TOKEN_UNAVAILABLE at
 * once with *retry_after_s. */
mcp__verdict mcp__introspect(mcp_auth_t *a, const char *token, int64_t now_s,
                             mcp__auth_ready_fn ready, void *ctx,
                             mcp__auth_wait **wait, unsigned *retry_after_s,
                             mcp__principal *out, mcp_error_t *err);
/* The answer a waiter got (after its ready callback; MCP__TOKEN_UNAVAILABLE
 * when none came yet): the principal moves to *out. */
mcp__verdict mcp__introspect_take(mcp_auth_t *a, mcp__auth_wait *w,
                                  mcp__principal *out, unsigned *retry_after_s,
                                  mcp_error_t *err);
void mcp__introspect_init(mcp_auth_t *a);
/* Stops the introspection threads (transfers under way are cancelled;
 * waiters left are answered MCP__TOKEN_UNAVAILABLE). */
void mcp__introspect_fini(mcp_auth_t *a);
void mcp__icache_free(mcp_auth_t *a);

/* ---- auth.c -------------------------------------------------------------- */
/* How a token check that needs introspection goes on without waiting:
 * NULL to wait for it. */
typedef struct mcp__auth_async {
  mcp__auth_ready_fn ready;
  void *ctx;
  mcp__auth_wait **wait; /* set with MCP__TOKEN_PENDING */
} mcp__auth_async;

/* Checks a token: JWT when keys are configured and it looks like one, else
 * introspection when configured (MCP__TOKEN_PENDING with async). keys says
 * when to ask again after MCP__TOKEN_UNAVAILABLE. */
mcp__verdict mcp__auth_check_token(mcp_auth_t *a, const char *token,
                                   mcp__key_wait wait,
                                   const mcp__auth_async *async,
                                   mcp__key_state *keys, mcp__principal *out,
                                   mcp_error_t *err);
/* True when scopes (space-separated) holds scope. */
bool mcp__scope_has(const char *scopes, const char *scope);
/* The same for the n bytes at scope (not NUL-terminated). */
bool mcp__scope_has_n(const char *scopes, const char *scope, size_t n);

#endif
