/* SPDX-License-Identifier: MIT */
/* mcpc_oauth_test.c - the OAuth client (mcpc, libmcp-client) against the
 * resource server (libmcp, in process) and an authorization server of the
 * test's own (mini_as.h: RFC 8414 metadata, dynamic registration, an
 * authorization endpoint that approves at once, a token endpoint that
 * checks PKCE and issues ES256 JWTs for the requested resource and scope).
 * mcpc logs in on the first 401 and calls a scoped tool; the token file
 * is private (0600) and reused; a 403 insufficient_scope makes it step up;
 * auth status / logout; a token for another audience is refused. */
#include <stdatomic.h>
#include <sys/stat.h>

#include "auth_keys.h"
#include "client/oauth_http.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#include "mcpc_run.h"
#pragma GCC diagnostic pop
#include "mcp/auth.h"
#include "mini_as.h"

static EVP_PKEY *key;
static char resource[128], issuer[128], jwks_path[400], token_path[400];

typedef struct as_state {
  atomic_int authorizations, tokens, registrations;
  pthread_mutex_t lock; /* the strings: written by the server's thread */
  char challenge[128], scope[256], res[256];
} as_state;
static as_state st = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A copy of one of st's strings, taken under its lock. */
static const char *seen(const char *field) {
  static char copy[256];
  pthread_mutex_lock(&st.lock);
  snprintf(copy, sizeof copy, "%s", field);
  pthread_mutex_unlock(&st.lock);
  return copy;
}

static char *as_answer(mini_as *as, const char *method, const char *path,
                       const char *body, int *status) {
  (void)method;
  *status = 200;
  if (strcmp(path, "/.well-known/oauth-authorization-server") == 0) {
    char *out = NULL;
    if (asprintf(
            &out,
            "{\"issuer\":\"%s\",\"authorization_endpoint\":\"%s/authorize\","
            "\"token_endpoint\":\"%s/token\",\"registration_endpoint\":"
            "\"%s/register\",\"code_challenge_methods_supported\":"
            "[\"S256\"],\"response_types_supported\":[\"code\"]}",
            issuer, issuer, issuer, issuer) < 0)
      return NULL;
    return out;
  }
  if (strcmp(path, "/register") == 0) {
    atomic_fetch_add(&st.registrations, 1);
    *status = 201;
    return strdup("{\"client_id\":\"mcpc-test\","
                  "\"token_endpoint_auth_method\":\"none\"}");
  }
  if (strncmp(path, "/authorize?", 11) == 0) {
    atomic_fetch_add(&st.authorizations, 1);
    const char *q = path + 11;
    char *redirect = mcp__query_param(q, "redirect_uri");
    char *state = mcp__query_param(q, "state");
    char *ch = mcp__query_param(q, "code_challenge");
    char *scope = mcp__query_param(q, "scope");
    char *res = mcp__query_param(q, "resource");
    pthread_mutex_lock(&st.lock);
    snprintf(st.challenge, sizeof st.challenge, "%s", ch ? ch : "");
    snprintf(st.scope, sizeof st.scope, "%s", scope ? scope : "");
    snprintf(st.res, sizeof st.res, "%s", res ? res : "");
    pthread_mutex_unlock(&st.lock);
    snprintf(as->location, sizeof as->location, "%s?code=c0de&state=%s",
             redirect ? redirect : "", state ? state : "");
    free(redirect);
    free(state);
    free(ch);
    free(scope);
    free(res);
    *status = 302;
    return strdup("{}");
  }
  if (strcmp(path, "/token") == 0) {
    atomic_fetch_add(&st.tokens, 1);
    char *verifier = mcp__query_param(body, "code_verifier");
    char *grant = mcp__query_param(body, "grant_type");
    char *s256 = verifier ? mcp__pkce_s256(verifier) : NULL;
    pthread_mutex_lock(&st.lock);
    bool ok = grant && (strcmp(grant, "refresh_token") == 0 ||
                        (s256 && strcmp(s256, st.challenge) == 0));
    char scope_now[256], res_now[256];
    snprintf(scope_now, sizeof scope_now, "%s", st.scope);
    snprintf(res_now, sizeof res_now, "%s", st.res);
    pthread_mutex_unlock(&st.lock);
    free(verifier);
    free(grant);
    free(s256);
    if (!ok) {
      *status = 400;
      return strdup("{\"error\":\"invalid_grant\"}");
    }
    char *jwt = tk_token(key, "ES256", "k",
                         tk_claims(issuer, res_now, "carol", scope_now));
    json_t *doc = json_pack("{s:s,s:s,s:i,s:s,s:s}", "access_token", jwt,
                            "token_type", "Bearer", "expires_in", 300,
                            "refresh_token", "r1", "scope", scope_now);
    free(jwt);
    char *out = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return out;
  }
  return NULL;
}

static mcp_status whoami(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)args;
  (void)ud;
  mcp_result_add_textf(r, "sub=%s scopes=[%s]",
                       mcp_call_subject(call) ? mcp_call_subject(call) : "-",
                       mcp_call_scopes(call) ? mcp_call_scopes(call) : "-");
  return MCP_OK;
}

static void test_login_call_stepup(void **state) {
  (void)state;
  assert_int_equal(mr_setup("mcpc-oauth"), 0);
  key = tk_gen("EC");
  mini_as as;
  mini_as_start(&as, as_answer, NULL);
  snprintf(issuer, sizeof issuer, "http://127.0.0.1:%d", as.port);
  snprintf(jwks_path, sizeof jwks_path, "%s/jwks.json", mr_tmpdir);
  snprintf(token_path, sizeof token_path, "%s/tokens.json", mr_tmpdir);
  tk_write_jwks(jwks_path, json_pack("[o]", tk_jwk(key, "k", "ES256")));
  setenv("MCPC_TOKEN_FILE", token_path, 1);

  /* the resource server, on a port chosen first (the resource names it) */
  int port = mr_free_port();
  snprintf(resource, sizeof resource, "http://127.0.0.1:%d/mcp", port);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(resource, &a), MCP_OK);
  mcp_auth_set_issuer(a, issuer);
  mcp_auth_set_jwks_file(a, jwks_path);
  mcp_auth_add_scope_supported(a, "mcp:tools");
  mcp_auth_require_scopes(a, "tools/call", NULL, "mcp:tools");
  mcp_auth_require_scopes(a, "tools/call", "admin", "admin");
  fixture f;
  fixture_new_server(&f, "oauth-e2e");
  add_tool(f.server, "whoami", whoami, MCP_TASK_FORBIDDEN);
  add_tool(f.server, "admin", whoami, MCP_TASK_FORBIDDEN);
  mcp_http_options_t *o = NULL;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  mcp_http_options_set_bind(o, "127.0.0.1", (uint16_t)port);
  mcp_http_options_set_shutdown_deadline_ms(o, 2000);
  mcp_http_options_set_auth(o, a);
  fixture_serve(&f, o);

  /* first call: 401, discovery, registration, PKCE, token, retry */
  char *out = NULL;
  MR_RUN(0, &out, "-u", resource, "--oauth-mode", "follow", "tools", "call",
         "whoami");
  assert_non_null(strstr(out, "sub=carol scopes=[mcp:tools]"));
  free(out);
  assert_int_equal(atomic_load(&st.registrations), 1);
  assert_int_equal(atomic_load(&st.authorizations), 1);
  assert_string_equal(seen(st.res), resource); /* RFC 8707 */
  struct stat sb;
  assert_int_equal(stat(token_path, &sb), 0);
  assert_int_equal(sb.st_mode & 0777, 0600);

  /* the stored token is reused: no new authorization */
  MR_RUN(0, &out, "-u", resource, "--oauth-mode", "follow", "tools", "call",
         "whoami");
  free(out);
  assert_int_equal(atomic_load(&st.authorizations), 1);

  /* step-up: admin needs "admin"; the 403 names both scopes */
  MR_RUN(0, &out, "-u", resource, "--oauth-mode", "follow", "tools", "call",
         "admin");
  assert_non_null(strstr(out, "admin"));
  free(out);
  assert_int_equal(atomic_load(&st.authorizations), 2);
  assert_non_null(strstr(seen(st.scope), "mcp:tools"));
  assert_non_null(strstr(seen(st.scope), "admin"));

  /* auth status, logout */
  MR_RUN(0, &out, "-u", resource, "--format", "json", "auth", "status");
  assert_non_null(strstr(out, "\"logged_in\": true"));
  free(out);
  MR_RUN(0, &out, "-u", resource, "auth", "logout");
  free(out);
  MR_RUN(0, &out, "-u", resource, "--format", "json", "auth", "status");
  assert_non_null(strstr(out, "\"logged_in\": false"));
  free(out);
  /* without a terminal and no --oauth-mode: stored tokens only, and a hint */
  char *why = NULL;
  const char *quiet[] = {"-u", resource, "tools", "call", "whoami", NULL};
  int before = atomic_load(&st.authorizations);
  assert_int_not_equal(mr_run(quiet, NULL, &why), 0);
  assert_non_null(strstr(why, "mcpc auth login"));
  free(why);
  assert_int_equal(atomic_load(&st.authorizations), before);

  /* a token for another audience is refused */
  char *other = tk_token(key, "ES256", "k",
                         tk_claims(issuer, "http://elsewhere.test/mcp", "carol",
                                   "mcp:tools admin"));
  char *err = NULL;
  const char *args[] = {"-u",    resource, "--bearer", other,
                        "tools", "call",   "whoami",   NULL};
  assert_int_not_equal(mr_run(args, NULL, &err), 0);
  assert_non_null(strstr(err, "401"));
  free(err);
  free(other);

  fixture_stop(&f);
  mcp_auth_free(a);
  mini_as_stop(&as);
  EVP_PKEY_free(key);
  unsetenv("MCPC_TOKEN_FILE");
  mr_teardown();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_login_call_stepup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
