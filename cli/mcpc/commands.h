/* SPDX-License-Identifier: MIT */
/* commands.h - the command table of mcpc and what commands share: the
 * global options (connection, profile, output format), connecting, output
 * and the progress display.
 *
 * Exit codes of every command: 0 success; 1 the tool returned isError or a
 * check failed; 2 usage error; 3 protocol or transport error. */
#ifndef MCPC_COMMANDS_H
#define MCPC_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/client.h"

enum { MCPC_OK = 0, MCPC_FAIL = 1, MCPC_USAGE = 2, MCPC_PROTOCOL = 3 };

/* Global options, from the command line (anywhere on it) and the profile. */
typedef struct mcpc_ctx {
  const char *url;         /* -u */
  const char *command;     /* -c, run through /bin/sh -c */
  const char *profile;     /* -p */
  const char *config;      /* --config FILE */
  const char *spec;        /* --spec schema.json for inspect */
  const char *bearer;      /* --bearer */
  const char *elicit;      /* --elicit decline|cancel|accept */
  json_t *elicit_content;  /* --elicit-content JSON (owned), over defaults */
  const char *headers[32]; /* -H "Name: value" */
  int nheaders;
  bool json;      /* --format json */
  int timeout_ms; /* --timeout MS */
  json_t *owned;  /* array keeping profile strings alive until exit */
  /* set by inspect before connecting */
  mcp_client_observer_fn observer;
  void *observer_ud;
  /* Notifications other than log messages go here when set (called on the
   * client's threads): the task display and resources subscribe. */
  mcp_client_notification_fn on_notification;
  void *notification_ud;
} mcpc_ctx;

typedef struct mcpc_command {
  const char *group; /* "tools" */
  const char *name;  /* "call", or NULL for one-word commands ("ping") */
  int (*run)(mcpc_ctx *ctx, int argc, char **argv);
  const char *args; /* usage synopsis */
  const char *help; /* one line */
} mcpc_command;

/* connect.c: connects as ctx says (profile resolved); prints the reason and
 * returns NULL on failure (exit 3, or 2 when nothing says where). */
mcp_client_t *mcpc_connect(mcpc_ctx *ctx, int *exit_code);
/* Prints a failed request's error on stderr; returns the exit code (3). */
int mcpc_fail(const char *what, mcp_status st, const mcp_error_t *err);
/* Prints a usage line on stderr; returns 2. */
int mcpc_usage(const char *synopsis);

/* output.c */
void mcpc_print_json(const json_t *value);
/* One content block (text, image, audio, resource_link, resource) as text. */
void mcpc_print_content(const json_t *block);
/* Prints a CallToolResult / GetTaskPayloadResult as text or JSON; returns
 * 1 when it is an isError result, else 0. */
int mcpc_print_tool_result(const mcpc_ctx *ctx, json_t *result);
/* A paginated list (method, and key, the name of the result's array) as
 * {"<key>": [...]} with --format json, else one print_item call per item;
 * the command takes no arguments (syn: its usage line). Returns the exit
 * code. */
int mcpc_list(mcpc_ctx *ctx, int argc, const char *syn, const char *method,
              const char *key, void (*print_item)(const json_t *item));
/* A list item as its name and the first line of its description. */
void mcpc_print_named(const json_t *item);
/* Parses "key=value" words into an object (values that parse as JSON stay
 * JSON, others become strings). NULL with a message on a malformed word. */
json_t *mcpc_parse_kv(int argc, char **argv, bool strings_only);

/* progress.c: a progress display on stderr; a bar with message and elapsed
 * time on a terminal (unless --format json), plain lines otherwise. */
typedef struct mcpc_progress {
  bool tty;
  bool drawn; /* a bar is on screen and needs clearing */
  int64_t start_ms;
} mcpc_progress;
void mcpc_progress_init(mcpc_progress *p, const mcpc_ctx *ctx);
void mcpc_progress_update(mcpc_progress *p, double progress, double total,
                          const char *message);
void mcpc_progress_done(mcpc_progress *p);
/* mcp_client_progress_fn adapter (user_data: mcpc_progress *). */
void mcpc_progress_cb(double progress, double total, const char *message,
                      void *user_data);

/* cmd_tools.c: polls a task with a progress display, then prints its
 * result like tools call; returns the exit code. */
int mcpc_wait_task(mcpc_ctx *ctx, mcp_client_t *c, const char *task_id);

/* profile.c */
/* Path of the config file (static buffer). */
const char *mcpc_config_path(const mcpc_ctx *ctx);
/* Loads the config ({"profiles":{}} when missing); NULL on a broken file. */
json_t *mcpc_config_load(const mcpc_ctx *ctx);

/* Commands. */
int mcpc_schema_check(int argc, char **argv); /* cmd_schema.c */
int mcpc_cmd_info(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_ping(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_log_level(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_complete(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_tools_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_tools_call(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_tasks_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_tasks_get(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_tasks_result(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_tasks_cancel(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_resources_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_resources_read(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_resources_templates(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_resources_subscribe(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_prompts_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_prompts_get(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_profile_add(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_profile_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_profile_remove(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_inspect(mcpc_ctx *ctx, int argc, char **argv);

#endif
