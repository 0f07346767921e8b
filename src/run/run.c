/* SPDX-License-Identifier: MIT */
/* run.c - mcp_server_run: the standard command line of a server program
 * (--stdio, --http HOST:PORT, --log-level, --help, --version), with
 * --store SPEC, --metrics ALLOW (Prometheus), with MCP_HTTP, MCP_LOG_LEVEL
 * and MCP_STORE from the environment where the command line says nothing,
 * on top of mcp_server_serve_stdio and the blocking HTTP helper. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/http.h"
#include "mcp/stdio.h"
#include "mcp/version.h"
#include "server/internal.h"
#include "transport/http_metrics.h"
#include "transport/http_options.h"
#include "transport/http_serve.h"

#define RUN_OK    0
#define RUN_FAIL  1
#define RUN_USAGE 2

typedef struct run_opts {
  const char *prog;
  const mcp_run_option *app; /* the application's options, or NULL */
  size_t n_app;
  const char **app_values;   /* per app option: its value, NULL: not given */
  const char *http; /* NULL: stdio */
  char host[256];   /* --http, split */
  uint16_t port;
  bool help, version;
  bool chose_transport; /* --stdio or --http on the command line */
  bool has_level;
  mcp_log_level level;
  const char *store;      /* --store / MCP_STORE, NULL: none */
  bool store_from_env;
  bool log_params;
  bool unguarded; /* --no-stdout-guard */
  /* --metrics ALLOW, --metrics-path PATH: Prometheus on the HTTP server */
  const char *metrics, *metrics_path;
} run_opts;

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

static void usage_app(const run_opts *o, FILE *f) {
  for (size_t i = 0; i < o->n_app; i++) {
    const mcp_run_option *a = &o->app[i];
    char head[128];
    snprintf(head, sizeof head, "--%s%s%s", a->name, a->argument ? " " : "",
             a->argument ? a->argument : "");
    fprintf(f, "  %-18s %s", head, a->help ? a->help : "");
    if (a->env != NULL)
      fprintf(f, " (env %s)", a->env);
    fputc('\n', f);
  }
}

static void usage(const mcp_server_t *s, const run_opts *o, FILE *f) {
  const char *prog = o->prog;
  fprintf(f,
          "usage: %s [--stdio | --http HOST:PORT] [--log-level LEVEL] "
          "[--store SPEC]\n"
          "       [--log-params] [--no-stdout-guard]\n"
          "       [--metrics ALLOW [--metrics-path PATH]]\n"
          "       %s --help | --version\n",
          prog, prog);
  if (mcp__server_title(s) != NULL)
    fprintf(f, "%s %s: %s (libmcp %s)\n", mcp__server_name(s),
            mcp__server_version(s), mcp__server_title(s),
            mcp_version_string());
  else
    fprintf(f, "%s %s: an MCP server (libmcp %s)\n", mcp__server_name(s),
            mcp__server_version(s), mcp_version_string());
  fputs("  --stdio            serve MCP over stdin/stdout (default)\n"
        "  --http HOST:PORT   serve Streamable HTTP on http://HOST:PORT/mcp\n"
        "                     ([::1]:PORT for IPv6; port 0 picks a free one)\n"
        "  --log-level LEVEL  library diagnostics on stderr from LEVEL up:\n"
        "                     debug, info, notice, warning (default), error,\n"
        "                     critical, alert, emergency; debug logs one\n"
        "                     line per request\n"
        "  --store SPEC       task store of the tools that run as tasks:\n"
        "                     memory, sqlite:PATH or postgresql://URI;\n"
        "                     tasks on with the default options (refused\n"
        "                     when no tool runs as a task or the program\n"
        "                     enabled tasks on its own store)\n"
        "  --log-params       request log lines carry the params\n"
        "  --no-stdout-guard  stdio: leave fd 1 to the protocol (by default\n"
        "                     what handlers print to stdout goes to stderr)\n"
        "  --metrics ALLOW    --http: serve Prometheus metrics on GET /metrics\n"
        "                     to the clients in ALLOW, addresses and CIDR\n"
        "                     blocks separated by commas (e.g. 127.0.0.1/32\n"
        "                     or 10.0.0.0/8,::1); others get 404. No OAuth\n"
        "                     there: the list is its access control\n"
        "  --metrics-path PATH  serve them on PATH instead of /metrics\n"
        "  --help, -h         print this help\n"
        "  --version, -V      print the server and libmcp versions\n"
        "environment (the command line wins):\n"
        "  MCP_HTTP=HOST:PORT     as --http\n"
        "  MCP_LOG_LEVEL=LEVEL    as --log-level\n"
        "  MCP_STORE=SPEC         as --store\n"
        "  OTEL_EXPORTER_OTLP_ENDPOINT=URL  OpenTelemetry traces and metrics\n"
        "                         to this collector (and the other OTEL_*\n"
        "                         variables; docs/observability.md)\n",
        f);
  if (o->n_app > 0) {
    fprintf(f, "options of %s:\n", prog);
    usage_app(o, f);
  }
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

static int usage_error(const mcp_server_t *s, const run_opts *o,
                       const char *what, const char *arg) {
  fprintf(stderr, "%s: %s %s\n", o->prog, what, arg);
  usage(s, o, stderr);
  return RUN_USAGE;
}

/* An application option at argv[*i]: its index, or -1. */
static long app_option(run_opts *o, int argc, char **argv, int *i,
                       bool *missing) {
  char name[160];
  for (size_t k = 0; k < o->n_app; k++) {
    const mcp_run_option *a = &o->app[k];
    snprintf(name, sizeof name, "--%s", a->name);
    if (a->argument == NULL) {
      if (strcmp(argv[*i], name) == 0) {
        o->app_values[k] = "true";
        return (long)k;
      }
      continue;
    }
    const char *v = option_value(argc, argv, i, name, missing);
    if (v != NULL) {
      o->app_values[k] = v;
      return (long)k;
    }
    if (*missing)
      return -1;
  }
  return -1;
}

static int parse(const mcp_server_t *s, int argc, char **argv, run_opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool missing = false;
    const char *v;
    if (strcmp(a, "--stdio") == 0) {
      o->http = NULL;
      o->chose_transport = true;
    } else if (strcmp(a, "--no-stdout-guard") == 0) {
      o->unguarded = true;
    } else if (strcmp(a, "--log-params") == 0) {
      o->log_params = true;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      o->help = true;
    } else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
      o->version = true;
    } else if ((v = option_value(argc, argv, &i, "--http", &missing)) != NULL) {
      if (mcp__http_parse_host_port(v, o->host, sizeof o->host, &o->port) !=
          MCP_OK)
        return usage_error(s, o, "--http wants HOST:PORT, not", v);
      o->http = v;
      o->chose_transport = true;
    } else if ((v = option_value(argc, argv, &i, "--log-level", &missing)) !=
               NULL) {
      if (mcp_log_level_parse(v, &o->level) != MCP_OK)
        return usage_error(s, o, "unknown log level", v);
      o->has_level = true;
    } else if ((v = option_value(argc, argv, &i, "--store", &missing)) !=
               NULL) {
      if (v[0] == '\0')
        return usage_error(s, o, "--store wants a SPEC, not", "''");
      o->store = v;
    } else if ((v = option_value(argc, argv, &i, "--metrics-path",
                                 &missing)) != NULL) {
      o->metrics_path = v;
    } else if (!missing && (v = option_value(argc, argv, &i, "--metrics",
                                             &missing)) != NULL) {
      o->metrics = v;
    } else if (!missing && app_option(o, argc, argv, &i, &missing) >= 0) {
      /* the application's */
    } else if (missing) {
      return usage_error(s, o, "missing value for", a);
    } else {
      return usage_error(s, o, "unknown option", a);
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
      return usage_error(s, o, "MCP_HTTP wants HOST:PORT, not", v);
    o->http = v;
  }
  v = getenv("MCP_LOG_LEVEL");
  if (!o->has_level && v != NULL && v[0] != '\0') {
    if (mcp_log_level_parse(v, &o->level) != MCP_OK)
      return usage_error(s, o, "unknown log level in MCP_LOG_LEVEL:", v);
    o->has_level = true;
  }
  v = getenv("MCP_STORE");
  if (o->store == NULL && v != NULL && v[0] != '\0') {
    o->store = v;
    o->store_from_env = true;
  }
  return RUN_OK;
}

static const char *const BUILT_IN[] = {
    "stdio",      "http",          "log-level",       "store",   "help",
    "version",    "log-params",    "no-stdout-guard", "metrics", "metrics-path"};

/* The application's table, checked whole before anything runs: a mistake
 * names the entry. */
static bool check_app_table(const run_opts *o) {
  for (size_t i = 0; i < o->n_app; i++) {
    const mcp_run_option *a = &o->app[i];
    const char *why = NULL;
    if (a->name[0] == '\0' || a->name[0] == '-' || strchr(a->name, '=') ||
        strlen(a->name) > 128)
      why = "a name is 1-128 characters, without the leading -- or '='";
    for (size_t k = 0; why == NULL && k < sizeof BUILT_IN / sizeof *BUILT_IN;
         k++)
      if (strcmp(a->name, BUILT_IN[k]) == 0)
        why = "the name is one of mcp_server_run's own options";
    for (size_t k = 0; why == NULL && k < i; k++)
      if (strcmp(a->name, o->app[k].name) == 0)
        why = "the name is taken by an earlier entry";
    if (why == NULL && (a->target == NULL) == (a->fn == NULL))
      why = "give exactly one of .target and .fn";
    if (why == NULL && (a->reserved[0] != NULL || a->reserved[1] != NULL))
      why = ".reserved must be zero";
    if (why != NULL) {
      fprintf(stderr, "%s: option table, entry %zu (--%s): %s\n", o->prog, i,
              a->name, why);
      return false;
    }
  }
  return true;
}

/* The application's options: the environment where the command line said
 * nothing, then each value to its target or callback. */
static int deliver_app(const mcp_server_t *s, run_opts *o) {
  for (size_t i = 0; i < o->n_app; i++) {
    const mcp_run_option *a = &o->app[i];
    const char *v = o->app_values[i];
    if (v == NULL && a->env != NULL) {
      const char *e = getenv(a->env);
      if (e != NULL && e[0] != '\0')
        v = e;
    }
    if (v == NULL)
      continue;
    if (a->target != NULL) {
      *a->target = v;
      continue;
    }
    mcp_error_t err = {0};
    mcp_status st = a->fn(v, a->user_data, &err);
    if (st != MCP_OK) {
      char what[200];
      snprintf(what, sizeof what, "--%s%s%s:", a->name,
               o->app_values[i] ? "" : " from ",
               o->app_values[i] ? "" : a->env);
      fprintf(stderr, "%s: %s %s: %s\n", o->prog, what, v,
              err.message[0] ? err.message : mcp_strerror(st));
      usage(s, o, stderr);
      return RUN_USAGE;
    }
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

/* Why the last mcp_http_options_set_metrics refused its arguments: its
 * line of ho's refusals without the setter's name. */
static const char *metrics_refusal(const mcp_http_options_t *ho) {
  static const char setter[] = "mcp_http_options_set_metrics: ";
  const char *why = ho->refusals ? strstr(ho->refusals, setter) : NULL;
  return why ? why + sizeof setter - 1 : "refused";
}

/* The HTTP options of the command line into *out (new): RUN_OK, or a usage
 * error naming the option (--metrics ALLOW and --metrics-path PATH are
 * checked here, before anything starts). */
static int http_options(const mcp_server_t *s, const run_opts *o,
                        mcp_http_options_t **out) {
  mcp_http_options_t *ho = NULL;
  if (mcp_http_options_new(&ho) != MCP_OK ||
      mcp_http_options_set_bind(ho, o->host, o->port) != MCP_OK) {
    mcp_http_options_free(ho);
    fprintf(stderr, "%s: out of memory\n", o->prog);
    return RUN_FAIL;
  }
  const char *culprit = NULL;
  /* the path first, with the default list, so that each flag is blamed
   * for its own mistake (the last call wins) */
  if (o->metrics_path != NULL &&
      mcp_http_options_set_metrics(ho, o->metrics_path, NULL) != MCP_OK)
    culprit = "--metrics-path:";
  else if (o->metrics != NULL &&
           mcp_http_options_set_metrics(ho, o->metrics_path, o->metrics) !=
               MCP_OK)
    culprit = "--metrics:";
  if (culprit != NULL) {
    char why[400];
    snprintf(why, sizeof why, "%s", metrics_refusal(ho));
    char *nl = strchr(why, '\n');
    if (nl != NULL)
      *nl = '\0';
    mcp_http_options_free(ho);
    return usage_error(s, o, culprit, why);
  }
  *out = ho;
  return RUN_OK;
}

static int run_parsed(mcp_server_t *s, int argc, char **argv, run_opts *o);
static int serve(mcp_server_t *s, const run_opts *o, mcp_http_options_t *ho);

int mcp_server_run(mcp_server_t *s, int argc, char **argv) {
  return mcp_server_run_with(s, argc, argv, NULL);
}

int mcp_server_run_with(mcp_server_t *s, int argc, char **argv,
                        const mcp_run_option *options) {
  run_opts o = {.prog = "mcp-server", .app = options};
  if (argc > 0 && argv != NULL && argv[0] != NULL && argv[0][0] != '\0')
    o.prog = base_name(argv[0]);
  if (s == NULL) {
    fprintf(stderr, "%s: no server to run\n", o.prog);
    return RUN_FAIL;
  }
  while (options != NULL && options[o.n_app].name != NULL)
    o.n_app++;
  if (!check_app_table(&o))
    return RUN_FAIL;
  const char *none[1] = {NULL};
  o.app_values = o.n_app ? calloc(o.n_app, sizeof *o.app_values) : none;
  if (o.app_values == NULL) {
    fprintf(stderr, "%s: out of memory\n", o.prog);
    return RUN_FAIL;
  }
  int rc = run_parsed(s, argc, argv, &o);
  if (o.n_app)
    free(o.app_values);
  return rc;
}

static int run_parsed(mcp_server_t *s, int argc, char **argv, run_opts *op) {
  run_opts o = *op;
  int rc = parse(s, argc, argv, &o);
  if (rc != RUN_OK)
    return rc;
  if (o.help) {
    usage(s, &o, stdout);
    return RUN_OK;
  }
  if (o.version) {
    printf("%s %s (libmcp %s)\n", mcp__server_name(s), mcp__server_version(s),
           mcp_version_string());
    return RUN_OK;
  }
  rc = from_environment(s, &o);
  if (rc == RUN_OK)
    rc = deliver_app(s, &o);
  if (rc != RUN_OK)
    return rc;
  if (o.has_level)
    mcp_server_set_log_level(s, o.level);
  if (o.log_params)
    mcp_server_set_log_params(s, true);
  if (o.unguarded)
    mcp_server_set_stdout_guard(s, false);
  if (o.http == NULL && (o.metrics != NULL || o.metrics_path != NULL))
    return usage_error(s, &o, o.metrics ? "--metrics" : "--metrics-path",
                       "needs --http (Prometheus scrapes over HTTP)");
  if (o.metrics_path != NULL && o.metrics == NULL)
    return usage_error(s, &o, "--metrics-path", "needs --metrics ALLOW");
  mcp_http_options_t *ho = NULL;
  if (o.http != NULL && (rc = http_options(s, &o, &ho)) != RUN_OK)
    return rc;
  rc = serve(s, &o, ho);
  mcp_http_options_free(ho);
  return rc;
}

/* Serves s as o says: HTTP with ho when o->http is set, else stdio. */
static int serve(mcp_server_t *s, const run_opts *o, mcp_http_options_t *ho) {
  mcp_error_t err = {0};
  /* OpenTelemetry traces when OTEL_EXPORTER_OTLP_*ENDPOINT names a
   * collector; a setting libmcp cannot follow is refused, not ignored */
  mcp_status st = mcp_server_otlp_from_env(s, &err);
  if (st != MCP_OK) {
    fprintf(stderr, "%s: not serving: %s\n", o->prog, err.message);
    return RUN_FAIL;
  }
  if (o->store != NULL) {
    st = mcp__server_tasks_on_store(s, o->store, &err);
    if (st != MCP_OK) {
      /* the spec is not echoed: a postgresql:// URI may hold a password */
      fprintf(stderr, "%s: %s refused: %s\n", o->prog,
              o->store_from_env ? "MCP_STORE" : "--store",
              err.message[0] != '\0' ? err.message : mcp_strerror(st));
      /* a store that is no use here is the user's mistake */
      return st == MCP_ERR_STATE || st == MCP_ERR_INVALID_ARG ? RUN_USAGE
                                                              : RUN_FAIL;
    }
  }
  /* /metrics: collected from the first request, so before serving starts
   * (after OTLP, whose metrics it then shares) */
  if (ho != NULL) {
    st = mcp__hs_metrics_prepare(s, ho, &err);
    if (st != MCP_OK) {
      fprintf(stderr, "%s: not serving: %s\n", o->prog, err.message);
      return RUN_FAIL;
    }
  }
  st = mcp__server_start_serving(s, &err); /* tools need tasks? */
  if (st != MCP_OK) {
    /* MCP_ERR_STATE: tools need tasks; the run can enable them */
    bool hint = st == MCP_ERR_STATE && mcp__server_task_store(s) == NULL;
    fprintf(stderr, "%s: not serving: %s%s\n", o->prog, err.message,
            hint ? " (or give a task store: --store SPEC or MCP_STORE)" : "");
    return RUN_FAIL;
  }
  if (ho != NULL) {
    st = mcp__http_serve_until_signal(s, ho, announce, (void *)o, &err);
  } else {
    st = mcp_server_serve_stdio(s);
    if (st != MCP_OK)
      mcp_error_set(&err, st, "stdio: %s", mcp_strerror(st));
  }
  if (st != MCP_OK) {
    fprintf(stderr, "%s: %s\n", o->prog,
            err.message[0] != '\0' ? err.message : mcp_strerror(st));
    return RUN_FAIL;
  }
  return RUN_OK;
}
