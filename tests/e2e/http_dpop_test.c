/* SPDX-License-Identifier: MIT */
/* http_dpop_test.c - DPoP at the resource server (RFC 9449; mcp_auth_set_dpop
 * and friends in include/mcp/auth.h), over HTTP with keys and proofs made
 * here by OpenSSL: a valid proof of each algorithm is accepted; a replayed
 * jti, a wrong htu, a wrong htm, a stale iat, a wrong ath, a token bound to
 * another key, a bound token sent as Bearer, a DPoP token without a bound
 * key, a Bearer token where DPoP is required and a proof without the
 * server's nonce are each refused with their own error, and the handler
 * never runs for them. */
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth_keys.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#pragma GCC diagnostic pop
#include "auth/dpop.h"
#include "mcp/auth.h"

#define ISS      "https://issuer.example.test"
#define RESOURCE "https://mcp.example.test/mcp"

static EVP_PKEY *as_key, *eck, *eck2, *edk, *rsak;
static char dir[64];
static char jwks_path[128];
static atomic_int handler_calls;

static int group_setup(void **state) {
  (void)state;
  as_key = tk_gen("EC");
  eck = tk_gen("EC");
  eck2 = tk_gen("EC");
  edk = tk_gen("ED25519");
  rsak = tk_gen("RSA");
  snprintf(dir, sizeof dir, "/tmp/mcp-dpop-XXXXXX");
  if (mkdtemp(dir) == NULL)
    return -1;
  snprintf(jwks_path, sizeof jwks_path, "%s/jwks.json", dir);
  tk_write_jwks(jwks_path, json_pack("[o]", tk_jwk(as_key, "as", NULL)));
  return as_key && eck && eck2 && edk && rsak ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  EVP_PKEY_free(as_key);
  EVP_PKEY_free(eck);
  EVP_PKEY_free(eck2);
  EVP_PKEY_free(edk);
  EVP_PKEY_free(rsak);
  unlink(jwks_path);
  rmdir(dir);
  return 0;
}

/* RFC 7638 thumbprint of pk's public JWK, computed here independently:
 * tk_jwk without kid and alg has exactly the required members. */
static char *thumbprint(EVP_PKEY *pk) {
  json_t *jwk = tk_jwk(pk, NULL, NULL);
  char *text = json_dumps(jwk, JSON_COMPACT | JSON_SORT_KEYS);
  unsigned char md[32];
  unsigned int n = 0;
  EVP_Digest(text, strlen(text), md, &n, EVP_sha256(), NULL);
  free(text);
  json_decref(jwk);
  return mcp__base64url_encode(md, n);
}

/* An access token for alice, bound to bound_to's key (NULL: unbound). */
static char *access_token(EVP_PKEY *bound_to) {
  json_t *c = tk_claims(ISS, RESOURCE, "alice", "mcp:tools");
  if (bound_to) {
    char *jkt = thumbprint(bound_to);
    json_object_set_new(c, "cnf", json_pack("{s:s}", "jkt", jkt));
    free(jkt);
  }
  return tk_token(as_key, "ES256", "as", c);
}

typedef struct proof_opts {
  const char *htm, *htu; /* NULL: POST, RESOURCE */
  long iat_offset;
  const char *ath;   /* NULL: of the token */
  const char *nonce; /* or NULL */
  const char *jti;   /* NULL: a fresh one */
  const char *typ;   /* NULL: dpop+jwt */
} proof_opts;

static int jti_counter;

/* A DPoP proof by pk (alg) for token. */
static char *proof(EVP_PKEY *pk, const char *alg, const char *token,
                   const proof_opts *o) {
  char *ath = tk_ath(token);
  char jti[64];
  snprintf(jti, sizeof jti, "jti-%d-%ld", ++jti_counter, (long)time(NULL));
  json_t *c = json_pack("{s:s,s:s,s:s,s:I,s:s}", "jti", o->jti ? o->jti : jti,
                        "htm", o->htm ? o->htm : "POST", "htu",
                        o->htu ? o->htu : RESOURCE, "iat",
                        (json_int_t)(time(NULL) + o->iat_offset), "ath",
                        o->ath ? o->ath : ath);
  if (o->nonce)
    json_object_set_new(c, "nonce", json_string(o->nonce));
  free(ath);
  return tk_jws(pk, alg, tk_dpop_header(pk, alg, o->typ), c);
}

static mcp_status whoami(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)args;
  (void)ud;
  atomic_fetch_add(&handler_calls, 1);
  mcp_result_add_textf(r, "sub=%s", mcp_call_subject(call));
  return MCP_OK;
}

typedef struct reply {
  int status;
  char www[1024];
  char nonce[128];
} reply;

#define BODY                                                                   \
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"       \
  "\"name\":\"whoami\",\"arguments\":{},\"_meta\":{"                           \
  "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}}}"

/* A 2026-07-28 tools/call with "Authorization: scheme token" and, when
 * proof is not NULL, a DPoP header. */
static void call(int port, const char *scheme, const char *token,
                 const char *dpop, reply *out) {
  size_t cap = 1024 + strlen(token) + (dpop ? strlen(dpop) : 0);
  char *hdr = malloc(cap);
  snprintf(hdr, cap,
           ACCEPT "Authorization: %s %s\r\n%s%s%s"
                  "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: "
                  "tools/call\r\nMcp-Name: whoami\r\n",
           scheme, token, dpop ? "DPoP: " : "", dpop ? dpop : "",
           dpop ? "\r\n" : "");
  tc_conn c;
  memset(out, 0, sizeof *out);
  if (tc_open(&c, port, "POST", "/mcp", hdr, BODY, 5000) &&
      tc_read_body(&c, 5000)) {
    out->status = c.status;
    if (!tc_header(&c, "WWW-Authenticate", out->www, sizeof out->www))
      out->www[0] = '\0';
    if (!tc_header(&c, "DPoP-Nonce", out->nonce, sizeof out->nonce))
      out->nonce[0] = '\0';
  }
  tc_close(&c);
  free(hdr);
}

static mcp_auth_t *new_auth(void) {
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(a, ISS), MCP_OK);
  assert_int_equal(mcp_auth_set_jwks_file(a, jwks_path), MCP_OK);
  return a;
}

static void serve(fixture *f, mcp_auth_t *a) {
  fixture_new_server(f, "http-dpop-test");
  add_tool(f->server, "whoami", whoami, MCP_TASK_FORBIDDEN);
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_auth(o, a), MCP_OK);
  fixture_serve(f, o);
}

/* A refusal: 401, a DPoP challenge with algs, error and a description
 * containing why; the handler not called. */
static void expect_refused(const reply *r, const char *error, const char *why) {
  if (r->status != 401 || strstr(r->www, "DPoP algs=\"ES256 EdDSA") == NULL ||
      strstr(r->www, error) == NULL || strstr(r->www, why) == NULL)
    fail_msg("want 401 %s (%s); got %d, WWW-Authenticate: %s", error, why,
             r->status, r->www);
}

static void test_dpop(void **state) {
  (void)state;
  mcp_auth_t *a = new_auth();
  fixture f;
  serve(&f, a);
  atomic_store(&handler_calls, 0);
  reply r;
  proof_opts none = {0};
  char *bound = access_token(eck);

  /* a valid proof of each algorithm, with a token bound to its key */
  char *p = proof(eck, "ES256", bound, &none);
  call(f.port, "DPoP", bound, p, &r);
  if (r.status != 200)
    fail_msg("ES256 proof: %d %s", r.status, r.www);
  EVP_PKEY *others[2] = {edk, rsak};
  const char *algs[2] = {"EdDSA", "PS256"};
  for (int i = 0; i < 2; i++) {
    char *t = access_token(others[i]);
    char *q = proof(others[i], algs[i], t, &none);
    call(f.port, "DPoP", t, q, &r);
    if (r.status != 200)
      fail_msg("%s proof: %d %s", algs[i], r.status, r.www);
    free(t);
    free(q);
  }
  /* htu as the request arrived (scheme, Host, path) instead of the
   * resource URL */
  char here[64];
  snprintf(here, sizeof here, "http://127.0.0.1:%d/mcp", f.port);
  proof_opts as_sent = {.htu = here};
  char *q = proof(eck, "ES256", bound, &as_sent);
  call(f.port, "DPoP", bound, q, &r);
  if (r.status != 200)
    fail_msg("htu %s: %d %s", here, r.status, r.www);
  free(q);
  assert_int_equal(atomic_load(&handler_calls), 4);

  /* the same proof again: a replayed jti */
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_dpop_proof", "jti replay");
  free(p);

  /* htu of another resource, htu with a query, htm of another method */
  proof_opts wrong_htu = {.htu = "https://mcp.example.test/other"};
  p = proof(eck, "ES256", bound, &wrong_htu);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_dpop_proof", "htu is not this request");
  free(p);
  proof_opts query_htu = {.htu = RESOURCE "?x=1"};
  p = proof(eck, "ES256", bound, &query_htu);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_dpop_proof", "htu is not this request");
  free(p);
  proof_opts wrong_htm = {.htm = "GET"};
  p = proof(eck, "ES256", bound, &wrong_htm);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_dpop_proof", "htm is not this request");
  free(p);

  /* iat out of the window (default 60 s), either way */
  proof_opts stale = {.iat_offset = -120}, future = {.iat_offset = 120};
  p = proof(eck, "ES256", bound, &stale);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_dpop_proof", "iat is outside");
  free(p);
  p = proof(eck, "ES256", bound, &future);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_dpop_proof", "iat is outside");
  free(p);

  /* ath of another token; typ not dpop+jwt */
  proof_opts wrong_ath = {.ath = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"};
  p = proof(eck, "ES256", bound, &wrong_ath);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_dpop_proof", "ath does not match");
  free(p);
  proof_opts jwt_typ = {.typ = "JWT"};
  p = proof(eck, "ES256", bound, &jwt_typ);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_dpop_proof", "typ is not dpop+jwt");
  free(p);

  /* a valid proof by another key than the token's */
  p = proof(eck2, "ES256", bound, &none);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "invalid_token", "bound to another key");
  free(p);

  /* the DPoP scheme without a proof; an unbound token with a proof */
  call(f.port, "DPoP", bound, NULL, &r);
  expect_refused(&r, "invalid_dpop_proof", "exactly one DPoP proof");
  char *unbound = access_token(NULL);
  p = proof(eck, "ES256", unbound, &none);
  call(f.port, "DPoP", unbound, p, &r);
  expect_refused(&r, "invalid_token", "not DPoP-bound");
  free(p);

  /* a bound token as Bearer */
  call(f.port, "Bearer", bound, NULL, &r);
  expect_refused(&r, "invalid_token", "the token is DPoP-bound");
  /* an unbound Bearer token is fine while DPoP is not required */
  call(f.port, "Bearer", unbound, NULL, &r);
  assert_int_equal(r.status, 200);
  assert_int_equal(atomic_load(&handler_calls), 5);

  fixture_stop(&f);
  mcp_auth_free(a);
  free(bound);
  free(unbound);
}

static void test_dpop_required_and_nonce(void **state) {
  (void)state;
  mcp_auth_t *a = new_auth();
  assert_int_equal(mcp_auth_set_dpop(a, MCP_AUTH_DPOP_REQUIRE), MCP_OK);
  assert_int_equal(mcp_auth_set_dpop_nonce_s(a, 300), MCP_OK);
  assert_int_equal(mcp_auth_set_dpop_window_s(a, 0), MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_auth_set_dpop_replay_cache(a, 1), MCP_ERR_INVALID_ARG);
  fixture f;
  serve(&f, a);
  atomic_store(&handler_calls, 0);
  reply r;
  proof_opts none = {0};

  /* a Bearer token where DPoP is required */
  char *unbound = access_token(NULL);
  call(f.port, "Bearer", unbound, NULL, &r);
  expect_refused(&r, "invalid_token", "requires DPoP-bound tokens");
  assert_non_null(strstr(r.www, "DPoP algs="));

  /* a proof without the nonce: use_dpop_nonce with a DPoP-Nonce */
  char *bound = access_token(eck);
  char *p = proof(eck, "ES256", bound, &none);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "use_dpop_nonce", "nonce");
  assert_true(r.nonce[0] != '\0');
  free(p);
  /* a wrong nonce, then the right one */
  proof_opts wrong = {.nonce = "not-the-nonce"};
  p = proof(eck, "ES256", bound, &wrong);
  call(f.port, "DPoP", bound, p, &r);
  expect_refused(&r, "use_dpop_nonce", "nonce");
  free(p);
  char nonce[128];
  snprintf(nonce, sizeof nonce, "%s", r.nonce);
  proof_opts right = {.nonce = nonce};
  p = proof(eck, "ES256", bound, &right);
  call(f.port, "DPoP", bound, p, &r);
  if (r.status != 200)
    fail_msg("with the nonce: %d %s", r.status, r.www);
  free(p);
  assert_int_equal(atomic_load(&handler_calls), 1);

  /* replicas with one nonce secret issue (and so accept) the same nonces;
   * configured before any server uses them, as the contract says */
  const unsigned char secret[32] = "replicas share this 32-byte key";
  mcp_auth_t *r1 = new_auth(), *r2 = new_auth();
  assert_int_equal(mcp_auth_set_dpop_nonce_secret(r1, secret, 8),
                   MCP_ERR_INVALID_ARG);
  for (int i = 0; i < 2; i++) {
    mcp_auth_t *x = i ? r2 : r1;
    assert_int_equal(mcp_auth_set_dpop_nonce_s(x, 300), MCP_OK);
    assert_int_equal(mcp_auth_set_dpop_nonce_secret(x, secret, sizeof secret),
                     MCP_OK);
  }
  int64_t now = (int64_t)time(NULL);
  char *n1 = mcp__dpop_current_nonce(r1, now);
  char *n2 = mcp__dpop_current_nonce(r2, now);
  assert_string_equal(n1, n2);
  assert_string_not_equal(n1, nonce); /* a's own random secret differs */
  free(n1);
  free(n2);
  mcp_auth_free(r1);
  mcp_auth_free(r2);

  fixture_stop(&f);
  mcp_auth_free(a);
  free(bound);
  free(unbound);
}

/* The replay cache is bounded: a full neighbourhood refuses (503) rather
 * than forgetting a jti. */
static void test_replay_cache_bound(void **state) {
  (void)state;
  mcp_auth_t *a = new_auth();
  assert_int_equal(mcp_auth_set_dpop_replay_cache(a, 64), MCP_OK);
  fixture f;
  serve(&f, a);
  reply r;
  proof_opts none = {0};
  char *bound = access_token(eck);
  int ok = 0, busy = 0;
  for (int i = 0; i < 80; i++) {
    char *p = proof(eck, "ES256", bound, &none);
    call(f.port, "DPoP", bound, p, &r);
    ok += r.status == 200;
    busy += r.status == 503;
    free(p);
  }
  assert_int_equal(ok, 64);
  assert_int_equal(busy, 16);
  fixture_stop(&f);
  mcp_auth_free(a);
  free(bound);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dpop),
      cmocka_unit_test(test_dpop_required_and_nonce),
      cmocka_unit_test(test_replay_cache_bound),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
