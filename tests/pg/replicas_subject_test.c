/* SPDX-License-Identifier: MIT */
/* replicas_subject_test.c - a 2025-11-25 session shared through PostgreSQL
 * keeps the subject that opened it (issue #15): two demo replicas with
 * authorization (--auth-issuer, --auth-audience, --auth-jwks: a key made
 * here with OpenSSL) on one database. A session initialized by subject X
 * on A is refused on B to subject Y exactly as on one replica (404, the
 * same body as an unknown session), before and after B loaded it, and
 * served on B to X (its GET stream and DELETE too). */
#include "../e2e/auth_keys.h"
#include "../e2e/http_client.h"
#include "../e2e/mcpc_run.h"
#include "pg_test.h"

#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sys/wait.h>

#define ISSUER   "https://issuer.replicas.test"
#define AUDIENCE "https://mcp.replicas.test/mcp"
#define DBNAME   "mcp_subject"

typedef struct replica {
  pid_t pid;
  int port;
} replica;

static replica rep[2];
static char uri[700], jwks[400];
static char *token_x, *token_y;

static void start_replica(replica *r, const char *name) {
  char bin[1024], db[400], hp[64];
  r->port = mr_free_port();
  assert_true(r->port > 0);
  snprintf(hp, sizeof hp, "127.0.0.1:%d", r->port);
  snprintf(bin, sizeof bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  snprintf(db, sizeof db, "%s/%s.db", mr_tmpdir, name);
  pid_t parent_ = getpid();
  r->pid = fork();
  if (r->pid == 0) {
    tu_child_dies_with(parent_);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    char *argv[] = {bin,      "--http",
                    hp,       "--db",
                    db,       "--store",
                    uri,      "--auth-issuer",
                    ISSUER,   "--auth-audience",
                    AUDIENCE, "--auth-jwks",
                    jwks,     NULL};
    execv(bin, argv);
    _exit(127);
  }
  assert_true(r->pid > 0);
  /* up when it answers HTTP at all (a ping needs a session here) */
  int status = 0;
  for (int i = 0; i < 600 && status == 0; i++) {
    usleep(50 * 1000);
    status = tc_do(r->port, "POST",
                   "Accept: application/json, text/event-stream\r\n", "{}",
                   NULL, NULL);
  }
  assert_int_equal(status, 401); /* no token */
}

/* A POST in session sid (NULL: none) with token; returns the status, the
 * body in *out (malloc'd) and the session id in sid_out when given. */
static int post(replica *r, const char *token, const char *sid,
                const char *body, char **out, char sid_out[64]) {
  char hdr[2048];
  int n = snprintf(hdr, sizeof hdr,
                   "Accept: application/json, text/event-stream\r\n"
                   "Authorization: Bearer %s\r\n"
                   "MCP-Protocol-Version: 2025-11-25\r\n",
                   token);
  if (sid)
    snprintf(hdr + n, sizeof hdr - (size_t)n, "Mcp-Session-Id: %s\r\n", sid);
  return tc_do(r->port, "POST", hdr, body, out, sid_out);
}

static const char *tools_list =
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

static void test_session_keeps_its_subject_across_replicas(void **state) {
  (void)state;
  char sid[64] = "", *out = NULL, *unknown = NULL;
  assert_int_equal(
      post(&rep[0], token_x, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
           "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
           &out, sid),
      200);
  free(out);
  assert_int_equal(strlen(sid), 36);
  assert_int_equal(
      post(&rep[0], token_x, sid,
           "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
           NULL, NULL),
      202);
  /* what an unknown session gets, for comparison */
  assert_int_equal(post(&rep[1], token_y,
                        "00000000-0000-4000-8000-000000000000", tools_list,
                        &unknown, NULL),
                   404);
  /* Y on B, which must load the session from the database first */
  assert_int_equal(post(&rep[1], token_y, sid, tools_list, &out, NULL), 404);
  assert_string_equal(out, unknown);
  free(out);
  /* X on B: served */
  assert_int_equal(post(&rep[1], token_x, sid, tools_list, &out, NULL), 200);
  assert_non_null(strstr(out, "\"tools\""));
  free(out);
  /* Y again on B (now holding it) and on A: refused the same way */
  for (int i = 1; i >= 0; i--) {
    assert_int_equal(post(&rep[i], token_y, sid, tools_list, &out, NULL), 404);
    assert_string_equal(out, unknown);
    free(out);
  }
  /* without a token: 401 everywhere, as always */
  char hdr[256];
  snprintf(hdr, sizeof hdr,
           "Accept: application/json, text/event-stream\r\n"
           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  assert_int_equal(tc_do(rep[1].port, "POST", hdr, tools_list, NULL, NULL),
                   401);
  /* Y cannot end it on B; X can */
  char del[2048];
  snprintf(del, sizeof del,
           "Authorization: Bearer %s\r\nMcp-Session-Id: %s\r\n"
           "MCP-Protocol-Version: 2025-11-25\r\n",
           token_y, sid);
  assert_int_equal(tc_do(rep[1].port, "DELETE", del, NULL, NULL, NULL), 404);
  snprintf(del, sizeof del,
           "Authorization: Bearer %s\r\nMcp-Session-Id: %s\r\n"
           "MCP-Protocol-Version: 2025-11-25\r\n",
           token_x, sid);
  assert_int_equal(tc_do(rep[1].port, "DELETE", del, NULL, NULL, NULL), 204);
  free(unknown);
}

/* The row keeps the subject and never the token. */
static void test_row_holds_subject_not_token(void **state) {
  (void)state;
  char sid[64] = "", *out = NULL;
  assert_int_equal(
      post(&rep[1], token_y, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
           "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
           &out, sid),
      200);
  free(out);
  char base[600], sql[600];
  pg_test_base(base, sizeof base);
  char conninfo[700];
  snprintf(conninfo, sizeof conninfo, "%s dbname=%s_%d", base, DBNAME,
           (int)getpid());
  snprintf(sql, sizeof sql,
           "DO $$BEGIN IF NOT EXISTS (SELECT 1 FROM mcp_sessions WHERE id = "
           "'%s' AND state::json->>'subject' = 'user-y' AND state NOT LIKE "
           "'%%eyJ%%') THEN RAISE EXCEPTION 'subject not kept'; END IF; END$$",
           sid);
  assert_true(pg_test_sql(conninfo, sql));
  /* X on A cannot use Y's session */
  assert_int_equal(post(&rep[0], token_x, sid, tools_list, &out, NULL), 404);
  free(out);
}

static int setup(void **state) {
  (void)state;
  if (mr_setup("mcp-replicas-subject") != 0)
    return -1;
  char conninfo[700], base_uri[600];
  pg_test_fresh_db(DBNAME, conninfo, sizeof conninfo);
  if (!pg_test_env("MCP_PG_URI", base_uri, sizeof base_uri))
    return -1;
  /* postgresql://postgres@/postgres?host=DIR -> .../<our database>?host=DIR */
  char *q = strchr(base_uri, '?');
  if (q == NULL)
    return -1;
  *q = '\0';
  char *slash = strrchr(base_uri, '/');
  if (slash == NULL)
    return -1;
  *slash = '\0';
  snprintf(uri, sizeof uri, "%s/%s_%d?%s", base_uri, DBNAME, (int)getpid(),
           q + 1);
  EVP_PKEY *key = tk_gen("RSA");
  snprintf(jwks, sizeof jwks, "%s/jwks.json", mr_tmpdir);
  json_t *keys = json_array();
  json_array_append_new(keys, tk_jwk(key, "k1", "RS256"));
  tk_write_jwks(jwks, keys);
  token_x =
      tk_token(key, "RS256", "k1", tk_claims(ISSUER, AUDIENCE, "user-x", NULL));
  token_y =
      tk_token(key, "RS256", "k1", tk_claims(ISSUER, AUDIENCE, "user-y", NULL));
  EVP_PKEY_free(key);
  start_replica(&rep[0], "a");
  start_replica(&rep[1], "b");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  bool stopped = true;
  for (int i = 0; i < 2; i++)
    stopped = mr_stop(rep[i].pid) && stopped;
  free(token_x);
  free(token_y);
  pg_test_drop_db(DBNAME);
  mr_teardown();
  return stopped ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_session_keeps_its_subject_across_replicas),
      cmocka_unit_test(test_row_holds_subject_not_token),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
