/* SPDX-License-Identifier: MIT */
/* errors.c - how mcpc reports errors. Text goes to stderr as
 * "mcpc: MESSAGE" (usage lines as "usage: ..."); with --format json the
 * first error is also kept and printed at exit on stdout as
 *   {"error": {"message": ..., "code": JSON-RPC code or null,
 *              "exit": 1|2|3, ...details}}
 * so a script reads exactly one JSON document either way. Exit codes do not
 * change with the format. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static bool json_mode;
static json_t *first; /* the first error, kept for JSON mode */

void mcpc_errors_init(bool json) {
  json_mode = json;
}

static void keep(int exit_code, json_t *details, const char *message) {
  if (!json_mode || first != NULL) {
    json_decref(details);
    return;
  }
  json_t *e = json_is_object(details) ? details : json_object();
  if (e != details)
    json_decref(details);
  json_object_set_new(e, "message", json_string(message));
  if (json_object_get(e, "code") == NULL)
    json_object_set_new(e, "code", json_null());
  json_object_set_new(e, "exit", json_integer(exit_code));
  first = e;
}

int mcpc_error(int exit_code, json_t *details, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "mcpc: %s\n", msg);
  keep(exit_code, details, msg);
  return exit_code;
}

int mcpc_usage(const char *synopsis) {
  char line[1024], words[2][64];
  snprintf(line, sizeof line, "usage: mcpc %s", synopsis);
  fprintf(stderr, "%s\n", line);
  /* point at the command's help: its first one or two words */
  int n = sscanf(synopsis, "%63s %63s", words[0], words[1]), used = 0;
  char *w[2] = {words[0], words[1]};
  const mcpc_command *c = n >= 1 ? mcpc_find_command(n, w, &used) : NULL;
  if (c != NULL)
    fprintf(stderr, "(mcpc help %s%s%s shows the options and examples)\n",
            c->group, c->name ? " " : "", c->name ? c->name : "");
  keep(MCPC_USAGE, NULL, line);
  return MCPC_USAGE;
}

int mcpc_errors_finish(int rc) {
  if (first != NULL && rc != MCPC_OK) {
    /* the code mcpc exits with, whatever the reporter guessed */
    json_object_set_new(first, "exit", json_integer(rc));
    json_t *doc = json_pack("{s:O}", "error", first);
    mcpc_print_json(doc);
    json_decref(doc);
  }
  json_decref(first);
  first = NULL;
  return rc;
}
