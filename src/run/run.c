/* SPDX-License-Identifier: MIT */
/* run.c - mcp_server_run: the standard command line of a server program
 * (--stdio, --http HOST:PORT, --log-level, --help, --version), with
 * MCP_HTTP and MCP_LOG_LEVEL from the environment where the command line
 * says nothing, on top of mcp_server_serve_stdio and the blocking HTTP
 * helper. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/http.h"
#include "mcp/stdio.h"
#include "mcp/version.h"
#include "server/internal.h"
#include "transport/http_serve.h"

#define RUN_OK    0
#define RUN_FAIL  1
#define RUN_USAGE 2

typedef struct run_opts {
  const char *prog;
  const char *http; /* NULL: stdio */
  char host[256];   /* --http, split */
  uint16_t port;
  bool help, version;
  bool chose_transport; /* --stdio or --http on the command line */
  bool has_level;
  mcp_log_level level;
} run_opts;

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

static void usage(const mcp_server_t *s, const char *prog, FILE *f) {
  fprintf(f,
          "usage: %s [--stdio | --http HOST:PORT] [--log-level LEVEL]\n"
          "       %s --help | --version\n",
          prog, prog);
  if (s->title != NULL)
    fprintf(f, "%s %s: %s (libmcp %s)\n", s->name, s->version, s->title,
            mcp_version_string());
  else
    fprintf(f, "%s %s: an MCP server (libmcp %s)\n", s->name, s->version,
            mcp_version_string());
  fputs("  --stdio            serve MCP over stdin/stdout (default)\n"
        "  --http HOST:PORT   serve Streamable HTTP on http://HOST:PORT/mcp\n"
        "                     ([::1]:PORT for IPv6; port 0 picks a free one)\n"
        "  --log-level LEVEL  library diagnostics on stderr from LEVEL up:\n"
        "                     debug, info, notice, warning (default), error,\n"
        "                     critical, alert, emergency\n"
        "  --help, -h         print this help\n"
        "  --version, -V      print the server and libmcp versions\n"
        "environment (the command line wins):\n"
        "  MCP_HTTP=HOST:PORT     as --http\n"
        "  MCP_LOG_LEVEL=LEVEL    as --log-level\n",
        f);
}

/* The value of option name at argv[*i]: "--name=VALUE" or "--name VALUE"
 * (advancing *i). NULL when argv[*i] is another option; *missing when it is
 * this option without a value. */
static const char *option_value(int argc, char **argv, int *i, const char *name,
                                bool *missing) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0)
    return NULL;
  if (a[n] == '=')
    return a + n + 1;
  if (a[n] != '\0')
    return NULL;
  if (*i + 1 >= argc) {
    *missing = true;
    return NULL;
  }
  return argv[++*i];
}

static int usage_error(const mcp_server_t *s, const char *prog,
                       const char *what, const char *arg) {
  fprintf(stderr, "%s: %s %s\n", prog, what, arg);
  usage(s, prog, stderr);
  return RUN_USAGE;
}

static int parse(const mcp_server_t *s, int argc, char **argv, run_opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool missing = false;
    const char *v;
    if (strcmp(a, "--stdio") == 0) {
      o->http = NULL;
      o->chose_transport = true;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      o->help = true;
    } else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
      o->version = true;
    } else if ((v = option_value(argc, argv, &i, "--http", &missing)) != NULL) {
      if (mcp__http_parse_host_port(v, o->host, sizeof o->host, &o->port) !=
          MCP_OK)
        return usage_error(s, o->prog, "--http wants HOST:PORT, not", v);
      o->http = v;
      o->chose_transport = true;
    } else if ((v = option_value(argc, argv, &i, "--log-level", &missing)) !=
               NULL) {
      if (mcp_log_level_parse(v, &o->level) != MCP_OK)
        return usage_error(s, o->prog, "unknown log level", v);
      o->has_level = true;
    } else if (missing) {
      return usage_error(s, o->prog, "missing value for", a);
    } else {
      return usage_error(s, o->prog, "unknown option", a);
    }
  }
  return RUN_OK;
}

/* The settings the command line left open, from the environment (a
 * container or a systemd unit sets them without a wrapper script); an empty
 * variable counts as unset. */
static int from_environment(const mcp_server_t *s, run_opts *o) {
  const char *v = getenv("MCP_HTTP");
  if (!o->chose_transport && v != NULL && v[0] != '\0') {
    if (mcp__http_parse_host_port(v, o->host, sizeof o->host, &o->port) !=
        MCP_OK)
      return usage_error(s, o->prog, "MCP_HTTP wants HOST:PORT, not", v);
    o->http = v;
  }
  v = getenv("MCP_LOG_LEVEL");
  if (!o->has_level && v != NULL && v[0] != '\0') {
    if (mcp_log_level_parse(v, &o->level) != MCP_OK)
      return usage_error(s, o->prog, "unknown log level in MCP_LOG_LEVEL:", v);
    o->has_level = true;
  }
  return RUN_OK;
}

static void announce(mcp_http_server_t *h, void *user_data) {
  const run_opts *o = user_data;
  /* the bound port: the chosen one when 0 was asked */
  bool v6 = strchr(o->host, ':') != NULL;
  fprintf(stderr, "%s: serving MCP on http://%s%s%s:%u/mcp\n", o->prog,
          v6 ? "[" : "", o->host, v6 ? "]" : "",
          (unsigned)mcp_http_server_port(h));
  fflush(stderr);
}

static mcp_status serve_http(mcp_server_t *s, const run_opts *o,
                             mcp_error_t *err) {
  mcp_http_options_t *ho = NULL;
  mcp_status st = mcp_http_options_new(&ho);
  if (st == MCP_OK)
    st = mcp_http_options_set_bind(ho, o->host, o->port);
  if (st == MCP_OK)
    st = mcp__http_serve_until_signal(s, ho, announce, (void *)o, err);
  else
    mcp_error_set(err, st, "%s", mcp_strerror(st));
  mcp_http_options_free(ho);
  return st;
}

int mcp_server_run(mcp_server_t *s, int argc, char **argv) {
  run_opts o = {.prog = "mcp-server"};
  if (argc > 0 && argv != NULL && argv[0] != NULL && argv[0][0] != '\0')
    o.prog = base_name(argv[0]);
  if (s == NULL) {
    fprintf(stderr, "%s: no server to run\n", o.prog);
    return RUN_FAIL;
  }
  int rc = parse(s, argc, argv, &o);
  if (rc != RUN_OK)
    return rc;
  if (o.help) {
    usage(s, o.prog, stdout);
    return RUN_OK;
  }
  if (o.version) {
    printf("%s %s (libmcp %s)\n", s->name, s->version, mcp_version_string());
    return RUN_OK;
  }
  rc = from_environment(s, &o);
  if (rc != RUN_OK)
    return rc;
  if (o.has_level)
    mcp_server_set_log_level(s, o.level);
  mcp_error_t err = {0};
  mcp_status st = mcp__server_start_serving(s, &err); /* tools need tasks? */
  if (st != MCP_OK) {
    fprintf(stderr, "%s: not serving: %s\n", o.prog, err.message);
    return RUN_FAIL;
  }
  if (o.http != NULL) {
    st = serve_http(s, &o, &err);
  } else {
    st = mcp_server_serve_stdio(s);
    if (st != MCP_OK)
      mcp_error_set(&err, st, "stdio: %s", mcp_strerror(st));
  }
  if (st != MCP_OK) {
    fprintf(stderr, "%s: %s\n", o.prog,
            err.message[0] != '\0' ? err.message : mcp_strerror(st));
    return RUN_FAIL;
  }
  return RUN_OK;
}
