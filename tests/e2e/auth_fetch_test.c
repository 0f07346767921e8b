/* SPDX-License-Identifier: MIT */
/* auth_fetch_test.c - key fetches never hold the HTTP transport's network
 * threads (issue 25, N3). An authorization server on 127.0.0.1 that
 * accepts connections and never answers: a token request gets 503 with
 * Retry-After at once, metadata GETs and token-less requests stay fast
 * while made-up tokens arrive on four connections, and the hanging fetches
 * are backed off. After a successful fetch the issuer starts hanging:
 * tokens with made-up kids cost valid requests nothing and cause at most
 * one refetch per refresh interval. mcp_auth_verify waits for a fetch but
 * not past its deadline, and mcp_auth_free ends a fetch under way. */
#include <stdatomic.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "auth_keys.h"
#include "http_fixture.h"
#include "mini_as.h"
#include "hang_as.h"
#pragma GCC diagnostic pop
#include "mcp/auth.h"

#define RESOURCE "https://mcp.example.test/mcp"
/* Acceptance (issue 25): requests that need no keys are answered within
 * 50 ms while a key fetch hangs. A shared machine (and a sanitizer build)
 * has its own hiccups: a few of the timed requests may take longer, none
 * near a fetch's stall (4 s and more without the fetcher). */
#define FAST_MS 50
#define SLOW_ALLOWED 2
#define NEVER_MS 1000

static EVP_PKEY *eck, *other;

/* ---- the issuer ----------------------------------------------------------
 * Serves discovery and the JWKS (kid "ec") while it does not hang. */
static char *as_answer(mini_as *as, const char *method, const char *path,
                       const char *body, int *status) {
  hang_as *h = as->ud;
  (void)method;
  (void)body;
  *status = 200;
  char iss[64];
  snprintf(iss, sizeof iss, "http://127.0.0.1:%d", h->port);
  char *out = NULL;
  if (strcmp(path, "/.well-known/oauth-authorization-server") == 0) {
    if (asprintf(&out, "{\"issuer\":\"%s\",\"jwks_uri\":\"%s/jwks\"}", iss,
                 iss) < 0)
      return NULL;
    return out;
  }
  if (strcmp(path, "/jwks") == 0) {
    json_t *doc = json_pack("{s:[o]}", "keys", tk_jwk(eck, "ec", NULL));
    out = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
  }
  return out;
}

static void test_hanging_issuer(void **state) {
  (void)state;
  hang_as as;
  hang_start(&as, as_answer, NULL, true);
  char iss[64];
  snprintf(iss, sizeof iss, "http://127.0.0.1:%d", as.port);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(a, iss), MCP_OK);
  fixture f;
  serve_whoami(&f, "auth-fetch-test", a);

  char *tok =
      tk_token(eck, "ES256", "ec", tk_claims(iss, RESOURCE, "dan", NULL));
  char *made_up =
      tk_token(other, "ES256", "nope", tk_claims(iss, RESOURCE, "eve", NULL));
  /* a token that needs the keys: 503 with Retry-After, at once */
  answer t = request(f.port, tok, NULL);
  print_message("token request: %d in %lld ms, Retry-After %s\n", t.status,
                (long long)t.ms, t.retry_after);
  assert_int_equal(t.status, 503);
  assert_true(t.ms < 2000);
  assert_true(atoi(t.retry_after) >= 1);

  /* four connections of made-up tokens; meanwhile nothing else waits */
  atomic_bool stop = false;
  spammer sp[4];
  for (int i = 0; i < 4; i++) {
    sp[i] = (spammer){0, f.port, made_up, &stop, 0, 0, 0, false, 0};
    pthread_create(&sp[i].thread, NULL, spam_main, &sp[i]);
  }
  int slow = 0;
  int64_t worst = slowest_keyless(f.port, 25, FAST_MS, &slow);
  t = request(f.port, tok, NULL);
  atomic_store(&stop, true);
  int sent = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(sp[i].thread, NULL);
    sent += sp[i].sent;
    assert_int_equal(sp[i].slow, 0);
    assert_int_equal(sp[i].other, 0);
  }
  int fetches = atomic_load(&as.accepted);
  print_message("metadata/token-less: slowest %lld ms, %d of 50 over %d ms; "
                "%d made-up tokens; token request %d in %lld ms; %d fetches\n",
                (long long)worst, slow, FAST_MS, sent, t.status,
                (long long)t.ms, fetches);
  assert_true(slow <= SLOW_ALLOWED);
  assert_true(worst < NEVER_MS);
  assert_int_equal(t.status, 503);
  assert_true(t.ms < 2000);
  assert_true(sent >= 20);
  /* one fetch hangs until its deadline; the made-up tokens add none */
  assert_true(fetches <= 2);

  fixture_stop(&f);
  /* the fetcher is inside a hanging transfer: freeing ends it */
  int64_t t0 = now_ms();
  mcp_auth_free(a);
  int64_t free_ms = now_ms() - t0;
  print_message("mcp_auth_free during a fetch: %lld ms\n", (long long)free_ms);
  assert_true(free_ms < 2000);
  free(tok);
  free(made_up);
  hang_stop(&as);
}

/* After the keys were fetched the issuer hangs: valid tokens are served at
 * once, tokens with made-up kids are answered (503 while a refresh runs,
 * 401 after) and refresh at most once per refresh interval. */
static void test_garbage_kids_after_keys(void **state) {
  (void)state;
  hang_as as;
  hang_start(&as, as_answer, NULL, false);
  char iss[64];
  snprintf(iss, sizeof iss, "http://127.0.0.1:%d", as.port);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_issuer(a, iss), MCP_OK);
  assert_int_equal(mcp_auth_set_refresh_interval_s(a, 2), MCP_OK);
  fixture f;
  serve_whoami(&f, "auth-fetch-test", a);
  char *tok =
      tk_token(eck, "ES256", "ec", tk_claims(iss, RESOURCE, "dan", NULL));
  char *made_up =
      tk_token(other, "ES256", "nope", tk_claims(iss, RESOURCE, "eve", NULL));
  /* the keys were asked for when the server started */
  answer t = {0, "", 0};
  for (int i = 0; i < 100 && t.status != 200; i++) {
    t = request(f.port, tok, NULL);
    if (t.status != 200)
      sleep_ms(20);
  }
  assert_int_equal(t.status, 200);
  assert_int_equal(atomic_load(&as.accepted), 2); /* metadata + JWKS */
  /* rotation is still picked up: the issuer answers, kid unknown: 401
   * after the one refetch */
  sleep_ms(2100);
  answer g = request(f.port, made_up, NULL);
  assert_true(g.status == 503 || g.status == 401);
  for (int i = 0; i < 50 && g.status != 401; i++) {
    sleep_ms(20);
    g = request(f.port, made_up, NULL);
  }
  assert_int_equal(g.status, 401);
  assert_int_equal(atomic_load(&as.accepted), 3); /* one JWKS refetch */

  atomic_store(&as.hang, true);
  sleep_ms(2100); /* the refresh interval has passed */
  atomic_bool stop = false;
  spammer sp[2];
  for (int i = 0; i < 2; i++) {
    sp[i] = (spammer){0, f.port, made_up, &stop, 0, 0, 0, false, 0};
    pthread_create(&sp[i].thread, NULL, spam_main, &sp[i]);
  }
  int64_t worst = 0;
  int slow = 0;
  for (int i = 0; i < 40; i++) {
    t = request(f.port, tok, NULL);
    assert_int_equal(t.status, 200);
    worst = t.ms > worst ? t.ms : worst;
    slow += t.ms >= FAST_MS;
    sleep_ms(50);
  }
  atomic_store(&stop, true);
  for (int i = 0; i < 2; i++) {
    pthread_join(sp[i].thread, NULL);
    assert_int_equal(sp[i].slow, 0);
    assert_int_equal(sp[i].other, 0);
  }
  int refetches = atomic_load(&as.accepted) - 3;
  print_message("valid tokens beside made-up kids: slowest %lld ms, %d of 40 "
                "over %d ms, %d refetches\n",
                (long long)worst, slow, FAST_MS, refetches);
  assert_true(slow <= SLOW_ALLOWED);
  assert_true(worst < NEVER_MS);
  /* one refetch hangs to its deadline (4 s), then backs off */
  assert_true(refetches >= 1 && refetches <= 2);
  fixture_stop(&f);
  mcp_auth_free(a);
  free(tok);
  free(made_up);
  hang_stop(&as);
}

/* mcp_auth_verify may wait for the fetch, but not past its deadline. */
static void test_verify_deadline(void **state) {
  (void)state;
  hang_as as;
  hang_start(&as, as_answer, NULL, true);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/jwks", as.port);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_jwks_uri(a, url), MCP_OK);
  char *tok = tk_token(eck, "ES256", "ec",
                       tk_claims("https://iss.test", RESOURCE, "dan", NULL));
  char *sub = NULL, *scopes = NULL;
  mcp_error_t err;
  int64_t t0 = now_ms();
  assert_int_equal(mcp_auth_verify(a, tok, &sub, &scopes, &err), MCP_ERR_IO);
  int64_t took = now_ms() - t0;
  print_message("verify against a hanging JWKS URL: %lld ms (%s)\n",
                (long long)took, err.message);
  assert_true(took >= 3000 && took < 6000);
  /* backed off: the next call does not fetch (nor wait) again */
  t0 = now_ms();
  assert_int_equal(mcp_auth_verify(a, tok, &sub, &scopes, &err), MCP_ERR_IO);
  assert_true(now_ms() - t0 < 500);
  assert_int_equal(atomic_load(&as.accepted), 1);
  mcp_auth_free(a);
  free(tok);
  hang_stop(&as);
}

int main(void) {
  eck = tk_gen("EC");
  other = tk_gen("EC");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hanging_issuer),
      cmocka_unit_test(test_garbage_kids_after_keys),
      cmocka_unit_test(test_verify_deadline),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  EVP_PKEY_free(eck);
  EVP_PKEY_free(other);
  return rc;
}
