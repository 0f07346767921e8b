/* commands.h - the command table entries of mcpc. A command receives the
 * arguments after "<group> <name>" and returns the process exit code. */
#ifndef MCPC_COMMANDS_H
#define MCPC_COMMANDS_H

typedef struct mcpc_command {
  const char *group; /* "schema" */
  const char *name;  /* "check" */
  int (*run)(int argc, char **argv);
  const char *args; /* usage synopsis */
  const char *help; /* one line */
} mcpc_command;

/* cmd_schema.c */
int mcpc_schema_check(int argc, char **argv);

#endif
