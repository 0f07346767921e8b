/* SPDX-License-Identifier: MIT */
/* server_object.c - the server object the core owns: made and freed,
 * identity (serverInfo, instructions), limits, the log, and the registry of
 * feature slots through which each feature module keeps its state on the
 * server without the core naming it (feature.h).
 *
 * mcp_server_new and mcp_server_free (src/server) wrap mcp__server_create
 * and mcp__server_destroy with the feature modules' registration and
 * shutdown.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/server_internal.h"
#include "mcp/stdio.h"
#include "util/rand.h"

static void default_log(mcp_log_level level, const char *message, void *ud) {
  (void)ud;
  /* stderr only: stdout belongs to the protocol on stdio. */
  fprintf(stderr, "libmcp %s: %s\n", mcp_log_level_name(level), message);
}

mcp_status mcp__server_create(const char *name, const char *version,
                              mcp_server_t **out) {
  *out = NULL;
  mcp_server_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return MCP_ERR_NOMEM;
  s->name = strdup(name);
  s->version = strdup(version);
  if (s->name == NULL || s->version == NULL) {
    free(s->name);
    free(s->version);
    free(s);
    return MCP_ERR_NOMEM;
  }
  s->page_size = 50;
  s->max_message_bytes = 4u << 20;
  s->max_json_depth = 64;
  s->worker_threads = 4;
  s->request_timeout_ms = 60000;
  s->log_fn = default_log;
  s->log_min = MCP_LOG_WARNING;
  mcp__cache_hints_init(s->cache_hints);
  mcp__listen_init(&s->listen);
  /* A random key per process: states resume only where they were made until
   * the application shares a key across replicas. */
  s->state_key.len = 32;
  s->state_ttl_ms = 10 * 60 * 1000;
  if (mcp__random_bytes(s->state_key.bytes, s->state_key.len) != MCP_OK) {
    free(s->name);
    free(s->version);
    free(s);
    return MCP_ERR_IO;
  }
  pthread_mutex_init(&s->lock, NULL);
  *out = s;
  return MCP_OK;
}

void mcp__server_destroy(mcp_server_t *s) {
  mcp__server_tracing_stop(s); /* the last spans go out (or are dropped) */
  mcp__listen_destroy(s);
  /* the features' state, the last registered first */
  for (size_t i = atomic_load(&s->slots_count); i-- > 0;) {
    void *state = atomic_load(&s->slots[i].state);
    if (state != NULL && s->slots[i].key->destroy != NULL)
      s->slots[i].key->destroy(state);
  }
  pthread_mutex_destroy(&s->lock);
  free(s->name);
  free(s->version);
  free(s->title);
  free(s->description);
  free(s->website_url);
  free(s->instructions);
  json_decref(s->icons);
  free(s);
}

/* ---- feature slots ------------------------------------------------------- */
mcp_status mcp__server_set_slot(mcp_server_t *s, const mcp__slot_key *key,
                                void *state) {
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&s->lock);
  size_t n = atomic_load(&s->slots_count), i = 0;
  while (i < n && s->slots[i].key != key)
    i++;
  if (i < n) {
    atomic_store(&s->slots[i].state, state);
  } else if (n == MCP__SLOTS) {
    st = MCP_ERR_LIMIT;
  } else {
    s->slots[n].key = key;
    atomic_store(&s->slots[n].state, state);
    atomic_store(&s->slots_count, n + 1); /* published last */
  }
  pthread_mutex_unlock(&s->lock);
  if (st != MCP_OK)
    mcp__log(s, MCP_LOG_ERROR, "%s: no free feature slot (%d in use)",
             key->name, MCP__SLOTS);
  return st;
}

void *mcp__server_slot(const mcp_server_t *s, const mcp__slot_key *key) {
  size_t n = atomic_load_explicit(&s->slots_count, memory_order_acquire);
  for (size_t i = 0; i < n; i++)
    if (s->slots[i].key == key)
      return atomic_load_explicit(&s->slots[i].state, memory_order_acquire);
  return NULL;
}

/* ---- identity, limits, log ----------------------------------------------- */
static mcp_status set_string(mcp_server_t *s, char **slot, const char *v) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  char *copy = NULL;
  if (v != NULL && (copy = strdup(v)) == NULL)
    return MCP_ERR_NOMEM;
  pthread_mutex_lock(&s->lock);
  free(*slot);
  *slot = copy;
  pthread_mutex_unlock(&s->lock);
  return MCP_OK;
}

mcp_status mcp_server_set_title(mcp_server_t *s, const char *v) {
  return set_string(s, s ? &s->title : NULL, v);
}
mcp_status mcp_server_set_description(mcp_server_t *s, const char *v) {
  return set_string(s, s ? &s->description : NULL, v);
}
mcp_status mcp_server_set_website_url(mcp_server_t *s, const char *v) {
  return set_string(s, s ? &s->website_url : NULL, v);
}
mcp_status mcp_server_set_instructions(mcp_server_t *s, const char *v) {
  return set_string(s, s ? &s->instructions : NULL, v);
}

mcp_status mcp_server_add_icon(mcp_server_t *s, const char *src,
                               const char *mime_type, const char *sizes,
                               const char *theme) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  const char *problem = mcp__icon_problem(src, theme);
  if (problem != NULL)
    return mcp__refuse(s, "mcp_server_add_icon(\"%.100s\"): %s",
                       src ? src : "(null)", problem);
  pthread_mutex_lock(&s->lock);
  bool ok = mcp__icon_append(&s->icons, src, mime_type, sizes, theme);
  pthread_mutex_unlock(&s->lock);
  return ok ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp_server_set_page_size(mcp_server_t *s, size_t items) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (items == 0)
    return mcp__refuse(s, "mcp_server_set_page_size: 0 items; at least 1");
  s->page_size = items;
  return MCP_OK;
}

mcp_status mcp_server_set_max_message_bytes(mcp_server_t *s, size_t bytes) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (bytes < 64)
    return mcp__refuse(s,
                       "mcp_server_set_max_message_bytes: %zu bytes; at "
                       "least 64",
                       bytes);
  s->max_message_bytes = bytes;
  return MCP_OK;
}

mcp_status mcp_server_set_max_json_depth(mcp_server_t *s, size_t depth) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (depth < 4 || depth > 10000)
    return mcp__refuse(s,
                       "mcp_server_set_max_json_depth: %zu; from 4 to 10000",
                       depth);
  s->max_json_depth = depth;
  return MCP_OK;
}

mcp_status mcp_server_set_worker_threads(mcp_server_t *s, unsigned threads) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (threads == 0 || threads > 1024)
    return mcp__refuse(s,
                       "mcp_server_set_worker_threads: %u; from 1 to 1024",
                       threads);
  s->worker_threads = threads;
  return MCP_OK;
}

mcp_status mcp_server_set_request_timeout_ms(mcp_server_t *s, int timeout_ms) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  if (timeout_ms <= 0)
    return mcp__refuse(s,
                       "mcp_server_set_request_timeout_ms: %d; more than 0",
                       timeout_ms);
  s->request_timeout_ms = timeout_ms;
  return MCP_OK;
}

void mcp_server_set_log_handler(mcp_server_t *s, mcp_log_fn fn,
                                void *user_data) {
  if (s == NULL)
    return;
  s->log_fn = fn;
  s->log_user_data = user_data;
}

void mcp_server_set_log_level(mcp_server_t *s, mcp_log_level min) {
  if (s)
    s->log_min = min;
}

mcp_status mcp_server_set_stdout_guard(mcp_server_t *s, bool on) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  s->stdout_unguarded = !on;
  return MCP_OK;
}

void mcp_server_set_log_params(mcp_server_t *s, bool on) {
  if (s)
    s->log_params = on;
}

json_t *mcp__server_info_json(const mcp_server_t *cs) {
  mcp_server_t *s = (mcp_server_t *)cs;
  pthread_mutex_lock(&s->lock);
  json_t *o = json_pack("{s:s,s:s}", "name", s->name, "version", s->version);
  if (o) {
    if (s->title)
      json_object_set_new(o, "title", json_string(s->title));
    if (s->description)
      json_object_set_new(o, "description", json_string(s->description));
    if (s->icons)
      json_object_set(o, "icons", s->icons);
    if (s->website_url)
      json_object_set_new(o, "websiteUrl", json_string(s->website_url));
  }
  pthread_mutex_unlock(&s->lock);
  return o;
}

void mcp__server_add_instructions(mcp_server_t *s, json_t *result) {
  pthread_mutex_lock(&s->lock);
  if (s->instructions)
    json_object_set_new(result, "instructions", json_string(s->instructions));
  pthread_mutex_unlock(&s->lock);
}

const char *mcp__server_name(const mcp_server_t *s) { return s->name; }
const char *mcp__server_version(const mcp_server_t *s) { return s->version; }
const char *mcp__server_title(const mcp_server_t *s) { return s->title; }
size_t mcp__server_page_size(const mcp_server_t *s) { return s->page_size; }
size_t mcp__server_max_json_depth(const mcp_server_t *s) {
  return s->max_json_depth;
}
bool mcp__server_is_serving(const mcp_server_t *s) {
  return atomic_load(&((mcp_server_t *)s)->serving);
}
void mcp__server_set_serving(mcp_server_t *s, bool serving) {
  atomic_store(&s->serving, serving);
}
void mcp__server_set_task_hooks(mcp_server_t *s, const mcp__task_hooks *hooks) {
  s->task_hooks = hooks;
}
const mcp__task_hooks *mcp__server_task_hooks(const mcp_server_t *s) {
  return s->task_hooks;
}
void mcp__server_set_resource_updated(
    mcp_server_t *s, mcp_status (*fn)(mcp_server_t *s, const char *uri)) {
  s->resource_updated_local = fn;
}
mcp_status mcp__server_on_resync(mcp_server_t *s, mcp__resync_fn fn) {
  if (s->resync_count == MCP__RESYNC_HOOKS)
    return MCP_ERR_LIMIT;
  s->resync[s->resync_count++] = fn;
  return MCP_OK;
}
