/* SPDX-License-Identifier: MIT */
/* main.c - mcpc, the libmcp command-line client and tester.
 *
 *   mcpc [-u URL | -c "COMMAND ARGS"] [-p PROFILE] [-H 'Name: value']
 *        [--bearer TOKEN] [--format text|json] COMMAND ...
 *
 * Global options may appear anywhere on the line (the handbook writes
 * "tools call add --args ... --profile local"). Commands are one or two
 * words and live in the command table (command_table.c); each group has
 * its own cmd_*.c. -h/--help anywhere shows the help of the command named
 * before it. "mcpc schema check" needs no server and keeps its own argument
 * rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "mcp/oauth.h"

/* Takes the value of option argv[*i]; NULL (after a message) when missing. */
static const char *value_of(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    mcpc_error(MCPC_USAGE, NULL, "%s needs a value", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

/* Moves global options out of argv into ctx; the rest stays in order.
 * Returns the new argc, or -1 on a usage error. */
static int take_globals(mcpc_ctx *ctx, int argc, char **argv) {
  int out = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = NULL;
    if (strcmp(a, "--") == 0) {
      while (i < argc)
        argv[out++] = argv[i++];
      break;
    }
    if (strcmp(a, "-u") == 0 || strcmp(a, "--url") == 0)
      slot = &ctx->url;
    else if (strcmp(a, "-c") == 0 || strcmp(a, "--command") == 0)
      slot = &ctx->command;
    else if (strcmp(a, "-p") == 0 || strcmp(a, "--profile") == 0)
      slot = &ctx->profile;
    else if (strcmp(a, "--config") == 0)
      slot = &ctx->config;
    else if (strcmp(a, "--spec") == 0)
      slot = &ctx->spec;
    else if (strcmp(a, "--bearer") == 0)
      slot = &ctx->bearer;
    else if (strcmp(a, "--cacert") == 0)
      slot = &ctx->cacert;
    else if (strcmp(a, "--oauth-mode") == 0)
      slot = &ctx->oauth_mode;
    else if (strcmp(a, "--client-id") == 0)
      slot = &ctx->client_id;
    else if (strcmp(a, "--client-secret") == 0)
      slot = &ctx->client_secret;
    else if (strcmp(a, "--client-metadata-url") == 0)
      slot = &ctx->client_metadata_url;
    else if (strcmp(a, "--grant") == 0)
      slot = &ctx->grant;
    else if (strcmp(a, "--client-auth") == 0)
      slot = &ctx->client_auth;
    else if (strcmp(a, "--client-key") == 0)
      slot = &ctx->client_key;
    else if (strcmp(a, "--client-key-alg") == 0)
      slot = &ctx->client_key_alg;
    else if (strcmp(a, "--assertion-file") == 0)
      slot = &ctx->assertion_file;
    else if (strcmp(a, "--idp-token-url") == 0)
      slot = &ctx->idp_token_url;
    else if (strcmp(a, "--idp-client-id") == 0)
      slot = &ctx->idp_client_id;
    else if (strcmp(a, "--idp-client-secret") == 0)
      slot = &ctx->idp_client_secret;
    else if (strcmp(a, "--id-token-file") == 0)
      slot = &ctx->id_token_file;
    else if (strcmp(a, "--elicit") == 0)
      slot = &ctx->elicit;
    if (slot != NULL) {
      if ((*slot = value_of(argc, argv, &i)) == NULL)
        return -1;
      continue;
    }
    if (strcmp(a, "--dpop") == 0) {
      ctx->dpop = true;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
      ctx->verbose = true;
    } else if (strcmp(a, "--trace") == 0) {
      ctx->trace = true;
    } else if (strcmp(a, "-H") == 0 || strcmp(a, "--header") == 0) {
      const char *h = value_of(argc, argv, &i);
      if (h == NULL)
        return -1;
      if (strchr(h, ':') == NULL ||
          ctx->nheaders >= (int)(sizeof ctx->headers / sizeof *ctx->headers)) {
        mcpc_error(MCPC_USAGE, NULL, "bad header \"%s\" (want 'Name: value')",
                   h);
        return -1;
      }
      ctx->headers[ctx->nheaders++] = h;
    } else if (strcmp(a, "--servers") == 0) {
      const char *f = value_of(argc, argv, &i);
      if (f == NULL)
        return -1;
      if (ctx->nservers >= (int)(sizeof ctx->servers / sizeof *ctx->servers)) {
        mcpc_error(MCPC_USAGE, NULL, "too many --servers files");
        return -1;
      }
      ctx->servers[ctx->nservers++] = f;
    } else if (strcmp(a, "--format") == 0) {
      const char *f = value_of(argc, argv, &i);
      if (f == NULL)
        return -1;
      if (strcmp(f, "json") != 0 && strcmp(f, "text") != 0) {
        mcpc_error(MCPC_USAGE, NULL, "--format is text or json, not \"%s\"", f);
        return -1;
      }
      ctx->json = strcmp(f, "json") == 0;
    } else if (strcmp(a, "--elicit-content") == 0) {
      const char *v = value_of(argc, argv, &i);
      if (v == NULL)
        return -1;
      json_decref(ctx->elicit_content);
      ctx->elicit_content = json_loads(v, 0, NULL);
      if (!json_is_object(ctx->elicit_content)) {
        mcpc_error(MCPC_USAGE, NULL, "--elicit-content needs a JSON object");
        return -1;
      }
    } else if (strcmp(a, "--protocol") == 0) {
      const char *v = value_of(argc, argv, &i);
      if (v == NULL)
        return -1;
      static const char *const known[] = {"auto",       "2026-07-28",
                                          "2025-11-25", "2025-06-18",
                                          "2025-03-26", "2024-11-05"};
      bool ok = false;
      for (size_t k = 0; k < sizeof known / sizeof *known; k++)
        ok = ok || strcmp(v, known[k]) == 0;
      if (!ok) {
        mcpc_error(MCPC_USAGE, NULL,
                   "--protocol takes auto, 2026-07-28, 2025-11-25, "
                   "2025-06-18, 2025-03-26 or 2024-11-05, not \"%s\"",
                   v);
        return -1;
      }
      ctx->protocol = v;
    } else if (strcmp(a, "--timeout") == 0) {
      const char *t = value_of(argc, argv, &i);
      char *end;
      if (t == NULL)
        return -1;
      long ms = strtol(t, &end, 10);
      if (*end != '\0' || ms < 0 || ms > 86400000) {
        mcpc_error(MCPC_USAGE, NULL, "--timeout takes milliseconds");
        return -1;
      }
      ctx->timeout_ms = (int)ms;
    } else {
      argv[out++] = argv[i];
    }
  }
  if (ctx->elicit != NULL && strcmp(ctx->elicit, "decline") != 0 &&
      strcmp(ctx->elicit, "cancel") != 0 &&
      strcmp(ctx->elicit, "accept") != 0) {
    mcpc_error(MCPC_USAGE, NULL, "--elicit is decline, cancel or accept");
    return -1;
  }
  return out;
}

static bool is_help(const char *a) {
  return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* Runs the command named by words (global options already taken); -h or
 * --help among the words asks for the help of what precedes it. */
static int dispatch(mcpc_ctx *ctx, int n, char **words) {
  for (int i = 0; i < n && strcmp(words[i], "--") != 0; i++)
    if (is_help(words[i]))
      return mcpc_help(i, words);
  if (n < 1) {
    mcpc_error(MCPC_USAGE, NULL, "no command (mcpc --help lists them)");
    return MCPC_USAGE;
  }
  int used = 0;
  const mcpc_command *c = mcpc_find_command(n, words, &used);
  if (c != NULL && c->run != NULL)
    return c->run(ctx, n - used, words + used);
  if (mcpc_find_group(words[0]) != NULL && n == 1)
    return mcpc_error(MCPC_USAGE, NULL,
                      "\"%s\" needs a subcommand (mcpc help %s lists them)",
                      words[0], words[0]);
  return mcpc_error(MCPC_USAGE, NULL,
                    "unknown command \"%s%s%s\" (mcpc --help lists the "
                    "commands)",
                    words[0], n >= 2 && mcpc_find_group(words[0]) ? " " : "",
                    n >= 2 && mcpc_find_group(words[0]) ? words[1] : "");
}

/* "--format json" anywhere: errors become JSON too (set before parsing,
 * so errors of the parse itself are JSON). */
static bool wants_json(int argc, char **argv) {
  bool json = false;
  for (int i = 1; i + 1 < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--format") == 0)
      json = strcmp(argv[i + 1], "json") == 0;
  return json;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--stdio-supervisor") == 0)
    return mcpc_supervise(argc - 2, argv + 2);
  if (argc == 2 && strcmp(argv[1], "--version") == 0)
    return mcpc_version();
  /* schema check takes no global options: its arguments pass untouched */
  if (argc >= 3 && strcmp(argv[1], "schema") == 0 &&
      strcmp(argv[2], "check") == 0) {
    for (int i = 3; i < argc; i++)
      if (is_help(argv[i]))
        return mcpc_help(2, argv + 1);
    return mcpc_schema_check(argc - 3, argv + 3);
  }
  mcpc_errors_init(wants_json(argc, argv));
  mcpc_ctx ctx = {.timeout_ms = 60000, .owned = json_array()};
  int n = take_globals(&ctx, argc - 1, argv + 1);
  int rc = n >= 0 ? dispatch(&ctx, n, argv + 1) : MCPC_USAGE;
  mcpc_trace_free(&ctx);
  json_decref(ctx.owned);
  json_decref(ctx.elicit_content);
  mcp_oauth_free(ctx.oauth);
  return mcpc_errors_finish(rc);
}
