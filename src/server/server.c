/* SPDX-License-Identifier: MIT */
/* server.c - the server object: identity, limits, diagnostics, capabilities.
 *
 * Capabilities are derived from what is registered at the moment a client
 * initializes, so a server never advertises a feature it cannot serve.
 */
#include "server/internal.h"
#include "util/rand.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void default_log(mcp_log_level level, const char *message, void *ud) {
  (void)ud;
  /* stderr only: stdout belongs to the protocol on stdio. */
  fprintf(stderr, "libmcp %s: %s\n", mcp_log_level_name(level), message);
}

mcp_status mcp_server_new(const char *name, const char *version,
                          mcp_server_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (name == NULL || *name == '\0' || version == NULL)
    return MCP_ERR_INVALID_ARG;
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
  s->tools_list_changed = true;
  s->log_fn = default_log;
  s->log_min = MCP_LOG_WARNING;
  mcp__catalog_init(&s->tools);
  mcp__catalog_init(&s->resources);
  mcp__catalog_init(&s->templates);
  mcp__catalog_init(&s->prompts);
  s->resources_list_changed = true;
  s->prompts_list_changed = true;
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

void mcp_server_free(mcp_server_t *s) {
  if (s == NULL)
    return;
  mcp__tasks_shutdown(s); /* its threads still use the server */
  mcp__listen_destroy(s);
  mcp__catalog_destroy(&s->tools);
  mcp__catalog_destroy(&s->resources);
  mcp__catalog_destroy(&s->templates);
  mcp__catalog_destroy(&s->prompts);
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

static bool has_prefix(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* SEP-973: servers publish only https: and data: icon URIs. */
bool mcp__icon_append(json_t **icons, const char *src, const char *mime_type,
                      const char *sizes, const char *theme) {
  if (src == NULL || !(has_prefix(src, "https://") || has_prefix(src, "data:")))
    return false;
  if (theme != NULL && strcmp(theme, "light") != 0 &&
      strcmp(theme, "dark") != 0)
    return false;
  json_t *icon = json_pack("{s:s}", "src", src);
  if (icon == NULL)
    return false;
  if (mime_type)
    json_object_set_new(icon, "mimeType", json_string(mime_type));
  if (sizes) {
    json_t *list = json_array();
    char *copy = strdup(sizes);
    if (list == NULL || copy == NULL) {
      json_decref(list);
      free(copy);
      json_decref(icon);
      return false;
    }
    char *save = NULL;
    for (char *tok = strtok_r(copy, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save))
      json_array_append_new(list, json_string(tok));
    free(copy);
    json_object_set_new(icon, "sizes", list);
  }
  if (theme)
    json_object_set_new(icon, "theme", json_string(theme));
  if (*icons == NULL && (*icons = json_array()) == NULL) {
    json_decref(icon);
    return false;
  }
  return json_array_append_new(*icons, icon) == 0;
}

mcp_status mcp_server_add_icon(mcp_server_t *s, const char *src,
                               const char *mime_type, const char *sizes,
                               const char *theme) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  pthread_mutex_lock(&s->lock);
  bool ok = mcp__icon_append(&s->icons, src, mime_type, sizes, theme);
  pthread_mutex_unlock(&s->lock);
  return ok ? MCP_OK : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_server_set_page_size(mcp_server_t *s, size_t items) {
  if (s == NULL || items == 0)
    return MCP_ERR_INVALID_ARG;
  s->page_size = items;
  return MCP_OK;
}

mcp_status mcp_server_set_max_message_bytes(mcp_server_t *s, size_t bytes) {
  if (s == NULL || bytes < 64)
    return MCP_ERR_INVALID_ARG;
  s->max_message_bytes = bytes;
  return MCP_OK;
}

mcp_status mcp_server_set_max_json_depth(mcp_server_t *s, size_t depth) {
  if (s == NULL || depth < 4 || depth > 10000)
    return MCP_ERR_INVALID_ARG;
  s->max_json_depth = depth;
  return MCP_OK;
}

mcp_status mcp_server_set_worker_threads(mcp_server_t *s, unsigned threads) {
  if (s == NULL || threads == 0 || threads > 1024)
    return MCP_ERR_INVALID_ARG;
  s->worker_threads = threads;
  return MCP_OK;
}

mcp_status mcp_server_set_request_timeout_ms(mcp_server_t *s, int timeout_ms) {
  if (s == NULL || timeout_ms <= 0)
    return MCP_ERR_INVALID_ARG;
  s->request_timeout_ms = timeout_ms;
  return MCP_OK;
}

mcp_status mcp_server_set_tools_list_changed(mcp_server_t *s, bool declared) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  s->tools_list_changed = declared;
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

void mcp__log(mcp_server_t *s, mcp_log_level level, const char *fmt, ...) {
  if (s == NULL || s->log_fn == NULL || level < s->log_min)
    return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->log_fn(level, msg, s->log_user_data);
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

json_t *mcp__server_capabilities_json(const mcp_server_t *s) {
  json_t *caps = json_object();
  if (caps == NULL)
    return NULL;
  /* tools is declared even when none are registered yet: tools may be added
   * while serving, and list_changed tells the client about them. */
  json_t *tools = json_object();
  if (tools && s->tools_list_changed)
    json_object_set_new(tools, "listChanged", json_true());
  json_object_set_new(caps, "tools", tools);
  json_object_set_new(caps, "logging", json_object());
  mcp__features_capabilities((mcp_server_t *)s, caps);
  if (s->tasks)
    json_object_set_new(caps, "tasks", mcp__tasks_capabilities_json(s));
  return caps;
}

static bool ready_session(mcp_session_t *se, void *ud) {
  (void)ud;
  return mcp__session_is_ready(se);
}

mcp_status mcp__notify_sessions(mcp_server_t *s,
                                bool (*wants)(mcp_session_t *, void *),
                                void *ud, const mcp__buf *msg) {
  /* Collect the sessions under the server lock, send outside it: a channel
   * is never called with a server or session lock held. */
  mcp_session_t *stack[64], **list = stack;
  size_t n = 0, cap = 64;
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&s->lock);
  for (mcp_session_t *it = s->sessions; it; it = it->next) {
    if (!wants(it, ud))
      continue;
    if (n == cap) {
      mcp_session_t **grown = malloc(cap * 2 * sizeof *grown);
      if (grown == NULL) {
        st = MCP_ERR_NOMEM;
        break;
      }
      memcpy(grown, list, n * sizeof *grown);
      if (list != stack)
        free(list);
      list = grown;
      cap *= 2;
    }
    mcp__session_retain(it);
    list[n++] = it;
  }
  pthread_mutex_unlock(&s->lock);
  for (size_t i = 0; i < n; i++) {
    mcp__session_notify(list[i], msg->data, msg->len);
    mcp__session_release(list[i]);
  }
  if (list != stack)
    free(list);
  return st;
}

mcp_status mcp_server_broadcast(mcp_server_t *s, const char *method,
                                json_t *params) {
  if (s == NULL || method == NULL) {
    json_decref(params);
    return MCP_ERR_INVALID_ARG;
  }
  mcp__buf msg;
  mcp__buf_init(&msg);
  if (!mcp__jsonrpc_encode_notification(&msg, method, params)) {
    json_decref(params);
    mcp__buf_free(&msg);
    return MCP_ERR_NOMEM;
  }
  mcp__notify_sessions(s, ready_session, NULL, &msg);
  /* 2026-07-28 clients hear of list changes on their listen streams, and
   * only of those they asked for. */
  unsigned kind = strcmp(method, "notifications/tools/list_changed") == 0
                      ? MCP__LISTEN_TOOLS
                  : strcmp(method, "notifications/prompts/list_changed") == 0
                      ? MCP__LISTEN_PROMPTS
                  : strcmp(method, "notifications/resources/list_changed") == 0
                      ? MCP__LISTEN_RESOURCES
                      : 0;
  if (kind)
    mcp__listen_publish(s, kind, NULL, method, params);
  json_decref(params);
  mcp__buf_free(&msg);
  return MCP_OK;
}
