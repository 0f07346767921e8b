/* SPDX-License-Identifier: MIT */
/* main.c - mcpc, the libmcp command-line client and tester.
 *
 *   mcpc [-u URL | -c "COMMAND ARGS"] [-p PROFILE] [-H 'Name: value']
 *        [--bearer TOKEN] [--format text|json] COMMAND ...
 *
 * Global options may appear anywhere on the line (the handbook writes
 * "tools call add --args ... --profile local"). Commands are one or two
 * words and live in a dispatch table; each group has its own cmd_*.c.
 * "mcpc schema check" needs no server and keeps its own argument rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static const mcpc_command COMMANDS[] = {
    {"info", NULL, mcpc_cmd_info, "",
     "initialize and show the server's identity and capabilities"},
    {"ping", NULL, mcpc_cmd_ping, "", "send ping and show the round trip"},
    {"tools", "list", mcpc_cmd_tools_list, "", "list tools (all pages)"},
    {"tools", "call", mcpc_cmd_tools_call,
     "NAME [--args JSON | key=value ...] [--task [--ttl MS]] [--wait]",
     "call a tool (exit 1 when the result has isError)"},
    {"tasks", "list", mcpc_cmd_tasks_list, "", "list tasks"},
    {"tasks", "get", mcpc_cmd_tasks_get, "ID", "show a task"},
    {"tasks", "result", mcpc_cmd_tasks_result, "ID",
     "wait for and show a task's result"},
    {"tasks", "cancel", mcpc_cmd_tasks_cancel, "ID", "cancel a task"},
    {"resources", "list", mcpc_cmd_resources_list, "", "list resources"},
    {"resources", "read", mcpc_cmd_resources_read, "URI", "read a resource"},
    {"resources", "templates", mcpc_cmd_resources_templates, "",
     "list resource templates"},
    {"resources", "subscribe", mcpc_cmd_resources_subscribe,
     "URI [--wait-ms MS] [--count N]",
     "subscribe and print notifications/resources/updated until MS elapsed "
     "or N arrived"},
    {"prompts", "list", mcpc_cmd_prompts_list, "", "list prompts"},
    {"prompts", "get", mcpc_cmd_prompts_get, "NAME [key=value ...]",
     "get a prompt"},
    {"complete", NULL, mcpc_cmd_complete,
     "(--prompt NAME | --resource URI) ARGUMENT VALUE [key=value ...]",
     "ask for completions of an argument"},
    {"log-level", NULL, mcpc_cmd_log_level, "LEVEL",
     "logging/setLevel (debug ... emergency)"},
    {"inspect", NULL, mcpc_cmd_inspect, "[--call-tools] [--spec SCHEMA_JSON]",
     "quality report on a server (exit 1 when a MUST fails)"},
    {"profile", "add", mcpc_cmd_profile_add,
     "NAME (-u URL | -c COMMAND) [-H 'Name: value'] [--bearer TOKEN]",
     "save a connection profile"},
    {"profile", "list", mcpc_cmd_profile_list, "", "list profiles"},
    {"profile", "remove", mcpc_cmd_profile_remove, "NAME", "remove a profile"},
};

static int usage(FILE *f) {
  fprintf(f,
          "usage: mcpc [-u URL | -c \"COMMAND ARGS\"] [-p PROFILE] "
          "[-H 'Name: value']\n"
          "            [--bearer TOKEN] [--format text|json] [--config FILE]\n"
          "            [--timeout MS] [--elicit decline|cancel|accept]\n"
          "            [--elicit-content JSON] COMMAND ...\n\ncommands:\n");
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    fprintf(f, "  mcpc %s%s%s %s\n      %s\n", COMMANDS[i].group,
            COMMANDS[i].name ? " " : "",
            COMMANDS[i].name ? COMMANDS[i].name : "", COMMANDS[i].args,
            COMMANDS[i].help);
  fprintf(f, "  mcpc schema check [--format-assertion] [--remote-dir DIR] "
             "SCHEMA_FILE DATA_FILE\n      validate DATA_FILE against "
             "SCHEMA_FILE (exit 0 valid, 1 invalid, 2 error)\n"
             "\nexit codes: 0 success, 1 isError or failed check, 2 usage, "
             "3 protocol or transport error\n");
  return 2;
}

/* Takes the value of option argv[*i]; NULL (after a message) when missing. */
static const char *value_of(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "mcpc: %s needs a value\n", argv[*i]);
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
    else if (strcmp(a, "--elicit") == 0)
      slot = &ctx->elicit;
    if (slot != NULL) {
      if ((*slot = value_of(argc, argv, &i)) == NULL)
        return -1;
      continue;
    }
    if (strcmp(a, "-H") == 0 || strcmp(a, "--header") == 0) {
      const char *h = value_of(argc, argv, &i);
      if (h == NULL)
        return -1;
      if (strchr(h, ':') == NULL ||
          ctx->nheaders >= (int)(sizeof ctx->headers / sizeof *ctx->headers)) {
        fprintf(stderr, "mcpc: bad header \"%s\" (want 'Name: value')\n", h);
        return -1;
      }
      ctx->headers[ctx->nheaders++] = h;
    } else if (strcmp(a, "--format") == 0) {
      const char *f = value_of(argc, argv, &i);
      if (f == NULL)
        return -1;
      if (strcmp(f, "json") != 0 && strcmp(f, "text") != 0) {
        fprintf(stderr, "mcpc: --format is text or json\n");
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
        fprintf(stderr, "mcpc: --elicit-content needs a JSON object\n");
        return -1;
      }
    } else if (strcmp(a, "--timeout") == 0) {
      const char *t = value_of(argc, argv, &i);
      char *end;
      if (t == NULL)
        return -1;
      long ms = strtol(t, &end, 10);
      if (*end != '\0' || ms < 0 || ms > 86400000) {
        fprintf(stderr, "mcpc: --timeout takes milliseconds\n");
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
    fprintf(stderr, "mcpc: --elicit is decline, cancel or accept\n");
    return -1;
  }
  return out;
}

/* Runs the command named by words (global options already taken). */
static int dispatch(mcpc_ctx *ctx, int n, char **words) {
  if (n < 1)
    return usage(stderr);
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++) {
    const mcpc_command *c = &COMMANDS[i];
    if (strcmp(words[0], c->group) != 0)
      continue;
    if (c->name == NULL)
      return c->run(ctx, n - 1, words + 1);
    if (n >= 2 && strcmp(words[1], c->name) == 0)
      return c->run(ctx, n - 2, words + 2);
  }
  fprintf(stderr, "mcpc: unknown command \"%s%s%s\"\n", words[0],
          n >= 2 ? " " : "", n >= 2 ? words[1] : "");
  return usage(stderr);
}

int main(int argc, char **argv) {
  if (argc >= 2 &&
      (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    usage(stdout);
    return 0;
  }
  /* schema check takes no global options: its arguments pass untouched */
  if (argc >= 3 && strcmp(argv[1], "schema") == 0 &&
      strcmp(argv[2], "check") == 0)
    return mcpc_schema_check(argc - 3, argv + 3);
  mcpc_ctx ctx = {.timeout_ms = 60000, .owned = json_array()};
  int n = take_globals(&ctx, argc - 1, argv + 1);
  int rc = n < 0 ? usage(stderr) : dispatch(&ctx, n, argv + 1);
  json_decref(ctx.owned);
  json_decref(ctx.elicit_content);
  return rc;
}
