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

/* The whole of a small file (a key, a token: at most 64 KiB) with its
 * trailing newlines removed, malloc'd; NULL after a message. */
static char *read_small_file(const char *path, const char *what) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    mcpc_error(MCPC_USAGE, NULL, "%s %s: %s", what, path, strerror(errno));
    return NULL;
  }
  char *buf = malloc(65537);
  size_t n = buf ? fread(buf, 1, 65537, f) : 0;
  fclose(f);
  if (buf == NULL || n == 0 || n > 65536) {
    free(buf);
    mcpc_error(MCPC_USAGE, NULL, "%s %s: %s", what, path,
               n ? "larger than 64 KiB" : "empty");
    return NULL;
  }
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
    n--;
  buf[n] = '\0';
  return buf;
}

/* --client-id/--client-secret/--client-auth/--client-key, --grant and its
 * inputs, --dpop; false after a message naming the option at fault. */
static bool configure_credentials(mcpc_ctx *ctx, mcp_oauth_t *a) {
  mcp_error_t err;
  if (ctx->client_key != NULL) {
    if (ctx->client_id == NULL) {
      mcpc_error(MCPC_USAGE, NULL, "--client-key needs --client-id");
      return false;
    }
    char *pem = read_small_file(ctx->client_key, "--client-key");
    mcp_status st = pem ? mcp_oauth_set_client_key(a, ctx->client_id, pem,
                                                    ctx->client_key_alg, &err)
                        : MCP_ERR_INVALID_ARG;
    if (pem != NULL && st != MCP_OK)
      mcpc_error(MCPC_USAGE, NULL, "--client-key %s: %s", ctx->client_key,
                 err.message);
    if (pem != NULL) {
      explicit_bzero(pem, strlen(pem)); /* a private key: not left behind */
      free(pem);
    }
    if (st != MCP_OK)
      return false;
  } else if (ctx->client_id != NULL) {
    mcp_oauth_set_client(a, ctx->client_id, ctx->client_secret);
  }
  if (ctx->client_auth != NULL) {
    const char *m = strcmp(ctx->client_auth, "basic") == 0 ? "client_secret_basic"
                    : strcmp(ctx->client_auth, "post") == 0 ? "client_secret_post"
                    : strcmp(ctx->client_auth, "none") == 0 ? "none"
                                                            : NULL;
    if (m == NULL || ctx->client_id == NULL || ctx->client_key != NULL ||
        mcp_oauth_set_client_auth_method(a, m) != MCP_OK) {
      mcpc_error(MCPC_USAGE, NULL,
                 "--client-auth is basic, post (both with --client-id and "
                 "--client-secret) or none (with --client-id), not \"%s\"",
                 ctx->client_auth);
      return false;
    }
  }
  const char *g = ctx->grant;
  mcp_oauth_grant grant =
      g == NULL || strcmp(g, "code") == 0   ? MCP_OAUTH_GRANT_AUTHORIZATION_CODE
      : strcmp(g, "client_credentials") == 0 ? MCP_OAUTH_GRANT_CLIENT_CREDENTIALS
      : strcmp(g, "jwt-bearer") == 0         ? MCP_OAUTH_GRANT_JWT_BEARER
      : strcmp(g, "enterprise") == 0         ? MCP_OAUTH_GRANT_ENTERPRISE
                                             : (mcp_oauth_grant)-1;
  if ((int)grant < 0) {
    mcpc_error(MCPC_USAGE, NULL,
               "--grant is code, client_credentials, jwt-bearer or "
               "enterprise, not \"%s\"",
               g);
    return false;
  }
  if (grant == MCP_OAUTH_GRANT_CLIENT_CREDENTIALS && ctx->client_id == NULL) {
    mcpc_error(MCPC_USAGE, NULL,
               "--grant client_credentials needs --client-id with "
               "--client-secret or --client-key");
    return false;
  }
  if (grant == MCP_OAUTH_GRANT_JWT_BEARER) {
    if (ctx->assertion_file == NULL) {
      mcpc_error(MCPC_USAGE, NULL,
                 "--grant jwt-bearer needs --assertion-file FILE");
      return false;
    }
    char *jwt = read_small_file(ctx->assertion_file, "--assertion-file");
    if (jwt == NULL)
      return false;
    mcp_oauth_set_assertion(a, jwt);
    free(jwt);
  }
  if (grant == MCP_OAUTH_GRANT_ENTERPRISE) {
    if (ctx->idp_token_url == NULL || ctx->id_token_file == NULL ||
        ctx->client_id == NULL) {
      mcpc_error(MCPC_USAGE, NULL,
                 "--grant enterprise needs --idp-token-url, --id-token-file "
                 "and --client-id (with --client-secret)");
      return false;
    }
    char *tok = read_small_file(ctx->id_token_file, "--id-token-file");
    if (tok == NULL)
      return false;
    mcp_oauth_set_enterprise_idp(a, ctx->idp_token_url, ctx->idp_client_id,
                                 ctx->idp_client_secret, tok);
    free(tok);
  }
  mcp_oauth_set_grant(a, grant);
  if (ctx->dpop && mcp_oauth_set_dpop(a, true) != MCP_OK) {
    mcpc_error(MCPC_FAIL, NULL, "--dpop: cannot make a key");
    return false;
  }
  return true;
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
  if (!configure_credentials(ctx, a)) {
    mcp_oauth_free(a);
    return NULL;
  }
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
  if (a == NULL) /* refused options, with a message */
    return MCPC_USAGE;
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
