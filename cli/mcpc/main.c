/* main.c - mcpc, the libmcp command-line client and tester.
 *
 * A two-level dispatch table: "mcpc <group> <command> ...". Each command
 * group lives in its own cmd_<group>.c and registers its commands here.
 * Exit codes: command-specific, and 2 for usage errors. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const mcpc_command COMMANDS[] = {
    {"schema", "check", mcpc_schema_check,
     "[--format-assertion] [--remote-dir DIR] SCHEMA_FILE DATA_FILE",
     "validate DATA_FILE against SCHEMA_FILE (exit 0 valid, 1 invalid, 2 "
     "error)"},
};

static int usage(FILE *f) {
  fprintf(f, "usage: mcpc <command> [args]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    fprintf(f, "  mcpc %s %s %s\n      %s\n", COMMANDS[i].group,
            COMMANDS[i].name, COMMANDS[i].args, COMMANDS[i].help);
  return 2;
}

int main(int argc, char **argv) {
  if (argc >= 2 &&
      (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc < 3)
    return usage(stderr);
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    if (strcmp(argv[1], COMMANDS[i].group) == 0 &&
        strcmp(argv[2], COMMANDS[i].name) == 0)
      return COMMANDS[i].run(argc - 3, argv + 3);
  fprintf(stderr, "mcpc: unknown command \"%s %s\"\n", argv[1], argv[2]);
  return usage(stderr);
}
