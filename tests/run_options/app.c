/* SPDX-License-Identifier: MIT */
/* app.c - a server program with options of its own (mcp_server_run_with),
 * for check-options.sh: --db PATH (a target, env APP_DB), --greeting TEXT
 * (a callback that refuses "bad", env APP_GREETING), --verbose (a flag).
 * After serving ends it prints the values on stdout. APP_BAD_TABLE=1 uses
 * a table with a mistake. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcp/mcp.h>

static mcp_status set_greeting(const char *value, void *user_data,
                               mcp_error_t *err) {
  if (strcmp(value, "bad") == 0)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no bad greetings");
  fprintf(stderr, "greeting=%s\n", value);
  *(const char **)user_data = value;
  return MCP_OK;
}

int main(int argc, char **argv) {
  const char *db = "default", *verbose = NULL, *greeting = NULL;
  const mcp_run_option options[] = {
      {.name = "db", .argument = "PATH", .help = "the database",
       .env = "APP_DB", .target = &db},
      {.name = "greeting", .argument = "TEXT", .help = "how to greet",
       .env = "APP_GREETING", .fn = set_greeting, .user_data = &greeting},
      {.name = "verbose", .help = "say more", .target = &verbose},
      {.name = NULL}};
  const mcp_run_option bad[] = {
      {.name = "http", .argument = "X", .target = &db}, {.name = NULL}};
  const char *bad_table = getenv("APP_BAD_TABLE");
  mcp_server_t *s = NULL;
  if (mcp_server_new("app", "1.0.0", &s) != MCP_OK)
    return 1;
  int rc = mcp_server_run_with(s, argc, argv,
                               bad_table && *bad_table ? bad : options);
  mcp_server_free(s);
  printf("db=%s verbose=%s greeting=%s\n", db, verbose ? verbose : "-",
         greeting ? greeting : "-");
  return rc;
}
