/* SPDX-License-Identifier: MIT */
/* completion.c - "mcpc completion bash|zsh": shell completion scripts
 * written from the command table, so they know every command and option
 * help knows. Both complete command words, the options of the command on
 * the line plus the global ones, fixed option values (--format, --elicit),
 * files (--config, --servers, --spec, --remote-dir) and profile names (from
 * "mcpc config list --names"). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "mcp/version.h"

typedef enum { BASH, ZSH } shell;

/* Prints s single-quoted for sh. */
static void sq(const char *s) {
  putchar('\'');
  for (; *s; s++)
    if (*s == '\'')
      fputs("'\\''", stdout);
    else
      putchar(*s);
  putchar('\'');
}

/* Each option name of o ("-u, --url" is two), separated by sep. */
static void print_names(const mcpc_option *o, const char *sep, bool *first) {
  if (o->name[0] != '-')
    return; /* key=value: not an option */
  const char *p = o->name;
  while (*p) {
    size_t n = strcspn(p, ",");
    printf("%s%.*s", *first ? "" : sep, (int)n, p);
    *first = false;
    p += n;
    while (*p == ',' || *p == ' ')
      p++;
  }
}

/* The names of options (of opts) that take a value, as a case pattern. */
static void print_valued(const mcpc_option *opts, bool *first) {
  for (const mcpc_option *o = opts; o->name != NULL; o++)
    if (o->value != NULL)
      print_names(o, "|", first);
}

static void print_all_valued(void) {
  bool first = true;
  print_valued(mcpc_global_options, &first);
  for (size_t i = 0; i < mcpc_ncommands; i++)
    print_valued(mcpc_commands[i].options, &first);
}

static void print_option_list(const mcpc_option *opts) {
  bool first = true;
  for (const mcpc_option *o = opts; o->name != NULL; o++)
    print_names(o, " ", &first);
}

/* The top-level words: groups and one-word commands. */
static void print_top_words(void) {
  for (const mcpc_group *g = mcpc_groups; g->name != NULL; g++)
    printf("%s ", g->name);
  for (size_t i = 0; i < mcpc_ncommands; i++)
    if (mcpc_commands[i].name == NULL)
      printf("%s ", mcpc_commands[i].group);
}

static void print_subcommands(const char *group) {
  for (size_t i = 0; i < mcpc_ncommands; i++)
    if (mcpc_commands[i].name != NULL &&
        strcmp(mcpc_commands[i].group, group) == 0)
      printf("%s ", mcpc_commands[i].name);
}

/* The shell code shared by both: prev's values, then finding the command
 * words (cmd, sub) on the line, skipping global options and their values.
 * first_word: index of the word after "mcpc" (bash 1, zsh 2). */
static void common_head(shell sh) {
  const char *reply = sh == BASH ? "COMPREPLY=($(compgen -W" : "compadd --";
  printf("  case \"$prev\" in\n"
         "    --format) %s %s; return ;;\n"
         "    --elicit) %s %s; return ;;\n",
         reply, sh == BASH ? "'text json' -- \"$cur\"))" : "text json", reply,
         sh == BASH ? "'decline cancel accept' -- \"$cur\"))"
                    : "decline cancel accept");
  if (sh == BASH)
    printf("    -p|--profile) COMPREPLY=($(compgen -W \"$(mcpc config list "
           "--names 2>/dev/null)\" -- \"$cur\")); return ;;\n"
           "    --config|--servers|--spec|--remote-dir) COMPREPLY=($(compgen "
           "-f -- \"$cur\")); return ;;\n");
  else
    printf("    -p|--profile) compadd -- ${(f)\"$(mcpc config list --names "
           "2>/dev/null)\"}; return ;;\n"
           "    --config|--servers|--spec|--remote-dir) _files; return ;;\n");
  printf("    ");
  print_all_valued();
  printf(") return ;;\n  esac\n");
  printf("  for ((i = %d; i < %s; i++)); do\n"
         "    w=%s\n"
         "    case \"$w\" in\n      ",
         sh == BASH ? 1 : 2, sh == BASH ? "COMP_CWORD" : "CURRENT",
         sh == BASH ? "${COMP_WORDS[i]}" : "${words[i]}");
  bool first = true;
  print_valued(mcpc_global_options, &first);
  printf(") ((i++)) ;;\n"
         "      -*) ;;\n"
         "      *) if [[ -z $cmd ]]; then cmd=$w; elif [[ -z $sub ]]; then "
         "sub=$w; fi ;;\n"
         "    esac\n  done\n");
}

/* opts=... for the command on the line: its options and the global ones. */
static void common_opts(void) {
  printf("  opts='");
  print_option_list(mcpc_global_options);
  printf("'\n  case \"$cmd\" in\n");
  for (size_t i = 0; i < mcpc_ncommands; i++) {
    const mcpc_command *c = &mcpc_commands[i];
    if (c->name == NULL && c->options[0].name != NULL) {
      printf("    %s) opts=\"$opts ", c->group);
      print_option_list(c->options);
      printf("\" ;;\n");
    }
  }
  printf("  esac\n  case \"$cmd $sub\" in\n");
  for (size_t i = 0; i < mcpc_ncommands; i++) {
    const mcpc_command *c = &mcpc_commands[i];
    if (c->name != NULL && c->options[0].name != NULL) {
      printf("    '%s %s') opts=\"%s", c->group, c->name,
             c->no_globals ? "" : "$opts ");
      print_option_list(c->options);
      printf("\" ;;\n");
    }
  }
  printf("  esac\n");
}

/* Completion of the second word: a group's subcommands, completion's
 * shells, help's commands. */
static void common_second(shell sh) {
  const char *pre = sh == BASH ? "COMPREPLY=($(compgen -W '" : "compadd -- ";
  const char *post = sh == BASH ? "' -- \"$cur\"))" : "";
  printf("  if [[ -z $sub && \"$cur\" != -* ]]; then\n"
         "    case \"$cmd\" in\n");
  for (const mcpc_group *g = mcpc_groups; g->name != NULL; g++) {
    printf("      %s) %s", g->name, pre);
    print_subcommands(g->name);
    printf("%s; return ;;\n", post);
  }
  printf("      completion) %sbash zsh%s; return ;;\n"
         "      help) %s",
         pre, post, pre);
  print_top_words();
  printf("%s; return ;;\n    esac\n  fi\n", post);
}

static void bash_script(void) {
  printf("# bash completion for mcpc (libmcp %s), written by \"mcpc "
         "completion bash\".\n# Load it with: source <(mcpc completion "
         "bash)\n_mcpc() {\n"
         "  local cur prev w i cmd='' sub='' opts\n"
         "  cur=${COMP_WORDS[COMP_CWORD]}\n"
         "  prev=${COMP_WORDS[COMP_CWORD-1]}\n",
         MCP_VERSION_STRING);
  common_head(BASH);
  printf("  if [[ -z $cmd && \"$cur\" != -* ]]; then\n"
         "    COMPREPLY=($(compgen -W '");
  print_top_words();
  printf("' -- \"$cur\"))\n    return\n  fi\n");
  common_second(BASH);
  common_opts();
  printf("  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "  fi\n}\ncomplete -F _mcpc mcpc\n");
}

static void zsh_script(void) {
  printf("#compdef mcpc\n# zsh completion for mcpc (libmcp %s), written by "
         "\"mcpc completion zsh\".\n# Put it in $fpath as _mcpc, or load it "
         "with: source <(mcpc completion zsh)\n_mcpc() {\n"
         "  local cur=${words[CURRENT]} prev=${words[CURRENT-1]}\n"
         "  local w i cmd='' sub='' opts\n"
         "  local -a top\n",
         MCP_VERSION_STRING);
  common_head(ZSH);
  printf("  if [[ -z $cmd && \"$cur\" != -* ]]; then\n    top=(\n");
  for (const mcpc_group *g = mcpc_groups; g->name != NULL; g++) {
    char item[200];
    snprintf(item, sizeof item, "%s:%s", g->name, g->help);
    printf("      ");
    sq(item);
    printf("\n");
  }
  for (size_t i = 0; i < mcpc_ncommands; i++)
    if (mcpc_commands[i].name == NULL) {
      char item[200];
      snprintf(item, sizeof item, "%s:%s", mcpc_commands[i].group,
               mcpc_commands[i].help);
      printf("      ");
      sq(item);
      printf("\n");
    }
  printf("    )\n    _describe command top\n    return\n  fi\n");
  common_second(ZSH);
  common_opts();
  printf("  [[ \"$cur\" == -* ]] && compadd -- ${=opts}\n}\n"
         "if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then\n"
         "  _mcpc \"$@\"\nelse\n  compdef _mcpc mcpc\nfi\n");
}

int mcpc_cmd_completion(mcpc_ctx *ctx, int argc, char **argv) {
  (void)ctx;
  if (argc != 1 ||
      (strcmp(argv[0], "bash") != 0 && strcmp(argv[0], "zsh") != 0))
    return mcpc_usage("completion bash|zsh");
  if (strcmp(argv[0], "bash") == 0)
    bash_script();
  else
    zsh_script();
  return MCPC_OK;
}
