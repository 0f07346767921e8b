/* SPDX-License-Identifier: MIT */
/* dpop_replicas_test.c - the DPoP jti replay record shared by replicas on
 * PostgreSQL (docs/auth.md "DPoP", docs/deploy.md): two servers in this
 * process, each with its own mcp_auth_t (DPoP required) and its own
 * PostgreSQL task store on one database. A proof accepted by A is refused
 * by B as a replay (and again by A, from its local cache); a fresh proof
 * passes on B; the row is in mcp_dpop_jti; with the table gone (the
 * database cannot record the proof) a fresh proof is refused with 503,
 * never accepted. With the database paused (its processes stopped, their
 * connections open) a DPoP request gets 503 within the record's deadline
 * and other connections are not held up. An opaque DPoP-bound token waits
 * for its introspection, then for the record, and passes. A server whose
 * record waits on a paused database stops within the record's deadline. */
#include <signal.h>
#include <stdatomic.h>

#include "../e2e/auth_keys.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../e2e/http_fixture.h"
#include "../e2e/mini_as.h"
#pragma GCC diagnostic pop
#include "mcp/auth.h"
#include "pg_test.h"
#include "util/base64.h"

#define ISS      "https://issuer.dpop-replicas.test"
#define RESOURCE "https://mcp.dpop-replicas.test/mcp"
#define DBNAME   "mcp_dpop_jti"

static EVP_PKEY *as_key, *client_key;
static char dir[64], jwks_path[128], conninfo[700];
static atomic_int handler_calls;

static char *thumbprint(EVP_PKEY *pk) {
  json_t *jwk = tk_jwk(pk, NULL, NULL); /* exactly the required members */
  char *text = json_dumps(jwk, JSON_COMPACT | JSON_SORT_KEYS);
  unsigned char md[32];
  unsigned int n = 0;
  EVP_Digest(text, strlen(text), md, &n, EVP_sha256(), NULL);
  free(text);
  json_decref(jwk);
  return mcp__base64url_encode(md, n);
}

/* An access token bound to client_key. */
static char *access_token(void) {
  json_t *c = tk_claims(ISS, RESOURCE, "alice", "mcp:tools");
  char *jkt = thumbprint(client_key);
  json_object_set_new(c, "cnf", json_pack("{s:s}", "jkt", jkt));
  free(jkt);
  return tk_token(as_key, "ES256", "as", c);
}

/* A DPoP proof by client_key for a POST of token to RESOURCE. */
static char *proof(const char *token, const char *jti) {
  char *ath = tk_ath(token);
  json_t *c = json_pack("{s:s,s:s,s:s,s:I,s:s}", "jti", jti, "htm", "POST",
                        "htu", RESOURCE, "iat", (json_int_t)time(NULL), "ath",
                        ath);
  free(ath);
  return tk_jws(client_key, "ES256", tk_dpop_header(client_key, "ES256", NULL),
                c);
}

static mcp_status whoami(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)args;
  (void)ud;
  atomic_fetch_add(&handler_calls, 1);
  mcp_result_add_textf(r, "sub=%s", mcp_call_subject(call));
  return MCP_OK;
}

#define BODY                                                                   \
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"       \
  "\"name\":\"whoami\",\"arguments\":{},\"_meta\":{"                           \
  "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}}}"

/* A 2026-07-28 tools/call with a DPoP token and proof: the status and the
 * WWW-Authenticate header (or the body for a 503). */
static int call(int port, const char *token, const char *dpop, char *why,
                size_t cap) {
  size_t hcap = 1024 + strlen(token) + strlen(dpop);
  char *hdr = malloc(hcap);
  snprintf(hdr, hcap,
           ACCEPT "Authorization: DPoP %s\r\nDPoP: %s\r\n"
                  "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: "
                  "tools/call\r\nMcp-Name: whoami\r\n",
           token, dpop);
  tc_conn c;
  int status = 0;
  why[0] = '\0';
  if (tc_open(&c, port, "POST", "/mcp", hdr, BODY, 5000) &&
      tc_read_body(&c, 5000)) {
    status = c.status;
    if (!tc_header(&c, "WWW-Authenticate", why, cap) && c.body)
      snprintf(why, cap, "%s", c.body);
  }
  tc_close(&c);
  free(hdr);
  return status;
}

typedef struct replica {
  fixture f;
  mcp_auth_t *auth;
} replica;

static void start_replica_pool(replica *r, const char *name, unsigned pool) {
  fixture_new_server(&r->f, name);
  add_tool(r->f.server, "whoami", whoami, MCP_TASK_FORBIDDEN);
  mcp_error_t err;
  assert_int_equal(mcp_store_postgres_open(conninfo, pool, &r->f.store, &err),
                   MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(r->f.server, r->f.store, NULL, &err),
                   MCP_OK);
  assert_int_equal(mcp_auth_new(RESOURCE, &r->auth), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(r->auth, ISS), MCP_OK);
  assert_int_equal(mcp_auth_set_jwks_file(r->auth, jwks_path), MCP_OK);
  assert_int_equal(mcp_auth_set_dpop(r->auth, MCP_AUTH_DPOP_REQUIRE), MCP_OK);
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_auth(o, r->auth), MCP_OK);
  fixture_serve(&r->f, o);
}

static void start_replica(replica *r, const char *name) {
  start_replica_pool(r, name, 2);
}

static void stop_replica(replica *r) {
  fixture_stop(&r->f); /* server, then store */
  mcp_auth_free(r->auth);
}

static void test_replay_refused_by_the_other_replica(void **state) {
  (void)state;
  atomic_store(&handler_calls, 0);
  replica a, b;
  start_replica(&a, "replica-a");
  start_replica(&b, "replica-b");
  char *token = access_token();
  char *p1 = proof(token, "jti-shared-1"), why[1024];
  assert_int_equal(call(a.f.port, token, p1, why, sizeof why), 200);
  assert_int_equal(atomic_load(&handler_calls), 1);
  /* the same proof on B: a replay, though B never saw it */
  int st = call(b.f.port, token, p1, why, sizeof why);
  if (st != 401 || strstr(why, "jti replay") == NULL)
    fail_msg("B accepted A's proof: %d %s", st, why);
  /* and on A, from its own cache */
  assert_int_equal(call(a.f.port, token, p1, why, sizeof why), 401);
  assert_non_null(strstr(why, "jti replay"));
  assert_int_equal(atomic_load(&handler_calls), 1);
  /* a fresh proof passes on B, and is then a replay on A */
  char *p2 = proof(token, "jti-shared-2");
  assert_int_equal(call(b.f.port, token, p2, why, sizeof why), 200);
  assert_int_equal(call(a.f.port, token, p2, why, sizeof why), 401);
  assert_non_null(strstr(why, "jti replay"));
  assert_int_equal(atomic_load(&handler_calls), 2);
  assert_true(pg_test_sql(
      conninfo, "DO $$BEGIN IF (SELECT count(*) FROM mcp_dpop_jti WHERE "
                "expires_ms > 0) <> 2 THEN RAISE EXCEPTION 'rows'; END IF; "
                "END$$"));
  /* the database cannot record a proof: refused (503), never accepted */
  assert_true(pg_test_sql(conninfo, "DROP TABLE mcp_dpop_jti"));
  char *p3 = proof(token, "jti-shared-3");
  st = call(a.f.port, token, p3, why, sizeof why);
  if (st != 503 || strstr(why, "replay record is unavailable") == NULL)
    fail_msg("want 503 without the table; got %d %s", st, why);
  assert_int_equal(atomic_load(&handler_calls), 2);
  free(p1);
  free(p2);
  free(p3);
  free(token);
  stop_replica(&a);
  stop_replica(&b);
}

/* ---- a database that stops answering ------------------------------------ */

static int paused[32], npaused; /* resumed by teardown too */

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Stops (SIGSTOP) the server processes of this test's database: they keep
 * their connections open and answer nothing, like a paused database. */
static void pause_database(void) {
  PGconn *c = PQconnectdb(conninfo);
  PGresult *r = PQexec(c, "SELECT pid FROM pg_stat_activity WHERE datname = "
                          "current_database() AND pid <> pg_backend_pid()");
  npaused = 0;
  for (int i = 0; i < PQntuples(r) && npaused < 32; i++)
    paused[npaused++] = atoi(PQgetvalue(r, i, 0));
  PQclear(r);
  PQfinish(c);
  for (int i = 0; i < npaused; i++)
    kill(paused[i], SIGSTOP);
}

static void resume_database(void) {
  for (int i = 0; i < npaused; i++)
    kill(paused[i], SIGCONT);
  npaused = 0;
}

typedef struct timed {
  pthread_t thread;
  int port;
  const char *token, *proof;
  int status;
  char why[1024];
  int64_t ms;
} timed;

static void *timed_main(void *arg) {
  timed *t = arg;
  int64_t t0 = mono_ms();
  t->status = call(t->port, t->token, t->proof, t->why, sizeof t->why);
  t->ms = mono_ms() - t0;
  return NULL;
}

/* A request without a token (401) or a metadata GET (200), timed. */
static int64_t tokenless(int port, bool metadata, int *status) {
  int64_t t0 = mono_ms();
  tc_conn c;
  *status = 0;
  if (tc_open(&c, port, metadata ? "GET" : "POST",
              metadata ? "/.well-known/oauth-protected-resource" : "/mcp",
              metadata ? "" : ACCEPT, metadata ? NULL : BODY, 5000) &&
      tc_read_body(&c, 5000))
    *status = c.status;
  tc_close(&c);
  return mono_ms() - t0;
}

/* The replay record's database stops answering (its server processes
 * paused, connections open): a DPoP request gets 503 with Retry-After
 * within the record's deadline (2 s), the next at once (backed off), and
 * meanwhile other connections are answered at once; once the database
 * answers again, proofs pass. The INSERT runs on a replay record thread,
 * never on the network thread that admits the request. */
static void test_paused_database(void **state) {
  (void)state;
  replica a;
  start_replica_pool(&a, "replica-paused", 1);
  char *token = access_token(), why[1024];
  char *p1 = proof(token, "jti-paused-1");
  assert_int_equal(call(a.f.port, token, p1, why, sizeof why), 200);

  pause_database();
  char *p2 = proof(token, "jti-paused-2"), *p3 = proof(token, "jti-paused-3");
  timed t = {0, a.f.port, token, p2, 0, "", 0};
  pthread_create(&t.thread, NULL, timed_main, &t);
  sleep_ms(100);
  int64_t worst = 0;
  int bad = 0;
  for (int i = 0; i < 10; i++) {
    int st;
    int64_t ms = tokenless(a.f.port, i % 2 == 0, &st);
    bad += st != (i % 2 == 0 ? 200 : 401);
    worst = ms > worst ? ms : worst;
    sleep_ms(50);
  }
  pthread_join(t.thread, NULL);
  timed u = {0, a.f.port, token, p3, 0, "", 0};
  timed_main(&u); /* backed off */
  resume_database();
  print_message("paused database: DPoP request %d in %lld ms (%s); the next "
                "%d in %lld ms; other connections: slowest %lld ms\n",
                t.status, (long long)t.ms, t.why, u.status, (long long)u.ms,
                (long long)worst);
  assert_int_equal(bad, 0);
  assert_true(worst < 1000);
  assert_int_equal(t.status, 503);
  assert_non_null(strstr(t.why, "replay record is unavailable"));
  assert_true(t.ms < 3500);
  assert_int_equal(u.status, 503);
  assert_true(u.ms < 500);

  /* the database answers again: after the backoff, proofs pass */
  int st = 0;
  for (int i = 0; i < 100 && st != 200; i++) {
    char jti[32];
    snprintf(jti, sizeof jti, "jti-paused-back-%d", i);
    char *p = proof(token, jti);
    st = call(a.f.port, token, p, why, sizeof why);
    free(p);
    if (st != 200)
      sleep_ms(100);
  }
  assert_int_equal(st, 200);
  free(p1);
  free(p2);
  free(p3);
  free(token);
  stop_replica(&a);
  /* the other test counts rows */
  assert_true(pg_test_sql(conninfo, "DELETE FROM mcp_dpop_jti"));
}

typedef struct stopper {
  pthread_t thread;
  replica *r;
  atomic_bool done;
  int64_t ms;
} stopper;

static void *stop_main(void *arg) {
  stopper *s = arg;
  int64_t t0 = mono_ms();
  stop_replica(s->r);
  s->ms = mono_ms() - t0;
  atomic_store(&s->done, true);
  return NULL;
}

/* The database stops answering while a DPoP request waits for its record:
 * stopping the server (which clears the recorder) and freeing the
 * mcp_auth_t wait for the record thread at most until the record's
 * deadline (2 s), since the INSERT gives up by then; a database that
 * never answers again must not hold a server's stop for ever. */
static void test_stop_with_database_paused(void **state) {
  (void)state;
  static replica a; /* still read by the stopper when a stop hangs */
  start_replica_pool(&a, "replica-stop", 1);
  char *token = access_token(), why[1024];
  char *p1 = proof(token, "jti-stop-1"), *p2 = proof(token, "jti-stop-2");
  assert_int_equal(call(a.f.port, token, p1, why, sizeof why), 200);

  pause_database();
  timed t = {0, a.f.port, token, p2, 0, "", 0};
  pthread_create(&t.thread, NULL, timed_main, &t);
  sleep_ms(300); /* its record is under way, on a paused connection */
  stopper s = {.r = &a};
  atomic_init(&s.done, false);
  pthread_create(&s.thread, NULL, stop_main, &s);
  int64_t t0 = mono_ms();
  while (!atomic_load(&s.done) && mono_ms() - t0 < 6000)
    sleep_ms(20);
  bool stopped = atomic_load(&s.done);
  int64_t waited = mono_ms() - t0;
  resume_database(); /* lets a stop held by the database finish */
  pthread_join(s.thread, NULL);
  pthread_join(t.thread, NULL);
  print_message("paused database: stop and mcp_auth_free %s in %lld ms; the "
                "waiting DPoP request got %d in %lld ms\n",
                stopped ? "done" : "NOT done", (long long)waited, t.status,
                (long long)t.ms);
  assert_true(stopped);
  assert_true(s.ms < 3000);
  free(p1);
  free(p2);
  free(token);
}

/* ---- an introspected token ------------------------------------------------ */

/* The introspection endpoint: "opaque-ivy" is active and bound to
 * client_key (cnf.jkt), anything else inactive. */
static char *introspect(mini_as *as, const char *method, const char *path,
                        const char *body, int *status) {
  (void)as, (void)method;
  *status = 200;
  if (strcmp(path, "/introspect") != 0)
    return NULL;
  json_t *doc;
  if (strstr(body, "token=opaque-ivy&") != NULL) {
    char *jkt = thumbprint(client_key);
    doc = json_pack("{s:b,s:s,s:s,s:s,s:{s:s}}", "active", 1, "sub", "ivy",
                    "scope", "mcp:tools", "aud", RESOURCE, "cnf", "jkt", jkt);
    free(jkt);
  } else {
    doc = json_pack("{s:b}", "active", 0);
  }
  char *out = json_dumps(doc, JSON_COMPACT);
  json_decref(doc);
  return out;
}

/* An opaque DPoP-bound token: its request waits for the introspection,
 * then for the replay record (both off the network thread), and passes;
 * the proof is then a replay on the other replica. */
static void test_introspected_token_then_record(void **state) {
  (void)state;
  mini_as as;
  mini_as_start(&as, introspect, NULL);
  char url[80];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/introspect", as.port);
  replica a, b;
  start_replica(&a, "replica-intro-a");
  start_replica(&b, "replica-intro-b");
  assert_int_equal(mcp_auth_set_introspection(a.auth, url, "rs", "s"),
                   MCP_OK);
  assert_int_equal(mcp_auth_set_introspection(b.auth, url, "rs", "s"),
                   MCP_OK);
  const char *token = "opaque-ivy";
  char *p1 = proof(token, "jti-intro-1"), why[1024];
  int st = call(a.f.port, token, p1, why, sizeof why);
  if (st != 200)
    fail_msg("introspected bound token: %d %s", st, why);
  assert_int_equal(atomic_load(&as.requests), 1);
  st = call(b.f.port, token, p1, why, sizeof why);
  if (st != 401 || strstr(why, "jti replay") == NULL)
    fail_msg("B accepted A's proof: %d %s", st, why);
  free(p1);
  stop_replica(&a);
  stop_replica(&b);
  mini_as_stop(&as);
  assert_true(pg_test_sql(conninfo, "DELETE FROM mcp_dpop_jti"));
}

static int setup(void **state) {
  (void)state;
  pg_test_fresh_db(DBNAME, conninfo, sizeof conninfo);
  as_key = tk_gen("EC");
  client_key = tk_gen("EC");
  snprintf(dir, sizeof dir, "/tmp/mcp-dpop-pg-XXXXXX");
  if (as_key == NULL || client_key == NULL || mkdtemp(dir) == NULL)
    return -1;
  snprintf(jwks_path, sizeof jwks_path, "%s/jwks.json", dir);
  tk_write_jwks(jwks_path, json_pack("[o]", tk_jwk(as_key, "as", NULL)));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  resume_database(); /* a failed test leaves no database paused */
  EVP_PKEY_free(as_key);
  EVP_PKEY_free(client_key);
  unlink(jwks_path);
  rmdir(dir);
  pg_test_drop_db(DBNAME);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* first: the other drops the table at its end */
      cmocka_unit_test(test_paused_database),
      cmocka_unit_test(test_stop_with_database_paused),
      cmocka_unit_test(test_introspected_token_then_record),
      cmocka_unit_test(test_replay_refused_by_the_other_replica),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
