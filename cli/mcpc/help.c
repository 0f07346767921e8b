/* SPDX-License-Identifier: MIT */
/* help.c - "mcpc --help", "mcpc help [COMMAND ...]", "COMMAND --help" and
 * "--version", all printed from the command table without a server. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "mcp/version.h"

static void print_words(FILE *f, const mcpc_command *c) {
  fprintf(f, "mcpc %s%s%s", c->group, c->name ? " " : "",
          c->name ? c->name : "");
}

static void print_options(FILE *f, const mcpc_option *opts) {
  for (const mcpc_option *o = opts; o->name != NULL; o++) {
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", o->name, o->value ? " " : "",
             o->value ? o->value : "");
    if (strlen(left) > 24)
      fprintf(f, "  %s\n  %-24s  %s\n", left, "", o->help);
    else
      fprintf(f, "  %-24s  %s\n", left, o->help);
  }
}

/* text as lines of at most 76 columns. */
static void print_wrapped(const char *text) {
  while (*text) {
    size_t n = strlen(text);
    if (n > 76) {
      n = 76;
      while (n > 0 && text[n] != ' ')
        n--;
      if (n == 0)
        n = strcspn(text, " ");
    }
    printf("%.*s\n", (int)n, text);
    text += n;
    while (*text == ' ')
      text++;
  }
}

static void overview(void) {
  printf("usage: mcpc [GLOBAL OPTIONS] COMMAND [ARGS]\n\n"
         "mcpc, the libmcp command-line client: talks to an MCP server over "
         "Streamable HTTP\n(-u URL) or stdio (-c COMMAND) and prints the "
         "results.\n\ncommands:\n");
  for (size_t i = 0; i < mcpc_ncommands; i++) {
    const mcpc_command *c = &mcpc_commands[i];
    char words[48];
    snprintf(words, sizeof words, "%s%s%s", c->group, c->name ? " " : "",
             c->name ? c->name : "");
    printf("  %-20s  %s\n", words, c->help);
  }
  printf("\nglobal options (anywhere on the line):\n");
  print_options(stdout, mcpc_global_options);
  printf("\nexit codes: 0 success, 1 isError or failed check, 2 usage, "
         "3 protocol or transport error\n"
         "\n'mcpc help COMMAND' or 'mcpc COMMAND --help' shows a command's "
         "options and examples;\n'man mcpc' has the reference.\n");
}

static void group_help(const mcpc_group *g) {
  printf("usage: mcpc %s SUBCOMMAND ...\n\n%s\n\nsubcommands:\n", g->name,
         g->help);
  for (size_t i = 0; i < mcpc_ncommands; i++) {
    const mcpc_command *c = &mcpc_commands[i];
    if (c->name != NULL && strcmp(c->group, g->name) == 0)
      printf("  %-10s %s%s\n             %s\n", c->name, c->args,
             c->args[0] ? "" : "(no arguments)", c->help);
  }
  printf("\n'mcpc help %s SUBCOMMAND' shows its options and examples.\n",
         g->name);
}

static void command_help(const mcpc_command *c) {
  printf("usage: ");
  print_words(stdout, c);
  printf("%s%s\n\n%s\n", c->args[0] ? " " : "", c->args, c->help);
  if (c->details != NULL)
    print_wrapped(c->details);
  printf("\noptions:\n");
  if (c->options[0].name != NULL)
    print_options(stdout, c->options);
  else
    printf("  (none of its own)\n");
  if (c->no_globals)
    printf("\nIt takes no global options.\n");
  else
    printf("\nglobal options: -u URL, -c COMMAND, -p PROFILE, -H HEADER, "
           "--bearer TOKEN,\n  --format text|json, --config FILE, --servers "
           "FILE, --timeout MS, ... (mcpc --help)\n");
  if (!c->offline)
    printf("Needs a server: -u URL, -c COMMAND or -p PROFILE.\n");
  printf("\nexamples:\n  %s\n  %s\n", c->examples[0], c->examples[1]);
}

int mcpc_help(int n, char **words) {
  if (n == 0) {
    overview();
    return MCPC_OK;
  }
  int used = 0;
  const mcpc_command *c = mcpc_find_command(n, words, &used);
  if (c != NULL && used == n) {
    command_help(c);
    return MCPC_OK;
  }
  const mcpc_group *g = mcpc_find_group(words[0]);
  if (g != NULL && n == 1) {
    group_help(g);
    return MCPC_OK;
  }
  char what[200] = "";
  for (int i = 0; i < n && i < 2; i++)
    snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s",
             i ? " " : "", words[i]);
  return mcpc_error(MCPC_USAGE, NULL,
                    "no command \"%s\" (mcpc help lists the commands)", what);
}

int mcpc_cmd_help(mcpc_ctx *ctx, int argc, char **argv) {
  (void)ctx;
  return mcpc_help(argc, argv);
}

int mcpc_command_usage(const mcpc_command *c) {
  char line[400];
  snprintf(line, sizeof line, "usage: mcpc %s%s%s%s%s (mcpc %s%s%s --help)",
           c->group, c->name ? " " : "", c->name ? c->name : "",
           c->args[0] ? " " : "", c->args, c->group, c->name ? " " : "",
           c->name ? c->name : "");
  return mcpc_error(MCPC_USAGE, NULL, "%s", line);
}

int mcpc_version(void) {
  /* both eras, and which one --protocol auto (the default) picks */
  printf("mcpc %s (libmcp %s, MCP 2026-07-28 and %s; default: auto, "
         "2026-07-28 when the server offers it)\n",
         MCP_VERSION_STRING, mcp_version_string(), MCP_PROTOCOL_LATEST);
  return MCPC_OK;
}
