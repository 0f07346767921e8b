/* SPDX-License-Identifier: MIT */
/* options.c - mcp_client_options_t: where and how to connect (client.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "telemetry/otel_env.h"
#include "telemetry/otlp_http.h"
#include "util/str.h"
#include "mcp/version.h"

static void free_strv(char **v) {
  if (v == NULL)
    return;
  for (size_t i = 0; v[i] != NULL; i++)
    free(v[i]);
  free(v);
}

static char **dup_strv(char *const *v) {
  size_t n = 0;
  while (v[n] != NULL)
    n++;
  char **out = calloc(n + 1, sizeof *out);
  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if ((out[i] = strdup(v[i])) == NULL) {
      free_strv(out);
      return NULL;
    }
  return out;
}

/* Replaces *slot with a copy of s (NULL clears). */
static mcp_status set_str(char **slot, const char *s) {
  char *copy = NULL;
  if (s != NULL && (copy = strdup(s)) == NULL)
    return MCP_ERR_NOMEM;
  free(*slot);
  *slot = copy;
  return MCP_OK;
}

mcp_status mcp_client_options_new(mcp_client_options_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_client_options_t *o = calloc(1, sizeof *o);
  if (o == NULL)
    return MCP_ERR_NOMEM;
  o->timeout_ms = 60000;
  *out = o;
  return MCP_OK;
}

void mcp__client_options_clear(mcp_client_options_t *o) {
  free_strv(o->argv);
  free_strv(o->headers);
  free(o->url);
  free(o->bearer);
  free(o->cacert);
  free(o->name);
  free(o->version);
  free(o->protocol_version);
  free(o->otlp_traces_url);
  free(o->otlp_headers);
  free(o->otlp_metrics_url);
  free(o->otlp_metrics_headers);
  json_decref(o->sampling_caps);
  json_decref(o->elicitation_caps);
  json_decref(o->roots_caps);
  free(o->refusals);
  memset(o, 0, sizeof *o);
}

/* A setter refusing its argument keeps why in the options, for
 * mcp_client_connect to report in its err: the mistake shows even where
 * the setter's status went unchecked. */
static mcp_status refuse(mcp_client_options_t *o, const char *what,
                         const char *why) {
  return mcp__str_add_line(&o->refusals, "%s: %s", what, why) == MCP_OK
             ? MCP_ERR_INVALID_ARG
             : MCP_ERR_NOMEM;
}

/* A setter that accepted its value takes back its earlier refusal (the
 * last call wins, as for the value). */
static mcp_status accepted(mcp_client_options_t *o, const char *setter,
                           mcp_status st) {
  if (st == MCP_OK)
    mcp__str_drop_lines(&o->refusals, setter);
  return st;
}

void mcp_client_options_free(mcp_client_options_t *o) {
  if (o == NULL)
    return;
  mcp__client_options_clear(o);
  free(o);
}

mcp_status mcp__client_options_copy(mcp_client_options_t *dst,
                                    const mcp_client_options_t *src) {
  *dst = *src;
  dst->argv = NULL;
  dst->headers = NULL;
  dst->url = dst->bearer = dst->name = dst->version = dst->cacert = NULL;
  dst->protocol_version = NULL;
  dst->otlp_traces_url = dst->otlp_headers = NULL;
  dst->otlp_metrics_url = dst->otlp_metrics_headers = NULL;
  dst->refusals = NULL;
  dst->sampling_caps = json_incref(src->sampling_caps);
  dst->elicitation_caps = json_incref(src->elicitation_caps);
  dst->roots_caps = json_incref(src->roots_caps);
  bool ok =
      (src->argv == NULL || (dst->argv = dup_strv(src->argv)) != NULL) &&
      (src->headers == NULL ||
       (dst->headers = dup_strv(src->headers)) != NULL) &&
      set_str(&dst->url, src->url) == MCP_OK &&
      set_str(&dst->bearer, src->bearer) == MCP_OK &&
      set_str(&dst->cacert, src->cacert) == MCP_OK &&
      set_str(&dst->otlp_traces_url, src->otlp_traces_url) == MCP_OK &&
      set_str(&dst->otlp_headers, src->otlp_headers) == MCP_OK &&
      set_str(&dst->otlp_metrics_url, src->otlp_metrics_url) == MCP_OK &&
      set_str(&dst->otlp_metrics_headers, src->otlp_metrics_headers) ==
          MCP_OK &&
      set_str(&dst->name, src->name ? src->name : "libmcp-client") == MCP_OK &&
      set_str(&dst->version,
              src->version ? src->version : MCP_VERSION_STRING) == MCP_OK &&
      set_str(&dst->protocol_version, src->protocol_version
                                          ? src->protocol_version
                                          : MCP_PROTOCOL_LATEST) == MCP_OK;
  if (!ok) {
    mcp__client_options_clear(dst);
    return MCP_ERR_NOMEM;
  }
  return MCP_OK;
}

mcp_status mcp_client_options_set_command(mcp_client_options_t *o,
                                          const char *const *argv) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (argv == NULL || argv[0] == NULL)
    return refuse(o, "mcp_client_options_set_command",
                  "argv needs a program name");
  char **copy = dup_strv((char *const *)argv);
  if (copy == NULL)
    return MCP_ERR_NOMEM;
  free_strv(o->argv);
  o->argv = copy;
  return accepted(o, "mcp_client_options_set_command", MCP_OK);
}

mcp_status mcp_client_options_set_url(mcp_client_options_t *o,
                                      const char *url) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (url == NULL ||
      (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
    return refuse(o, "mcp_client_options_set_url",
                  "the URL must start with http:// or https://");
  return accepted(o, "mcp_client_options_set_url", set_str(&o->url, url));
}

mcp_status mcp_client_options_add_header(mcp_client_options_t *o,
                                         const char *name, const char *value) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (name == NULL || value == NULL || name[0] == '\0' ||
      strpbrk(name, ":\r\n") != NULL || strpbrk(value, "\r\n") != NULL)
    return refuse(o, "mcp_client_options_add_header",
                  "the name needs no ':' or line break, the value no line "
                  "break");
  size_t len = strlen(name) + strlen(value) + 3;
  char *h = malloc(len);
  char **v = realloc(o->headers, (o->nheaders + 2) * sizeof *v);
  if (h == NULL || v == NULL) {
    free(h);
    if (v != NULL)
      o->headers = v;
    return MCP_ERR_NOMEM;
  }
  snprintf(h, len, "%s: %s", name, value);
  o->headers = v;
  o->headers[o->nheaders++] = h;
  o->headers[o->nheaders] = NULL;
  return MCP_OK;
}

mcp_status mcp_client_options_set_bearer(mcp_client_options_t *o,
                                         const char *token) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (token == NULL || strpbrk(token, "\r\n") != NULL)
    return refuse(o, "mcp_client_options_set_bearer",
                  "the token is NULL or holds a line break");
  return accepted(o, "mcp_client_options_set_bearer",
                  set_str(&o->bearer, token));
}

mcp_status mcp_client_options_set_token_provider(mcp_client_options_t *o,
                                                 mcp_client_token_fn fn,
                                                 void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->token_fn = fn;
  o->token_ud = user_data;
  o->dpop_proof_fn = NULL; /* mcp_client_options_use_oauth sets its own */
  o->dpop_nonce_fn = NULL;
  return MCP_OK;
}

mcp_status mcp_client_options_set_cacert(mcp_client_options_t *o,
                                         const char *path) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  return set_str(&o->cacert, path);
}

mcp_status mcp_client_options_set_info(mcp_client_options_t *o,
                                       const char *name, const char *version) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (name == NULL || version == NULL)
    return refuse(o, "mcp_client_options_set_info",
                  "name and version are required");
  mcp_status st = set_str(&o->name, name);
  return accepted(o, "mcp_client_options_set_info",
                  st == MCP_OK ? set_str(&o->version, version) : st);
}

mcp_status mcp_client_options_set_protocol_version(mcp_client_options_t *o,
                                                   const char *version) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (version == NULL)
    return refuse(o, "mcp_client_options_set_protocol_version",
                  "the version is NULL");
  return accepted(o, "mcp_client_options_set_protocol_version",
                  set_str(&o->protocol_version, version));
}

mcp_status mcp_client_options_set_timeout_ms(mcp_client_options_t *o,
                                             int timeout_ms) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->timeout_ms = timeout_ms;
  return MCP_OK;
}

mcp_status mcp_client_options_set_notification_handler(
    mcp_client_options_t *o, mcp_client_notification_fn fn, void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->on_notification = fn;
  o->notification_ud = user_data;
  return MCP_OK;
}

static mcp_status set_handler(mcp_client_request_fn *slot, void **ud_slot,
                              json_t **caps_slot, mcp_client_request_fn fn,
                              const json_t *caps, void *user_data) {
  json_t *c = caps ? json_deep_copy(caps) : json_object();
  if (c == NULL)
    return MCP_ERR_NOMEM;
  if (!json_is_object(c)) {
    json_decref(c);
    return MCP_ERR_INVALID_ARG;
  }
  json_decref(*caps_slot);
  *caps_slot = fn ? c : NULL;
  if (fn == NULL)
    json_decref(c);
  *slot = fn;
  *ud_slot = user_data;
  return MCP_OK;
}

mcp_status mcp_client_options_set_sampling_handler(mcp_client_options_t *o,
                                                   mcp_client_request_fn fn,
                                                   const json_t *capabilities,
                                                   void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = set_handler(&o->sampling, &o->sampling_ud,
                              &o->sampling_caps, fn, capabilities, user_data);
  return st == MCP_ERR_INVALID_ARG
             ? refuse(o, "mcp_client_options_set_sampling_handler",
                      "capabilities must be an object")
             : accepted(o, "mcp_client_options_set_sampling_handler", st);
}

mcp_status mcp_client_options_set_elicitation_handler(mcp_client_options_t *o,
                                                      mcp_client_request_fn fn,
                                                      const json_t *caps,
                                                      void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = set_handler(&o->elicitation, &o->elicitation_ud,
                              &o->elicitation_caps, fn, caps, user_data);
  return st == MCP_ERR_INVALID_ARG
             ? refuse(o, "mcp_client_options_set_elicitation_handler",
                      "capabilities must be an object")
             : accepted(o, "mcp_client_options_set_elicitation_handler", st);
}

mcp_status mcp_client_options_set_roots_handler(mcp_client_options_t *o,
                                                mcp_client_request_fn fn,
                                                const json_t *capabilities,
                                                void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = set_handler(&o->roots, &o->roots_ud, &o->roots_caps, fn,
                              capabilities, user_data);
  return st == MCP_ERR_INVALID_ARG
             ? refuse(o, "mcp_client_options_set_roots_handler",
                      "capabilities must be an object")
             : accepted(o, "mcp_client_options_set_roots_handler", st);
}

mcp_status mcp_client_options_set_shared_cache(mcp_client_options_t *o,
                                               mcp_client_cache_t *cache) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->shared_cache = cache;
  return MCP_OK;
}

mcp_status mcp_client_options_set_observer(mcp_client_options_t *o,
                                           mcp_client_observer_fn fn,
                                           void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->observer = fn;
  o->observer_ud = user_data;
  return MCP_OK;
}

mcp_status mcp_client_options_set_http_observer(mcp_client_options_t *o,
                                                mcp_client_http_fn fn,
                                                void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->http_observer = fn;
  o->http_observer_ud = user_data;
  return MCP_OK;
}

mcp_status mcp_client_options_set_otlp_traces(mcp_client_options_t *o,
                                              const char *traces_url,
                                              const char *headers) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (traces_url != NULL && strncmp(traces_url, "http://", 7) != 0)
    return refuse(o, "mcp_client_options_set_otlp_traces",
                  "the OTLP endpoint must be an http:// URL");
  mcp_status st = set_str(&o->otlp_traces_url, traces_url);
  if (st == MCP_OK)
    st = set_str(&o->otlp_headers, headers);
  return accepted(o, "mcp_client_options_set_otlp_traces", st);
}

mcp_status mcp_client_options_set_otlp_protocol(mcp_client_options_t *o,
                                                const char *protocol) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp__otlp_protocol p;
  if (!mcp__otlp_protocol_parse(protocol, &p)) {
    char why[160];
    snprintf(why, sizeof why,
             "\"%.60s\": libmcp exports http/protobuf or http/json (for "
             "grpc, run a Collector beside it)",
             protocol ? protocol : "(null)");
    return refuse(o, "mcp_client_options_set_otlp_protocol", why);
  }
  o->otlp_protocol = o->otlp_metrics_protocol = (int)p;
  return accepted(o, "mcp_client_options_set_otlp_protocol", MCP_OK);
}

mcp_status mcp_client_options_set_otlp_metrics(mcp_client_options_t *o,
                                               const char *metrics_url,
                                               const char *headers) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (metrics_url != NULL && strncmp(metrics_url, "http://", 7) != 0)
    return refuse(o, "mcp_client_options_set_otlp_metrics",
                  "the OTLP endpoint must be an http:// URL");
  mcp_status st = set_str(&o->otlp_metrics_url, metrics_url);
  if (st == MCP_OK)
    st = set_str(&o->otlp_metrics_headers, headers);
  return accepted(o, "mcp_client_options_set_otlp_metrics", st);
}

/* One signal from the environment (telemetry/otel_env.h) with the setter
 * that takes it; its protocol into *protocol. */
static mcp_status signal_from_env(mcp_client_options_t *o,
                                  mcp__otel_signal signal, int *protocol,
                                  mcp_status (*set)(mcp_client_options_t *,
                                                    const char *,
                                                    const char *)) {
  mcp__otel_export e;
  char why[300];
  if (!mcp__otel_export_from_env(signal, &e, why, sizeof why))
    return refuse(o, "mcp_client_options_otlp_from_env", why);
  if (e.url == NULL)
    return MCP_OK;
  if (e.has_protocol)
    *protocol = (int)e.protocol;
  return set(o, e.url, e.headers);
}

mcp_status mcp_client_options_otlp_from_env(mcp_client_options_t *o) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = signal_from_env(o, MCP__OTEL_TRACES, &o->otlp_protocol,
                                  mcp_client_options_set_otlp_traces);
  if (st == MCP_OK)
    st = signal_from_env(o, MCP__OTEL_METRICS, &o->otlp_metrics_protocol,
                         mcp_client_options_set_otlp_metrics);
  return accepted(o, "mcp_client_options_otlp_from_env", st);
}
