/* SPDX-License-Identifier: MIT */
/* http_auth_test.c - the OAuth 2.1 resource server (include/mcp/auth.h):
 * JWTs signed with keys made here by OpenSSL for every accepted algorithm
 * (RS256, PS256, ES256, EdDSA); every refusal (expired, not yet valid,
 * wrong issuer, wrong audience, unknown kid then a rotated key, alg none,
 * HS256 keyed with the public key, bad signature, malformed segments,
 * oversized token) both through mcp_auth_verify and over HTTP (401, the
 * WWW-Authenticate challenge, the handler not called); RFC 9728 metadata;
 * the scope matrix (403 insufficient_scope with the scope needed); sessions
 * and tasks of one subject refused to another; issuer discovery and JWKS
 * fetch; RFC 7662 introspection with its cache (hits, expiry, bound). */
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth_keys.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#pragma GCC diagnostic pop
#include "mcp/auth.h"
#include "mini_as.h"

#define ISS      "https://issuer.example.test"
#define RESOURCE "https://mcp.example.test/mcp"
#define META_URL                                                               \
  "resource_metadata=\"https://mcp.example.test/.well-known/"                  \
  "oauth-protected-resource/mcp\""

static EVP_PKEY *rsa1, *rsa2, *eck, *edk;
static char dir[64];
static char jwks_path[128];

static int group_setup(void **state) {
  (void)state;
  rsa1 = tk_gen("RSA");
  rsa2 = tk_gen("RSA");
  eck = tk_gen("EC");
  edk = tk_gen("ED25519");
  snprintf(dir, sizeof dir, "/tmp/mcp-auth-XXXXXX");
  if (mkdtemp(dir) == NULL)
    return -1;
  snprintf(jwks_path, sizeof jwks_path, "%s/jwks.json", dir);
  return rsa1 && rsa2 && eck && edk ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  EVP_PKEY_free(rsa1);
  EVP_PKEY_free(rsa2);
  EVP_PKEY_free(eck);
  EVP_PKEY_free(edk);
  unlink(jwks_path);
  rmdir(dir);
  return 0;
}

/* The usual key file: rsa1 as "rsa" (RS256 or PS256) and as "ps" pinned
 * to PS256, the EC key as "ec", the Ed25519 key as "ed". */
static void write_usual_jwks(void) {
  tk_write_jwks(jwks_path,
                json_pack("[o,o,o,o]", tk_jwk(rsa1, "rsa", NULL),
                          tk_jwk(rsa1, "ps", "PS256"), tk_jwk(eck, "ec", NULL),
                          tk_jwk(edk, "ed", NULL)));
}

static mcp_auth_t *new_auth(void) {
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(a, ISS), MCP_OK);
  assert_int_equal(mcp_auth_set_jwks_file(a, jwks_path), MCP_OK);
  return a;
}

/* mcp_auth_verify's status for token (freed); subject/scopes checked when
 * expected. */
static mcp_status verify(mcp_auth_t *a, char *token, const char *want_sub,
                         const char *want_scopes) {
  char *sub = NULL, *scopes = NULL;
  mcp_error_t err;
  mcp_status s = mcp_auth_verify(a, token, &sub, &scopes, &err);
  if (s == MCP_OK) {
    if (want_sub)
      assert_string_equal(sub, want_sub);
    if (want_scopes)
      assert_string_equal(scopes, want_scopes);
  }
  free(sub);
  free(scopes);
  free(token);
  return s;
}

static void test_every_alg(void **state) {
  (void)state;
  write_usual_jwks();
  mcp_auth_t *a = new_auth();
  struct {
    EVP_PKEY **key;
    const char *alg, *kid;
  } ok[] = {{&rsa1, "RS256", "rsa"}, {&rsa1, "PS256", "rsa"},
            {&rsa1, "PS256", "ps"},  {&eck, "ES256", "ec"},
            {&edk, "EdDSA", "ed"},   {&eck, "ES256", NULL}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    char *t = tk_token(*ok[i].key, ok[i].alg, ok[i].kid,
                       tk_claims(ISS, RESOURCE, "alice", "mcp:tools admin"));
    assert_int_equal(verify(a, t, "alice", "mcp:tools admin"), MCP_OK);
  }
  /* aud as an array naming us; scp instead of scope */
  json_t *c = tk_claims(ISS, RESOURCE, "bob", NULL);
  json_object_set_new(c, "aud", json_pack("[s,s]", "other", RESOURCE));
  json_object_set_new(c, "scp", json_pack("[s,s]", "x", "y"));
  assert_int_equal(verify(a, tk_token(edk, "EdDSA", "ed", c), "bob", "x y"),
                   MCP_OK);
  /* exp and nbf far past int64_t seconds (a fuzz find: the conversion was
   * undefined behaviour, which UBSan stops on): still a valid token */
  c = tk_claims(ISS, RESOURCE, "carol", NULL);
  json_object_set_new(c, "exp", json_real(4.1e90));
  json_object_set_new(c, "nbf", json_real(-1e300));
  assert_int_equal(verify(a, tk_token(edk, "EdDSA", "ed", c), "carol", ""),
                   MCP_OK);
  mcp_auth_free(a);
}

/* Every token here must be refused (MCP_ERR_PEER). Returns them so that
 * the HTTP test sends the same ones. */
static size_t bad_tokens(char **out) {
  size_t n = 0;
  long now = (long)time(NULL);
  json_t *c;
  /* expired (beyond the 60 s leeway) */
  c = tk_claims(ISS, RESOURCE, "alice", NULL);
  json_object_set_new(c, "exp", json_integer(now - 120));
  out[n++] = tk_token(rsa1, "RS256", "rsa", c);
  /* not yet valid */
  c = tk_claims(ISS, RESOURCE, "alice", NULL);
  json_object_set_new(c, "nbf", json_integer(now + 600));
  out[n++] = tk_token(rsa1, "RS256", "rsa", c);
  /* wrong issuer, wrong audience */
  out[n++] = tk_token(eck, "ES256", "ec",
                      tk_claims("https://evil.test", RESOURCE, "alice", NULL));
  out[n++] = tk_token(eck, "ES256", "ec",
                      tk_claims(ISS, "https://other.test/mcp", "alice", NULL));
  /* alg none; HS256 keyed with the RSA public key */
  out[n++] =
      tk_token(rsa1, "none", "rsa", tk_claims(ISS, RESOURCE, "alice", NULL));
  out[n++] =
      tk_token(rsa1, "HS256", "rsa", tk_claims(ISS, RESOURCE, "alice", NULL));
  /* RS256 with the key pinned to PS256; ES256 naming the RSA key */
  out[n++] =
      tk_token(rsa1, "RS256", "ps", tk_claims(ISS, RESOURCE, "alice", NULL));
  out[n++] =
      tk_token(eck, "ES256", "rsa", tk_claims(ISS, RESOURCE, "alice", NULL));
  /* bad signature: a valid token with its claims swapped for others */
  char *good =
      tk_token(edk, "EdDSA", "ed", tk_claims(ISS, RESOURCE, "alice", NULL));
  char *evil =
      tk_token(edk, "EdDSA", "ed", tk_claims(ISS, RESOURCE, "root", "admin"));
  char *g1 = strchr(good, '.'), *g2 = strrchr(good, '.');
  char *e1 = strchr(evil, '.'), *e2 = strrchr(evil, '.');
  char *forged = NULL;
  if (asprintf(&forged, "%.*s%.*s%s", (int)(g1 - good), good, (int)(e2 - e1),
               e1, g2) < 0)
    abort();
  out[n++] = forged;
  free(good);
  free(evil);
  /* a signature bit flipped */
  char *flip =
      tk_token(eck, "ES256", "ec", tk_claims(ISS, RESOURCE, "alice", NULL));
  char *sig = strrchr(flip, '.') + 5;
  *sig = *sig == 'A' ? 'B' : 'A';
  out[n++] = flip;
  /* no exp, no sub */
  c = tk_claims(ISS, RESOURCE, "alice", NULL);
  json_object_del(c, "exp");
  out[n++] = tk_token(eck, "ES256", "ec", c);
  c = tk_claims(ISS, RESOURCE, "alice", NULL);
  json_object_del(c, "sub");
  out[n++] = tk_token(eck, "ES256", "ec", c);
  /* malformed segments */
  const char *shapes[] = {"abc",
                          "a.b",
                          "a.b.c.d",
                          "..",
                          "eyJhbGciOiJFUzI1NiJ9..c2ln",
                          "e30.e30.c2ln",         /* {} header: no alg */
                          "WyJhIl0.e30.c2ln",     /* header is an array */
                          "eyJhbGciOiJFUzI1NiJ9", /* header only */
                          "!!!.e30.c2ln",
                          "eyJhbGciOiJFUzI1NiJ9.e30.c2ln="};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    out[n++] = strdup(shapes[i]);
  /* oversized: a valid token with a 9000-byte claim */
  c = tk_claims(ISS, RESOURCE, "alice", NULL);
  char *pad = malloc(9001);
  memset(pad, 'x', 9000);
  pad[9000] = '\0';
  json_object_set_new(c, "pad", json_string(pad));
  free(pad);
  out[n++] = tk_token(eck, "ES256", "ec", c);
  return n;
}

static void test_refusals(void **state) {
  (void)state;
  write_usual_jwks();
  mcp_auth_t *a = new_auth();
  char *toks[64];
  size_t n = bad_tokens(toks);
  for (size_t i = 0; i < n; i++) {
    char *sub = NULL, *scopes = NULL;
    mcp_error_t err;
    if (mcp_auth_verify(a, toks[i], &sub, &scopes, &err) != MCP_ERR_PEER)
      fail_msg("token %zu accepted or not refused: %s", i, toks[i]);
    free(toks[i]);
  }
  /* within the leeway is still fine */
  json_t *c = tk_claims(ISS, RESOURCE, "alice", NULL);
  json_object_set_new(c, "exp", json_integer((long)time(NULL) - 5));
  assert_int_equal(verify(a, tk_token(rsa1, "RS256", "rsa", c), "alice", ""),
                   MCP_OK);
  mcp_auth_set_leeway_s(a, 0);
  c = tk_claims(ISS, RESOURCE, "alice", NULL);
  json_object_set_new(c, "exp", json_integer((long)time(NULL) - 5));
  assert_int_equal(verify(a, tk_token(rsa1, "RS256", "rsa", c), NULL, NULL),
                   MCP_ERR_PEER);
  mcp_auth_free(a);
}

/* A token naming an unknown kid makes the keys be read again (at most once
 * per refresh interval): after a rotation the new key works at once with
 * interval 0, and not before the interval otherwise. */
static void test_kid_rotation(void **state) {
  (void)state;
  tk_write_jwks(jwks_path, json_pack("[o]", tk_jwk(rsa1, "k1", NULL)));
  mcp_auth_t *slow = new_auth(), *fast = new_auth();
  mcp_auth_set_refresh_interval_s(slow, 3600);
  mcp_auth_set_refresh_interval_s(fast, 0);
  json_t *cl = tk_claims(ISS, RESOURCE, "alice", NULL);
  char *t1 = tk_token(rsa1, "RS256", "k1", json_incref(cl));
  char *t2 = tk_token(rsa2, "RS256", "k2", json_incref(cl));
  json_decref(cl);
  assert_int_equal(verify(slow, strdup(t1), "alice", NULL), MCP_OK);
  assert_int_equal(verify(fast, strdup(t1), "alice", NULL), MCP_OK);
  /* unknown kid: both refresh (nothing new yet), refused */
  assert_int_equal(verify(fast, strdup(t2), NULL, NULL), MCP_ERR_PEER);
  /* rotation: k2 added */
  tk_write_jwks(jwks_path, json_pack("[o,o]", tk_jwk(rsa1, "k1", NULL),
                                     tk_jwk(rsa2, "k2", NULL)));
  assert_int_equal(verify(fast, strdup(t2), "alice", NULL), MCP_OK);
  assert_int_equal(verify(slow, strdup(t2), NULL, NULL), MCP_ERR_PEER);
  assert_int_equal(verify(slow, strdup(t1), "alice", NULL), MCP_OK);
  /* k1 retired */
  tk_write_jwks(jwks_path, json_pack("[o]", tk_jwk(rsa2, "k2", NULL)));
  assert_int_equal(verify(fast, strdup(t2), "alice", NULL), MCP_OK);
  /* known kids do not cause a refresh: k1 is still cached */
  assert_int_equal(verify(fast, strdup(t1), "alice", NULL), MCP_OK);
  free(t1);
  free(t2);
  mcp_auth_free(slow);
  mcp_auth_free(fast);
}

/* ---- over HTTP ------------------------------------------------------------
 */

static atomic_int handler_calls;

static mcp_status whoami(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)args;
  (void)ud;
  atomic_fetch_add(&handler_calls, 1);
  mcp_result_add_textf(r, "sub=%s scopes=[%s] admin=%d",
                       mcp_call_subject(call) ? mcp_call_subject(call) : "-",
                       mcp_call_scopes(call) ? mcp_call_scopes(call) : "-",
                       mcp_call_has_scope(call, "admin"));
  return MCP_OK;
}

static mcp_status slow_task(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  (void)call;
  (void)args;
  (void)ud;
  mcp_result_add_text(r, "done");
  return MCP_OK;
}

typedef struct http_reply {
  int status;
  char www[1024];
  char sid[64];
  char *body;
} http_reply;

/* One request with an optional bearer token and session. */
static void send_req(int port, const char *method, const char *path,
                     const char *token, const char *sid, const char *extra,
                     const char *body, http_reply *out) {
  size_t cap = 512 + (token ? strlen(token) : 0) + (extra ? strlen(extra) : 0);
  char *hdr = malloc(cap);
  snprintf(hdr, cap, "%s%s%s%s%s%s%s", ACCEPT, token ? "Authorization: " : "",
           token ? token : "", token ? "\r\n" : "",
           sid ? "Mcp-Session-Id: " : "", sid ? sid : "", sid ? "\r\n" : "");
  if (extra)
    strcat(hdr, extra);
  tc_conn c;
  memset(out, 0, sizeof *out);
  if (tc_open(&c, port, method, path, hdr, body, 5000) &&
      tc_read_body(&c, 5000)) {
    out->status = c.status;
    if (!tc_header(&c, "WWW-Authenticate", out->www, sizeof out->www))
      out->www[0] = '\0';
    if (!tc_header(&c, "Mcp-Session-Id", out->sid, sizeof out->sid))
      out->sid[0] = '\0';
    out->body = c.body ? c.body : strdup("");
    c.body = NULL;
  }
  tc_close(&c);
  free(hdr);
}

static char *bearer(const char *token) {
  char *h = NULL;
  if (asprintf(&h, "Bearer %s", token) < 0)
    abort();
  return h;
}

/* A 2026-07-28 (stateless) tools/call of tool. */
static void modern_call(int port, const char *token, const char *tool,
                        http_reply *out) {
  char body[512];
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
           "\"params\":{\"name\":\"%s\",\"arguments\":{},"
           "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
           "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
           "{}}}}",
           tool);
  char extra[256];
  snprintf(extra, sizeof extra,
           "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
           "Mcp-Name: %s\r\n",
           tool);
  char *h = token ? bearer(token) : NULL;
  send_req(port, "POST", "/mcp", h, NULL, extra, body, out);
  free(h);
}

/* The info lines of the server under test: refusals (issue #26 item 1). */
static pthread_mutex_t info_lock = PTHREAD_MUTEX_INITIALIZER;
static char info_text[8192];

static void keep_info(mcp_log_level l, const char *m, void *ud) {
  (void)ud;
  if (l != MCP_LOG_INFO)
    return;
  pthread_mutex_lock(&info_lock);
  size_t used = strlen(info_text);
  if (used + strlen(m) + 2 <= sizeof info_text) { /* the first lines are kept */
    strcat(info_text, m);
    strcat(info_text, "\n");
  }
  pthread_mutex_unlock(&info_lock);
}

static void auth_fixture(fixture *f, mcp_auth_t *a, bool tasks) {
  fixture_new_server(f, "http-auth-test");
  info_text[0] = '\0';
  mcp_server_set_log_handler(f->server, keep_info, NULL);
  mcp_server_set_log_level(f->server, MCP_LOG_INFO);
  add_tool(f->server, "whoami", whoami, MCP_TASK_FORBIDDEN);
  add_tool(f->server, "admin", whoami, MCP_TASK_FORBIDDEN);
  if (tasks) {
    add_tool(f->server, "job", slow_task, MCP_TASK_OPTIONAL);
    assert_int_equal(mcp_store_memory_new(&f->store), MCP_OK);
    mcp_task_options_t *to = NULL;
    assert_int_equal(mcp_task_options_new(&to), MCP_OK);
    mcp_task_options_set_list(to, true);
    assert_int_equal(mcp_server_enable_tasks(f->server, f->store, to, NULL),
                     MCP_OK);
    mcp_task_options_free(to);
  }
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_auth(o, a), MCP_OK);
  fixture_serve(f, o);
}

static void test_http_challenges(void **state) {
  (void)state;
  write_usual_jwks();
  mcp_auth_t *a = new_auth();
  mcp_auth_add_scope_supported(a, "mcp:tools");
  mcp_auth_add_scope_supported(a, "admin");
  /* named again (two rules need it): still listed once (issue #25) */
  assert_int_equal(mcp_auth_add_scope_supported(a, "admin"), MCP_OK);
  fixture f;
  auth_fixture(&f, a, false);
  atomic_store(&handler_calls, 0);
  http_reply r;

  /* no token: 401, metadata pointer and scope hint, no error code */
  modern_call(f.port, NULL, "whoami", &r);
  assert_int_equal(r.status, 401);
  assert_non_null(strstr(r.www, "Bearer "));
  assert_non_null(strstr(r.www, META_URL));
  if (!strstr(r.www, "scope=\"mcp:tools admin\""))
    fail_msg("WWW-Authenticate: %s", r.www);
  assert_null(strstr(r.www, "error="));
  free(r.body);
  /* initialize and GET are protected too */
  send_req(f.port, "POST", "/mcp", NULL, NULL, NULL, INIT, &r);
  assert_int_equal(r.status, 401);
  free(r.body);
  send_req(f.port, "GET", "/mcp", NULL, "x", NULL, NULL, &r);
  assert_int_equal(r.status, 401);
  free(r.body);
  /* not a bearer token */
  send_req(f.port, "POST", "/mcp", "Basic YWxpY2U6cHc=", NULL, NULL, INIT, &r);
  assert_int_equal(r.status, 401);
  assert_non_null(strstr(r.www, "error=\"invalid_token\""));
  free(r.body);

  /* every bad token: 401 invalid_token, the handler never runs */
  char *toks[64];
  size_t n = bad_tokens(toks);
  for (size_t i = 0; i < n; i++) {
    modern_call(f.port, toks[i], "whoami", &r);
    if (r.status != 401 || !strstr(r.www, "error=\"invalid_token\"") ||
        !strstr(r.www, META_URL))
      fail_msg("token %zu: status %d, WWW-Authenticate %s", i, r.status, r.www);
    free(r.body);
    free(toks[i]);
  }
  assert_int_equal(atomic_load(&handler_calls), 0);

  /* a good token: the handler sees subject and scopes */
  char *t = tk_token(edk, "EdDSA", "ed",
                     tk_claims(ISS, RESOURCE, "alice", "mcp:tools admin"));
  modern_call(f.port, t, "whoami", &r);
  assert_int_equal(r.status, 200);
  assert_non_null(strstr(r.body, "sub=alice scopes=[mcp:tools admin] admin=1"));
  free(r.body);
  free(t);
  assert_int_equal(atomic_load(&handler_calls), 1);

  /* RFC 9728 metadata, both forms, no token needed */
  const char *paths[] = {"/.well-known/oauth-protected-resource",
                         "/.well-known/oauth-protected-resource/mcp"};
  for (int i = 0; i < 2; i++) {
    send_req(f.port, "GET", paths[i], NULL, NULL, NULL, NULL, &r);
    assert_int_equal(r.status, 200);
    json_t *doc = json_loads(r.body, 0, NULL);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "resource")),
                        RESOURCE);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(doc, "authorization_servers"), 0)),
                        ISS);
    assert_int_equal(json_array_size(json_object_get(doc, "scopes_supported")),
                     2);
    json_decref(doc);
    free(r.body);
  }
  send_req(f.port, "GET", "/.well-known/oauth-protected-resource/other", NULL,
           NULL, NULL, NULL, &r);
  assert_int_equal(r.status, 401); /* not metadata: an ordinary request */
  free(r.body);
  fixture_stop(&f);
  mcp_auth_free(a);
  /* each refusal logged at info, with the client's address */
  if (strstr(info_text, "http: refused client=127.0.0.1:") == NULL ||
      strstr(info_text,
             " status=401: authorization: no valid bearer token") == NULL)
    fail_msg("no refusal logged at info:\n%s", info_text);
}

/* Issue #25: the 401's scope hint names each scope once when two rules
 * for every request both name it. Fails without the fix: scope="mcp:a
 * mcp:b mcp:b mcp:a". */
static void test_http_scope_hint_once(void **state) {
  (void)state;
  write_usual_jwks();
  mcp_auth_t *a = new_auth();
  assert_int_equal(mcp_auth_require_scopes(a, "*", NULL, "mcp:a mcp:b"),
                   MCP_OK);
  assert_int_equal(mcp_auth_require_scopes(a, "*", NULL, "mcp:b mcp:a"),
                   MCP_OK);
  fixture f;
  auth_fixture(&f, a, false);
  http_reply r;
  modern_call(f.port, NULL, "whoami", &r);
  assert_int_equal(r.status, 401);
  if (!strstr(r.www, "scope=\"mcp:a mcp:b\""))
    fail_msg("WWW-Authenticate: %s", r.www);
  free(r.body);
  fixture_stop(&f);
  mcp_auth_free(a);
}

/* Scope rules: tools/call needs mcp:tools, the admin tool also admin,
 * tools/list needs mcp:list. */
static void test_http_scopes(void **state) {
  (void)state;
  write_usual_jwks();
  mcp_auth_t *a = new_auth();
  assert_int_equal(mcp_auth_require_scopes(a, "tools/call", NULL, "mcp:tools"),
                   MCP_OK);
  assert_int_equal(mcp_auth_require_scopes(a, "tools/call", "admin", "admin"),
                   MCP_OK);
  assert_int_equal(mcp_auth_require_scopes(a, "tools/list", NULL, "mcp:list"),
                   MCP_OK);
  assert_int_equal(mcp_auth_require_scopes(a, "x", NULL, "bad\"scope"),
                   MCP_ERR_INVALID_ARG);
  fixture f;
  auth_fixture(&f, a, false);
  atomic_store(&handler_calls, 0);
  struct {
    const char *scopes, *tool;
    int status;
    const char *hint;
  } m[] = {
      {"", "whoami", 403, "scope=\"mcp:tools\""},
      {"mcp:list", "whoami", 403, "scope=\"mcp:tools\""},
      {"mcp:tools", "whoami", 200, NULL},
      {"mcp:tools", "admin", 403, "scope=\"mcp:tools admin\""},
      {"admin", "admin", 403, "scope=\"mcp:tools admin\""},
      {"mcp:tools admin", "admin", 200, NULL},
      {"admin mcp:tools extra", "whoami", 200, NULL},
  };
  int expected_calls = 0;
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
    char *t = tk_token(eck, "ES256", "ec",
                       tk_claims(ISS, RESOURCE, "alice", m[i].scopes));
    http_reply r;
    modern_call(f.port, t, m[i].tool, &r);
    if (r.status != m[i].status)
      fail_msg("case %zu: status %d", i, r.status);
    if (m[i].hint) {
      assert_non_null(strstr(r.www, "error=\"insufficient_scope\""));
      assert_non_null(strstr(r.www, m[i].hint));
      assert_non_null(strstr(r.www, META_URL));
    } else {
      expected_calls++;
    }
    free(r.body);
    free(t);
  }
  assert_int_equal(atomic_load(&handler_calls), expected_calls);
  /* a method rule: tools/list */
  char *t = tk_token(eck, "ES256", "ec",
                     tk_claims(ISS, RESOURCE, "alice", "mcp:tools"));
  char *h = bearer(t);
  http_reply r;
  send_req(
      f.port, "POST", "/mcp", h, NULL,
      "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n",
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\","
      "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
      &r);
  assert_int_equal(r.status, 403);
  assert_non_null(strstr(r.www, "scope=\"mcp:list\""));
  free(r.body);
  free(h);
  free(t);
  fixture_stop(&f);
  mcp_auth_free(a);
}

/* initialize + initialized as the holder of token; returns the session. */
static void open_session_as(int port, const char *token, char sid[64]) {
  char *h = bearer(token);
  http_reply r;
  send_req(port, "POST", "/mcp", h, NULL, NULL, INIT, &r);
  assert_int_equal(r.status, 200);
  snprintf(sid, 64, "%s", r.sid);
  assert_int_equal(strlen(sid), 36);
  free(r.body);
  send_req(port, "POST", "/mcp", h, sid, NULL, INITIALIZED, &r);
  assert_int_equal(r.status, 202);
  free(r.body);
  free(h);
}

static json_t *session_rpc(int port, const char *token, const char *sid,
                           const char *method, const char *params,
                           int *status) {
  char body[512];
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"%s\",\"params\":%s}",
           method, params);
  char *h = bearer(token);
  http_reply r;
  send_req(port, "POST", "/mcp", h, sid, "MCP-Protocol-Version: 2025-11-25\r\n",
           body, &r);
  free(h);
  *status = r.status;
  json_t *m = r.status == 200 ? json_loads(r.body, 0, NULL) : NULL;
  free(r.body);
  return m;
}

static void test_http_cross_subject(void **state) {
  (void)state;
  write_usual_jwks();
  mcp_auth_t *a = new_auth();
  fixture f;
  auth_fixture(&f, a, true);
  char *alice =
      tk_token(eck, "ES256", "ec", tk_claims(ISS, RESOURCE, "alice", NULL));
  char *bob =
      tk_token(eck, "ES256", "ec", tk_claims(ISS, RESOURCE, "bob", NULL));
  char sa[64], sb[64];
  open_session_as(f.port, alice, sa);
  open_session_as(f.port, bob, sb);
  int st;
  /* bob cannot use alice's session (POST, GET stream, DELETE) */
  json_t *m = session_rpc(f.port, bob, sa, "tools/list", "{}", &st);
  assert_int_equal(st, 404);
  json_decref(m);
  char *hb = bearer(bob);
  http_reply r;
  send_req(f.port, "GET", "/mcp", hb, sa, NULL, NULL, &r);
  assert_int_equal(r.status, 404);
  free(r.body);
  send_req(f.port, "DELETE", "/mcp", hb, sa, NULL, NULL, &r);
  assert_int_equal(r.status, 404);
  free(r.body);
  free(hb);
  /* alice's task: invisible to bob in his own session */
  m = session_rpc(
      f.port, alice, sa, "tools/call",
      "{\"name\":\"job\",\"arguments\":{},\"task\":{\"ttl\":60000}}", &st);
  assert_int_equal(st, 200);
  const char *id = json_string_value(json_object_get(
      json_object_get(json_object_get(m, "result"), "task"), "taskId"));
  assert_non_null(id);
  char params[256];
  snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", id);
  json_decref(m);
  json_t *g = session_rpc(f.port, bob, sb, "tasks/get", params, &st);
  assert_int_equal(st, 200);
  assert_non_null(json_object_get(g, "error"));
  json_decref(g);
  g = session_rpc(f.port, bob, sb, "tasks/list", "{}", &st);
  assert_int_equal(
      json_array_size(json_object_get(json_object_get(g, "result"), "tasks")),
      0);
  json_decref(g);
  g = session_rpc(f.port, alice, sa, "tasks/get", params, &st);
  assert_int_equal(st, 200);
  assert_non_null(json_object_get(g, "result"));
  json_decref(g);
  /* alice's own session still works for her */
  m = session_rpc(f.port, alice, sa, "tools/call",
                  "{\"name\":\"whoami\",\"arguments\":{}}", &st);
  assert_int_equal(st, 200);
  char *text = json_dumps(m, 0);
  assert_non_null(strstr(text, "sub=alice"));
  free(text);
  json_decref(m);
  free(alice);
  free(bob);
  fixture_stop(&f);
  mcp_auth_free(a);
}

/* A browser client (CORS on): the preflight needs no token, and the 401
 * carries the CORS headers so that the page can read WWW-Authenticate. */
static void test_http_cors_preflight(void **state) {
  (void)state;
  write_usual_jwks();
  mcp_auth_t *a = new_auth();
  fixture f;
  fixture_new_server(&f, "http-auth-cors");
  add_tool(f.server, "whoami", whoami, MCP_TASK_FORBIDDEN);
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_auth(o, a), MCP_OK);
  assert_int_equal(mcp_http_options_add_cors_origin(o, "http://app.test"),
                   MCP_OK);
  fixture_serve(&f, o);
  tc_conn c;
  assert_true(tc_open(&c, f.port, "OPTIONS", "/mcp",
                      "Origin: http://app.test\r\n"
                      "Access-Control-Request-Method: POST\r\n"
                      "Access-Control-Request-Headers: authorization\r\n",
                      NULL, 5000));
  assert_int_equal(c.status, 204);
  tc_close(&c);
  assert_true(tc_open(&c, f.port, "POST", "/mcp",
                      ACCEPT "Origin: http://app.test\r\n", INIT, 5000));
  assert_int_equal(c.status, 401);
  char v[256];
  assert_non_null(tc_header(&c, "Access-Control-Allow-Origin", v, sizeof v));
  assert_string_equal(v, "http://app.test");
  assert_non_null(tc_header(&c, "Access-Control-Expose-Headers", v, sizeof v));
  assert_non_null(strstr(v, "WWW-Authenticate"));
  tc_close(&c);
  fixture_stop(&f);
  mcp_auth_free(a);
}

/* ---- fetched keys and introspection ------------------------------------ */

typedef struct as_state {
  int port;
  bool bad_issuer;
  long now;
} as_state;

static char *as_answer(mini_as *as, const char *method, const char *path,
                       const char *body, int *status) {
  as_state *s = as->ud;
  (void)method;
  *status = 200;
  char iss[128];
  snprintf(iss, sizeof iss, "http://127.0.0.1:%d", s->port);
  if (strcmp(path, "/.well-known/oauth-authorization-server") == 0) {
    char *out = NULL;
    if (asprintf(&out,
                 "{\"issuer\":\"%s\",\"jwks_uri\":\"%s/jwks\","
                 "\"introspection_endpoint\":\"%s/introspect\"}",
                 iss, iss, iss) < 0)
      return NULL;
    return out;
  }
  if (strcmp(path, "/.well-known/oauth-authorization-server/bad") == 0)
    return strdup("{\"issuer\":\"https://someone.else\","
                  "\"jwks_uri\":\"http://127.0.0.1:1/jwks\"}");
  if (strcmp(path, "/jwks") == 0) {
    json_t *doc = json_pack("{s:[o]}", "keys", tk_jwk(eck, "ec", NULL));
    char *out = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return out;
  }
  if (strcmp(path, "/introspect") == 0) {
    const char *t = strstr(body, "token=");
    if (t == NULL) {
      *status = 400;
      return strdup("{}");
    }
    t += 6;
    size_t n = strcspn(t, "&");
    json_t *doc;
    if (strncmp(t, "dead", n) == 0 && n == 4)
      doc = json_pack("{s:b}", "active", 0);
    else if (strncmp(t, "elsewhere", n) == 0 && n == 9)
      doc = json_pack("{s:b,s:s,s:s}", "active", 1, "sub", "eve", "aud",
                      "https://elsewhere.test");
    else if (strncmp(t, "old", n) == 0 && n == 3)
      doc = json_pack("{s:b,s:s,s:I}", "active", 1, "sub", "olga", "exp",
                      (json_int_t)(s->now - 1000));
    else
      doc = json_pack("{s:b,s:s#,s:s,s:[s],s:I}", "active", 1, "sub", t, (int)n,
                      "scope", "mcp:tools", "aud", RESOURCE, "exp",
                      (json_int_t)(s->now + 3600));
    char *out = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return out;
  }
  return NULL;
}

static void test_discovery(void **state) {
  (void)state;
  as_state s = {0, false, (long)time(NULL)};
  mini_as as;
  mini_as_start(&as, as_answer, &s);
  s.port = as.port;
  char iss[128];
  snprintf(iss, sizeof iss, "http://127.0.0.1:%d", as.port);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(a, iss), MCP_OK);
  assert_int_equal(
      verify(a,
             tk_token(eck, "ES256", "ec", tk_claims(iss, RESOURCE, "dan", "")),
             "dan", ""),
      MCP_OK);
  int after_first = atomic_load(&as.requests);
  assert_int_equal(after_first, 2); /* metadata + JWKS */
  assert_int_equal(
      verify(a,
             tk_token(eck, "ES256", "ec", tk_claims(iss, RESOURCE, "dan", "")),
             "dan", ""),
      MCP_OK);
  assert_int_equal(atomic_load(&as.requests), after_first); /* cached */
  mcp_auth_free(a);

  /* metadata naming another issuer is not used */
  char bad[160];
  snprintf(bad, sizeof bad, "%s/bad", iss);
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(a, bad), MCP_OK);
  assert_int_equal(
      verify(a,
             tk_token(eck, "ES256", "ec", tk_claims(bad, RESOURCE, "dan", "")),
             NULL, NULL),
      MCP_ERR_IO);
  mcp_auth_free(a);
  mini_as_stop(&as);
}

static void test_introspection(void **state) {
  (void)state;
  as_state s = {0, false, (long)time(NULL)};
  mini_as as;
  mini_as_start(&as, as_answer, &s);
  s.port = as.port;
  char url[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/introspect", as.port);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_introspection(a, url, "rs", "secret"), MCP_OK);
  assert_int_equal(mcp_auth_set_introspection_cache(a, 2, 60), MCP_OK);

  assert_int_equal(verify(a, strdup("carol"), "carol", "mcp:tools"), MCP_OK);
  assert_int_equal(atomic_load(&as.requests), 1);
  assert_string_equal(as.last_auth, " Basic cnM6c2VjcmV0"); /* rs:secret */
  assert_int_equal(verify(a, strdup("carol"), "carol", "mcp:tools"), MCP_OK);
  assert_int_equal(atomic_load(&as.requests), 1); /* from the cache */
  /* refusals, never cached */
  assert_int_equal(verify(a, strdup("dead"), NULL, NULL), MCP_ERR_PEER);
  assert_int_equal(verify(a, strdup("elsewhere"), NULL, NULL), MCP_ERR_PEER);
  assert_int_equal(verify(a, strdup("old"), NULL, NULL), MCP_ERR_PEER);
  assert_int_equal(verify(a, strdup("dead"), NULL, NULL), MCP_ERR_PEER);
  assert_int_equal(atomic_load(&as.requests), 5);
  /* bounded: two entries; a third evicts the one that expires first */
  assert_int_equal(verify(a, strdup("t2"), "t2", NULL), MCP_OK);
  assert_int_equal(verify(a, strdup("t3"), "t3", NULL), MCP_OK);
  assert_int_equal(atomic_load(&as.requests), 7);
  assert_int_equal(verify(a, strdup("t3"), "t3", NULL), MCP_OK);
  assert_int_equal(atomic_load(&as.requests), 7);
  assert_int_equal(verify(a, strdup("carol"), "carol", NULL), MCP_OK);
  assert_int_equal(atomic_load(&as.requests), 8);
  /* entries expire after max_ttl */
  assert_int_equal(mcp_auth_set_introspection_cache(a, 16, 1), MCP_OK);
  assert_int_equal(verify(a, strdup("carol"), "carol", NULL), MCP_OK);
  assert_int_equal(verify(a, strdup("carol"), "carol", NULL), MCP_OK);
  assert_int_equal(atomic_load(&as.requests), 9);
  sleep_ms(1100);
  assert_int_equal(verify(a, strdup("carol"), "carol", NULL), MCP_OK);
  assert_int_equal(atomic_load(&as.requests), 10);
  mcp_auth_free(a);

  /* unreachable endpoint: MCP_ERR_IO (503 over HTTP), not a refusal */
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_introspection(
                       a, "http://127.0.0.1:1/introspect", "rs", NULL),
                   MCP_OK);
  assert_int_equal(verify(a, strdup("carol"), NULL, NULL), MCP_ERR_IO);
  mcp_auth_free(a);
  mini_as_stop(&as);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_alg),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_kid_rotation),
      cmocka_unit_test(test_http_challenges),
      cmocka_unit_test(test_http_scopes),
      cmocka_unit_test(test_http_scope_hint_once),
      cmocka_unit_test(test_http_cross_subject),
      cmocka_unit_test(test_http_cors_preflight),
      cmocka_unit_test(test_discovery),
      cmocka_unit_test(test_introspection),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
