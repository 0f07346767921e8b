/* SPDX-License-Identifier: MIT */
/* cache.c - the client-side result cache of the 2026-07-28 era (SEP-2549).
 *
 * The four lists and resources/read carry ttlMs (how long the result stays
 * fresh) and cacheScope. A fresh result is answered from here without a
 * round trip. Each client object has its own cache: it is one authorization
 * context, so "private" and "public" results are both kept there. Results
 * marked "public" also go to the shared cache the application may attach
 * to several clients (mcp_client_cache_t), keyed by the server's identity
 * as well. Change notifications (list_changed, resources/updated) drop what
 * they make stale, in both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "util/clock.h"

enum { MAX_ENTRIES = 256, SHARED_DEFAULT = 1024 };
enum { MAX_TTL_MS = 86400000 }; /* a day: a hostile ttl cannot pin stale data */

struct mcp_client_cache {
  pthread_mutex_t lock;
  json_t *entries; /* "IDENTITY\nMETHOD PARAMS" -> {"r": result, "t": ms} */
  size_t max;
};

static bool cacheable(const char *method) {
  static const char *const M[] = {"server/discover",
                                  "tools/list",
                                  "prompts/list",
                                  "resources/list",
                                  "resources/templates/list",
                                  "resources/read"};
  for (size_t i = 0; i < sizeof M / sizeof *M; i++)
    if (strcmp(method, M[i]) == 0)
      return true;
  return false;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* method + params without _meta, as compact sorted JSON; NULL when the
 * request is not cacheable (multi-round retries never are). */
static char *key_of(const char *method, const json_t *params) {
  if (!cacheable(method) || json_object_get(params, "inputResponses") ||
      json_object_get(params, "requestState"))
    return NULL;
  json_t *p =
      json_is_object(params) ? json_copy((json_t *)params) : json_object();
  json_object_del(p, "_meta");
  char *text = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(p);
  if (text == NULL)
    return NULL;
  size_t need = strlen(method) + strlen(text) + 2;
  char *key = malloc(need);
  if (key != NULL) {
    strcpy(key, method);
    strcat(key, " ");
    strcat(key, text);
  }
  free(text);
  return key;
}

json_t *mcp__cache_get(mcp_client_t *c, const char *method,
                       const json_t *params) {
  char *key = key_of(method, params);
  if (key == NULL)
    return NULL;
  json_t *hit = NULL;
  pthread_mutex_lock(&c->lock);
  json_t *e = json_object_get(c->cache, key);
  if (e != NULL) {
    if (json_integer_value(json_object_get(e, "t")) > now_ms())
      hit = json_deep_copy(json_object_get(e, "r"));
    else
      json_object_del(c->cache, key);
  }
  pthread_mutex_unlock(&c->lock);
  free(key);
  return hit;
}

/* The entry for result: {"r": copy, "t": expiry}, or NULL when result
 * carries no positive ttlMs. */
static json_t *entry_of(const json_t *result) {
  json_t *ttl = json_object_get(result, "ttlMs");
  if (!json_is_integer(ttl) || json_integer_value(ttl) <= 0)
    return NULL;
  json_int_t ms = json_integer_value(ttl);
  if (ms > MAX_TTL_MS)
    ms = MAX_TTL_MS;
  return json_pack("{s:o,s:I}", "r", json_deep_copy(result), "t",
                   (json_int_t)(now_ms() + ms));
}

static char *shared_key(const mcp_client_t *c, const char *key) {
  size_t need = strlen(c->cache_server) + strlen(key) + 2;
  char *k = malloc(need);
  if (k != NULL)
    snprintf(k, need, "%s\n%s", c->cache_server, key);
  return k;
}

static void shared_put(mcp_client_cache_t *sc, const char *key, json_t *e) {
  pthread_mutex_lock(&sc->lock);
  if (json_object_size(sc->entries) >= sc->max) {
    int64_t now = now_ms();
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(sc->entries, tmp, k, v) {
      if (json_integer_value(json_object_get(v, "t")) <= now)
        json_object_del(sc->entries, k);
    }
    if (json_object_size(sc->entries) >= sc->max)
      json_object_clear(sc->entries);
  }
  json_object_set(sc->entries, key, e);
  pthread_mutex_unlock(&sc->lock);
}

void mcp__cache_put(mcp_client_t *c, const char *method, const json_t *params,
                    const json_t *result) {
  json_t *e = entry_of(result);
  if (e == NULL)
    return;
  char *key = key_of(method, params);
  if (key == NULL) {
    json_decref(e);
    return;
  }
  pthread_mutex_lock(&c->lock);
  if (json_object_size(c->cache) >= MAX_ENTRIES)
    json_object_clear(c->cache);
  json_object_set(c->cache, key, e);
  pthread_mutex_unlock(&c->lock);
  const char *scope = json_string_value(json_object_get(result, "cacheScope"));
  if (c->opts.shared_cache != NULL && scope != NULL &&
      strcmp(scope, "public") == 0) {
    /* a copy of its own: no jansson value is shared between the locks */
    char *k = shared_key(c, key);
    json_t *copy = json_deep_copy(e);
    if (k != NULL && copy != NULL)
      shared_put(c->opts.shared_cache, k, copy);
    json_decref(copy);
    free(k);
  }
  json_decref(e);
  free(key);
}

json_t *mcp__cache_shared_get(mcp_client_t *c, const char *method,
                              const json_t *params) {
  mcp_client_cache_t *sc = c->opts.shared_cache;
  if (sc == NULL)
    return NULL;
  char *key = key_of(method, params);
  char *k = key ? shared_key(c, key) : NULL;
  free(key);
  if (k == NULL)
    return NULL;
  json_t *hit = NULL;
  pthread_mutex_lock(&sc->lock);
  json_t *e = json_object_get(sc->entries, k);
  if (e != NULL) {
    if (json_integer_value(json_object_get(e, "t")) > now_ms())
      hit = json_deep_copy(json_object_get(e, "r"));
    else
      json_object_del(sc->entries, k);
  }
  pthread_mutex_unlock(&sc->lock);
  free(k);
  return hit;
}

char *mcp__cache_server_identity(const mcp_client_options_t *o) {
  if (o->url != NULL) {
    size_t need = strlen(o->url) + 6;
    char *id = malloc(need);
    if (id != NULL)
      snprintf(id, need, "http %s", o->url);
    return id;
  }
  json_t *argv = json_array();
  for (char **a = o->argv; a != NULL && *a != NULL; a++)
    json_array_append_new(argv, json_string(*a));
  char *text = json_dumps(argv, JSON_COMPACT | JSON_ENCODE_ANY);
  json_decref(argv);
  if (text == NULL)
    return NULL;
  size_t need = strlen(text) + 7;
  char *id = malloc(need);
  if (id != NULL)
    snprintf(id, need, "stdio %s", text);
  free(text);
  return id;
}

static void drop_prefix(json_t *cache, const char *prefix) {
  size_t n = strlen(prefix);
  const char *key;
  json_t *v;
  void *tmp;
  json_object_foreach_safe(cache, tmp, key, v) {
    if (strncmp(key, prefix, n) == 0)
      json_object_del(cache, key);
  }
}

/* The key prefixes a notification makes stale (NULL-terminated). */
static const char *const *stale_prefixes(const char *method) {
  static const char *const TOOLS[] = {"tools/list ", NULL};
  static const char *const PROMPTS[] = {"prompts/list ", NULL};
  static const char *const RESOURCES[] = {"resources/list ",
                                          "resources/templates/list ", NULL};
  /* the uri is inside the key's JSON; drop every read to be safe */
  static const char *const READS[] = {"resources/read ", NULL};
  if (strcmp(method, "notifications/tools/list_changed") == 0)
    return TOOLS;
  if (strcmp(method, "notifications/prompts/list_changed") == 0)
    return PROMPTS;
  if (strcmp(method, "notifications/resources/list_changed") == 0)
    return RESOURCES;
  if (strcmp(method, "notifications/resources/updated") == 0)
    return READS;
  return NULL;
}

void mcp__cache_notify(mcp_client_t *c, const char *method,
                       const json_t *params) {
  (void)params;
  const char *const *stale = stale_prefixes(method);
  if (stale == NULL)
    return;
  pthread_mutex_lock(&c->lock);
  for (const char *const *p = stale; *p != NULL; p++)
    drop_prefix(c->cache, *p);
  pthread_mutex_unlock(&c->lock);
  mcp_client_cache_t *sc = c->opts.shared_cache;
  if (sc == NULL)
    return;
  pthread_mutex_lock(&sc->lock);
  for (const char *const *p = stale; *p != NULL; p++) {
    char *k = shared_key(c, *p);
    if (k != NULL)
      drop_prefix(sc->entries, k);
    free(k);
  }
  pthread_mutex_unlock(&sc->lock);
}

/* ---- the shared cache object ---- */

mcp_status mcp_client_cache_new(size_t max_entries, mcp_client_cache_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  mcp_client_cache_t *sc = calloc(1, sizeof *sc);
  if (sc == NULL || (sc->entries = json_object()) == NULL) {
    free(sc);
    return MCP_ERR_NOMEM;
  }
  pthread_mutex_init(&sc->lock, NULL);
  sc->max = max_entries ? max_entries : SHARED_DEFAULT;
  *out = sc;
  return MCP_OK;
}

void mcp_client_cache_free(mcp_client_cache_t *sc) {
  if (sc == NULL)
    return;
  json_decref(sc->entries);
  pthread_mutex_destroy(&sc->lock);
  free(sc);
}

size_t mcp_client_cache_size(mcp_client_cache_t *sc) {
  if (sc == NULL)
    return 0;
  pthread_mutex_lock(&sc->lock);
  size_t n = json_object_size(sc->entries);
  pthread_mutex_unlock(&sc->lock);
  return n;
}
