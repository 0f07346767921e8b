/* SPDX-License-Identifier: MIT */
/* http_options.c - setters and defaults of mcp_http_options_t. Every setter
 * validates at once, so a bad value fails where it is set, not at start. */
#include "transport/http_options.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/http_cidr.h"
#include "util/str.h"

mcp_status mcp_http_options_new(mcp_http_options_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_http_options_t *o = calloc(1, sizeof *o);
  if (o == NULL || (o->address = strdup("127.0.0.1")) == NULL ||
      (o->endpoint = strdup("/mcp")) == NULL) {
    mcp_http_options_free(o);
    *out = NULL;
    return MCP_ERR_NOMEM;
  }
  o->port = 8808;
  o->get_stream = true;
  o->max_body = 4u << 20;
  o->max_header = 16u << 10;
  o->max_sessions = 1024;
  o->max_connections = 1020; /* libmicrohttpd's default, kept on its removal */
  o->idle_ms = 600000;
  o->io_threads = 0; /* automatic, see http_daemon.c */
  o->conn_timeout_s = 30;
  o->retry_ms = 1000;
  o->heartbeat_ms = 15000;
  o->shutdown_ms = 5000;
  o->max_conns_per_addr = 128;
  o->max_streams = 0; /* automatic: see http_limits.c */
  o->max_streams_per_session = 8;
  o->request_timeout_ms = 10000;
  o->retry_after_s = 1;
  o->stream_buffer = 64u << 10;
  o->stream_buffer_total = 32u << 20;
  *out = o;
  return MCP_OK;
}

static void list_free(char **list, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(list[i]);
  free(list);
}

void mcp_http_options_free(mcp_http_options_t *o) {
  if (o == NULL)
    return;
  free(o->address);
  free(o->endpoint);
  free(o->tls_cert);
  free(o->tls_key);
  free(o->metrics_path);
  free(o->metrics_allow);
  list_free(o->origins, o->norigins);
  list_free(o->hosts, o->nhosts);
  list_free(o->cors, o->ncors);
  free(o->refusals);
  free(o);
}

mcp_status mcp__http_options_refuse(mcp_http_options_t *o, const char *what,
                                    const char *why) {
  return mcp__str_add_line(&o->refusals, "%s: %s", what, why) == MCP_OK
             ? MCP_ERR_INVALID_ARG
             : MCP_ERR_NOMEM;
}

bool mcp__http_list_add(char ***list, size_t *count, const char *value) {
  char **grown = realloc(*list, (*count + 1) * sizeof *grown);
  if (grown == NULL)
    return false;
  *list = grown;
  if ((grown[*count] = strdup(value)) == NULL)
    return false;
  (*count)++;
  return true;
}

mcp_http_options_t *mcp__http_options_copy(const mcp_http_options_t *o) {
  mcp_http_options_t *c = malloc(sizeof *c);
  if (c == NULL)
    return NULL;
  *c = *o;
  c->address = strdup(o->address);
  c->endpoint = strdup(o->endpoint);
  c->origins = NULL;
  c->hosts = NULL;
  c->cors = NULL;
  c->norigins = c->nhosts = c->ncors = 0;
  c->tls_cert = o->tls_cert ? strdup(o->tls_cert) : NULL;
  c->tls_key = o->tls_key ? strdup(o->tls_key) : NULL;
  c->refusals = NULL;
  c->metrics_path = o->metrics_path ? strdup(o->metrics_path) : NULL;
  c->metrics_allow = NULL;
  c->nmetrics_allow = 0;
  if (o->nmetrics_allow &&
      (c->metrics_allow = malloc(o->nmetrics_allow * sizeof *o->metrics_allow)))
    c->nmetrics_allow = o->nmetrics_allow;
  if (c->metrics_allow)
    memcpy(c->metrics_allow, o->metrics_allow,
           o->nmetrics_allow * sizeof *o->metrics_allow);
  bool ok = c->address && c->endpoint && (c->tls_cert || !o->tls_cert) &&
            (c->tls_key || !o->tls_key) &&
            (c->metrics_path || !o->metrics_path) &&
            c->nmetrics_allow == o->nmetrics_allow;
  for (size_t i = 0; ok && i < o->norigins; i++)
    ok = mcp__http_list_add(&c->origins, &c->norigins, o->origins[i]);
  for (size_t i = 0; ok && i < o->nhosts; i++)
    ok = mcp__http_list_add(&c->hosts, &c->nhosts, o->hosts[i]);
  for (size_t i = 0; ok && i < o->ncors; i++)
    ok = mcp__http_list_add(&c->cors, &c->ncors, o->cors[i]);
  if (!ok) {
    mcp_http_options_free(c);
    return NULL;
  }
  return c;
}

static mcp_status set_string(char **field, const char *value) {
  char *copy = strdup(value);
  if (copy == NULL)
    return MCP_ERR_NOMEM;
  free(*field);
  *field = copy;
  return MCP_OK;
}

mcp_status mcp_http_options_set_bind(mcp_http_options_t *o, const char *address,
                                     uint16_t port) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (address == NULL || *address == '\0')
    return mcp__http_options_refuse(o, "mcp_http_options_set_bind",
                                    "the address is empty");
  o->port = port;
  mcp__str_drop_lines(&o->refusals, "mcp_http_options_set_bind");
  return set_string(&o->address, address);
}

mcp_status mcp_http_options_set_endpoint(mcp_http_options_t *o,
                                         const char *path) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (path == NULL || path[0] != '/')
    return mcp__http_options_refuse(o, "mcp_http_options_set_endpoint",
                                    "the path must start with '/'");
  mcp__str_drop_lines(&o->refusals, "mcp_http_options_set_endpoint");
  return set_string(&o->endpoint, path);
}

/* Header values we compare against must be visible ASCII. */
static bool is_token(const char *s) {
  if (s == NULL || *s == '\0')
    return false;
  for (; *s; s++)
    if (*s < 0x21 || *s > 0x7e)
      return false;
  return true;
}

mcp_status mcp_http_options_add_allowed_origin(mcp_http_options_t *o,
                                               const char *origin) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (!is_token(origin))
    return mcp__http_options_refuse(o, "mcp_http_options_add_allowed_origin",
                                    "empty, or not visible ASCII");
  return mcp__http_list_add(&o->origins, &o->norigins, origin) ? MCP_OK
                                                               : MCP_ERR_NOMEM;
}

mcp_status mcp_http_options_add_allowed_host(mcp_http_options_t *o,
                                             const char *host) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (!is_token(host))
    return mcp__http_options_refuse(o, "mcp_http_options_add_allowed_host",
                                    "empty, or not visible ASCII");
  return mcp__http_list_add(&o->hosts, &o->nhosts, host) ? MCP_OK
                                                         : MCP_ERR_NOMEM;
}

/* A setter that stores v in o->field when `valid` (an expression of v)
 * holds: the options' ranges in one table instead of twenty functions. A
 * refused v is reported with the condition it broke ("needs v >= 64"). */
#define SETTER(fn, type, field, valid)                                         \
  mcp_status fn(mcp_http_options_t *o, type v) {                               \
    if (o == NULL)                                                             \
      return MCP_ERR_INVALID_ARG;                                              \
    if (!(valid))                                                              \
      return mcp__http_options_refuse(o, #fn, "needs " #valid);                \
    o->field = v;                                                              \
    mcp__str_drop_lines(&o->refusals, #fn); /* the last call wins */           \
    return MCP_OK;                                                             \
  }
SETTER(mcp_http_options_set_stateless, bool, stateless, true)
SETTER(mcp_http_options_set_get_stream, bool, get_stream, true)
SETTER(mcp_http_options_set_always_sse, bool, always_sse, true)
SETTER(mcp_http_options_set_sse_poll, bool, sse_poll, true)
SETTER(mcp_http_options_set_max_body_bytes, size_t, max_body, v >= 64)
SETTER(mcp_http_options_set_max_header_bytes, size_t, max_header,
       v >= 1024 && v <= (64u << 20))
SETTER(mcp_http_options_set_max_json_depth, size_t, max_depth, true)
SETTER(mcp_http_options_set_session_idle_timeout_ms, int64_t, idle_ms, v >= 0)
SETTER(mcp_http_options_set_max_sessions, size_t, max_sessions, v != 0)
SETTER(mcp_http_options_set_max_connections, size_t, max_connections,
       v != 0 && v <= 1000000)
SETTER(mcp_http_options_set_worker_threads, unsigned, workers, v <= 1024)
SETTER(mcp_http_options_set_io_threads, unsigned, io_threads, v <= 256)
SETTER(mcp_http_options_set_sse_retry_ms, int, retry_ms, v >= 0)
SETTER(mcp_http_options_set_heartbeat_ms, int, heartbeat_ms, v >= 0)
SETTER(mcp_http_options_set_connection_timeout_s, unsigned, conn_timeout_s,
       true)
SETTER(mcp_http_options_set_shutdown_deadline_ms, int, shutdown_ms, v >= 0)
SETTER(mcp_http_options_set_max_connections_per_address, size_t,
       max_conns_per_addr, v >= 1)
SETTER(mcp_http_options_set_request_timeout_ms, int64_t, request_timeout_ms,
       v >= 0)
SETTER(mcp_http_options_set_max_streams, size_t, max_streams, true)
SETTER(mcp_http_options_set_max_streams_per_session, size_t,
       max_streams_per_session, true)
SETTER(mcp_http_options_set_retry_after_s, unsigned, retry_after_s,
       v >= 1 && v <= 86400)
SETTER(mcp_http_options_set_stream_buffer_bytes, size_t, stream_buffer,
       v >= 4096 && v <= (64u << 20))
SETTER(mcp_http_options_set_stream_buffer_total_bytes, size_t,
       stream_buffer_total, v >= (64u << 10))

mcp_status mcp_http_options_set_event_store(mcp_http_options_t *o,
                                            mcp_event_store store) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (store.ops && (store.ops->version < 1 || store.ops->append == NULL ||
                    store.ops->replay_after == NULL))
    return mcp__http_options_refuse(o, "mcp_http_options_set_event_store",
                                    "the store needs ops with version >= 1, "
                                    "append and replay_after");
  o->store = store;
  o->store_set = true;
  mcp__str_drop_lines(&o->refusals, "mcp_http_options_set_event_store");
  return MCP_OK;
}

mcp_status mcp_http_options_set_auth(mcp_http_options_t *o, mcp_auth_t *a) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->auth = a;
  return MCP_OK;
}

mcp_status mcp_http_options_set_tls(mcp_http_options_t *o,
                                    const char *cert_file,
                                    const char *key_file) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if ((cert_file == NULL) != (key_file == NULL))
    return mcp__http_options_refuse(o, "mcp_http_options_set_tls",
                                    "give both files or neither");
  char *c = cert_file ? strdup(cert_file) : NULL;
  char *k = key_file ? strdup(key_file) : NULL;
  if (cert_file && (c == NULL || k == NULL)) {
    free(c);
    free(k);
    return MCP_ERR_NOMEM;
  }
  free(o->tls_cert);
  free(o->tls_key);
  o->tls_cert = c;
  o->tls_key = k;
  mcp__str_drop_lines(&o->refusals, "mcp_http_options_set_tls");
  return MCP_OK;
}

/* libmicrohttpd was removed on 2026-12-04 (docs/http.md, Engines): asking
 * for it is refused rather than quietly served by the own engine. */
mcp_status mcp_http_options_set_engine(mcp_http_options_t *o,
                                       mcp_http_engine engine) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if ((unsigned)engine > MCP_HTTP_ENGINE_OWN)
    return mcp__http_options_refuse(o, "mcp_http_options_set_engine",
                                    "no such engine");
  if (engine == MCP_HTTP_ENGINE_LIBMICROHTTPD) {
    /* kept, so that mcp_http_server_start says it too */
    mcp__http_options_refuse(o, "mcp_http_options_set_engine",
                             "libmicrohttpd was removed (docs/http.md); the "
                             "own engine is the only one");
    return MCP_ERR_UNSUPPORTED;
  }
  o->engine = engine;
  mcp__str_drop_lines(&o->refusals, "mcp_http_options_set_engine");
  return MCP_OK;
}

mcp_status mcp__http_engine_check(const mcp_http_options_t *o,
                                  mcp_error_t *err) {
  const char *env = getenv("MCP_HTTP_ENGINE");
  if ((o == NULL || o->engine == MCP_HTTP_ENGINE_DEFAULT) && env &&
      *env != '\0' && strcasecmp(env, "own") != 0)
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "MCP_HTTP_ENGINE=%s: the only HTTP engine is the own "
                         "one (libmicrohttpd was removed, docs/http.md)",
                         env);
  return MCP_OK;
}
