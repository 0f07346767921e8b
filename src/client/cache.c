/* SPDX-License-Identifier: MIT */
/* cache.c - the client-side result cache of the 2026-07-28 era (SEP-2549).
 *
 * server/discover, the four lists and resources/read carry ttlMs (how long
 * the result stays fresh) and cacheScope. A fresh result is answered from
 * here without a round trip. The cache belongs to one client object, which
 * is one authorization context, so "private" and "public" results are both
 * kept; nothing is shared between clients. Change notifications
 * (list_changed, resources/updated) drop what they make stale. */
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "util/clock.h"

enum { MAX_ENTRIES = 256 };

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

void mcp__cache_put(mcp_client_t *c, const char *method, const json_t *params,
                    const json_t *result) {
  json_t *ttl = json_object_get(result, "ttlMs");
  if (!json_is_integer(ttl) || json_integer_value(ttl) <= 0)
    return;
  char *key = key_of(method, params);
  if (key == NULL)
    return;
  json_int_t ms = json_integer_value(ttl);
  if (ms > 86400000)
    ms = 86400000; /* a day at most: a hostile ttl cannot pin stale data */
  pthread_mutex_lock(&c->lock);
  if (json_object_size(c->cache) >= MAX_ENTRIES)
    json_object_clear(c->cache);
  json_object_set_new(c->cache, key,
                      json_pack("{s:o,s:I}", "r", json_deep_copy(result), "t",
                                (json_int_t)(now_ms() + ms)));
  pthread_mutex_unlock(&c->lock);
  free(key);
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

void mcp__cache_notify(mcp_client_t *c, const char *method,
                       const json_t *params) {
  pthread_mutex_lock(&c->lock);
  if (strcmp(method, "notifications/tools/list_changed") == 0) {
    drop_prefix(c->cache, "tools/list ");
  } else if (strcmp(method, "notifications/prompts/list_changed") == 0) {
    drop_prefix(c->cache, "prompts/list ");
  } else if (strcmp(method, "notifications/resources/list_changed") == 0) {
    drop_prefix(c->cache, "resources/list ");
    drop_prefix(c->cache, "resources/templates/list ");
  } else if (strcmp(method, "notifications/resources/updated") == 0) {
    /* the uri is inside the key's JSON; drop every read to be safe */
    (void)params;
    drop_prefix(c->cache, "resources/read ");
  }
  pthread_mutex_unlock(&c->lock);
}
