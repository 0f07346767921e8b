/* SPDX-License-Identifier: MIT */
/* keys.c - where verification keys come from: a JWKS file, a JWKS URL, or
 * the issuer's metadata (RFC 8414, then OpenID Connect discovery); the
 * current set is cached and refreshed when a token names an unknown kid, at
 * most once per refresh interval.
 *
 * Network fetches (discovery and JWKS) run on a fetcher thread of the
 * mcp_auth_t, never on the caller's: a transport's network loop that meets
 * a token it cannot check yet answers 503 with Retry-After at once instead
 * of stalling every connection of the loop behind an issuer that hangs.
 * keys_lock is released during the fetch; one fetch runs at a time, under
 * one overall deadline; failed fetches are backed off, so that tokens with
 * made-up kids cannot make the server fetch more than once per backoff
 * period. A JWKS file is read on the caller's thread (a local read). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth_http.h"
#include "auth/auth_internal.h"
#include "auth/fetch.h"
#include "util/clock.h"
#include "util/thread.h"

/* A whole refresh (up to three discovery URLs, then the JWKS) ends within
 * this: below the HTTP transport's request deadline (10 s by default), so
 * that a caller that waits for it still gets its answer. */
#define KEY_FETCH_DEADLINE_MS 4000
/* After a failed fetch the next waits 1 s, then 2, 4, ... at most 30 s. */
#define KEY_BACKOFF_FIRST_MS 1000
#define KEY_BACKOFF_MAX_MS 30000

bool mcp__auth_has_keys(const mcp_auth_t *a) {
  return a->jwks_file || a->jwks_uri || a->issuer;
}

/* GET url as a JSON object, giving up at deadline_ms (monotonic). */
static mcp_status fetch_json(mcp_auth_t *a, const char *url,
                             int64_t deadline_ms, json_t **out,
                             mcp_error_t *err) {
  int64_t left = deadline_ms - mcp__monotonic_ms();
  if (left <= 0)
    return mcp_error_set(err, MCP_ERR_TIMEOUT, "%s: no time left", url);
  mcp__fetch_request req = {url,  NULL, NULL, NULL, a->cainfo, (long)left,
                            &a->fetch_cancel};
  long status = 0;
  char *body = NULL;
  size_t len = 0;
  mcp_status s = mcp__fetch(&req, &status, &body, &len, err);
  if (s != MCP_OK)
    return s;
  if (status != 200) {
    free(body);
    return mcp_error_set(err, MCP_ERR_IO, "%s: HTTP status %ld", url, status);
  }
  json_error_t je;
  *out = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
  free(body);
  if (!json_is_object(*out)) {
    json_decref(*out);
    *out = NULL;
    return mcp_error_set(err, MCP_ERR_IO, "%s: not a JSON object", url);
  }
  return MCP_OK;
}

/* RFC 8414 3.1: the well-known segment goes between host and path. */
static char *inserted_url(const char *issuer, const char *suffix) {
  const char *scheme = strstr(issuer, "://");
  if (scheme == NULL)
    return NULL;
  const char *path = strchr(scheme + 3, '/');
  size_t host_len = path ? (size_t)(path - issuer) : strlen(issuer);
  const char *rest = path ? path : "";
  size_t rest_len = strlen(rest);
  while (rest_len > 0 && rest[rest_len - 1] == '/')
    rest_len--;
  char *url = NULL;
  if (asprintf(&url, "%.*s%s%.*s", (int)host_len, issuer, suffix, (int)rest_len,
               rest) < 0)
    return NULL;
  return url;
}

/* OpenID Connect Discovery 4: appended to the issuer. */
static char *appended_url(const char *issuer, const char *suffix) {
  size_t n = strlen(issuer);
  while (n > 0 && issuer[n - 1] == '/')
    n--;
  char *url = NULL;
  if (asprintf(&url, "%.*s%s", (int)n, issuer, suffix) < 0)
    return NULL;
  return url;
}

/* What discovery found (malloc'd strings, NULL when not published). */
typedef struct found_metadata {
  bool ok; /* discovery ran and succeeded */
  char *jwks_uri, *introspection;
} found_metadata;

/* Finds jwks_uri and introspection_endpoint. Fetcher thread, no lock. */
static mcp_status discover(mcp_auth_t *a, int64_t deadline_ms,
                           found_metadata *found, mcp_error_t *err) {
  char *urls[3] = {
      inserted_url(a->issuer, "/.well-known/oauth-authorization-server"),
      appended_url(a->issuer, "/.well-known/openid-configuration"),
      inserted_url(a->issuer, "/.well-known/openid-configuration")};
  mcp_status s =
      mcp_error_set(err, MCP_ERR_IO, "no metadata for issuer %s", a->issuer);
  bool done = false;
  for (int i = 0; i < 3 && !done; i++) {
    json_t *doc = NULL;
    if (urls[i] == NULL)
      continue;
    s = fetch_json(a, urls[i], deadline_ms, &doc, err);
    if (s != MCP_OK)
      continue;
    const char *iss = json_string_value(json_object_get(doc, "issuer"));
    const char *jwks = json_string_value(json_object_get(doc, "jwks_uri"));
    const char *intro =
        json_string_value(json_object_get(doc, "introspection_endpoint"));
    if (iss == NULL || strcmp(iss, a->issuer) != 0) {
      /* RFC 8414 3.3: metadata for another issuer must not be used */
      s = mcp_error_set(err, MCP_ERR_IO, "%s names issuer %s, not %s", urls[i],
                        iss ? iss : "(none)", a->issuer);
    } else {
      found->jwks_uri = jwks ? strdup(jwks) : NULL;
      found->introspection = intro ? strdup(intro) : NULL;
      done = found->ok = true;
      s = (jwks && !found->jwks_uri) || (intro && !found->introspection)
              ? mcp_error_set(err, MCP_ERR_NOMEM, "out of memory")
              : MCP_OK;
    }
    json_decref(doc);
  }
  for (int i = 0; i < 3; i++)
    free(urls[i]);
  return s;
}

static mcp__jwks *load_file(const char *path, mcp_error_t *err) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    mcp_error_set(err, MCP_ERR_IO, "cannot open JWKS file %s", path);
    return NULL;
  }
  char *text = malloc(MCP__FETCH_MAX_BYTES + 1);
  size_t n = text ? fread(text, 1, MCP__FETCH_MAX_BYTES + 1, f) : 0;
  fclose(f);
  mcp__jwks *s = NULL;
  if (text == NULL)
    mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  else if (n > MCP__FETCH_MAX_BYTES)
    mcp_error_set(err, MCP_ERR_LIMIT, "JWKS file %s is too large", path);
  else
    s = mcp__jwks_parse_text(text, n, err);
  free(text);
  return s;
}

/* ---- the refresh schedule (keys_lock held) ------------------------------ */

/* Records the end of a refresh attempt: a success allows the next one after
 * the refresh interval, a failure after a growing backoff. */
static void schedule_next(mcp_auth_t *a, bool ok, const mcp_error_t *err) {
  int64_t now = mcp__monotonic_ms();
  if (ok) {
    a->fetch_failures = 0;
    a->next_fetch_ms = now + (int64_t)a->refresh_s * 1000;
    a->fetch_error[0] = '\0';
    return;
  }
  unsigned shift = a->fetch_failures < 5 ? a->fetch_failures : 5;
  int64_t backoff = (int64_t)KEY_BACKOFF_FIRST_MS << shift;
  if (backoff > KEY_BACKOFF_MAX_MS)
    backoff = KEY_BACKOFF_MAX_MS;
  /* with keys at hand this was an unknown kid's refresh: no sooner than
   * the refresh interval either */
  if (a->keys && backoff < (int64_t)a->refresh_s * 1000)
    backoff = (int64_t)a->refresh_s * 1000;
  a->fetch_failures++;
  a->next_fetch_ms = now + backoff;
  snprintf(a->fetch_error, sizeof a->fetch_error, "%s",
           err && err->message[0] ? err->message : "the key fetch failed");
}

/* Seconds a client should wait before asking again. */
static unsigned retry_after(const mcp_auth_t *a) {
  if (a->fetching || a->fetch_wanted)
    return 1; /* the answer is being fetched now */
  int64_t left = a->next_fetch_ms - mcp__monotonic_ms();
  if (left <= 1000)
    return 1;
  return (unsigned)((left + 999) / 1000);
}

/* ---- the fetcher thread ------------------------------------------------- */

static void install(mcp_auth_t *a, found_metadata *found, mcp__jwks *fresh) {
  if (found->ok && !a->discovered) {
    /* discovery runs once: the strings stay until mcp_auth_free (see
     * mcp__auth_introspection_endpoint) */
    a->found_jwks_uri = found->jwks_uri;
    a->found_introspection = found->introspection;
    a->discovered = true;
  } else {
    free(found->jwks_uri);
    free(found->introspection);
  }
  if (fresh) {
    mcp__jwks_release(a->keys);
    a->keys = fresh;
  }
}

/* One refresh without the lock: discovery when not done yet, then the JWKS
 * when want_keys. */
static bool refresh(mcp_auth_t *a, bool discovered, const char *jwks_uri,
                    bool want_keys, found_metadata *found, mcp__jwks **fresh,
                    mcp_error_t *err) {
  int64_t deadline = mcp__monotonic_ms() + KEY_FETCH_DEADLINE_MS;
  const char *uri = a->jwks_uri ? a->jwks_uri : jwks_uri;
  if (a->jwks_uri == NULL && !discovered) {
    if (discover(a, deadline, found, err) != MCP_OK)
      return false;
    uri = found->jwks_uri;
  }
  if (!want_keys)
    return true;
  if (uri == NULL) {
    mcp_error_set(err, MCP_ERR_IO, "issuer %s publishes no jwks_uri",
                  a->issuer);
    return false;
  }
  json_t *doc = NULL;
  if (fetch_json(a, uri, deadline, &doc, err) != MCP_OK)
    return false;
  *fresh = mcp__jwks_parse(doc, err);
  json_decref(doc);
  return *fresh != NULL;
}

static void *fetcher_main(void *arg) {
  mcp_auth_t *a = arg;
  pthread_mutex_lock(&a->keys_lock);
  while (!a->fetch_stop) {
    if (!a->fetch_wanted) {
      pthread_cond_wait(&a->fetch_wake, &a->keys_lock);
      continue;
    }
    bool want_keys = a->fetch_keys;
    bool discovered = a->discovered;
    const char *jwks_uri = a->found_jwks_uri; /* stable once discovered */
    a->fetch_wanted = a->fetch_keys = false;
    a->fetching = true;
    a->fetching_keys = want_keys;
    pthread_mutex_unlock(&a->keys_lock);

    found_metadata found = {false, NULL, NULL};
    mcp__jwks *fresh = NULL;
    mcp_error_t err;
    memset(&err, 0, sizeof err);
    bool ok =
        refresh(a, discovered, jwks_uri, want_keys, &found, &fresh, &err);

    pthread_mutex_lock(&a->keys_lock);
    install(a, &found, fresh);
    if (want_keys || !ok) /* a discovery alone does not delay the keys */
      schedule_next(a, ok, &err);
    a->fetching = false;
    a->fetches_done++;
    pthread_cond_broadcast(&a->fetch_done);
  }
  pthread_mutex_unlock(&a->keys_lock);
  return NULL;
}

/* Asks the fetcher for a refresh (starting it the first time). keys_lock
 * held. False when the thread cannot be started. */
static bool ask_fetch(mcp_auth_t *a, bool want_keys, mcp_error_t *err) {
  if (!a->fetcher_started) {
    if (mcp__thread_start(&a->fetcher, fetcher_main, a) != 0) {
      mcp_error_set(err, MCP_ERR_NOMEM, "cannot start the key fetcher");
      return false;
    }
    a->fetcher_started = true;
  }
  a->fetch_wanted = true;
  a->fetch_keys |= want_keys;
  pthread_cond_signal(&a->fetch_wake);
  return true;
}

/* Waits (keys_lock held) until the fetch in progress or asked for ends or
 * wait_ms pass. True when it ended. */
static bool wait_fetch(mcp_auth_t *a, int64_t wait_ms) {
  uint64_t seen = a->fetches_done;
  struct timespec until;
  mcp__deadline_in(CLOCK_MONOTONIC, wait_ms, &until);
  while (a->fetches_done == seen && !a->fetch_stop)
    if (pthread_cond_timedwait(&a->fetch_done, &a->keys_lock, &until) != 0)
      break;
  return a->fetches_done != seen;
}

void mcp__auth_keys_init(mcp_auth_t *a) {
  pthread_mutex_init(&a->keys_lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&a->fetch_done, &ca);
  pthread_condattr_destroy(&ca);
  pthread_cond_init(&a->fetch_wake, NULL);
  atomic_init(&a->fetch_cancel, false);
}

void mcp__auth_keys_fini(mcp_auth_t *a) {
  pthread_mutex_lock(&a->keys_lock);
  a->fetch_stop = true;
  atomic_store(&a->fetch_cancel, true); /* ends a transfer under way */
  pthread_cond_signal(&a->fetch_wake);
  pthread_cond_broadcast(&a->fetch_done);
  bool started = a->fetcher_started;
  pthread_mutex_unlock(&a->keys_lock);
  if (started)
    pthread_join(a->fetcher, NULL);
  mcp__jwks_release(a->keys);
  free(a->found_jwks_uri);
  free(a->found_introspection);
  pthread_cond_destroy(&a->fetch_wake);
  pthread_cond_destroy(&a->fetch_done);
  pthread_mutex_destroy(&a->keys_lock);
}

void mcp__auth_prefetch(mcp_auth_t *a) {
  if (a->jwks_file || !mcp__auth_has_keys(a))
    return;
  mcp_error_t err;
  pthread_mutex_lock(&a->keys_lock);
  if (a->keys == NULL && !a->fetching && !a->fetch_wanted &&
      mcp__monotonic_ms() >= a->next_fetch_ms)
    ask_fetch(a, true, &err);
  pthread_mutex_unlock(&a->keys_lock);
}

/* ---- what the token checks ask ------------------------------------------ */

/* Re-reads the JWKS file when the schedule allows. keys_lock held. */
static void reload_file(mcp_auth_t *a, mcp_error_t *err) {
  if (mcp__monotonic_ms() < a->next_fetch_ms)
    return;
  mcp__jwks *fresh = load_file(a->jwks_file, err);
  if (fresh) {
    mcp__jwks_release(a->keys);
    a->keys = fresh;
  }
  schedule_next(a, fresh != NULL, err);
}

static bool keys_serve(const mcp__jwks *keys, const char *kid) {
  return keys != NULL && (kid == NULL || mcp__jwks_find(keys, kid) != NULL);
}

mcp__jwks *mcp__auth_keys(mcp_auth_t *a, const char *kid, mcp__key_wait wait,
                          mcp__key_state *state, mcp_error_t *err) {
  state->unavailable = false;
  state->retry_after_s = 0;
  pthread_mutex_lock(&a->keys_lock);
  if (!keys_serve(a->keys, kid)) {
    if (a->jwks_file) {
      reload_file(a, err);
    } else {
      /* at most one refresh per call: with a zero refresh interval the
       * schedule would allow another at once */
      bool coming = a->fetch_wanted || (a->fetching && a->fetching_keys);
      if (coming)
        a->fetch_keys = true; /* a queued discovery: keys too */
      else if (a->fetching || mcp__monotonic_ms() >= a->next_fetch_ms)
        coming = ask_fetch(a, true, err); /* (after a running discovery) */
      if (coming && wait == MCP__KEYS_WAIT)
        coming = !wait_fetch(a, KEY_FETCH_DEADLINE_MS + 500);
      if (coming && !keys_serve(a->keys, kid)) {
        /* the answer may change once the fetch ends: ask again then */
        state->unavailable = true;
        state->retry_after_s = retry_after(a);
        pthread_mutex_unlock(&a->keys_lock);
        mcp_error_set(err, MCP_ERR_IO, "the signing keys are being fetched");
        return NULL;
      }
    }
  }
  mcp__jwks *k = a->keys;
  mcp__jwks_retain(k);
  if (k == NULL) {
    state->unavailable = true;
    state->retry_after_s = retry_after(a);
    if (a->fetch_error[0])
      mcp_error_set(err, MCP_ERR_IO, "no signing keys: %s", a->fetch_error);
    else if (a->jwks_file == NULL)
      mcp_error_set(err, MCP_ERR_IO, "no signing keys available");
  }
  pthread_mutex_unlock(&a->keys_lock);
  return k;
}

bool mcp__auth_introspects(mcp_auth_t *a) {
  if (a->introspection)
    return true;
  if (a->client_id == NULL || a->issuer == NULL)
    return false;
  pthread_mutex_lock(&a->keys_lock);
  /* discovery runs once: after it, its answer stands */
  bool maybe = !a->discovered || a->found_introspection != NULL;
  pthread_mutex_unlock(&a->keys_lock);
  return maybe;
}

const char *mcp__auth_introspection_endpoint(mcp_auth_t *a,
                                             int64_t deadline_ms) {
  if (a->introspection)
    return a->introspection;
  if (a->client_id == NULL || a->issuer == NULL)
    return NULL;
  pthread_mutex_lock(&a->keys_lock);
  if (!a->discovered) {
    /* an introspector's thread (introspect.c): discovery goes through the
     * fetcher so that it runs once, whoever asks */
    mcp_error_t err;
    bool coming = a->fetching || a->fetch_wanted;
    if (!coming && mcp__monotonic_ms() >= a->next_fetch_ms)
      coming = ask_fetch(a, false, &err);
    int64_t left = deadline_ms - mcp__monotonic_ms();
    if (coming && left > 0)
      wait_fetch(a, left);
  }
  const char *e = a->found_introspection;
  pthread_mutex_unlock(&a->keys_lock);
  return e; /* stable once discovered: discovery runs once */
}
