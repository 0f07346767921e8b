/* SPDX-License-Identifier: MIT */
/* main.c - mcp-demo-server: the reference demo of libmcp.
 *
 *   mcp-demo-server [--http HOST:PORT | --stdio] [--db PATH]
 *                   [--store memory|sqlite:PATH|postgres://...]
 *                   [--task-lease MS] [--allow-host H] [--no-tasks]
 *                   [--fail-tasks-on-stop]
 *                   [--cleanup-tasks] [--workers N] [--page-size N]
 *                   [--stateless] [--cors-origin ORIGIN] [--banner]
 *                   [--auth-issuer URL] [--auth-audience URI]
 *                   [--auth-jwks FILE] [--auth-scope TOOL=SCOPES]
 *                   [--auth-introspect URL] [--auth-client-id ID]
 *                   [--auth-client-secret SECRET]
 *                   [--tls-cert FILE --tls-key FILE]
 *                   [--metrics ALLOW [--metrics-path PATH]]
 *
 * Serves the demo tools over Streamable HTTP (default 127.0.0.1:8808) or
 * stdio, with MCP tasks enabled (task store: --store, default the --db file,
 * ./mcp-demo.db unless given: --db moves every file the demo writes).
 * --cleanup-tasks runs task cleanup once, prints what it removed and
 * exits. --banner prints how to connect clients on stderr (with stdio,
 * stdout carries only MCP messages).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mcp/mcp.h>

#include "demo_db.h"
#include "demo_prompts.h"
#include "demo_replica.h"
#include "demo_apps.h"
#include "demo_resources.h"
#include "demo_skills.h"
#include "demo_resume.h"
#include "demo_tasks.h"
#include "demo_tools.h"

#define DEMO_NAME "libmcp-demo"

static void usage(FILE *f) {
  fputs(
      "usage: mcp-demo-server [--http HOST:PORT | --stdio] [--db PATH]\n"
      "                       [--store SPEC] [--task-lease MS] [--no-tasks]\n"
      "                       [--fail-tasks-on-stop]\n"
      "                       [--allow-host H]\n"
      "                       [--cleanup-tasks]\n"
      "                       [--workers N] [--page-size N] [--stateless]\n"
      "                       [--io-threads N] [--cors-origin O] [--banner]\n"
      "                       [--http-engine own]\n"
      "                       [--apps-dir DIR]\n"
      "                       [--metrics ALLOW [--metrics-path PATH]]\n"
      "  --http H:P     serve Streamable HTTP on H:P (default 127.0.0.1:8808)\n"
      "  --stdio        serve MCP over stdin/stdout\n"
      "  --stateless    HTTP without sessions (every request self-contained)\n"
      "  --db PATH      demo SQLite database, also the task store unless\n"
      "                 --store is given (default ./mcp-demo.db)\n"
      "  --store SPEC   task store: memory, sqlite:PATH or postgres://URI\n"
      "                 (env MCP_STORE; --http: env MCP_HTTP)\n"
      "                 (default: the --db file; PostgreSQL lets several\n"
      "                 replicas share tasks, docs/deploy.md)\n"
      "  --task-lease MS  postgres: lease of running tasks (default 10000)\n"
      "  --allow-host H  accept Host H too (behind a proxy: the public\n"
      "                 host:port; \"*\" any); repeatable\n"
      "  --no-tasks     serve without MCP tasks\n"
      "  --fail-tasks-on-stop  a stop (SIGTERM) fails the running tasks\n"
      "                 instead of leaving them to resume at the next start\n"
      "  --cleanup-tasks  remove expired and outdated tasks, print them, exit\n"
      "  --workers N    handler threads (default 4)\n"
      "  --page-size N  tools per tools/list page (default 50)\n"
      "  --io-threads N HTTP connection threads (default 2)\n"
      "  --http-engine own  HTTP implementation: libmcp's epoll engine (the\n"
      "                 only one since libmicrohttpd was removed)\n"
      "  --cors-origin O  allow browser clients from origin O (CORS), e.g.\n"
      "                 http://localhost:6274 for the MCP Inspector's web UI;\n"
      "                 repeatable, * for any origin\n"
      "  --banner       print how to talk to the server on stderr\n"
      "  --apps-dir DIR where the MCP Apps views are (orders.html; default\n"
      "                 the source tree's examples/demo/apps)\n"
      "  --auth-issuer URL   require OAuth bearer tokens from this issuer\n"
      "                      (keys by discovery unless --auth-jwks)\n"
      "  --auth-audience URI this server's resource id, the tokens' aud\n"
      "                      (default http(s)://H:P/mcp)\n"
      "  --auth-jwks FILE    verification keys from a JWKS file\n"
      "  --auth-scope T=S    tool T needs the scopes S (space-separated)\n"
      "  --auth-introspect URL  check opaque tokens at this RFC 7662\n"
      "                      introspection endpoint (with --auth-issuer\n"
      "                      and no URL: the discovered one, set\n"
      "                      --auth-client-id)\n"
      "  --auth-client-id ID     this server's client id at introspection\n"
      "  --auth-client-secret S  and its secret (HTTP Basic)\n"
      "  --tls-cert FILE     serve HTTPS with this PEM certificate chain\n"
      "  --tls-key FILE      and this PEM private key (SIGHUP reloads both)\n"
      "  --metrics ALLOW     serve Prometheus metrics on GET /metrics to the\n"
      "                      clients in ALLOW, addresses and CIDR blocks\n"
      "                      separated by commas (e.g. 127.0.0.1/32 or\n"
      "                      10.0.0.0/8,::1); others get 404. No OAuth\n"
      "                      there: the list is its access control\n"
      "                      (docs/observability.md)\n"
      "  --metrics-path PATH  serve them on PATH instead of /metrics\n",
      f);
}

/* HTTP settings from the command line. */
typedef struct http_cfg {
  bool stateless, banner;
  const char *db_path;
  unsigned io_threads;
  mcp_http_engine engine;
  const char *issuer, *audience, *jwks, *tls_cert, *tls_key;
  /* RFC 7662 introspection: endpoint (NULL: discovered) and credentials */
  const char *introspect, *client_id, *client_secret;
  const char *scopes[16]; /* TOOL=SCOPES */
  size_t nscopes;
  const char *const *cors; /* --cors-origin */
  size_t ncors;
  mcp_store_t *store; /* postgres: shared sessions and events */
  char **allow_hosts; /* --allow-host */
  int nallow;
  const char *metrics, *metrics_path; /* --metrics ALLOW, --metrics-path */
} http_cfg;

#define MAX_CORS 8

/* The resource server of --auth-*, or NULL (and *st set on failure). */
static mcp_auth_t *make_auth(const http_cfg *c, const char *host_port,
                             mcp_status *st) {
  *st = MCP_OK;
  if (c->issuer == NULL && c->jwks == NULL && c->introspect == NULL &&
      c->client_id == NULL && c->client_secret == NULL)
    return NULL;
  /* introspection needs credentials (RFC 7662 2.1), and an endpoint: given,
   * or the issuer's discovered one */
  const char *bad = NULL;
  if ((c->introspect || c->client_secret) && c->client_id == NULL)
    bad = "--auth-introspect and --auth-client-secret need --auth-client-id";
  else if (c->client_id && c->introspect == NULL && c->issuer == NULL)
    bad = "--auth-client-id needs --auth-introspect URL or --auth-issuer "
          "(whose metadata names the introspection endpoint)";
  if (bad != NULL) {
    fprintf(stderr, "mcp-demo-server: %s\n", bad);
    *st = MCP_ERR_INVALID_ARG;
    return NULL;
  }
  char def[300];
  snprintf(def, sizeof def, "%s://%s/mcp", c->tls_cert ? "https" : "http",
           host_port);
  mcp_auth_t *a = NULL;
  *st = mcp_auth_new(c->audience ? c->audience : def, &a);
  if (*st == MCP_OK && c->issuer)
    *st = mcp_auth_set_issuer(a, c->issuer);
  if (*st == MCP_OK && c->jwks)
    *st = mcp_auth_set_jwks_file(a, c->jwks);
  if (*st == MCP_OK && c->client_id)
    *st = mcp_auth_set_introspection(a, c->introspect, c->client_id,
                                     c->client_secret);
  for (size_t i = 0; *st == MCP_OK && i < c->nscopes; i++) {
    const char *eq = strchr(c->scopes[i], '=');
    char tool[128];
    if (eq == NULL || (size_t)(eq - c->scopes[i]) >= sizeof tool) {
      *st = MCP_ERR_INVALID_ARG;
      break;
    }
    snprintf(tool, sizeof tool, "%.*s", (int)(eq - c->scopes[i]), c->scopes[i]);
    *st = mcp_auth_require_scopes(a, "tools/call", tool, eq + 1);
    for (const char *p = eq + 1; *st == MCP_OK && *p;) {
      size_t n = strcspn(p, " ");
      char one[128];
      if (n > 0 && n < sizeof one) {
        snprintf(one, sizeof one, "%.*s", (int)n, p);
        *st = mcp_auth_add_scope_supported(a, one);
      }
      p += n;
      p += strspn(p, " ");
    }
  }
  if (*st != MCP_OK) {
    fprintf(stderr, "mcp-demo-server: bad --auth-* settings\n");
    mcp_auth_free(a);
    return NULL;
  }
  return a;
}

static mcp_status serve_http(mcp_server_t *server, const char *host_port,
                             const http_cfg *cfg) {
  bool stateless = cfg->stateless, banner = cfg->banner;
  const char *db_path = cfg->db_path;
  unsigned io_threads = cfg->io_threads;
  const char *const *cors = cfg->cors;
  size_t ncors = cfg->ncors;
  mcp_status ast;
  mcp_auth_t *auth = make_auth(cfg, host_port, &ast);
  if (ast != MCP_OK)
    return ast;
  mcp_store_t *store = cfg->store;
  char **allow_hosts = cfg->allow_hosts;
  int nallow = cfg->nallow;
  bool shared = store && strcmp(mcp_store_name(store), "postgres") == 0;
  mcp_http_options_t *o = NULL;
  mcp_status st = mcp_http_options_new(&o);
  /* HOST:PORT, or [V6ADDR]:PORT */
  char host[256];
  unsigned port = 0;
  const char *colon = strrchr(host_port, ':');
  if (st == MCP_OK &&
      (colon == NULL || (size_t)(colon - host_port) >= sizeof host))
    st = MCP_ERR_INVALID_ARG;
  if (st == MCP_OK) {
    const char *h0 = host_port;
    size_t n = (size_t)(colon - host_port);
    if (n >= 2 && h0[0] == '[' && h0[n - 1] == ']') {
      h0++;
      n -= 2;
    }
    memcpy(host, h0, n);
    host[n] = '\0';
    port = (unsigned)strtoul(colon + 1, NULL, 10);
    st = mcp_http_options_set_bind(o, host, (uint16_t)port);
  }
  if (st == MCP_OK)
    st = mcp_http_options_set_stateless(o, stateless);
  if (st == MCP_OK && io_threads != 0)
    st = mcp_http_options_set_io_threads(o, io_threads);
  if (st == MCP_OK)
    st = mcp_http_options_set_engine(o, cfg->engine);
  for (size_t i = 0; st == MCP_OK && i < ncors; i++)
    if ((st = mcp_http_options_add_cors_origin(o, cors[i])) != MCP_OK)
      fprintf(stderr, "mcp-demo-server: bad --cors-origin %s\n", cors[i]);
  for (int i = 0; st == MCP_OK && i < nallow; i++)
    st = mcp_http_options_add_allowed_host(o, allow_hosts[i]);
  /* a refused --metrics is kept in o: the start says why and exits */
  if (st == MCP_OK && cfg->metrics != NULL)
    (void)mcp_http_options_set_metrics(o, cfg->metrics_path, cfg->metrics);
  /* Replicas on one PostgreSQL database share sessions and SSE events: any
   * replica serves any session and resumes any stream (docs/deploy.md). */
  mcp_session_store sessions = {NULL, NULL};
  mcp_event_store events = {NULL, NULL};
  if (st != MCP_OK) {
    fprintf(stderr, "mcp-demo-server: bad --http value %s\n", host_port);
    mcp_http_options_free(o);
    mcp_auth_free(auth);
    return st;
  }
  if (auth)
    mcp_http_options_set_auth(o, auth);
  if ((cfg->tls_cert != NULL) != (cfg->tls_key != NULL) ||
      mcp_http_options_set_tls(o, cfg->tls_cert, cfg->tls_key) != MCP_OK) {
    fprintf(stderr, "mcp-demo-server: --tls-cert and --tls-key go together\n");
    mcp_http_options_free(o);
    mcp_auth_free(auth);
    return MCP_ERR_INVALID_ARG;
  }
  mcp_error_t err;
  if (shared && !stateless) {
    st = mcp_session_store_postgres_new(store, 0, &sessions, &err);
    if (st == MCP_OK)
      st = mcp_event_store_postgres_new(store, 0, &events, &err);
    if (st == MCP_OK)
      st = mcp_http_options_set_session_store(o, sessions);
    if (st == MCP_OK)
      st = mcp_http_options_set_event_store(o, events);
    if (st != MCP_OK) {
      fprintf(stderr, "mcp-demo-server: shared sessions: %s\n",
              mcp_strerror(st));
      if (sessions.ops)
        sessions.ops->close(sessions.impl);
      if (events.ops)
        events.ops->close(events.impl);
      mcp_http_options_free(o);
      mcp_auth_free(auth);
      return st;
    }
  }
  if (banner) {
    const char *sess = stateless ? "" : " -D - ";
    fprintf(stderr,
            "libmcp demo server %s on http://%s/mcp%s (database %s)\n"
            "Connect a client (more in docs/clients.md):\n"
            "  MCP Inspector:  npx @modelcontextprotocol/inspector --cli "
            "http://%s/mcp --transport http --method tools/list\n"
            "  VS Code, .vscode/mcp.json:  {\"servers\": {\"libmcp-demo\": "
            "{\"type\": \"http\", \"url\": \"http://%s/mcp\"}}}\n"
            "Or with curl:\n",
            MCP_VERSION_STRING, host_port, stateless ? " (stateless)" : "",
            db_path, host_port, host_port);
    fprintf(
        stderr,
        "curl -s%shttp://%s/mcp -H 'Content-Type: application/json' "
        "-H 'Accept: application/json, text/event-stream' -d "
        "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
        "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
        "\"clientInfo\":{\"name\":\"curl\",\"version\":\"1\"}}}'\n"
        "curl -s http://%s/mcp -H 'Content-Type: application/json' "
        "-H 'Accept: application/json, text/event-stream' %s-d "
        "'{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
        "{\"name\":\"add\",\"arguments\":{\"a\":10,\"b\":5}}}'\n"
        "%sStop with Ctrl-C.\n",
        sess, host_port, host_port,
        stateless ? ""
                  : "-H 'Mcp-Session-Id: <id from the first reply>' "
                    "-H 'MCP-Protocol-Version: 2025-11-25' ",
        stateless
            ? ""
            : "(the first reply's Mcp-Session-Id header names the session)\n");
  }
  st = mcp_server_serve_http_options(server, o);
  mcp_http_options_free(o);
  mcp_auth_free(auth);
  if (sessions.ops)
    sessions.ops->close(sessions.impl);
  if (events.ops)
    events.ops->close(events.impl);
  return st;
}

/* Tasks: without authentication tasks/list shows only the tasks created in
 * the calling session, so listing cannot leak another caller's tasks as
 * long as there are sessions: declared except in stateless HTTP mode. */
/* A stop leaves running tasks for the next start (the default) or fails
 * them (fail_on_stop); interrupted start_long_export tasks are finished by
 * the resumer (demo_resume.c), export_orders tasks run again (idempotent). */
static mcp_status enable_tasks(mcp_server_t *server, mcp_store_t *store,
                               bool list, bool fail_on_stop,
                               demo_resumer *resumer, mcp_error_t *err) {
  mcp_task_options_t *o = NULL;
  mcp_status st = mcp_task_options_new(&o);
  if (st == MCP_OK)
    st = mcp_task_options_set_list(o, list);
  if (st == MCP_OK)
    st = mcp_task_options_set_fail_on_stop(o, fail_on_stop);
  if (st == MCP_OK)
    st = mcp_task_options_set_resume_hook(o, demo_resume_task, resumer);
  if (st == MCP_OK)
    st = mcp_task_options_set_immediate_response(
        o, "The %s tool is running as a background task; its result will "
           "follow.");
  if (st == MCP_OK)
    st = mcp_server_enable_tasks(server, store, o, err);
  else
    mcp_error_set(err, st, "%s", mcp_strerror(st));
  mcp_task_options_free(o);
  return st;
}

/* Replicas on one PostgreSQL database sign requestState with one key kept
 * there, so a multi-round request started on one resumes on any other, and
 * relay their notifications to each other. */
static mcp_status share_through_database(mcp_server_t *server,
                                         mcp_store_t *store, mcp_error_t *err) {
  unsigned char key[32];
  mcp_status st = mcp_store_postgres_shared_secret(store, "request_state_key",
                                                   key, sizeof key, err);
  if (st == MCP_OK)
    st = mcp_server_set_request_state_key(server, key, sizeof key);
  if (st == MCP_OK)
    st = demo_register_replica_tools(server, err);
  /* and what one replica announces (list changes, resource updates)
   * reaches the clients of all */
  mcp_relay relay;
  if (st == MCP_OK)
    st = mcp_relay_postgres_new(store, &relay, err);
  if (st == MCP_OK && (st = mcp_server_set_relay(server, relay)) != MCP_OK)
    mcp_error_set(err, st, "cannot start the relay");
  return st;
}

static void print_removed(const char *task_id, const char *reason, void *ud) {
  (void)ud;
  printf("%-9s %s\n", reason, task_id);
}

/* Like the seed's ZMCP_CLEAR_MCP_TASKS report: one pass, then exit. */
static int cleanup_tasks(const char *spec) {
  mcp_error_t err;
  mcp_store_t *store = NULL;
  if (mcp_store_open(spec, &store, &err) != MCP_OK) {
    fprintf(stderr, "mcp-demo-server: task store: %s\n", err.message);
    return 1;
  }
  mcp_tasks_t *tasks = NULL;
  mcp_task_cleanup_report rep;
  mcp_status st = mcp_tasks_open(store, DEMO_NAME, &tasks);
  if (st == MCP_OK)
    st = mcp_task_delete_outdated(tasks, NULL, print_removed, NULL, &rep);
  if (st == MCP_OK)
    printf("removed %zu expired and %zu outdated tasks; failed %zu stuck "
           "tasks\n",
           rep.expired, rep.retained, rep.stuck);
  else
    fprintf(stderr, "mcp-demo-server: cleanup failed: %s\n", mcp_strerror(st));
  mcp_tasks_free(tasks);
  mcp_store_free(store);
  return st == MCP_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *db_path = "mcp-demo.db";
  const char *apps_dir = DEMO_APPS_DIR;
  unsigned workers = 4;
  unsigned io_threads = 0; /* 0: the library's default */
  mcp_http_engine engine = MCP_HTTP_ENGINE_DEFAULT;
  size_t page_size = 50;
  bool banner = false, use_stdio = false, stateless = false;
  bool tasks = true, cleanup = false, fail_on_stop = false;
  const char *cors[MAX_CORS];
  size_t ncors = 0;
  const char *http = "127.0.0.1:8808";
  bool http_given = false;
  const char *store_spec = NULL; /* default: sqlite:<db_path> */
  char store_buf[4200];
  http_cfg hc = {0};
  long long lease_ms = 0;
  char *allow_hosts[16];
  int nallow = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--auth-issuer") == 0 && i + 1 < argc)
      hc.issuer = argv[++i];
    else if (strcmp(a, "--auth-audience") == 0 && i + 1 < argc)
      hc.audience = argv[++i];
    else if (strcmp(a, "--auth-jwks") == 0 && i + 1 < argc)
      hc.jwks = argv[++i];
    else if (strcmp(a, "--auth-introspect") == 0 && i + 1 < argc)
      hc.introspect = argv[++i];
    else if (strcmp(a, "--auth-client-id") == 0 && i + 1 < argc)
      hc.client_id = argv[++i];
    else if (strcmp(a, "--auth-client-secret") == 0 && i + 1 < argc)
      hc.client_secret = argv[++i];
    else if (strcmp(a, "--auth-scope") == 0 && i + 1 < argc &&
             hc.nscopes < sizeof hc.scopes / sizeof hc.scopes[0])
      hc.scopes[hc.nscopes++] = argv[++i];
    else if (strcmp(a, "--tls-cert") == 0 && i + 1 < argc)
      hc.tls_cert = argv[++i];
    else if (strcmp(a, "--tls-key") == 0 && i + 1 < argc)
      hc.tls_key = argv[++i];
    else if (strcmp(a, "--stdio") == 0)
      use_stdio = true;
    else if (strcmp(a, "--http") == 0 && i + 1 < argc) {
      http = argv[++i];
      http_given = true;
    }
    else if (strcmp(a, "--stateless") == 0)
      stateless = true;
    else if (strcmp(a, "--banner") == 0)
      banner = true;
    else if (strcmp(a, "--store") == 0 && i + 1 < argc)
      store_spec = argv[++i];
    else if (strcmp(a, "--allow-host") == 0 && i + 1 < argc && nallow < 16)
      allow_hosts[nallow++] = argv[++i];
    else if (strcmp(a, "--metrics") == 0 && i + 1 < argc)
      hc.metrics = argv[++i];
    else if (strcmp(a, "--metrics-path") == 0 && i + 1 < argc)
      hc.metrics_path = argv[++i];
    else if (strcmp(a, "--task-lease") == 0 && i + 1 < argc)
      lease_ms = strtoll(argv[++i], NULL, 10);
    else if (strcmp(a, "--apps-dir") == 0 && i + 1 < argc)
      apps_dir = argv[++i];
    else if (strcmp(a, "--no-tasks") == 0)
      tasks = false;
    else if (strcmp(a, "--fail-tasks-on-stop") == 0)
      fail_on_stop = true;
    else if (strcmp(a, "--cleanup-tasks") == 0)
      cleanup = true;
    else if (strcmp(a, "--cors-origin") == 0 && i + 1 < argc) {
      if (ncors == MAX_CORS) {
        fprintf(stderr, "mcp-demo-server: at most %d --cors-origin\n",
                MAX_CORS);
        return 2;
      }
      cors[ncors++] = argv[++i];
    } else if (strcmp(a, "--db") == 0 && i + 1 < argc)
      db_path = argv[++i];
    else if (strcmp(a, "--workers") == 0 && i + 1 < argc)
      workers = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (strcmp(a, "--io-threads") == 0 && i + 1 < argc)
      io_threads = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (strcmp(a, "--http-engine") == 0 && i + 1 < argc) {
      const char *e = argv[++i];
      if (strcmp(e, "own") == 0)
        engine = MCP_HTTP_ENGINE_OWN;
      else {
        fprintf(stderr,
                "mcp-demo-server: --http-engine %s: the only engine is own "
                "(libmicrohttpd was removed, docs/http.md)\n",
                e);
        return 2;
      }
    } else if (strcmp(a, "--page-size") == 0 && i + 1 < argc)
      page_size = (size_t)strtoul(argv[++i], NULL, 10);
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "mcp-demo-server: unknown option %s\n", a);
      usage(stderr);
      return 2;
    }
  }

  if ((hc.metrics_path != NULL && hc.metrics == NULL) ||
      (hc.metrics != NULL && use_stdio)) {
    fprintf(stderr, "mcp-demo-server: %s\n",
            use_stdio ? "--metrics needs HTTP (not --stdio)"
                      : "--metrics-path needs --metrics ALLOW");
    return 2;
  }

  /* as mcp_server_run: what the command line leaves open comes from the
   * environment, so a container needs no wrapper script (docs/deploy.md) */
  const char *env_http = getenv("MCP_HTTP");
  if (!http_given && !use_stdio && env_http != NULL && env_http[0] != '\0')
    http = env_http;
  const char *env_store = getenv("MCP_STORE");
  if (store_spec == NULL && env_store != NULL && env_store[0] != '\0')
    store_spec = env_store;

  mcp_error_t err;
  if (store_spec == NULL) {
    if (snprintf(store_buf, sizeof store_buf, "sqlite:%s", db_path) >=
        (int)sizeof store_buf) {
      fprintf(stderr, "mcp-demo-server: --db path too long\n");
      return 2;
    }
    store_spec = store_buf;
  }
  if (cleanup)
    return cleanup_tasks(store_spec);
  mcp_store_t *store = NULL;
  if (tasks && mcp_store_open(store_spec, &store, &err) != MCP_OK) {
    fprintf(stderr, "mcp-demo-server: task store: %s\n", err.message);
    return 1;
  }
  if (store && lease_ms != 0 &&
      mcp_store_postgres_set_lease(store, lease_ms) != MCP_OK) {
    fprintf(stderr, "mcp-demo-server: --task-lease needs a postgres:// store "
                    "and at least 100 ms\n");
    mcp_store_free(store);
    return 2;
  }
  demo_db *db = NULL;
  if (demo_db_open(db_path, &db, &err) != MCP_OK) {
    fprintf(stderr, "mcp-demo-server: %s\n", err.message);
    mcp_store_free(store);
    return 1;
  }
  mcp_server_t *server = NULL;
  mcp_status st = mcp_server_new(DEMO_NAME, MCP_VERSION_STRING, &server);
  if (st == MCP_OK) {
    mcp_server_set_title(server, "libmcp Demo Server");
    mcp_server_set_description(
        server, "Customers, flights, orders and arithmetic, backed by SQLite");
    mcp_server_set_website_url(server, "https://example.com/libmcp");
    mcp_server_set_instructions(
        server,
        "Use get_flight_details for schedules (airlines AA, LH, BA), "
        "lookup_customer for structured customer records (ids C001-C004).");
    st = mcp_server_set_worker_threads(server, workers);
  }
  if (st == MCP_OK)
    st = mcp_server_set_page_size(server, page_size);
  if (st == MCP_OK)
    st = demo_register_tools(server, db, &err);
  else
    mcp_error_set(&err, st, "%s", mcp_strerror(st));
  if (st == MCP_OK)
    st = demo_register_resources(server, db, &err);
  if (st == MCP_OK)
    st = demo_register_prompts(server, db, &err);
  if (st == MCP_OK)
    st = demo_register_apps(server, db, apps_dir, &err);
  if (st == MCP_OK)
    st = demo_register_skills(server, &err);
  if (st == MCP_OK && tasks)
    st = demo_register_task_tools(server, &err);
  demo_resumer *resumer = NULL;
  if (st == MCP_OK && tasks &&
      (resumer = demo_resumer_new(store, DEMO_NAME)) == NULL)
    st = mcp_error_set(&err, MCP_ERR_NOMEM, "out of memory");
  if (st == MCP_OK && tasks)
    st = enable_tasks(server, store, use_stdio || !stateless, fail_on_stop,
                      resumer, &err);
  if (st == MCP_OK && store && strcmp(mcp_store_name(store), "postgres") == 0)
    st = share_through_database(server, store, &err);
  /* OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT names a collector
   * (docs/observability.md) */
  if (st == MCP_OK)
    st = mcp_server_otlp_from_env(server, &err);
  if (st != MCP_OK) {
    fprintf(stderr, "mcp-demo-server: %s\n", err.message);
    mcp_server_free(server);
    demo_resumer_free(resumer);
    demo_db_close(db);
    mcp_store_free(store);
    return 1;
  }
  if (use_stdio) {
    if (banner) {
      /* absolute paths: a client starts the server from its own cwd */
      char exe[4096], db_abs[4096];
      ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
      exe[n > 0 ? n : 0] = '\0';
      if (realpath(db_path, db_abs) == NULL)
        snprintf(db_abs, sizeof db_abs, "%s", db_path);
      fprintf(
          stderr,
          "libmcp demo server %s on stdio (database %s)\n"
          "Connect a client (more in docs/clients.md):\n"
          "  Claude Desktop, claude_desktop_config.json:  {\"mcpServers\": "
          "{\"libmcp-demo\": {\"command\": \"%s\", \"args\": "
          "[\"--stdio\", \"--db\", \"%s\"]}}}\n"
          "  MCP Inspector:  npx @modelcontextprotocol/inspector --cli %s "
          "--stdio --db %s --method tools/list\n"
          "Or type one JSON-RPC message per line, e.g.:\n"
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
          "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
          "{},\"clientInfo\":{\"name\":\"me\",\"version\":\"1\"}}}\n"
          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
          "\"params\":{\"name\":\"add\",\"arguments\":{\"a\":10,\"b\":5}}}\n"
          "End with Ctrl-D.\n",
          MCP_VERSION_STRING, db_abs, exe, db_abs, exe, db_abs);
    }
    st = mcp_server_serve_stdio(server);
  } else {
    hc.stateless = stateless;
    hc.banner = banner;
    hc.db_path = db_path;
    hc.io_threads = io_threads;
    hc.engine = engine;
    hc.cors = cors;
    hc.ncors = ncors;
    hc.store = store;
    hc.allow_hosts = allow_hosts;
    hc.nallow = nallow;
    st = serve_http(server, http, &hc);
  }
  mcp_server_free(server); /* stops the tasks; no resume hook after it */
  demo_resumer_free(resumer);
  demo_db_close(db);
  mcp_store_free(store);
  return st == MCP_OK ? 0 : 1;
}
