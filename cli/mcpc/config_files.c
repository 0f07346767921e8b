/* SPDX-License-Identifier: MIT */
/* config_files.c - profiles by server name from the configuration files
 * MCP hosts already have, beside mcpc's own profile file (profile.c):
 *
 *   .vscode/mcp.json          {"servers": {NAME: {"type": "stdio"|"http",
 *                              "command", "args", "env", "url", "headers"}}}
 *   .cursor/mcp.json,         {"mcpServers": {NAME: {"command", "args",
 *   ~/.cursor/mcp.json         "env"} | {"url", "headers"}}}
 *   Claude Desktop:           the same mcpServers form in
 *     $XDG_CONFIG_HOME/Claude/claude_desktop_config.json (default
 *     ~/.config/Claude/claude_desktop_config.json)
 *
 * --servers FILE (repeatable) or $MCPC_SERVERS (FILE:FILE...) replace that
 * list, the form then told by the content. The first file naming a server
 * wins, mcpc's own file first. "mcpc config list" shows them all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

/* One normalized profile from a mcpServers/servers entry. */
static json_t *from_entry(const char *name, json_t *e, const char *file,
                          const char *format) {
  const char *type = json_string_value(json_object_get(e, "type"));
  const char *url = json_string_value(json_object_get(e, "url"));
  const char *command = json_string_value(json_object_get(e, "command"));
  json_t *p =
      json_pack("{s:s,s:s,s:s}", "name", name, "file", file, "format", format);
  const char *transport = "invalid";
  if (command != NULL && (type == NULL || strcmp(type, "stdio") == 0)) {
    transport = "stdio";
    json_t *argv = json_array();
    json_array_append_new(argv, json_string(command));
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(e, "args"), i, a) {
      if (json_is_string(a))
        json_array_append(argv, a);
    }
    json_object_set_new(p, "argv", argv);
    if (json_is_object(json_object_get(e, "env")))
      json_object_set(p, "env", json_object_get(e, "env"));
  } else if (url != NULL) {
    transport = type != NULL && strcmp(type, "sse") == 0 ? "sse" : "http";
    json_object_set_new(p, "url", json_string(url));
    if (json_is_object(json_object_get(e, "headers")))
      json_object_set(p, "headers", json_object_get(e, "headers"));
  }
  json_object_set_new(p, "transport", json_string(transport));
  return p;
}

/* Appends the profiles of one file (missing: nothing; broken: a warning). */
static void add_file(json_t *out, const char *path, const char *format) {
  if (access(path, F_OK) != 0)
    return;
  json_error_t je;
  json_t *doc = json_load_file(path, 0, &je);
  json_t *servers = json_object_get(doc, "mcpServers");
  const char *form = format;
  if (servers == NULL) {
    servers = json_object_get(doc, "servers");
    if (servers != NULL && form == NULL)
      form = "vscode";
  }
  if (form == NULL)
    form = strstr(path, "claude_desktop_config") ? "claude"
           : strstr(path, ".cursor/")            ? "cursor"
                                                 : "mcpServers";
  if (!json_is_object(servers)) {
    fprintf(stderr, "mcpc: warning: %s: %s; skipped\n", path,
            doc ? "no \"mcpServers\" or \"servers\" object" : je.text);
    json_decref(doc);
    return;
  }
  char shown[4096]; /* the file as an absolute path */
  char cwd[2048];
  if (path[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
    snprintf(shown, sizeof shown, "%s/%s", cwd, path);
  else
    snprintf(shown, sizeof shown, "%s", path);
  const char *name;
  json_t *e;
  json_object_foreach(servers, name, e) {
    if (json_is_object(e))
      json_array_append_new(out, from_entry(name, e, shown, form));
  }
  json_decref(doc);
}

json_t *mcpc_profiles_load(const mcpc_ctx *ctx) {
  json_t *own = mcpc_config_load(ctx);
  if (own == NULL)
    return NULL;
  json_t *out = json_array();
  const char *name;
  json_t *p;
  json_object_foreach(json_object_get(own, "profiles"), name, p) {
    if (!json_is_object(p))
      continue;
    json_t *copy = json_deep_copy(p);
    json_object_set_new(copy, "name", json_string(name));
    json_object_set_new(copy, "file", json_string(mcpc_config_path(ctx)));
    json_object_set_new(copy, "format", json_string("mcpc"));
    json_object_set_new(
        copy, "transport",
        json_string(json_object_get(p, "url") ? "http" : "stdio"));
    json_array_append_new(out, copy);
  }
  json_decref(own);

  const char *env = getenv("MCPC_SERVERS");
  if (ctx->nservers > 0) {
    for (int i = 0; i < ctx->nservers; i++)
      add_file(out, ctx->servers[i], NULL);
  } else if (env != NULL && env[0] != '\0') {
    char *list = strdup(env), *save = NULL;
    for (char *f = list ? strtok_r(list, ":", &save) : NULL; f != NULL;
         f = strtok_r(NULL, ":", &save))
      add_file(out, f, NULL);
    free(list);
  } else {
    char path[4096];
    const char *home = getenv("HOME");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    add_file(out, ".vscode/mcp.json", "vscode");
    add_file(out, ".cursor/mcp.json", "cursor");
    if (home != NULL) {
      snprintf(path, sizeof path, "%s/.cursor/mcp.json", home);
      add_file(out, path, "cursor");
    }
    if (xdg != NULL && xdg[0] == '/')
      snprintf(path, sizeof path, "%s/Claude/claude_desktop_config.json", xdg);
    else
      snprintf(path, sizeof path,
               "%s/.config/Claude/claude_desktop_config.json",
               home ? home : ".");
    add_file(out, path, "claude");
  }
  return out;
}

/* The first profile called name, or NULL. */
static json_t *find(json_t *profiles, const char *name) {
  size_t i;
  json_t *p;
  json_array_foreach(profiles, i, p) {
    if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0)
      return p;
  }
  return NULL;
}

bool mcpc_apply_profile(mcpc_ctx *ctx) {
  json_t *all = mcpc_profiles_load(ctx);
  if (all == NULL)
    return false;
  json_array_append_new(ctx->owned, all);
  json_t *p = find(all, ctx->profile);
  if (p == NULL) {
    mcpc_error(MCPC_USAGE, NULL,
               "no profile \"%s\" (mcpc config list shows the profiles and "
               "the files they come from)",
               ctx->profile);
    return false;
  }
  const char *transport = json_string_value(json_object_get(p, "transport"));
  const char *file = json_string_value(json_object_get(p, "file"));
  if (strcmp(transport, "sse") == 0 || strcmp(transport, "invalid") == 0) {
    mcpc_error(MCPC_USAGE, NULL,
               strcmp(transport, "sse") == 0
                   ? "profile \"%s\" in %s uses the old HTTP+SSE transport, "
                     "which mcpc does not speak"
                   : "profile \"%s\" in %s has neither \"command\" nor "
                     "\"url\"",
               ctx->profile, file);
    return false;
  }
  if (ctx->url == NULL && ctx->command == NULL) {
    ctx->url = json_string_value(json_object_get(p, "url"));
    ctx->command = json_string_value(json_object_get(p, "command"));
    ctx->server_argv = json_object_get(p, "argv");
    ctx->server_env = json_object_get(p, "env");
  }
  if (ctx->bearer == NULL)
    ctx->bearer = json_string_value(json_object_get(p, "bearer"));
  const char *name;
  json_t *v;
  json_object_foreach(json_object_get(p, "headers"), name, v) {
    if (!json_is_string(v) ||
        ctx->nheaders >= (int)(sizeof ctx->headers / sizeof *ctx->headers))
      continue;
    char line[1024];
    snprintf(line, sizeof line, "%s: %s", name, json_string_value(v));
    json_t *s = json_string(line);
    if (s == NULL)
      continue;
    json_array_append_new(ctx->owned, s);
    ctx->headers[ctx->nheaders++] = json_string_value(s);
  }
  return true;
}

/* What a profile connects to, for the listing. */
static const char *target_of(json_t *p, char *buf, size_t n) {
  const char *url = json_string_value(json_object_get(p, "url"));
  const char *cmd = json_string_value(json_object_get(p, "command"));
  if (url != NULL || cmd != NULL)
    return url ? url : cmd;
  size_t used = 0, i;
  json_t *a;
  buf[0] = '\0';
  json_array_foreach(json_object_get(p, "argv"), i, a) {
    int w = snprintf(buf + used, n - used, "%s%s", i ? " " : "",
                     json_string_value(a));
    if (w < 0 || (size_t)w >= n - used)
      break;
    used += (size_t)w;
  }
  return buf;
}

int mcpc_cmd_config_list(mcpc_ctx *ctx, int argc, char **argv) {
  bool names = argc == 1 && strcmp(argv[0], "--names") == 0;
  if (argc > 1 || (argc == 1 && !names))
    return mcpc_usage("config list [--names]");
  json_t *all = mcpc_profiles_load(ctx);
  if (all == NULL)
    return MCPC_USAGE;
  json_t *seen = json_object(), *rows = json_array();
  size_t i;
  json_t *p;
  json_array_foreach(all, i, p) {
    const char *name = json_string_value(json_object_get(p, "name"));
    bool shadowed = json_object_get(seen, name) != NULL;
    json_object_set_new(seen, name, json_true());
    char buf[1024];
    json_t *row = json_pack(
        "{s:s,s:O,s:O,s:O,s:s,s:b}", "name", name, "transport",
        json_object_get(p, "transport"), "file", json_object_get(p, "file"),
        "format", json_object_get(p, "format"), "target",
        target_of(p, buf, sizeof buf), "shadowed", shadowed);
    json_array_append_new(rows, row);
    if (names && !shadowed)
      printf("%s\n", name);
    else if (!names && !ctx->json)
      printf("%-16s %-6s %s%s\n", name,
             json_string_value(json_object_get(p, "transport")),
             json_string_value(json_object_get(p, "file")),
             shadowed ? " (shadowed)" : "");
  }
  if (ctx->json && !names) {
    json_t *doc = json_pack("{s:O}", "profiles", rows);
    mcpc_print_json(doc);
    json_decref(doc);
  }
  json_decref(rows);
  json_decref(seen);
  json_decref(all);
  return MCPC_OK;
}
