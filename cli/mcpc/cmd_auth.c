/* SPDX-License-Identifier: MIT */
/* cmd_auth.c - mcpc auth login | logout | status, and the OAuth state every
 * HTTP command uses when no --bearer is given (a 401 starts the flow). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "mcp/oauth.h"

/* $MCPC_TOKEN_FILE, else $XDG_CONFIG_HOME/mcpc/tokens.json, else
 * ~/.config/mcpc/tokens.json; the directory is made with mode 0700. */
static bool token_path(char *out, size_t n) {
  const char *env = getenv("MCPC_TOKEN_FILE");
  if (env && env[0])
    return snprintf(out, n, "%s", env) < (int)n;
  const char *xdg = getenv("XDG_CONFIG_HOME");
  const char *home = getenv("HOME");
  char dir[4096];
  if (xdg && xdg[0])
    snprintf(dir, sizeof dir, "%s/mcpc", xdg);
  else if (home && home[0])
    snprintf(dir, sizeof dir, "%s/.config/mcpc", home);
  else
    return false;
  char parent[4096];
  snprintf(parent, sizeof parent, "%s", dir);
  char *slash = strrchr(parent, '/');
  if (slash && slash != parent) {
    *slash = '\0';
    mkdir(parent, 0700); /* ~/.config, when missing */
  }
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    return false;
  return snprintf(out, n, "%s/tokens.json", dir) < (int)n;
}

/* login: made for auth login, which may always ask the user. */
static struct mcp_oauth *make_oauth(mcpc_ctx *ctx, const char *url,
                                    bool login) {
  if (ctx->oauth)
    return ctx->oauth;
  mcp_oauth_t *a = NULL;
  if (mcp_oauth_new(url, &a) != MCP_OK)
    return NULL;
  char path[4096];
  const char *mode =
      ctx->oauth_mode ? ctx->oauth_mode : getenv("MCPC_OAUTH_MODE");
  if (mode && strcmp(mode, "follow") == 0)
    mcp_oauth_set_mode(a, MCP_OAUTH_FOLLOW);
  else if (mode && strcmp(mode, "print") == 0)
    mcp_oauth_set_mode(a, MCP_OAUTH_PRINT);
  else if (mode && strcmp(mode, "none") == 0)
    mcp_oauth_set_mode(a, MCP_OAUTH_NONE);
  else if (mode == NULL && !login && !isatty(STDERR_FILENO))
    /* nobody to open a browser for: only stored tokens */
    mcp_oauth_set_mode(a, MCP_OAUTH_NONE);
  if (ctx->client_id)
    mcp_oauth_set_client(a, ctx->client_id, ctx->client_secret);
  if (ctx->client_metadata_url)
    mcp_oauth_set_client_metadata_url(a, ctx->client_metadata_url);
  if (ctx->cacert)
    mcp_oauth_set_cacert(a, ctx->cacert);
  if (token_path(path, sizeof path))
    mcp_oauth_set_token_file(a, path);
  ctx->oauth = a;
  return a;
}

struct mcp_oauth *mcpc_oauth(mcpc_ctx *ctx, const char *url) {
  return make_oauth(ctx, url, false);
}

/* The normalized URL of the target, or false after a usage error. */
static bool target_url(mcpc_ctx *ctx, char *url, size_t n, int *rc) {
  if (ctx->profile != NULL && !mcpc_apply_profile(ctx)) {
    *rc = MCPC_USAGE;
    return false;
  }
  char why[600];
  if (ctx->url == NULL) {
    *rc = mcpc_error(MCPC_USAGE, NULL,
                     "auth needs an HTTP server: -u URL or -p PROFILE");
    return false;
  }
  if (!mcpc_url_normalize(ctx->url, url, n, why, sizeof why)) {
    *rc = mcpc_error(MCPC_USAGE, NULL, "%s", why);
    return false;
  }
  return true;
}

static void print_status(mcpc_ctx *ctx, mcp_oauth_t *a) {
  json_t *s = mcp_oauth_status(a);
  if (ctx->json) {
    mcpc_print_json(s);
  } else if (json_is_true(json_object_get(s, "logged_in"))) {
    const char *scope = json_string_value(json_object_get(s, "scope"));
    json_int_t exp = json_integer_value(json_object_get(s, "expires_at"));
    printf("logged in to %s\n  scope: %s\n  refresh token: %s\n",
           json_string_value(json_object_get(s, "server")),
           scope && scope[0] ? scope : "(none)",
           json_is_true(json_object_get(s, "refreshable")) ? "yes" : "no");
    if (exp)
      printf("  expires at: %lld (epoch seconds)\n", (long long)exp);
  } else {
    printf("not logged in to %s\n",
           json_string_value(json_object_get(s, "server")));
  }
  json_decref(s);
}

int mcpc_cmd_auth_login(mcpc_ctx *ctx, int argc, char **argv) {
  (void)argv;
  if (argc != 0)
    return mcpc_usage("auth login");
  char url[4096];
  int rc = MCPC_OK;
  if (!target_url(ctx, url, sizeof url, &rc))
    return rc;
  mcp_oauth_t *a = make_oauth(ctx, url, true);
  if (a == NULL)
    return mcpc_error(MCPC_PROTOCOL, NULL, "out of memory");
  mcp_error_t err;
  mcp_status st = mcp_oauth_login(a, NULL, &err);
  if (st != MCP_OK)
    return mcpc_fail("auth login", st, &err);
  print_status(ctx, a);
  return MCPC_OK;
}

int mcpc_cmd_auth_logout(mcpc_ctx *ctx, int argc, char **argv) {
  (void)argv;
  if (argc != 0)
    return mcpc_usage("auth logout");
  char url[4096];
  int rc = MCPC_OK;
  if (!target_url(ctx, url, sizeof url, &rc))
    return rc;
  mcp_oauth_t *a = mcpc_oauth(ctx, url);
  if (a == NULL || mcp_oauth_logout(a) != MCP_OK)
    return mcpc_error(MCPC_FAIL, NULL, "cannot update the token file");
  print_status(ctx, a);
  return MCPC_OK;
}

int mcpc_cmd_auth_status(mcpc_ctx *ctx, int argc, char **argv) {
  (void)argv;
  if (argc != 0)
    return mcpc_usage("auth status");
  char url[4096];
  int rc = MCPC_OK;
  if (!target_url(ctx, url, sizeof url, &rc))
    return rc;
  mcp_oauth_t *a = mcpc_oauth(ctx, url);
  if (a == NULL)
    return mcpc_error(MCPC_PROTOCOL, NULL, "out of memory");
  print_status(ctx, a);
  return MCPC_OK;
}
