/* SPDX-License-Identifier: MIT */
/* commands.h - the command table of mcpc and what commands share: the
 * global options (connection, profile, output format), connecting, output
 * and the progress display.
 *
 * Exit codes of every command: 0 success; 1 the tool returned isError or a
 * check failed; 2 usage error; 3 protocol or transport error. */
#ifndef MCPC_COMMANDS_H
#define MCPC_COMMANDS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/client.h"

enum { MCPC_OK = 0, MCPC_FAIL = 1, MCPC_USAGE = 2, MCPC_PROTOCOL = 3 };

/* Global options, from the command line (anywhere on it) and the profile. */
typedef struct mcpc_ctx {
  const char *url;     /* -u */
  const char *command; /* -c, run through /bin/sh -c */
  const char *profile; /* -p */
  const char *config;  /* --config FILE */
  const char *spec;    /* --spec schema.json for inspect */
  const char *bearer;  /* --bearer */
  const char *cacert;  /* --cacert */
  /* OAuth (cmd_auth.c): --oauth-mode, --client-id, --client-secret,
   * --client-metadata-url; oauth is made on first use, freed at exit */
  const char *oauth_mode, *client_id, *client_secret, *client_metadata_url;
  /* --grant, --client-auth, --client-key, --client-key-alg,
   * --assertion-file, --idp-token-url, --idp-client-id, --idp-client-secret,
   * --id-token-file, --dpop (cmd_auth.c) */
  const char *grant, *client_auth, *client_key, *client_key_alg;
  const char *assertion_file, *idp_token_url, *idp_client_id;
  const char *idp_client_secret, *id_token_file;
  bool dpop;
  struct mcp_oauth *oauth;
  const char *elicit;     /* --elicit decline|cancel|accept */
  const char *protocol;   /* --protocol auto|2026-07-28|2025-11-25|... */
  json_t *elicit_content; /* --elicit-content JSON (owned), over defaults */
  const char *servers[8]; /* --servers FILE: instead of the default files */
  int nservers;
  json_t *server_argv;     /* a profile's ["command", "arg", ...] (borrowed) */
  json_t *server_env;      /* and its {"NAME": "value"} (borrowed) */
  const char *headers[32]; /* -H "Name: value" */
  int nheaders;
  bool json;      /* --format json */
  bool verbose;   /* -v: era, URL, HTTP exchanges, request timings */
  bool trace;     /* --trace: every JSON-RPC message on stderr */
  struct mcpc_trace *trace_state; /* trace.c; freed at exit */
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

/* True when c speaks 2026-07-28 because mcpc chose it (--protocol auto),
 * so a command needing what the server offers only in 2025-11-25 may
 * reconnect with mcpc_reconnect_legacy (closes c; NULL and *exit_code on
 * failure). */
bool mcpc_can_fall_back(const mcpc_ctx *ctx, mcp_client_t *c);
mcp_client_t *mcpc_reconnect_legacy(mcpc_ctx *ctx, mcp_client_t *c,
                                    int *exit_code);

/* Interactive elicitation (elicit_tty.c): true when stdin and stderr are
 * a terminal; answers params (an elicitation/create request) by asking the
 * user field by field, *result returns new. */
bool mcpc_elicit_interactive(void);
mcp_status mcpc_elicit_on_tty(json_t *params, json_t **result);

/* One option of a command, for help and completion. */
typedef struct mcpc_option {
  const char *name;  /* "--args"; "-u, --url" for a short and long form */
  const char *value; /* "JSON", or NULL for a flag */
  const char *help;  /* one line */
} mcpc_option;

/* The command table (command_table.c) is the one source of --help, "mcpc
 * help", the completion scripts and dispatch. */
typedef struct mcpc_command {
  const char *group; /* "tools" */
  const char *name;  /* "call", or NULL for one-word commands ("ping") */
  int (*run)(mcpc_ctx *ctx, int argc, char **argv);
  const char *args;       /* usage synopsis after the words */
  const char *help;       /* one line */
  const char *details;    /* a paragraph for --help, or NULL */
  mcpc_option options[8]; /* own options, up to the first NULL name */
  const char *examples[2];
  bool no_globals; /* takes no global options (schema check) */
  bool offline;    /* needs no server */
} mcpc_command;

typedef struct mcpc_group {
  const char *name;
  const char *help;
} mcpc_group;

extern const mcpc_command mcpc_commands[];
extern const size_t mcpc_ncommands;
extern const mcpc_group mcpc_groups[];          /* ends with a NULL name */
extern const mcpc_option mcpc_global_options[]; /* ends with a NULL name */
/* The command named by words[0..n) (one or two words), or NULL; *used is
 * how many words named it. */
const mcpc_command *mcpc_find_command(int n, char **words, int *used);
/* The group named word (a two-word command's first word), or NULL. */
const mcpc_group *mcpc_find_group(const char *word);

/* help.c: help texts on stdout. words name nothing (overview), a group or
 * a command; returns the exit code (2 after a message when they name
 * nothing known). */
int mcpc_help(int n, char **words);
/* The short usage of a command on stderr with a pointer to its --help;
 * returns 2. */
int mcpc_command_usage(const mcpc_command *c);
int mcpc_cmd_help(mcpc_ctx *ctx, int argc, char **argv);
/* "mcpc --version" */
int mcpc_version(void);

/* errors.c: "mcpc: MESSAGE" on stderr; with --format json the first error
 * is kept (details: extra members, stolen, may be NULL) and printed at exit
 * as {"error": {"message", "code", "exit", ...}} on stdout. mcpc_error
 * returns exit_code, mcpc_errors_finish rc. */
void mcpc_errors_init(bool json);
int mcpc_error(int exit_code, json_t *details, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int mcpc_errors_finish(int rc);

/* url.c: -u's value as a URL for the client library (host:port/path gets
 * http:// for loopback hosts); false with the reason in why. */
bool mcpc_url_normalize(const char *in, char *out, size_t outn, char *why,
                        size_t whyn);

/* diagnose.c: what mcpc_fail adds to transport errors: the URL, HTTP status
 * and a hint; a stdio server's exit status and last stderr lines. */
void mcpc_diagnose_target(const char *url);

/* stdio_watch.c: a stdio server runs under "mcpc --stdio-supervisor FD
 * ARGV...", which tees its stderr, keeps the last lines and reports its
 * exit status on FD. */
int mcpc_supervise(int argc, char **argv);
/* argv wrapped in the supervisor (malloc'd, NULL-terminated; free with
 * free()), or NULL when it cannot be (then argv runs as is). */
char **mcpc_watch_argv(char *const *argv);
/* After the spawn: mcpc's copy of the report pipe's write end is closed. */
void mcpc_watch_spawned(void);
/* Waits up to wait_ms for the supervisor's report; false when there is
 * none (no watch, or the server still runs). Adds "serverExit" or
 * "serverSignal" and "serverStderr" to details and a sentence to what. */
bool mcpc_watch_report(int wait_ms, json_t *details, char *what, size_t n,
                       char *lines, size_t linesn);

/* connect.c: connects as ctx says (profile resolved); prints the reason and
 * returns NULL on failure (exit 3, or 2 when nothing says where). */
mcp_client_t *mcpc_connect(mcpc_ctx *ctx, int *exit_code);
/* mcpc_connect for the tasks commands: falls back to 2025-11-25 when the
 * server declares tasks only there. */
mcp_client_t *mcpc_connect_tasks(mcpc_ctx *ctx, int *exit_code);
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
/* An update without a fraction (a task's status): "progress MESSAGE
 * (1.2s)" as a line; on a terminal a marker at step moving along the bar. */
void mcpc_progress_status(mcpc_progress *p, int step, const char *message);
void mcpc_progress_done(mcpc_progress *p);
/* mcp_client_progress_fn adapter (user_data: mcpc_progress *). */
void mcpc_progress_cb(double progress, double total, const char *message,
                      void *user_data);

/* connect.c: ends the mcp_client_listen_at running (or about to run) on
 * thread, whose generation was read before the thread started, and joins
 * the thread. */
void mcpc_listen_end(mcp_client_t *c, pthread_t thread);

/* cmd_tools.c: waits for a task with a progress display (2025-11-25: a
 * blocking tasks/result, tasks/get polled beside it for the display;
 * 2026-07-28: notifications/tasks on a listen stream, tasks/get polls),
 * then prints its result like tools call; returns the exit code. The display's
 * notification handler must be installed with mcpc_task_display_install
 * before the client is connected (the client's threads read ctx). */
void mcpc_task_display_install(mcpc_ctx *ctx);
int mcpc_wait_task(mcpc_ctx *ctx, mcp_client_t *c, const char *task_id);

/* profile.c */
/* Path of the config file (static buffer). */
const char *mcpc_config_path(const mcpc_ctx *ctx);
/* Loads the config ({"profiles":{}} when missing); NULL on a broken file. */
json_t *mcpc_config_load(const mcpc_ctx *ctx);

/* config_files.c: profiles from every file mcpc reads, first wins: mcpc's
 * own, then (unless --servers or $MCPC_SERVERS name the files instead)
 * .vscode/mcp.json, .cursor/mcp.json, ~/.cursor/mcp.json and Claude
 * Desktop's config. An array of {"name", "transport" (stdio|http|sse),
 * "file", "format", "url", "headers", "bearer", "command" (a shell line)
 * or "argv" and "env"}; NULL after a message when mcpc's own file is
 * broken (the others are skipped with a warning). */
json_t *mcpc_profiles_load(const mcpc_ctx *ctx);
/* Fills what ctx does not set from the named profile; the profile data
 * stays alive in ctx->owned. false after a message (exit 2). */
bool mcpc_apply_profile(mcpc_ctx *ctx);

/* trace.c: -v and --trace. mcpc_trace_setup installs the client's
 * observers on o (also inspect's ctx->observer); mcpc_trace_connecting and
 * _connected say where mcpc connects and which era it speaks (-v). */
typedef struct mcpc_trace mcpc_trace;
mcp_status mcpc_trace_setup(mcpc_ctx *ctx, mcp_client_options_t *o);
void mcpc_trace_connecting(const mcpc_ctx *ctx, const char *url);
void mcpc_trace_connected(const mcpc_ctx *ctx, mcp_client_t *c);
void mcpc_trace_free(mcpc_ctx *ctx);

/* Commands. */
int mcpc_cmd_request(mcpc_ctx *ctx, int argc, char **argv);
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
int mcpc_cmd_listen(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_skills_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_skills_get(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_apps_show(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_prompts_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_prompts_get(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_profile_add(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_profile_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_profile_remove(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_inspect(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_config_list(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_completion(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_auth_login(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_auth_logout(mcpc_ctx *ctx, int argc, char **argv);
int mcpc_cmd_auth_status(mcpc_ctx *ctx, int argc, char **argv);
/* cmd_auth.c: the OAuth state of the server at url (normalized), made on
 * first use with the token file and ctx's settings; NULL on failure. */
struct mcp_oauth *mcpc_oauth(mcpc_ctx *ctx, const char *url);

#endif
