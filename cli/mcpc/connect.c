/* SPDX-License-Identifier: MIT */
/* connect.c - turning mcpc's global options and profile into a connected
 * client, plus the handlers mcpc offers a server: log notifications go to
 * stderr, elicitation is answered per --elicit, roots name the current
 * directory. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "mcp/oauth.h"
#include "mcp/version.h"

void mcpc_listen_end(mcp_client_t *c, pthread_t thread) {
  /* the thread listens with mcp_client_listen_at from a generation read
   * before it started: the stop ends that listen even when the thread has
   * not begun it yet */
  mcp_client_listen_stop(c);
  pthread_join(thread, NULL);
}

static void on_notification(mcp_client_t *client, const char *method,
                            json_t *params, void *user_data) {
  mcpc_ctx *ctx = user_data;
  if (strcmp(method, "notifications/message") != 0) {
    if (ctx->on_notification != NULL)
      ctx->on_notification(client, method, params, ctx->notification_ud);
    return;
  }
  const char *level = json_string_value(json_object_get(params, "level"));
  const char *logger = json_string_value(json_object_get(params, "logger"));
  json_t *data = json_object_get(params, "data");
  char *text = json_is_string(data)
                   ? NULL
                   : json_dumps(data, JSON_COMPACT | JSON_ENCODE_ANY);
  fprintf(stderr, "[%s]%s%s %s\n", level ? level : "?", logger ? " " : "",
          logger ? logger : "",
          json_is_string(data) ? json_string_value(data) : (text ? text : ""));
  free(text);
}

/* Elicitation per --elicit: "accept" answers with the schema's defaults
 * (SEP-1034) overlaid with --elicit-content, "cancel" cancels, anything
 * else declines. Nothing is invented for a required field without either:
 * the server then rejects the answer, which is the honest outcome. */
static mcp_status on_elicit(mcp_client_t *client, const char *method,
                            json_t *params, json_t **result, mcp_error_t *err,
                            void *user_data) {
  const mcpc_ctx *ctx = user_data;
  /* on a terminal, without --elicit, the user answers */
  if (ctx->elicit == NULL && mcpc_elicit_interactive())
    return mcpc_elicit_on_tty(params, result);
  const char *mode = ctx->elicit ? ctx->elicit : "decline";
  const char *message = json_string_value(json_object_get(params, "message"));
  fprintf(stderr, "mcpc: the server asks: %s (answer: %s)\n",
          message ? message : "(no message)", mode);
  if (strcmp(mode, "accept") != 0) {
    *result = json_pack("{s:s}", "action", mode);
    return *result ? MCP_OK : MCP_ERR_NOMEM;
  }
  json_t *content = json_object();
  json_t *props =
      json_object_get(json_object_get(params, "requestedSchema"), "properties");
  const char *key;
  json_t *prop;
  json_object_foreach(props, key, prop) {
    json_t *def = json_object_get(prop, "default");
    if (def != NULL)
      json_object_set(content, key, def);
  }
  if (ctx->elicit_content != NULL)
    json_object_update(content, ctx->elicit_content);
  *result = json_pack("{s:s,s:o}", "action", "accept", "content", content);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

static mcp_status on_roots(mcp_client_t *client, const char *method,
                           json_t *params, json_t **result, mcp_error_t *err,
                           void *user_data) {
  char cwd[PATH_MAX], uri[PATH_MAX + 16];
  if (getcwd(cwd, sizeof cwd) == NULL)
    snprintf(cwd, sizeof cwd, "/");
  snprintf(uri, sizeof uri, "file://%s", cwd);
  *result = json_pack("{s:[{s:s,s:s}]}", "roots", "uri", uri, "name",
                      "current directory");
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

/* The server's argv: a profile's argv, or /bin/sh -c COMMAND; run under
 * the supervisor when possible (stdio_watch.c). Sets the profile's
 * environment in mcpc's own, which the server inherits. */
static mcp_status set_command(mcpc_ctx *ctx, mcp_client_options_t *o) {
  const char *shell[] = {"/bin/sh", "-c", ctx->command, NULL};
  const char **argv = shell;
  const char **from_profile = NULL;
  if (ctx->command == NULL) {
    size_t n = json_array_size(ctx->server_argv);
    from_profile = calloc(n + 1, sizeof *from_profile);
    if (from_profile == NULL)
      return MCP_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
      from_profile[i] = json_string_value(json_array_get(ctx->server_argv, i));
    argv = from_profile;
  }
  const char *name;
  json_t *v;
  json_object_foreach(ctx->server_env, name, v) {
    if (json_is_string(v))
      setenv(name, json_string_value(v), 1);
  }
  char **watched = mcpc_watch_argv((char *const *)argv);
  mcp_status st = mcp_client_options_set_command(
      o, watched ? (const char *const *)watched : argv);
  free(watched);
  free(from_profile);
  return st;
}

mcp_client_t *mcpc_connect(mcpc_ctx *ctx, int *exit_code) {
  *exit_code = MCPC_PROTOCOL;
  if (ctx->profile != NULL && !mcpc_apply_profile(ctx)) {
    *exit_code = MCPC_USAGE;
    return NULL;
  }
  int targets =
      (ctx->url != NULL) + (ctx->command != NULL) + (ctx->server_argv != NULL);
  if (targets != 1) {
    *exit_code = mcpc_error(
        MCPC_USAGE, NULL,
        targets == 0 ? "say where the server is: -u URL, -c COMMAND or -p "
                       "PROFILE (mcpc config list shows the profiles)"
                     : "say where the server is with one of -u URL and -c "
                       "COMMAND, not both");
    return NULL;
  }
  char url[4096], why[600];
  if (ctx->url != NULL &&
      !mcpc_url_normalize(ctx->url, url, sizeof url, why, sizeof why)) {
    *exit_code = mcpc_error(MCPC_USAGE, NULL, "%s", why);
    return NULL;
  }
  mcpc_diagnose_target(ctx->url != NULL ? url : NULL);
  mcpc_trace_connecting(ctx, ctx->url != NULL ? url : NULL);
  mcp_client_options_t *o = NULL;
  mcp_status st = mcp_client_options_new(&o);
  if (st == MCP_OK)
    st = mcp_client_options_set_info(o, "mcpc", MCP_VERSION_STRING);
  if (st == MCP_OK && ctx->url != NULL)
    st = mcp_client_options_set_url(o, url);
  if (st == MCP_OK && ctx->url == NULL)
    st = set_command(ctx, o);
  for (int i = 0; st == MCP_OK && i < ctx->nheaders; i++) {
    char name[256];
    const char *colon = strchr(ctx->headers[i], ':');
    size_t n = (size_t)(colon - ctx->headers[i]);
    if (n == 0 || n >= sizeof name) {
      st = MCP_ERR_INVALID_ARG;
      break;
    }
    memcpy(name, ctx->headers[i], n);
    name[n] = '\0';
    const char *value = colon + 1;
    while (*value == ' ')
      value++;
    st = mcp_client_options_add_header(o, name, value);
  }
  if (st == MCP_OK && ctx->bearer != NULL)
    st = mcp_client_options_set_bearer(o, ctx->bearer);
  /* without a fixed token, a 401 starts the OAuth flow (cmd_auth.c) */
  if (st == MCP_OK && ctx->url != NULL && ctx->bearer == NULL) {
    struct mcp_oauth *oa = mcpc_oauth(ctx, url);
    if (oa == NULL) { /* the OAuth options were refused, with a message */
      mcp_client_options_free(o);
      *exit_code = MCPC_USAGE;
      return NULL;
    }
    st = mcp_client_options_use_oauth(o, oa);
  }
  if (st == MCP_OK && ctx->cacert != NULL)
    st = mcp_client_options_set_cacert(o, ctx->cacert);
  if (st == MCP_OK)
    st = mcp_client_options_set_timeout_ms(o, ctx->timeout_ms);
  if (st == MCP_OK && ctx->protocol != NULL)
    st = mcp_client_options_set_protocol_version(o, ctx->protocol);
  if (st == MCP_OK)
    st = mcp_client_options_set_notification_handler(o, on_notification, ctx);
  if (st == MCP_OK)
    st = mcp_client_options_set_elicitation_handler(o, on_elicit, NULL, ctx);
  if (st == MCP_OK)
    st = mcp_client_options_set_roots_handler(o, on_roots, NULL, NULL);
  if (st == MCP_OK) /* -v, --trace, inspect's observer */
    st = mcpc_trace_setup(ctx, o);
  if (st == MCP_OK && /* OpenTelemetry CLIENT spans (OTEL_* environment) */
      mcp_client_options_otlp_from_env(o) != MCP_OK) {
    mcp_client_options_free(o);
    /* the exporters and protocols set, named (the options keep the exact
     * reason) */
    static const char *const vars[] = {"OTEL_TRACES_EXPORTER",
                                       "OTEL_METRICS_EXPORTER",
                                       "OTEL_EXPORTER_OTLP_PROTOCOL",
                                       "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
                                       "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"};
    char set[400] = "";
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
      const char *v = getenv(vars[i]);
      size_t n = strlen(set);
      if (v != NULL && v[0] != '\0')
        snprintf(set + n, sizeof set - n, " %s=%.40s", vars[i], v);
    }
    *exit_code = mcpc_error(MCPC_USAGE, NULL,
                            "OTEL_*: mcpc exports otlp (or none) in "
                            "http/protobuf or http/json to http:// URLs only "
                            "(set:%s)",
                            set[0] ? set : " no exporter or protocol");
    return NULL;
  }
  if (st != MCP_OK) {
    mcp_client_options_free(o);
    *exit_code = mcpc_error(MCPC_USAGE, NULL, "invalid connection options: %s",
                            mcp_strerror(st));
    return NULL;
  }
  mcp_client_t *c = NULL;
  mcp_error_t err;
  st = mcp_client_connect(o, &c, &err);
  mcp_client_options_free(o);
  mcpc_watch_spawned();
  if (st != MCP_OK) {
    mcpc_fail("cannot connect", st, &err);
    return NULL;
  }
  mcpc_trace_connected(ctx, c);
  /* 2026-07-28: a server logs only for requests that ask (_meta logLevel);
   * mcpc shows info and above on stderr, as 2025-11-25 servers send them */
  if (strcmp(mcp_client_protocol_version(c), "2026-07-28") >= 0)
    mcp_client_set_log_level(c, "info", NULL);
  *exit_code = MCPC_OK;
  return c;
}

bool mcpc_can_fall_back(const mcpc_ctx *ctx, mcp_client_t *c) {
  const char *v = mcp_client_protocol_version(c);
  return (ctx->protocol == NULL || strcmp(ctx->protocol, "auto") == 0) &&
         v != NULL && strcmp(v, "2026-07-28") >= 0;
}

mcp_client_t *mcpc_reconnect_legacy(mcpc_ctx *ctx, mcp_client_t *c,
                                    int *exit_code) {
  mcp_client_close(c);
  const char *saved = ctx->protocol;
  ctx->protocol = "2025-11-25";
  mcp_client_t *again = mcpc_connect(ctx, exit_code);
  ctx->protocol = saved;
  return again;
}

mcp_client_t *mcpc_connect_tasks(mcpc_ctx *ctx, int *exit_code) {
  mcp_client_t *c = mcpc_connect(ctx, exit_code);
  /* a server may serve tasks only in 2025-11-25 (core tasks) */
  if (c != NULL && mcpc_can_fall_back(ctx, c) &&
      !mcp_client_server_has(c, "tasks"))
    c = mcpc_reconnect_legacy(ctx, c, exit_code);
  return c;
}
