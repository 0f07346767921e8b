/* SPDX-License-Identifier: MIT */
/* mcpc_dpop_test.c - libmcp-client's grants without a user and DPoP against
 * libmcp's resource server (both from this tree): mcpc with --grant
 * client_credentials (client_secret_basic) and --dpop gets a DPoP-bound
 * token from an authorization server of the test's own (mini_as.h: its
 * token endpoint asks for a DPoP nonce first, checks the proof's htm, htu
 * and nonce, binds the token to the proof's key by cnf.jkt, and refuses
 * offline_access, which it lists but grants users only) and calls
 * a tool on a server that requires DPoP; without --dpop the same server
 * refuses the Bearer token it gets; a wrong secret is refused by the
 * authorization server with its error. */
#include <stdatomic.h>

#include "auth_keys.h"
#include "client/oauth_http.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#include "mcpc_run.h"
#pragma GCC diagnostic pop
#include "mcp/auth.h"
#include "mini_as.h"

#define AS_NONCE "as-nonce-1"

static EVP_PKEY *key;
static char resource[128], issuer[128], jwks_path[400];
static atomic_int token_requests, nonce_challenges, bound_tokens;

/* The proof's claims and its key's RFC 7638 thumbprint; NULL when proof
 * is not a JWS with a jwk header. */
static json_t *proof_claims(const char *proof, char **jkt) {
  const char *d1 = strchr(proof, '.');
  const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
  if (d2 == NULL)
    return NULL;
  size_t hl = 0, cl = 0;
  unsigned char *h = mcp__base64url_decode(proof, (size_t)(d1 - proof), &hl);
  unsigned char *c = mcp__base64url_decode(d1 + 1, (size_t)(d2 - d1 - 1), &cl);
  json_t *header = h ? json_loadb((char *)h, hl, 0, NULL) : NULL;
  json_t *claims = c ? json_loadb((char *)c, cl, 0, NULL) : NULL;
  free(h);
  free(c);
  json_t *jwk = json_object_get(header, "jwk");
  json_t *req =
      jwk ? json_pack("{s:O,s:O,s:O,s:O}", "crv", json_object_get(jwk, "crv"),
                      "kty", json_object_get(jwk, "kty"), "x",
                      json_object_get(jwk, "x"), "y", json_object_get(jwk, "y"))
          : NULL;
  char *text = req ? json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
  unsigned char md[32];
  unsigned int n = 0;
  *jkt = text && EVP_Digest(text, strlen(text), md, &n, EVP_sha256(), NULL)
             ? mcp__base64url_encode(md, n)
             : NULL;
  free(text);
  json_decref(req);
  json_decref(header);
  if (*jkt == NULL) {
    json_decref(claims);
    return NULL;
  }
  return claims;
}

static char *as_answer(mini_as *as, const char *method, const char *path,
                       const char *body, int *status) {
  (void)method;
  *status = 200;
  if (strcmp(path, "/.well-known/oauth-authorization-server") == 0) {
    char *out = NULL;
    if (asprintf(&out,
                 "{\"issuer\":\"%s\",\"token_endpoint\":\"%s/token\","
                 "\"grant_types_supported\":[\"client_credentials\"],"
                 "\"scopes_supported\":[\"mcp:tools\",\"offline_access\"],"
                 "\"dpop_signing_alg_values_supported\":[\"ES256\"]}",
                 issuer, issuer) < 0)
      return NULL;
    return out;
  }
  if (strcmp(path, "/token") != 0)
    return NULL;
  atomic_fetch_add(&token_requests, 1);
  char *grant = mcp__query_param(body, "grant_type");
  char *scope = mcp__query_param(body, "scope");
  bool ok = grant && strcmp(grant, "client_credentials") == 0 &&
            strcmp(as->last_auth, " Basic c3ZjOnMzY3JldA==") == 0;
  /* like Keycloak: offline_access is no scope of a client's own access
   * (RFC 6749 4.4.3: no refresh token), even though the AS offers it */
  bool offline = scope && strstr(scope, "offline_access") != NULL;
  free(grant);
  free(scope);
  if (offline) {
    *status = 400;
    return strdup("{\"error\":\"invalid_scope\","
                  "\"error_description\":\"offline_access\"}");
  }
  if (!ok) {
    *status = 401;
    return strdup("{\"error\":\"invalid_client\","
                  "\"error_description\":\"unknown client or secret\"}");
  }
  char *jkt = NULL;
  json_t *claims = NULL;
  if (as->last_dpop[0]) {
    char token_url[200];
    snprintf(token_url, sizeof token_url, "%s/token", issuer);
    claims = proof_claims(as->last_dpop, &jkt);
    const char *htm = json_string_value(json_object_get(claims, "htm"));
    const char *htu = json_string_value(json_object_get(claims, "htu"));
    const char *nonce = json_string_value(json_object_get(claims, "nonce"));
    if (claims == NULL || !htm || strcmp(htm, "POST") != 0 || !htu ||
        strcmp(htu, token_url) != 0 ||
        json_object_get(claims, "ath") != NULL) {
      json_decref(claims);
      free(jkt);
      *status = 400;
      return strdup("{\"error\":\"invalid_dpop_proof\"}");
    }
    if (nonce == NULL || strcmp(nonce, AS_NONCE) != 0) {
      atomic_fetch_add(&nonce_challenges, 1);
      json_decref(claims);
      free(jkt);
      snprintf(as->extra, sizeof as->extra, "DPoP-Nonce: %s\r\n", AS_NONCE);
      *status = 400;
      return strdup("{\"error\":\"use_dpop_nonce\"}");
    }
  }
  json_t *tc = tk_claims(issuer, resource, "svc", "mcp:tools");
  if (jkt) {
    json_object_set_new(tc, "cnf", json_pack("{s:s}", "jkt", jkt));
    atomic_fetch_add(&bound_tokens, 1);
  }
  char *jwt = tk_token(key, "ES256", "k", tc);
  json_t *doc = json_pack("{s:s,s:s,s:i}", "access_token", jwt, "token_type",
                          jkt ? "DPoP" : "Bearer", "expires_in", 300);
  char *out = json_dumps(doc, JSON_COMPACT);
  json_decref(doc);
  json_decref(claims);
  free(jwt);
  free(jkt);
  return out;
}

static mcp_status whoami(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)args;
  (void)ud;
  mcp_result_add_textf(r, "sub=%s", mcp_call_subject(call));
  return MCP_OK;
}

static void test_client_credentials_dpop(void **state) {
  (void)state;
  assert_int_equal(mr_setup("mcpc-dpop"), 0);
  key = tk_gen("EC");
  mini_as as;
  mini_as_start(&as, as_answer, NULL);
  snprintf(issuer, sizeof issuer, "http://127.0.0.1:%d", as.port);
  snprintf(jwks_path, sizeof jwks_path, "%s/jwks.json", mr_tmpdir);
  tk_write_jwks(jwks_path, json_pack("[o]", tk_jwk(key, "k", "ES256")));
  char token_path[400];
  snprintf(token_path, sizeof token_path, "%s/tokens.json", mr_tmpdir);
  setenv("MCPC_TOKEN_FILE", token_path, 1);

  int port = mr_free_port();
  snprintf(resource, sizeof resource, "http://127.0.0.1:%d/mcp", port);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(resource, &a), MCP_OK);
  mcp_auth_set_issuer(a, issuer);
  mcp_auth_set_jwks_file(a, jwks_path);
  mcp_auth_add_scope_supported(a, "mcp:tools");
  assert_int_equal(mcp_auth_set_dpop(a, MCP_AUTH_DPOP_REQUIRE), MCP_OK);
  fixture f;
  fixture_new_server(&f, "dpop-e2e");
  add_tool(f.server, "whoami", whoami, MCP_TASK_FORBIDDEN);
  mcp_http_options_t *o = NULL;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  mcp_http_options_set_bind(o, "127.0.0.1", (uint16_t)port);
  mcp_http_options_set_shutdown_deadline_ms(o, 2000);
  mcp_http_options_set_auth(o, a);
  fixture_serve(&f, o);

  /* client credentials + DPoP: the AS nonce retry, a bound token, a proof
   * per MCP request; no terminal needed (no user in this grant) */
  char *out = NULL;
  MR_RUN(0, &out, "-u", resource, "--grant", "client_credentials",
         "--client-id", "svc", "--client-secret", "s3cret", "--dpop", "tools",
         "call", "whoami");
  assert_non_null(strstr(out, "sub=svc"));
  free(out);
  assert_int_equal(atomic_load(&nonce_challenges), 1);
  assert_int_equal(atomic_load(&bound_tokens), 1);
  assert_int_equal(atomic_load(&token_requests), 2);

  /* without --dpop: a Bearer token, which this server refuses */
  char *err = NULL;
  const char *bearer[] = {"-u",          resource,    "--grant",
                          "client_credentials", "--client-id", "svc",
                          "--client-secret",    "s3cret",      "tools",
                          "call",        "whoami",    NULL};
  assert_int_not_equal(mr_run(bearer, NULL, &err), 0);
  assert_non_null(strstr(err, "401"));
  free(err);

  /* a wrong secret: the AS's error reaches the user */
  const char *wrong[] = {"-u",          resource,    "--grant",
                         "client_credentials", "--client-id", "svc",
                         "--client-secret",    "nope",        "--dpop",
                         "tools",       "call",      "whoami",  NULL};
  assert_int_not_equal(mr_run(wrong, NULL, &err), 0);
  assert_non_null(strstr(err, "invalid_client"));
  free(err);

  /* flags without what they need are refused before any request */
  int before = atomic_load(&token_requests);
  const char *no_id[] = {"-u", resource, "--grant", "client_credentials",
                         "tools", "list", NULL};
  assert_int_equal(mr_run(no_id, NULL, &err), 2);
  assert_non_null(strstr(err, "--client-id"));
  free(err);
  const char *bad_grant[] = {"-u", resource, "--grant", "password",
                             "tools", "list", NULL};
  assert_int_equal(mr_run(bad_grant, NULL, &err), 2);
  assert_non_null(strstr(err, "--grant"));
  free(err);
  assert_int_equal(atomic_load(&token_requests), before);

  fixture_stop(&f);
  mcp_auth_free(a);
  mini_as_stop(&as);
  EVP_PKEY_free(key);
  unsetenv("MCPC_TOKEN_FILE");
  mr_teardown();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_client_credentials_dpop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
