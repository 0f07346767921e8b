/* SPDX-License-Identifier: MIT */
/* server.c - the server object: identity, limits, diagnostics, capabilities.
 *
 * Capabilities are derived from what is registered at the moment a client
 * initializes, so a server never advertises a feature it cannot serve.
 */
#include "completion/completion_internal.h"
#include "prompts/prompt_internal.h"
#include "resources/resource_internal.h"
#include "server/internal.h"
#include "skills/skills_internal.h"
#include "tools/tool_internal.h"
#include "mcp/stdio.h"
#include "mcp/store.h"
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
  /* Every module brings its own method rows; the dispatcher names none. */
  mcp__lifecycle_register(s);
  mcp__tools_register(s);
  mcp__resources_register(s);
  mcp__prompts_register(s);
  mcp__completion_register(s);
  mcp__skills_register(s);
  *out = s;
  return MCP_OK;
}

void mcp_server_free(mcp_server_t *s) {
  if (s == NULL)
    return;
  mcp__relay_close(s); /* no remote delivery from now on */
  if (s->task_hooks)   /* its threads still use the server */
    s->task_hooks->shutdown(s);
  mcp_store_free(s->run_store); /* after the runner that used it */
  mcp__server_tracing_stop(s); /* the last spans go out (or are dropped) */
  mcp__listen_destroy(s);
  mcp__catalog_destroy(&s->tools);
  mcp__catalog_destroy(&s->resources);
  mcp__catalog_destroy(&s->templates);
  mcp__catalog_destroy(&s->prompts);
  mcp__skills_free(s->skills);
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

mcp_status mcp_server_set_format_assertion(mcp_server_t *s, bool on) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  size_t added = mcp_server_tool_count(s);
  if (on != s->assert_formats && added > 0) {
    /* their schemas were compiled already: they would silently keep the
     * old setting */
    mcp__log(s, MCP_LOG_ERROR,
             "mcp_server_set_format_assertion(%s) refused: %zu tool%s added "
             "before it keep format as %s; set it before adding tools, or "
             "per tool with mcp_tool_set_format_assertion",
             on ? "true" : "false", added, added == 1 ? " was" : "s were",
             on ? "an annotation" : "an assertion");
    return MCP_ERR_STATE;
  }
  s->assert_formats = on;
  return MCP_OK;
}

mcp_status mcp__server_start_serving(mcp_server_t *s, mcp_error_t *err) {
  /* serving first: a tool added meanwhile is refused by add_tool, one
   * added before is seen by the check */
  atomic_store(&s->serving, true);
  mcp_status st = mcp__tools_check_task_support(s, err);
  if (st == MCP_OK) /* apps.h: every linked view is registered */
    st = mcp__tools_check_ui_links(s, err);
  if (st != MCP_OK)
    atomic_store(&s->serving, false);
  return st;
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
  if (s->tasks && s->task_hooks)
    json_object_set_new(caps, "tasks", s->task_hooks->capabilities(s));
  return caps;
}
