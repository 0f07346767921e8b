/* SPDX-License-Identifier: MIT */
/* profile.c - connection profiles in a JSON config file:
 *   {"profiles": {"local": {"command": "...", "url": "...",
 *                           "headers": {"Name": "value"}, "bearer": "..."}}}
 * at --config FILE, else $XDG_CONFIG_HOME/mcpc/config.json, else
 * ~/.config/mcpc/config.json. Written with mode 0600: it may hold tokens. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"

const char *mcpc_config_path(const mcpc_ctx *ctx) {
  static char path[4096];
  if (ctx->config != NULL)
    return ctx->config;
  const char *xdg = getenv("XDG_CONFIG_HOME");
  const char *home = getenv("HOME");
  if (xdg != NULL && xdg[0] == '/')
    snprintf(path, sizeof path, "%s/mcpc/config.json", xdg);
  else
    snprintf(path, sizeof path, "%s/.config/mcpc/config.json",
             home ? home : ".");
  return path;
}

json_t *mcpc_config_load(const mcpc_ctx *ctx) {
  const char *path = mcpc_config_path(ctx);
  json_error_t je;
  json_t *cfg = json_load_file(path, 0, &je);
  if (cfg == NULL && access(path, F_OK) != 0)
    return json_pack("{s:{}}", "profiles");
  if (cfg == NULL || !json_is_object(json_object_get(cfg, "profiles"))) {
    mcpc_error(MCPC_USAGE, NULL, "%s: %s", path,
               cfg ? "no \"profiles\" object" : je.text);
    json_decref(cfg);
    return NULL;
  }
  return cfg;
}

/* mkdir -p of the directory part of path. */
static void make_parent(const char *path) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *p = dir + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(dir, 0700);
      *p = '/';
    }
}

static int save(const mcpc_ctx *ctx, json_t *cfg) {
  const char *path = mcpc_config_path(ctx);
  make_parent(path);
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  bool ok = f != NULL &&
            json_dumpf(cfg, f, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 &&
            fputc('\n', f) != EOF;
  if (f != NULL)
    ok = fclose(f) == 0 && ok;
  else if (fd >= 0)
    close(fd);
  /* rename makes the update atomic: a crash leaves the old file */
  if (!ok || rename(tmp, path) != 0) {
    mcpc_error(MCPC_FAIL, NULL, "cannot write %s: %s", path, strerror(errno));
    unlink(tmp);
    return MCPC_FAIL;
  }
  return MCPC_OK;
}

static void report(const mcpc_ctx *ctx, int rc, const char *what,
                   const char *name) {
  if (rc != MCPC_OK)
    return;
  if (ctx->json) {
    json_t *o = json_pack("{s:s,s:s,s:s}", "profile", name, "config",
                          mcpc_config_path(ctx), "action", what);
    mcpc_print_json(o);
    json_decref(o);
  } else {
    printf("%s profile %s in %s\n", what, name, mcpc_config_path(ctx));
  }
}

int mcpc_cmd_profile_add(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "profile add NAME (-u URL | -c COMMAND) [-H 'Name: "
                    "value'] [--bearer TOKEN]";
  if (argc != 1 || (ctx->url == NULL) == (ctx->command == NULL))
    return mcpc_usage(syn);
  json_t *cfg = mcpc_config_load(ctx);
  if (cfg == NULL)
    return MCPC_FAIL;
  json_t *p = json_object();
  if (ctx->url)
    json_object_set_new(p, "url", json_string(ctx->url));
  if (ctx->command)
    json_object_set_new(p, "command", json_string(ctx->command));
  if (ctx->bearer)
    json_object_set_new(p, "bearer", json_string(ctx->bearer));
  if (ctx->nheaders > 0) {
    json_t *h = json_object();
    for (int i = 0; i < ctx->nheaders; i++) {
      const char *colon = strchr(ctx->headers[i], ':');
      char *name = strndup(ctx->headers[i], (size_t)(colon - ctx->headers[i]));
      const char *v = colon + 1;
      while (*v == ' ')
        v++;
      if (name != NULL)
        json_object_set_new(h, name, json_string(v));
      free(name);
    }
    json_object_set_new(p, "headers", h);
  }
  json_object_set_new(json_object_get(cfg, "profiles"), argv[0], p);
  int rc = save(ctx, cfg);
  json_decref(cfg);
  report(ctx, rc, "saved", argv[0]);
  return rc;
}

int mcpc_cmd_profile_list(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 0)
    return mcpc_usage("profile list");
  json_t *cfg = mcpc_config_load(ctx);
  if (cfg == NULL)
    return MCPC_FAIL;
  json_t *profiles = json_object_get(cfg, "profiles");
  const char *name;
  json_t *p;
  /* never print tokens */
  json_object_foreach(profiles, name, p) if (json_object_get(p, "bearer"))
      json_object_set_new(p, "bearer", json_string("***"));
  if (ctx->json) {
    mcpc_print_json(profiles);
  } else {
    json_object_foreach(profiles, name, p) {
      const char *url = json_string_value(json_object_get(p, "url"));
      const char *cmd = json_string_value(json_object_get(p, "command"));
      printf("%-16s %s %s\n", name, url ? "url" : "command",
             url ? url : (cmd ? cmd : "?"));
    }
  }
  json_decref(cfg);
  return MCPC_OK;
}

int mcpc_cmd_profile_remove(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 1)
    return mcpc_usage("profile remove NAME");
  json_t *cfg = mcpc_config_load(ctx);
  if (cfg == NULL)
    return MCPC_FAIL;
  if (json_object_del(json_object_get(cfg, "profiles"), argv[0]) != 0) {
    mcpc_error(MCPC_FAIL, NULL, "no profile \"%s\" in %s", argv[0],
               mcpc_config_path(ctx));
    json_decref(cfg);
    return MCPC_FAIL;
  }
  int rc = save(ctx, cfg);
  json_decref(cfg);
  report(ctx, rc, "removed", argv[0]);
  return rc;
}
