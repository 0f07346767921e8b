/* SPDX-License-Identifier: MIT */
/* mcpc_cli_test.c - mcpc as a command-line tool: --help on every command
 * (also checked against docs/mcpc.1.scd), help, --version, -u host:port,
 * HTTP error hints, a dying stdio server's status and stderr, JSON errors,
 * the completion scripts and profiles from Claude Desktop, VS Code and
 * Cursor configuration files. */
#include <sys/stat.h>

#include "mcp/version.h"
#include "mcpc_run.h"

static char demo_cmd[1600], demo_bin[1024], demo_db[400];

/* Each command with the options its help must mention: the test's own
 * list, so a command dropped from mcpc's table fails here. */
static const char *const COMMANDS[][6] = {
    {"info"},
    {"ping"},
    {"tools list"},
    {"tools call", "--args", "--task", "--ttl", "--wait"},
    {"tasks list"},
    {"tasks get"},
    {"tasks result"},
    {"tasks cancel"},
    {"resources list"},
    {"resources read"},
    {"resources templates"},
    {"resources subscribe", "--wait-ms", "--count"},
    {"prompts list"},
    {"prompts get"},
    {"complete", "--prompt", "--resource"},
    {"log-level"},
    {"inspect", "--call-tools", "--spec"},
    {"profile add"},
    {"profile list"},
    {"profile remove"},
    {"config list", "--names"},
    {"schema check", "--format-assertion", "--remote-dir"},
    {"help"},
    {"completion"},
};

/* Writes text to path (directories made); asserts success. */
static void write_file(const char *path, const char *text) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *p = dir + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(dir, 0700);
      *p = '/';
    }
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_help_everywhere(void **state) {
  char *scd = tu_read_file(MCP_SOURCE_DIR "/docs/mcpc.1.scd", NULL);
  assert_non_null(scd);
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++) {
    char words[64], *w2;
    snprintf(words, sizeof words, "%s", COMMANDS[i][0]);
    w2 = strchr(words, ' ');
    if (w2 != NULL)
      *w2++ = '\0';
    char *out = NULL, expect[128];
    snprintf(expect, sizeof expect, "usage: mcpc %s", COMMANDS[i][0]);
    /* --help after the command, -h too, and "mcpc help WORDS" */
    const char *flag = i % 2 ? "-h" : "--help";
    if (w2 != NULL)
      MR_RUN(0, &out, words, w2, flag);
    else
      MR_RUN(0, &out, words, flag);
    assert_non_null(strstr(out, expect));
    assert_non_null(strstr(out, "examples:"));
    for (int k = 1; k < 6 && COMMANDS[i][k] != NULL; k++) {
      assert_non_null(strstr(out, COMMANDS[i][k]));
      assert_non_null(strstr(scd, COMMANDS[i][k])); /* documented too */
    }
    free(out);
    snprintf(expect, sizeof expect, "mcpc %s", COMMANDS[i][0]);
    if (strstr(scd, expect) == NULL)
      fail_msg("docs/mcpc.1.scd does not document \"%s\"", expect);
    if (w2 != NULL)
      MR_RUN(0, &out, "help", words, w2);
    else
      MR_RUN(0, &out, "help", words);
    assert_non_null(strstr(out, "options:"));
    free(out);
  }
  char *out = NULL, *err = NULL;
  const char *globals[] = {
      "--url",    "--command",        "--profile", "--header",  "--bearer",
      "--format", "--config",         "--servers", "--timeout", "--elicit",
      "--spec",   "--elicit-content", "--version", "--help"};
  MR_RUN(0, &out, "--help");
  for (size_t i = 0; i < sizeof globals / sizeof globals[0]; i++) {
    assert_non_null(strstr(out, globals[i]));
    assert_non_null(strstr(scd, globals[i]));
  }
  free(out);
  free(scd);
  MR_RUN(0, &out, "--help");
  assert_non_null(strstr(out, "resources subscribe"));
  assert_non_null(strstr(out, "--servers"));
  free(out);
  MR_RUN(0, &out, "help", "tools");
  assert_non_null(strstr(out, "call"));
  assert_non_null(strstr(out, "list"));
  free(out);
  /* help needs no server, even with a global option in front */
  MR_RUN(0, &out, "-u", "http://127.0.0.1:1/mcp", "tools", "call", "--help");
  assert_non_null(strstr(out, "--args JSON"));
  free(out);
  MR_RUN(0, &out, "--version");
  assert_non_null(strstr(out, MCP_VERSION_STRING));
  assert_non_null(strstr(out, "libmcp"));
  /* both eras, and which one the default (--protocol auto) speaks */
  assert_non_null(strstr(out, "MCP 2026-07-28 and 2025-11-25"));
  assert_non_null(strstr(out, "default: auto, 2026-07-28 when the server "
                              "offers it"));
  free(out);
  MR_RUN2(2, NULL, &err, "help", "nope");
  assert_non_null(strstr(err, "no command \"nope\""));
  free(err);
  MR_RUN2(2, NULL, &err, "tools");
  assert_non_null(strstr(err, "needs a subcommand"));
  free(err);
}

static void test_url_forms_and_http_errors(void **state) {
  mr_demo_http d;
  mr_demo_http_init(&d, "http.db");
  pid_t pid = mr_start_http(d.argv, d.url);
  assert_true(pid > 0);
  char u[200], *out = NULL, *err = NULL;
  snprintf(u, sizeof u, "%s/mcp", d.hp); /* 127.0.0.1:PORT/mcp */
  MR_RUN(0, &out, "-u", u, "ping");
  assert_non_null(strstr(out, "pong"));
  free(out);
  snprintf(u, sizeof u, "localhost:%s/mcp", strchr(d.hp, ':') + 1);
  MR_RUN(0, &out, "-u", u, "tools", "call", "add", "a=1", "b=2");
  assert_non_null(strstr(out, "\"sum\":3"));
  free(out);

  MR_RUN2(2, NULL, &err, "-u", "ftp://x", "ping");
  assert_non_null(strstr(err, "-u 'ftp://x': only http:// and https:// URLs"));
  free(err);
  MR_RUN2(2, NULL, &err, "-u", "mcp.example.com/mcp", "ping");
  assert_non_null(strstr(err, "https://mcp.example.com/mcp"));
  free(err);
  MR_RUN2(2, NULL, &err, "-u", "127.0.0.1:99999/mcp", "ping");
  assert_non_null(strstr(err, "port '99999'"));
  free(err);

  /* 404: the URL, the status and the hint */
  snprintf(u, sizeof u, "%s/nope", d.hp);
  MR_RUN2(3, NULL, &err, "-u", u, "ping");
  assert_non_null(strstr(err, "HTTP 404"));
  assert_non_null(strstr(err, "is the MCP endpoint /mcp?"));
  char full[220];
  snprintf(full, sizeof full, "http://%s", u);
  assert_non_null(strstr(err, full));
  free(err);
  MR_RUN(3, &out, "-u", u, "--format", "json", "ping");
  json_t *j = json_loads(out, 0, NULL);
  json_t *e = json_object_get(j, "error");
  assert_true(json_is_string(json_object_get(e, "message")));
  assert_true(json_is_null(json_object_get(e, "code")));
  assert_int_equal(json_integer_value(json_object_get(e, "exit")), 3);
  assert_int_equal(json_integer_value(json_object_get(e, "httpStatus")), 404);
  assert_string_equal(json_string_value(json_object_get(e, "url")), full);
  json_decref(j);
  free(out);
  mr_stop(pid);
}

static void test_dying_stdio_server(void **state) {
  char *out = NULL, *err = NULL;
  MR_RUN2(3, NULL, &err, "-c",
          "echo starting >&2; echo 'bad config: no such table' >&2; exit 7",
          "ping");
  assert_non_null(strstr(err, "the server exited with status 7"));
  assert_non_null(strstr(err, "  | bad config: no such table"));
  free(err);
  MR_RUN2(3, NULL, &err, "-c", "echo going >&2; kill -9 $$", "tools", "list");
  assert_non_null(strstr(err, "killed by signal 9"));
  free(err);
  MR_RUN(3, &out, "--format", "json", "-c", "echo last words >&2; exit 5",
         "ping");
  json_t *doc = json_loads(out, 0, NULL);
  json_t *e = json_object_get(doc, "error");
  assert_int_equal(json_integer_value(json_object_get(e, "serverExit")), 5);
  assert_string_equal(
      json_string_value(json_array_get(json_object_get(e, "serverStderr"), 0)),
      "last words");
  json_decref(doc);
  free(out);
  /* a healthy server is not disturbed by the watch */
  MR_RUN(0, &out, "-c", demo_cmd, "tools", "call", "add", "a=2", "b=3");
  assert_non_null(strstr(out, "\"sum\":5"));
  free(out);
}

static void test_json_errors(void **state) {
  char *out = NULL;
  struct {
    int exit;
    const char *args[10];
    bool rpc_code; /* false: code is null */
  } cases[] = {
      {2, {"--format", "json", "tools", "call"}, false},
      {2, {"--format", "json", "ping"}, false},
      {2, {"nope", "--format", "json"}, false},
      {2,
       {"--format", "json", "-c", demo_cmd, "tools", "call", "add", "--args",
        "[1]"},
       false},
      {3,
       {"--format", "json", "-c", demo_cmd, "tools", "call", "no_such_tool"},
       true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(mr_run(cases[i].args, &out, NULL), cases[i].exit);
    json_error_t je;
    json_t *doc = json_loads(out, 0, &je);
    if (doc == NULL)
      fail_msg("case %zu: not JSON: %s", i, out);
    json_t *e = json_object_get(doc, "error");
    assert_true(json_is_string(json_object_get(e, "message")));
    assert_int_equal(json_integer_value(json_object_get(e, "exit")),
                     cases[i].exit);
    if (cases[i].rpc_code)
      assert_true(json_integer_value(json_object_get(e, "code")) < 0);
    else
      assert_true(json_is_null(json_object_get(e, "code")));
    json_decref(doc);
    free(out);
  }
  /* an isError result stays the CallToolResult, exit 1 */
  MR_RUN(1, &out, "--format", "json", "-c", demo_cmd, "tools", "call", "divide",
         "a=1", "b=0");
  json_t *doc = json_loads(out, 0, NULL);
  assert_true(json_is_true(json_object_get(doc, "isError")));
  assert_null(json_object_get(doc, "error"));
  json_decref(doc);
  free(out);
}

/* Runs a shell line; returns its exit status and its stdout in *out. */
static int sh(const char *line, char **out) {
  char cmd[2048], path[300];
  snprintf(path, sizeof path, "%s/sh.out", mr_tmpdir);
  snprintf(cmd, sizeof cmd, "cd %s && ( %s ) > %s 2>&1", mr_tmpdir, line, path);
  int st = system(cmd);
  if (out != NULL)
    *out = tu_read_file(path, NULL);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_completion_scripts(void **state) {
  char *out = NULL, path[300], line[1200];
  MR_RUN(0, &out, "completion", "bash");
  snprintf(path, sizeof path, "%s/mcpc.bash", mr_tmpdir);
  write_file(path, out);
  free(out);
  snprintf(line, sizeof line, "bash -n %s", path);
  assert_int_equal(sh(line, NULL), 0);
  snprintf(line, sizeof line, "bash -c 'source %s && complete -p mcpc'", path);
  assert_int_equal(sh(line, &out), 0);
  assert_non_null(strstr(out, "-F _mcpc mcpc"));
  free(out);
  /* the function completes subcommands and a command's options */
  snprintf(line, sizeof line,
           "bash -c 'source %s; COMP_WORDS=(mcpc tools \"\"); COMP_CWORD=2; "
           "_mcpc; echo \"${COMPREPLY[*]}\"; COMP_WORDS=(mcpc -u x tools "
           "call add --ta); COMP_CWORD=6; _mcpc; echo \"${COMPREPLY[*]}\"'",
           path);
  assert_int_equal(sh(line, &out), 0);
  assert_non_null(strstr(out, "list call"));
  assert_non_null(strstr(out, "--task"));
  free(out);
  MR_RUN(0, &out, "completion", "zsh");
  assert_true(strncmp(out, "#compdef mcpc", 13) == 0);
  assert_non_null(strstr(out, "'tools:list and call tools'"));
  snprintf(path, sizeof path, "%s/_mcpc", mr_tmpdir);
  write_file(path, out);
  free(out);
  snprintf(line, sizeof line, "command -v zsh >/dev/null || exit 0; zsh -n %s",
           path);
  assert_int_equal(sh(line, NULL), 0);
  MR_RUN(2, NULL, "completion", "fish");
}

static void test_config_files(void **state) {
  char home[300], path[400], text[2400], *out = NULL, *err = NULL;
  snprintf(home, sizeof home, "%s/home", mr_tmpdir);
  setenv("HOME", home, 1);
  unsetenv("XDG_CONFIG_HOME");
  unsetenv("MCPC_SERVERS");
  const char *args = "[\"--stdio\", \"--db\", \"%s\"]";
  char argv_json[600];
  snprintf(argv_json, sizeof argv_json, args, demo_db);
  /* Claude Desktop: mcpServers with command/args/env, and a url entry */
  snprintf(path, sizeof path, "%s/.config/Claude/claude_desktop_config.json",
           home);
  snprintf(text, sizeof text,
           "{\"mcpServers\": {\"claude-demo\": {\"command\": \"%s\", "
           "\"args\": %s, \"env\": {\"MCPC_TEST\": \"1\"}}, \"shared\": "
           "{\"url\": \"http://127.0.0.1:1/mcp\"}}}",
           demo_bin, argv_json);
  write_file(path, text);
  /* Cursor (global): mcpServers, an http entry with type */
  snprintf(path, sizeof path, "%s/.cursor/mcp.json", home);
  snprintf(text, sizeof text,
           "{\"mcpServers\": {\"cursor-demo\": {\"command\": \"%s\", "
           "\"args\": %s}, \"cursor-http\": {\"type\": \"http\", \"url\": "
           "\"http://127.0.0.1:1/mcp\"}}}",
           demo_bin, argv_json);
  write_file(path, text);
  /* VS Code (project, in the current directory): servers with type */
  snprintf(path, sizeof path, "%s/.vscode/mcp.json", mr_tmpdir);
  snprintf(text, sizeof text,
           "{\"servers\": {\"vscode-demo\": {\"type\": \"stdio\", "
           "\"command\": \"%s\", \"args\": %s}, \"shared\": {\"type\": "
           "\"http\", \"url\": \"http://127.0.0.1:2/mcp\", \"headers\": "
           "{\"X-Team\": \"a\"}}}}",
           demo_bin, argv_json);
  write_file(path, text);

  MR_RUN(0, &out, "config", "list");
  const char *expect[][3] = {
      {"claude-demo", "stdio", "claude_desktop_config.json"},
      {"cursor-demo", "stdio", ".cursor/mcp.json"},
      {"cursor-http", "http", ".cursor/mcp.json"},
      {"vscode-demo", "stdio", ".vscode/mcp.json"},
      {"shared", "http", ".vscode/mcp.json"},
  };
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
    const char *row = strstr(out, expect[i][0]);
    assert_non_null(row);
    size_t len = strcspn(row, "\n");
    char one[600];
    snprintf(one, sizeof one, "%.*s", (int)len, row);
    assert_non_null(strstr(one, expect[i][1]));
    assert_non_null(strstr(one, expect[i][2]));
  }
  /* the project's VS Code file comes before Claude Desktop's */
  assert_non_null(strstr(out, "(shadowed)"));
  free(out);
  MR_RUN(0, &out, "--format", "json", "config", "list");
  json_t *doc = json_loads(out, 0, NULL);
  assert_int_equal(json_array_size(json_object_get(doc, "profiles")), 6);
  json_decref(doc);
  free(out);

  /* each file's stdio server is usable as a profile */
  const char *names[] = {"claude-demo", "cursor-demo", "vscode-demo"};
  for (int i = 0; i < 3; i++) {
    MR_RUN(0, &out, "-p", names[i], "tools", "call", "add", "a=10", "b=5");
    assert_non_null(strstr(out, "\"sum\":15"));
    free(out);
  }
  /* "shared" is the VS Code one (port 2) */
  MR_RUN2(3, NULL, &err, "-p", "shared", "ping");
  assert_non_null(strstr(err, "127.0.0.1:2/mcp"));
  free(err);

  /* mcpc's own file wins over all of them */
  char own[400];
  snprintf(own, sizeof own, "%s/own.json", mr_tmpdir);
  MR_RUN(0, NULL, "--config", own, "profile", "add", "shared", "-c", demo_cmd);
  MR_RUN(0, NULL, "--config", own, "-p", "shared", "ping");

  /* --servers and $MCPC_SERVERS name the files instead of the defaults */
  snprintf(path, sizeof path, "%s/explicit.json", mr_tmpdir);
  snprintf(text, sizeof text,
           "{\"mcpServers\": {\"explicit\": {\"command\": \"%s\", \"args\": "
           "%s}}}",
           demo_bin, argv_json);
  write_file(path, text);
  MR_RUN(0, &out, "--servers", path, "config", "list", "--names");
  assert_string_equal(out, "explicit\n");
  free(out);
  setenv("MCPC_SERVERS", path, 1);
  MR_RUN(0, &out, "-p", "explicit", "ping");
  assert_non_null(strstr(out, "pong"));
  free(out);
  MR_RUN(2, NULL, "-p", "claude-demo", "ping");
  unsetenv("MCPC_SERVERS");
}

int main(void) {
  if (mr_setup("mcpc-cli-test") != 0)
    return 1;
  snprintf(demo_bin, sizeof demo_bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  snprintf(demo_db, sizeof demo_db, "%s/demo.db", mr_tmpdir);
  snprintf(demo_cmd, sizeof demo_cmd, "%s --stdio --db %s", demo_bin, demo_db);
  /* mcpc must not read the tester's own configuration files */
  char home[300];
  snprintf(home, sizeof home, "%s/home", mr_tmpdir);
  mkdir(home, 0700);
  setenv("HOME", home, 1);
  unsetenv("XDG_CONFIG_HOME");
  unsetenv("MCPC_SERVERS");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help_everywhere),
      cmocka_unit_test(test_url_forms_and_http_errors),
      cmocka_unit_test(test_dying_stdio_server),
      cmocka_unit_test(test_json_errors),
      cmocka_unit_test(test_completion_scripts),
      cmocka_unit_test(test_config_files),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  mr_teardown();
  return rc;
}
