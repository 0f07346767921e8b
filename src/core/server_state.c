/* SPDX-License-Identifier: MIT */
/* server_state.c - what every feature module reports through: the server's
 * log, notifications to sessions and listen streams, icons. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/server_internal.h"
#include "core/session_internal.h"

void mcp__log(mcp_server_t *s, mcp_log_level level, const char *fmt, ...) {
  if (s == NULL || s->log_fn == NULL || level < s->log_min)
    return;
  char small[1024], *msg = small;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  /* whole, however long: messages point here for what err->message cut */
  if (n >= (int)sizeof small) {
    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
      msg = small; /* no memory: the first 1023 bytes */
    va_end(ap);
  }
  s->log_fn(level, msg, s->log_user_data);
  if (msg != small)
    free(msg);
}

mcp_status mcp__refuse(mcp_server_t *s, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mcp__log(s, MCP_LOG_ERROR, "%s", msg);
  return MCP_ERR_INVALID_ARG;
}

static bool ready_session(mcp_session_t *se, void *ud) {
  (void)ud;
  return mcp__session_is_ready(se);
}

/* mcp__notify_sessions with the channel flags given. */
static mcp_status notify_sessions_as(mcp_server_t *s,
                                     bool (*wants)(mcp_session_t *, void *),
                                     void *ud, const mcp__buf *msg,
                                     unsigned flags);

mcp_status mcp__notify_sessions(mcp_server_t *s,
                                bool (*wants)(mcp_session_t *, void *),
                                void *ud, const mcp__buf *msg) {
  return notify_sessions_as(s, wants, ud, msg, MCP__SEND_NOTIFICATION);
}

static mcp_status notify_sessions_as(mcp_server_t *s,
                                     bool (*wants)(mcp_session_t *, void *),
                                     void *ud, const mcp__buf *msg,
                                     unsigned flags) {
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
    mcp__session_notify_as(list[i], msg->data, msg->len, flags);
    mcp__session_release(list[i]);
  }
  if (list != stack)
    free(list);
  return st;
}

mcp_status mcp_server_broadcast(mcp_server_t *s, const char *method,
                                json_t *params) {
  if (s != NULL && method != NULL)
    mcp__relay_publish_broadcast(s, method, params);
  return mcp__server_broadcast_local(s, method, params);
}

mcp_status mcp__server_broadcast_local(mcp_server_t *s, const char *method,
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
  unsigned kind = strcmp(method, "notifications/tools/list_changed") == 0
                      ? MCP__LISTEN_TOOLS
                  : strcmp(method, "notifications/prompts/list_changed") == 0
                      ? MCP__LISTEN_PROMPTS
                  : strcmp(method, "notifications/resources/list_changed") == 0
                      ? MCP__LISTEN_RESOURCES
                      : 0;
  /* a list change tells the transport so, to be coalesced */
  notify_sessions_as(s, ready_session, NULL, &msg,
                     mcp__listen_send_flags(kind, params));
  /* 2026-07-28 clients hear of list changes on their listen streams, and
   * only of those they asked for. */
  if (kind)
    mcp__listen_publish(s, kind, NULL, method, params);
  json_decref(params);
  mcp__buf_free(&msg);
  return MCP_OK;
}

static bool has_prefix(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* SEP-973: servers publish only https: and data: icon URIs. */
const char *mcp__icon_problem(const char *src, const char *theme) {
  if (src == NULL)
    return "the icon's src is NULL";
  if (!(has_prefix(src, "https://") || has_prefix(src, "data:")))
    return "an icon's src must be an https: or data: URI (SEP-973)";
  if (theme != NULL && strcmp(theme, "light") != 0 &&
      strcmp(theme, "dark") != 0)
    return "an icon's theme must be NULL, \"light\" or \"dark\"";
  return NULL;
}

bool mcp__icon_append(json_t **icons, const char *src, const char *mime_type,
                      const char *sizes, const char *theme) {
  if (mcp__icon_problem(src, theme) != NULL)
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
