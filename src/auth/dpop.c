/* SPDX-License-Identifier: MIT */
/* dpop.c - DPoP proof verification at the resource server (RFC 9449 4.3):
 * see dpop.h. The replay cache holds SHA-256(jkt || jti) of each accepted
 * proof until its iat leaves the window: an open-addressing table probed a
 * bounded distance, so a full neighbourhood refuses new proofs (503)
 * rather than forgetting one that could then be replayed. Behind it, when
 * the transport installed one (mcp__auth_set_jti_recorder), the record the
 * replicas share: a key the local cache takes is then recorded there too,
 * and a conflict there is a replay another replica saw. */
#include "auth/dpop.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth/auth_internal.h"
#include "util/base64.h"
#include "auth/jwk.h"

#define MAX_PROOF 8192 /* a proof with an RSA key fits easily */
#define PROBES 64

struct mcp__dpop_seen {
  unsigned char key[32];
  int64_t until_s; /* 0: free */
};

mcp_status mcp_auth_set_dpop(mcp_auth_t *a, mcp_auth_dpop mode) {
  if (a == NULL || mode < MCP_AUTH_DPOP_ACCEPT || mode > MCP_AUTH_DPOP_REQUIRE)
    return MCP_ERR_INVALID_ARG;
  a->dpop_mode = mode;
  return MCP_OK;
}

mcp_status mcp_auth_set_dpop_window_s(mcp_auth_t *a, int seconds) {
  if (a == NULL || seconds < 1 || seconds > 600)
    return MCP_ERR_INVALID_ARG;
  a->dpop_window_s = seconds;
  return MCP_OK;
}

mcp_status mcp_auth_set_dpop_nonce_s(mcp_auth_t *a, int seconds) {
  if (a == NULL || seconds < 0 || seconds > 86400)
    return MCP_ERR_INVALID_ARG;
  if (seconds > 0 &&
      RAND_bytes(a->dpop_nonce_key, sizeof a->dpop_nonce_key) != 1)
    return MCP_ERR_INTERNAL;
  a->dpop_nonce_s = seconds;
  return MCP_OK;
}

mcp_status mcp_auth_set_dpop_nonce_secret(mcp_auth_t *a,
                                          const unsigned char *secret,
                                          size_t len) {
  if (a == NULL || secret == NULL || len < 16 || len > 64)
    return MCP_ERR_INVALID_ARG;
  unsigned int n = 0; /* any length becomes the 32 bytes nonces use */
  if (EVP_Digest(secret, len, a->dpop_nonce_key, &n, EVP_sha256(), NULL) != 1)
    return MCP_ERR_INTERNAL;
  return MCP_OK;
}

mcp_status mcp_auth_set_dpop_replay_cache(mcp_auth_t *a, size_t slots) {
  if (a == NULL || slots < 64 || slots > 16777216)
    return MCP_ERR_INVALID_ARG;
  pthread_mutex_lock(&a->dpop_lock);
  free(a->dpop_seen);
  a->dpop_seen = NULL;
  a->dpop_seen_max = slots;
  pthread_mutex_unlock(&a->dpop_lock);
  return MCP_OK;
}

void mcp__auth_set_jti_recorder(mcp_auth_t *a, mcp__jti_recorder_fn fn,
                                void *ctx) {
  pthread_mutex_lock(&a->dpop_lock);
  a->jti_record = fn;
  a->jti_record_ctx = fn ? ctx : NULL;
  pthread_mutex_unlock(&a->dpop_lock);
  /* a record under way may still use the old ctx: the caller may free it
   * once this returns */
  mcp__replay_record_quiesce(a);
}

mcp__dpop_result mcp__dpop_record_result(mcp_status st, const char **why) {
  if (st == MCP_OK) {
    *why = NULL;
    return MCP__DPOP_OK;
  }
  /* never accept a proof the other replicas could not learn of */
  *why = st == MCP_ERR_EXISTS ? "the DPoP proof was used before (jti replay)"
                              : "the DPoP replay record is unavailable";
  return st == MCP_ERR_EXISTS ? MCP__DPOP_INVALID : MCP__DPOP_BUSY;
}

mcp__dpop_result mcp__dpop_record_shared(mcp_auth_t *a,
                                         const mcp__dpop_record *rec,
                                         const char **why) {
  *why = NULL;
  if (!rec->needed)
    return MCP__DPOP_OK;
  pthread_mutex_lock(&a->dpop_lock);
  mcp__jti_recorder_fn fn = a->jti_record;
  void *ctx = a->jti_record_ctx;
  pthread_mutex_unlock(&a->dpop_lock);
  if (fn == NULL)
    return MCP__DPOP_OK;
  return mcp__dpop_record_result(
      fn(ctx, rec->key, rec->until_s * 1000, rec->now_s * 1000,
         MCP__REPLAY_RECORD_DEADLINE_MS, NULL),
      why);
}

void mcp__dpop_fini(mcp_auth_t *a) {
  free(a->dpop_seen);
  a->dpop_seen = NULL;
}

static char *sha256_b64url(const void *data, size_t len) {
  unsigned char md[32];
  unsigned int n = 0;
  if (EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) != 1)
    return NULL;
  return mcp__base64url_encode(md, n);
}

/* The nonce of period index i: base64url(SHA-256(key || i)). */
static char *nonce_of(mcp_auth_t *a, int64_t i) {
  unsigned char in[32 + 8];
  memcpy(in, a->dpop_nonce_key, 32);
  for (int b = 0; b < 8; b++)
    in[32 + b] = (unsigned char)((uint64_t)i >> (8 * b));
  return sha256_b64url(in, sizeof in);
}

char *mcp__dpop_current_nonce(mcp_auth_t *a, int64_t now_s) {
  return a->dpop_nonce_s ? nonce_of(a, now_s / a->dpop_nonce_s) : NULL;
}

static bool nonce_ok(mcp_auth_t *a, const char *nonce, int64_t now_s) {
  if (a->dpop_nonce_s == 0)
    return true;
  if (nonce == NULL)
    return false;
  int64_t i = now_s / a->dpop_nonce_s;
  bool ok = false;
  for (int64_t k = i - 1; k <= i && !ok; k++) {
    char *n = nonce_of(a, k);
    ok = n && strcmp(n, nonce) == 0;
    free(n);
  }
  return ok;
}

/* Records key until until_s; false when it is there already (a replay),
 * *full when no slot near its place is free. */
static bool remember(mcp_auth_t *a, const unsigned char key[32],
                     int64_t until_s, int64_t now_s, bool *full) {
  *full = false;
  pthread_mutex_lock(&a->dpop_lock);
  if (a->dpop_seen == NULL)
    a->dpop_seen = calloc(a->dpop_seen_max, sizeof *a->dpop_seen);
  if (a->dpop_seen == NULL) {
    pthread_mutex_unlock(&a->dpop_lock);
    *full = true;
    return false;
  }
  size_t start = 0;
  memcpy(&start, key, sizeof start);
  struct mcp__dpop_seen *slot = NULL;
  for (size_t p = 0; p < PROBES && p < a->dpop_seen_max; p++) {
    struct mcp__dpop_seen *s = &a->dpop_seen[(start + p) % a->dpop_seen_max];
    bool live = s->until_s != 0 && s->until_s >= now_s;
    if (live && memcmp(s->key, key, 32) == 0) {
      pthread_mutex_unlock(&a->dpop_lock);
      return false;
    }
    if (!live && slot == NULL)
      slot = s;
  }
  if (slot == NULL) {
    *full = true;
  } else {
    memcpy(slot->key, key, 32);
    slot->until_s = until_s;
  }
  pthread_mutex_unlock(&a->dpop_lock);
  return slot != NULL;
}

/* Whether htu names the request: scheme://host + path, compared without
 * case in scheme and host, or alt exactly (both without query). */
static bool htu_ok(const mcp__dpop_check *c, const char *htu) {
  if (strpbrk(htu, "?#") != NULL)
    return false; /* RFC 9449 4.2: without query and fragment */
  if (c->alt_htu != NULL) {
    size_t n = strcspn(c->alt_htu, "?#");
    if (strlen(htu) == n && strncmp(htu, c->alt_htu, n) == 0)
      return true;
  }
  if (c->host == NULL || c->scheme == NULL || c->path == NULL)
    return false;
  size_t sl = strlen(c->scheme), hl = strlen(c->host);
  return strncasecmp(htu, c->scheme, sl) == 0 &&
         strncmp(htu + sl, "://", 3) == 0 &&
         strncasecmp(htu + sl + 3, c->host, hl) == 0 &&
         strcmp(htu + sl + 3 + hl, c->path) == 0;
}

mcp__dpop_result mcp__dpop_verify(mcp_auth_t *a, const mcp__dpop_check *c,
                                  char **jkt, const char **why) {
  mcp__dpop_record rec;
  mcp__dpop_result r = mcp__dpop_verify_local(a, c, jkt, why, &rec);
  if (r == MCP__DPOP_OK && (r = mcp__dpop_record_shared(a, &rec, why)) !=
                               MCP__DPOP_OK) {
    free(*jkt);
    *jkt = NULL;
  }
  return r;
}

mcp__dpop_result mcp__dpop_verify_local(mcp_auth_t *a, const mcp__dpop_check *c,
                                        char **jkt, const char **why,
                                        mcp__dpop_record *rec) {
  memset(rec, 0, sizeof *rec);
  *jkt = NULL;
  *why = "the DPoP proof is not a signed JWT";
  const char *proof = c->proof;
  size_t plen = proof ? strlen(proof) : 0;
  const char *d1 = proof ? strchr(proof, '.') : NULL;
  const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
  if (plen == 0 || plen > MAX_PROOF || d2 == NULL || strchr(d2 + 1, '.') ||
      d1 == proof || d2 == d1 + 1 || d2[1] == '\0')
    return MCP__DPOP_INVALID;
  json_t *header = mcp__jws_segment_json(proof, (size_t)(d1 - proof));
  json_t *claims = mcp__jws_segment_json(d1 + 1, (size_t)(d2 - d1 - 1));
  size_t sig_len = 0;
  unsigned char *sig = mcp__base64url_decode(d2 + 1, strlen(d2 + 1), &sig_len);
  mcp__jwk key = {0};
  bool have_key = false;
  mcp__dpop_result r = MCP__DPOP_INVALID;
  const char *typ = json_string_value(json_object_get(header, "typ"));
  unsigned alg = mcp__alg_bit(json_string_value(json_object_get(header, "alg")));
  const json_t *jwk = json_object_get(header, "jwk");
  const json_t *jti = json_object_get(claims, "jti");
  const json_t *iat = json_object_get(claims, "iat");
  const char *htm = json_string_value(json_object_get(claims, "htm"));
  const char *htu = json_string_value(json_object_get(claims, "htu"));
  const char *ath = json_string_value(json_object_get(claims, "ath"));
  const char *nonce = json_string_value(json_object_get(claims, "nonce"));
  char *want_ath = c->token ? sha256_b64url(c->token, strlen(c->token)) : NULL;
  if (header == NULL || claims == NULL || sig == NULL) {
    *why = "the DPoP proof is malformed";
  } else if (typ == NULL || strcmp(typ, "dpop+jwt") != 0) {
    *why = "the DPoP proof's typ is not dpop+jwt";
  } else if (alg == 0) {
    *why = "the DPoP proof's alg is not accepted";
  } else if (json_object_get(header, "crit") != NULL) {
    *why = "the DPoP proof has critical header parameters";
  } else if (!json_is_object(jwk) || json_object_get(jwk, "d") != NULL ||
             json_object_get(jwk, "p") != NULL ||
             !(have_key = mcp__jwk_parse(jwk, &key)) ||
             (key.algs & alg) == 0) {
    *why = "the DPoP proof's jwk is not a public key for its alg";
  } else if (!mcp__jwk_verify(&key, alg, (const unsigned char *)proof,
                              (size_t)(d2 - proof), sig, sig_len)) {
    *why = "the DPoP proof's signature is invalid";
  } else if (!json_is_string(jti) || json_string_length(jti) == 0 ||
             json_string_length(jti) > 256) {
    *why = "the DPoP proof has no valid jti";
  } else if (htm == NULL || strcmp(htm, c->htm) != 0) {
    *why = "the DPoP proof's htm is not this request's method";
  } else if (htu == NULL || !htu_ok(c, htu)) {
    *why = "the DPoP proof's htu is not this request's URL";
  } else if (!json_is_integer(iat) ||
             json_integer_value(iat) > c->now_s + a->dpop_window_s ||
             json_integer_value(iat) < c->now_s - a->dpop_window_s) {
    *why = "the DPoP proof's iat is outside the accepted window";
  } else if (want_ath == NULL || ath == NULL || strcmp(ath, want_ath) != 0) {
    *why = "the DPoP proof's ath does not match the access token";
  } else if (!nonce_ok(a, nonce, c->now_s)) {
    *why = "the DPoP proof lacks the server's current nonce";
    r = MCP__DPOP_NONCE;
  } else {
    char *thumb = NULL;
    /* RFC 7638: the required members, lexicographic, no whitespace */
    json_t *req = NULL;
    const char *kty = json_string_value(json_object_get(jwk, "kty"));
    if (strcmp(kty, "EC") == 0)
      req = json_pack("{s:O,s:O,s:O,s:O}", "crv", json_object_get(jwk, "crv"),
                      "kty", json_object_get(jwk, "kty"), "x",
                      json_object_get(jwk, "x"), "y", json_object_get(jwk, "y"));
    else if (strcmp(kty, "RSA") == 0)
      req = json_pack("{s:O,s:O,s:O}", "e", json_object_get(jwk, "e"), "kty",
                      json_object_get(jwk, "kty"), "n",
                      json_object_get(jwk, "n"));
    else
      req = json_pack("{s:O,s:O,s:O}", "crv", json_object_get(jwk, "crv"),
                      "kty", json_object_get(jwk, "kty"), "x",
                      json_object_get(jwk, "x"));
    char *text = req ? json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(req);
    thumb = text ? sha256_b64url(text, strlen(text)) : NULL;
    free(text);
    /* the replay key: the key's thumbprint and the jti */
    unsigned char rk[32];
    unsigned int rn = 0;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool hashed = thumb && md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) &&
                  EVP_DigestUpdate(md, thumb, strlen(thumb) + 1) &&
                  EVP_DigestUpdate(md, json_string_value(jti),
                                   json_string_length(jti)) &&
                  EVP_DigestFinal_ex(md, rk, &rn);
    EVP_MD_CTX_free(md);
    bool full = false;
    int64_t until_s = json_integer_value(iat) + a->dpop_window_s + 1;
    if (!hashed) {
      *why = "out of memory";
      r = MCP__DPOP_BUSY;
    } else if (!remember(a, rk, until_s, c->now_s, &full)) {
      *why = full ? "too many DPoP proofs at once"
                  : "the DPoP proof was used before (jti replay)";
      r = full ? MCP__DPOP_BUSY : MCP__DPOP_INVALID;
    } else {
      pthread_mutex_lock(&a->dpop_lock);
      rec->needed = a->jti_record != NULL;
      pthread_mutex_unlock(&a->dpop_lock);
      memcpy(rec->key, rk, sizeof rk);
      rec->until_s = until_s;
      rec->now_s = c->now_s;
      *jkt = thumb;
      thumb = NULL;
      *why = NULL;
      r = MCP__DPOP_OK;
    }
    free(thumb);
  }
  if (have_key)
    mcp__jwk_clear(&key);
  free(want_ath);
  free(sig);
  json_decref(header);
  json_decref(claims);
  return r;
}
