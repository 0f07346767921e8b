/* SPDX-License-Identifier: MIT */
/* oauth.c - the OAuth 2.1 flow of MCP clients (include/mcp/oauth.h):
 * discovery (RFC 9728 -> RFC 8414 / OpenID), client identity (pre-registered,
 * client ID metadata document, RFC 7591 registration), authorization code
 * with PKCE through a loopback redirect, token refresh, step-up on 403, and
 * the token provider the HTTP transport calls. */
#include "mcp/oauth.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/internal.h"
#include "client/oauth_http.h"
#include "client/oauth_jws.h"
#include "util/form.h"

#define GRANT_JWT_BEARER "urn:ietf:params:oauth:grant-type:jwt-bearer"
#define GRANT_TOKEN_EXCHANGE "urn:ietf:params:oauth:grant-type:token-exchange"
#define TOKEN_TYPE_ID_JAG "urn:ietf:params:oauth:token-type:id-jag"
#define TOKEN_TYPE_ID_TOKEN "urn:ietf:params:oauth:token-type:id_token"
#define ASSERTION_TYPE_JWT "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

struct mcp_oauth {
  pthread_mutex_t lock;
  char *server_url;
  char *client_id, *client_secret, *auth_method; /* registered or given */
  bool preregistered;
  char *client_metadata_url;
  char *token_file, *cacert;
  mcp_oauth_mode mode;
  /* what discovery found */
  char *issuer, *authorize_ep, *token_ep, *register_ep;
  /* tokens */
  char *access_token, *refresh_token, *scope;
  char *resource;     /* as the resource metadata spells it, else server_url */
  int64_t expires_at; /* epoch seconds, 0: unknown */
  mcp_oauth_grant grant;
  mcp__jws_key *client_key; /* private_key_jwt */
  char *assertion;          /* the JWT-bearer grant's (workload identity) */
  /* enterprise-managed authorization: the IdP that turns id_token into an
   * ID-JAG (RFC 8693 token exchange) */
  char *idp_token_ep, *idp_client_id, *idp_client_secret, *id_token;
  bool dpop;                /* request DPoP-bound tokens (RFC 9449) */
  mcp__jws_key *dpop_key;   /* made on first use, for the object's life */
  char *as_nonce, *rs_nonce; /* the last DPoP-Nonce of each server */
  bool token_dpop;          /* access_token is DPoP-bound */
  char *rs_nonce_sent;      /* the nonce of the last resource proof */
};

static char *dup_or_null(const char *s) {
  return s ? strdup(s) : NULL;
}

static void replace(char **slot, const char *v) {
  char *c = dup_or_null(v);
  free(*slot);
  *slot = c;
}

mcp_status mcp_oauth_new(const char *server_url, mcp_oauth_t **out) {
  if (server_url == NULL || out == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_oauth_t *a = calloc(1, sizeof *a);
  if (a == NULL || (a->server_url = strdup(server_url)) == NULL) {
    free(a);
    return MCP_ERR_NOMEM;
  }
  pthread_mutex_init(&a->lock, NULL);
  *out = a;
  return MCP_OK;
}

static void forget_tokens(mcp_oauth_t *a) {
  replace(&a->access_token, NULL);
  replace(&a->refresh_token, NULL);
  a->expires_at = 0;
}

void mcp_oauth_free(mcp_oauth_t *a) {
  if (a == NULL)
    return;
  forget_tokens(a);
  char **s[] = {&a->server_url,
                &a->client_id,
                &a->client_secret,
                &a->auth_method,
                &a->client_metadata_url,
                &a->token_file,
                &a->cacert,
                &a->issuer,
                &a->authorize_ep,
                &a->token_ep,
                &a->register_ep,
                &a->scope,
                &a->resource,
                &a->assertion,
                &a->idp_token_ep,
                &a->idp_client_id,
                &a->idp_client_secret,
                &a->id_token,
                &a->as_nonce,
                &a->rs_nonce,
                &a->rs_nonce_sent};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
    replace(s[i], NULL);
  mcp__jws_key_free(a->client_key);
  mcp__jws_key_free(a->dpop_key);
  pthread_mutex_destroy(&a->lock);
  free(a);
}

mcp_status mcp_oauth_set_client(mcp_oauth_t *a, const char *client_id,
                                const char *client_secret) {
  if (a == NULL || client_id == NULL)
    return MCP_ERR_INVALID_ARG;
  replace(&a->client_id, client_id);
  replace(&a->client_secret, client_secret);
  replace(&a->auth_method, client_secret ? "client_secret_basic" : "none");
  a->preregistered = true;
  return MCP_OK;
}

mcp_status mcp_oauth_set_client_auth_method(mcp_oauth_t *a,
                                            const char *method) {
  if (a == NULL || method == NULL || a->client_id == NULL)
    return MCP_ERR_INVALID_ARG;
  bool secret = strcmp(method, "client_secret_basic") == 0 ||
                strcmp(method, "client_secret_post") == 0;
  if (!(secret || strcmp(method, "none") == 0) ||
      (secret && a->client_secret == NULL))
    return MCP_ERR_INVALID_ARG; /* private_key_jwt: mcp_oauth_set_client_key */
  replace(&a->auth_method, method);
  return MCP_OK;
}

mcp_status mcp_oauth_set_client_key(mcp_oauth_t *a, const char *client_id,
                                    const char *private_key_pem,
                                    const char *alg, mcp_error_t *err) {
  if (a == NULL || client_id == NULL || private_key_pem == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "a client id and a private key are required");
  mcp__jws_key *k = mcp__jws_key_from_pem(private_key_pem, alg, err);
  if (k == NULL)
    return err ? err->status : MCP_ERR_INVALID_ARG;
  mcp__jws_key_free(a->client_key);
  a->client_key = k;
  replace(&a->client_id, client_id);
  replace(&a->client_secret, NULL);
  replace(&a->auth_method, "private_key_jwt");
  a->preregistered = true;
  return MCP_OK;
}

mcp_status mcp_oauth_set_grant(mcp_oauth_t *a, mcp_oauth_grant grant) {
  if (a == NULL || grant < MCP_OAUTH_GRANT_AUTHORIZATION_CODE ||
      grant > MCP_OAUTH_GRANT_ENTERPRISE)
    return MCP_ERR_INVALID_ARG;
  a->grant = grant;
  return MCP_OK;
}

mcp_status mcp_oauth_set_assertion(mcp_oauth_t *a, const char *jwt) {
  if (a == NULL || jwt == NULL || jwt[0] == '\0')
    return MCP_ERR_INVALID_ARG;
  replace(&a->assertion, jwt);
  return MCP_OK;
}

mcp_status mcp_oauth_set_enterprise_idp(mcp_oauth_t *a,
                                        const char *token_endpoint,
                                        const char *client_id,
                                        const char *client_secret,
                                        const char *id_token) {
  if (a == NULL || token_endpoint == NULL || id_token == NULL)
    return MCP_ERR_INVALID_ARG;
  replace(&a->idp_token_ep, token_endpoint);
  replace(&a->idp_client_id, client_id);
  replace(&a->idp_client_secret, client_secret);
  replace(&a->id_token, id_token);
  return MCP_OK;
}

mcp_status mcp_oauth_set_dpop(mcp_oauth_t *a, bool enabled) {
  if (a == NULL)
    return MCP_ERR_INVALID_ARG;
  pthread_mutex_lock(&a->lock);
  a->dpop = enabled;
  mcp_status st = MCP_OK;
  if (enabled && a->dpop_key == NULL &&
      (a->dpop_key = mcp__jws_key_generate(NULL)) == NULL)
    st = MCP_ERR_NOMEM;
  pthread_mutex_unlock(&a->lock);
  return st;
}

mcp_status mcp_oauth_set_client_metadata_url(mcp_oauth_t *a, const char *url) {
  if (a == NULL)
    return MCP_ERR_INVALID_ARG;
  replace(&a->client_metadata_url, url);
  return MCP_OK;
}

mcp_status mcp_oauth_set_cacert(mcp_oauth_t *a, const char *path) {
  if (a == NULL)
    return MCP_ERR_INVALID_ARG;
  replace(&a->cacert, path);
  return MCP_OK;
}

mcp_status mcp_oauth_set_mode(mcp_oauth_t *a, mcp_oauth_mode mode) {
  if (a == NULL || mode < MCP_OAUTH_BROWSER || mode > MCP_OAUTH_NONE)
    return MCP_ERR_INVALID_ARG;
  a->mode = mode;
  return MCP_OK;
}

/* ---- token file ---------------------------------------------------------
 * {"<server url>": {"access_token", "refresh_token", "expires_at", "scope",
 *  "client_id", "client_secret", "token_endpoint", "issuer"}}           */

static json_t *load_file(const char *path) {
  json_t *doc = json_load_file(path, 0, NULL);
  if (!json_is_object(doc)) {
    json_decref(doc);
    doc = json_object();
  }
  return doc;
}

static mcp_status save_tokens(mcp_oauth_t *a) {
  if (a->token_file == NULL)
    return MCP_OK;
  json_t *doc = load_file(a->token_file);
  /* a DPoP-bound token is useless without its key, which is never
   * written down: such tokens live in memory only */
  if (a->access_token && !a->token_dpop) {
    json_t *e = json_object();
    json_object_set_new(e, "access_token", json_string(a->access_token));
    if (a->refresh_token)
      json_object_set_new(e, "refresh_token", json_string(a->refresh_token));
    json_object_set_new(e, "expires_at", json_integer(a->expires_at));
    if (a->scope)
      json_object_set_new(e, "scope", json_string(a->scope));
    if (a->client_id && !a->preregistered)
      json_object_set_new(e, "client_id", json_string(a->client_id));
    if (a->client_secret && !a->preregistered)
      json_object_set_new(e, "client_secret", json_string(a->client_secret));
    if (a->auth_method && !a->preregistered)
      json_object_set_new(e, "auth_method", json_string(a->auth_method));
    if (a->token_ep)
      json_object_set_new(e, "token_endpoint", json_string(a->token_ep));
    if (a->issuer)
      json_object_set_new(e, "issuer", json_string(a->issuer));
    json_object_set_new(doc, a->server_url, e);
  } else {
    json_object_del(doc, a->server_url);
  }
  char *text = json_dumps(doc, JSON_INDENT(2));
  json_decref(doc);
  if (text == NULL)
    return MCP_ERR_NOMEM;
  /* written to a private temporary file, then renamed over the old one */
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", a->token_file, (int)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  mcp_status st = MCP_ERR_IO;
  if (fd >= 0) {
    size_t n = strlen(text);
    if (fchmod(fd, 0600) == 0 && write(fd, text, n) == (ssize_t)n &&
        fsync(fd) == 0)
      st = MCP_OK;
    close(fd);
    if (st == MCP_OK && rename(tmp, a->token_file) != 0)
      st = MCP_ERR_IO;
    if (st != MCP_OK)
      unlink(tmp);
  }
  free(text);
  return st;
}

mcp_status mcp_oauth_set_token_file(mcp_oauth_t *a, const char *path) {
  if (a == NULL || path == NULL)
    return MCP_ERR_INVALID_ARG;
  replace(&a->token_file, path);
  json_t *doc = load_file(path);
  json_t *e = json_object_get(doc, a->server_url);
  if (json_is_object(e)) {
    replace(&a->access_token,
            json_string_value(json_object_get(e, "access_token")));
    replace(&a->refresh_token,
            json_string_value(json_object_get(e, "refresh_token")));
    replace(&a->scope, json_string_value(json_object_get(e, "scope")));
    a->expires_at = json_integer_value(json_object_get(e, "expires_at"));
    replace(&a->token_ep,
            json_string_value(json_object_get(e, "token_endpoint")));
    replace(&a->issuer, json_string_value(json_object_get(e, "issuer")));
    if (!a->preregistered) {
      replace(&a->client_id,
              json_string_value(json_object_get(e, "client_id")));
      replace(&a->client_secret,
              json_string_value(json_object_get(e, "client_secret")));
      replace(&a->auth_method,
              json_string_value(json_object_get(e, "auth_method")));
    }
  }
  json_decref(doc);
  return MCP_OK;
}

/* ---- discovery ---------------------------------------------------------- */

/* GET url as a JSON object (NULL when it is not one, or not 200). */
static json_t *get_json(mcp_oauth_t *a, const char *url, mcp_error_t *err) {
  mcp__oreq req = {url, NULL, NULL, NULL, NULL, a->cacert, NULL};
  mcp__oresp r;
  if (mcp__oauth_http(&req, &r, err) != MCP_OK)
    return NULL;
  json_t *doc = r.status == 200 ? json_loads(r.body, 0, NULL) : NULL;
  mcp__oresp_free(&r);
  if (!json_is_object(doc)) {
    json_decref(doc);
    return NULL;
  }
  return doc;
}

/* "scheme://authority" length and path (without query) of url. */
static size_t origin_len(const char *url) {
  const char *p = strstr(url, "://");
  if (p == NULL)
    return 0;
  p += 3;
  return (size_t)(p + strcspn(p, "/?#") - url);
}

static char *well_known(const char *base, const char *suffix, bool append) {
  size_t ol = origin_len(base);
  const char *path = base + ol;
  size_t pl = strcspn(path, "?#");
  while (pl > 0 && path[pl - 1] == '/')
    pl--;
  char *url = NULL;
  int n =
      append
          ? asprintf(&url, "%.*s%.*s%s", (int)ol, base, (int)pl, path, suffix)
          : asprintf(&url, "%.*s%s%.*s", (int)ol, base, suffix, (int)pl, path);
  return n < 0 ? NULL : url;
}

/* The protected-resource metadata: from the challenge, else the
 * path-suffixed then the root well-known URL. */
static json_t *resource_metadata(mcp_oauth_t *a, const char *challenge,
                                 mcp_error_t *err) {
  char *hinted = mcp__challenge_param(challenge, "resource_metadata");
  char *urls[3] = {
      hinted,
      well_known(a->server_url, "/.well-known/oauth-protected-resource", false),
      NULL};
  size_t ol = origin_len(a->server_url);
  if (asprintf(&urls[2], "%.*s/.well-known/oauth-protected-resource", (int)ol,
               a->server_url) < 0)
    urls[2] = NULL;
  json_t *doc = NULL;
  for (int i = 0; i < 3 && doc == NULL; i++)
    if (urls[i])
      doc = get_json(a, urls[i], err);
  for (int i = 0; i < 3; i++)
    free(urls[i]);
  return doc;
}

/* RFC 8707/9728: the metadata's resource must name this server (same
 * origin and a path prefix). */
static bool resource_matches(const char *resource, const char *server) {
  if (resource == NULL)
    return true;
  size_t n = strlen(resource);
  while (n > 0 && resource[n - 1] == '/')
    n--;
  return strncmp(server, resource, n) == 0 &&
         (server[n] == '\0' || server[n] == '/' || server[n] == '?' ||
          resource[n - 1] == '/');
}

/* The authorization server's metadata (RFC 8414 3.1 and OpenID
 * Connect Discovery, path inserted or appended); its issuer must be as. */
static json_t *as_metadata(mcp_oauth_t *a, const char *as, bool strict,
                           mcp_error_t *err) {
  char *urls[3] = {
      well_known(as, "/.well-known/oauth-authorization-server", false),
      well_known(as, "/.well-known/openid-configuration", false),
      well_known(as, "/.well-known/openid-configuration", true)};
  json_t *doc = NULL;
  for (int i = 0; i < 3 && doc == NULL; i++) {
    if (urls[i] == NULL)
      continue;
    doc = get_json(a, urls[i], err);
    const char *iss = json_string_value(json_object_get(doc, "issuer"));
    if (doc && strict && (iss == NULL || strcmp(iss, as) != 0)) {
      mcp_error_set(err, MCP_ERR_PEER,
                    "authorization server metadata names issuer %s, not %s",
                    iss ? iss : "(none)", as);
      json_decref(doc);
      doc = NULL;
      break; /* a mismatch is fatal, not a reason to try elsewhere */
    }
  }
  for (int i = 0; i < 3; i++)
    free(urls[i]);
  return doc;
}

static bool array_has(const json_t *arr, const char *v) {
  size_t i;
  const json_t *e;
  json_array_foreach(arr, i, e) {
    if (json_is_string(e) && strcmp(json_string_value(e), v) == 0)
      return true;
  }
  return false;
}

static char *join_array(const json_t *arr) {
  mcp__buf b;
  mcp__buf_init(&b);
  size_t i;
  const json_t *e;
  json_array_foreach(arr, i, e) {
    if (!json_is_string(e))
      continue;
    if (b.len)
      mcp__buf_append_char(&b, ' ');
    mcp__buf_append_str(&b, json_string_value(e));
  }
  if (b.len == 0) {
    mcp__buf_free(&b);
    return NULL;
  }
  mcp__buf_append(&b, "", 1);
  size_t n;
  return mcp__buf_steal(&b, &n);
}

/* Union of two space-separated scope lists (either may be NULL). */
static char *scope_union(const char *x, const char *y) {
  mcp__buf b;
  mcp__buf_init(&b);
  const char *lists[2] = {x, y};
  for (int l = 0; l < 2; l++)
    for (const char *p = lists[l]; p && *p;) {
      p += strspn(p, " ");
      size_t n = strcspn(p, " ");
      if (n) {
        bool have = false;
        for (const char *q = b.len ? b.data : ""; *q && !have;) {
          q += strspn(q, " ");
          size_t m = strcspn(q, " ");
          have = m == n && strncmp(p, q, n) == 0;
          q += m;
        }
        if (!have) {
          if (b.len)
            mcp__buf_append_char(&b, ' ');
          mcp__buf_append(&b, p, n);
          mcp__buf_append(&b, "", 1);
          b.len--;
        }
      }
      p += n;
    }
  if (b.len == 0) {
    mcp__buf_free(&b);
    return NULL;
  }
  size_t n;
  return mcp__buf_steal(&b, &n);
}

/* ---- client identity ---------------------------------------------------- */

static mcp_status register_client(mcp_oauth_t *a, const json_t *meta,
                                  const char *redirect_uri, const char *scope,
                                  mcp_error_t *err) {
  if (a->preregistered)
    return MCP_OK;
  if (a->client_metadata_url &&
      json_is_true(
          json_object_get(meta, "client_id_metadata_document_supported"))) {
    replace(&a->client_id, a->client_metadata_url);
    replace(&a->client_secret, NULL);
    replace(&a->auth_method, "none");
    return MCP_OK;
  }
  const char *ep =
      json_string_value(json_object_get(meta, "registration_endpoint"));
  if (ep == NULL)
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "the authorization server offers no client "
                         "registration: configure a client id");
  const json_t *methods =
      json_object_get(meta, "token_endpoint_auth_methods_supported");
  const char *method = "none";
  if (methods && !array_has(methods, "none"))
    method = array_has(methods, "client_secret_basic")  ? "client_secret_basic"
             : array_has(methods, "client_secret_post") ? "client_secret_post"
                                                        : "none";
  json_t *body =
      /* SEP-837: a loopback redirect makes this a native application */
      json_pack("{s:s,s:s,s:[s],s:[s,s],s:[s],s:s}", "application_type",
                "native", "client_name", "mcpc (libmcp)", "redirect_uris",
                redirect_uri, "grant_types", "authorization_code",
                "refresh_token", "response_types", "code",
                "token_endpoint_auth_method", method);
  if (scope)
    json_object_set_new(body, "scope", json_string(scope));
  char *text = json_dumps(body, JSON_COMPACT);
  json_decref(body);
  mcp__oreq req = {ep, NULL, text, NULL, NULL, a->cacert, NULL};
  mcp__oresp r;
  mcp_status st = mcp__oauth_http(&req, &r, err);
  free(text);
  if (st != MCP_OK)
    return st;
  json_t *doc = json_loads(r.body, 0, NULL);
  long status = r.status;
  mcp__oresp_free(&r);
  const char *id = json_string_value(json_object_get(doc, "client_id"));
  if ((status != 200 && status != 201) || id == NULL) {
    json_decref(doc);
    return mcp_error_set(err, MCP_ERR_PEER,
                         "client registration failed (HTTP %ld)", status);
  }
  replace(&a->client_id, id);
  replace(&a->client_secret,
          json_string_value(json_object_get(doc, "client_secret")));
  const char *m =
      json_string_value(json_object_get(doc, "token_endpoint_auth_method"));
  replace(&a->auth_method, m ? m : (a->client_secret ? method : "none"));
  json_decref(doc);
  return MCP_OK;
}

/* ---- tokens ------------------------------------------------------------- */

/* private_key_jwt (RFC 7523 2.2): a short-lived assertion signed with the
 * client's key, for the authorization server named aud. */
static char *client_assertion(mcp_oauth_t *a, const char *aud) {
  char *jti = mcp__random_b64url();
  int64_t now = (int64_t)time(NULL);
  json_t *claims =
      jti ? json_pack("{s:s,s:s,s:s,s:s,s:I,s:I}", "iss", a->client_id, "sub",
                      a->client_id, "aud", aud, "jti", jti, "iat",
                      (json_int_t)now, "exp", (json_int_t)(now + 300))
          : NULL;
  json_t *header = json_pack("{s:s}", "typ", "JWT");
  char *jwt = claims && header ? mcp__jws_sign(a->client_key, header, claims)
                               : NULL;
  json_decref(claims);
  json_decref(header);
  free(jti);
  return jwt;
}

/* POSTs form to a token endpoint (ep) with a client's authentication (id,
 * secret and method; method "private_key_jwt" signs with a->client_key)
 * and, when DPoP is on, a proof; a use_dpop_nonce refusal is retried once
 * with the server's nonce (RFC 9449 8). *doc: the answer (new reference)
 * when it is HTTP 200. */
static mcp_status post_token_form(mcp_oauth_t *a, const char *ep,
                                  mcp__buf *form, const char *id,
                                  const char *secret, const char *method,
                                  bool dpop, json_t **doc, long *status,
                                  mcp_error_t *err) {
  *doc = NULL;
  bool basic = method && strcmp(method, "client_secret_basic") == 0 && secret;
  if (method && strcmp(method, "private_key_jwt") == 0 && a->client_key) {
    char *jwt = client_assertion(a, a->issuer ? a->issuer : ep);
    if (jwt == NULL)
      return mcp_error_set(err, MCP_ERR_NOMEM, "cannot sign the client "
                                               "assertion");
    mcp__form_append(form, "client_id", id);
    mcp__form_append(form, "client_assertion_type", ASSERTION_TYPE_JWT);
    mcp__form_append(form, "client_assertion", jwt);
    free(jwt);
  } else if (!basic) {
    mcp__form_append(form, "client_id", id);
    if (method && strcmp(method, "client_secret_post") == 0)
      mcp__form_append(form, "client_secret", secret);
  }
  mcp__buf_append(form, "", 1);
  form->len--;
  /* RFC 6749 2.3.1: Basic credentials are form-encoded first */
  mcp__buf u, p;
  mcp__buf_init(&u);
  mcp__buf_init(&p);
  if (basic) {
    mcp__form_append(&u, "x", id);
    mcp__form_append(&p, "x", secret);
  }
  mcp_status st = MCP_OK;
  for (int attempt = 0; attempt < 2; attempt++) {
    char *proof = dpop ? mcp__dpop_proof(a->dpop_key, "POST", ep, NULL,
                                         a->as_nonce)
                       : NULL;
    if (dpop && proof == NULL) {
      st = mcp_error_set(err, MCP_ERR_NOMEM, "cannot sign a DPoP proof");
      break;
    }
    mcp__oreq req = {ep,
                     form->data,
                     NULL,
                     basic ? u.data + 2 : NULL,
                     basic ? p.data + 2 : NULL,
                     a->cacert,
                     proof};
    mcp__oresp r;
    st = mcp__oauth_http(&req, &r, err);
    free(proof);
    if (st != MCP_OK)
      break;
    if (dpop && r.dpop_nonce)
      replace(&a->as_nonce, r.dpop_nonce);
    json_decref(*doc);
    *doc = json_loads(r.body, 0, NULL);
    *status = r.status;
    bool again = dpop && attempt == 0 && r.status == 400 && r.dpop_nonce &&
                 json_is_string(json_object_get(*doc, "error")) &&
                 strcmp(json_string_value(json_object_get(*doc, "error")),
                        "use_dpop_nonce") == 0;
    mcp__oresp_free(&r);
    if (!again)
      break;
  }
  mcp__buf_free(&u);
  mcp__buf_free(&p);
  if (st != MCP_OK) {
    json_decref(*doc);
    *doc = NULL;
  }
  return st;
}

/* The refusal in a token endpoint's answer, as an error. */
static mcp_status token_refused(const char *what, long status,
                                const json_t *doc, mcp_error_t *err) {
  const char *e = json_string_value(json_object_get(doc, "error"));
  const char *d = json_string_value(json_object_get(doc, "error_description"));
  return mcp_error_set(err, MCP_ERR_PEER, "%s refused (HTTP %ld%s%s%s%s)",
                       what, status, e ? ": " : "", e ? e : "",
                       d ? ": " : "", d ? d : "");
}

/* POSTs form to the token endpoint with the client's authentication and
 * takes the tokens of the answer. */
static mcp_status token_request(mcp_oauth_t *a, mcp__buf *form,
                                mcp_error_t *err) {
  json_t *doc = NULL;
  long status = 0;
  mcp_status st =
      post_token_form(a, a->token_ep, form, a->client_id, a->client_secret,
                      a->auth_method, a->dpop, &doc, &status, err);
  if (st != MCP_OK)
    return st;
  const char *at = json_string_value(json_object_get(doc, "access_token"));
  const char *tt = json_string_value(json_object_get(doc, "token_type"));
  bool bound = tt != NULL && strcasecmp(tt, "dpop") == 0;
  if (status != 200 || at == NULL ||
      (tt != NULL && strcasecmp(tt, "bearer") != 0 && !(bound && a->dpop))) {
    st = token_refused("token request", status, doc, err);
    json_decref(doc);
    return st;
  }
  replace(&a->access_token, at);
  a->token_dpop = bound;
  const char *rt = json_string_value(json_object_get(doc, "refresh_token"));
  if (rt)
    replace(&a->refresh_token, rt);
  const char *sc = json_string_value(json_object_get(doc, "scope"));
  if (sc)
    replace(&a->scope, sc);
  json_int_t exp = json_integer_value(json_object_get(doc, "expires_in"));
  a->expires_at = exp > 0 ? (int64_t)time(NULL) + exp : 0;
  json_decref(doc);
  save_tokens(a);
  return MCP_OK;
}

/* Enterprise-managed authorization (SEP-990): the IdP exchanges the user's
 * ID token for an ID-JAG (RFC 8693, draft-ietf-oauth-identity-assertion-
 * authz-grant) naming our authorization server and resource; *jag:
 * malloc'd. */
static mcp_status exchange_id_token(mcp_oauth_t *a, const char *scope,
                                    char **jag, mcp_error_t *err) {
  *jag = NULL;
  if (a->idp_token_ep == NULL || a->id_token == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "enterprise-managed authorization needs the IdP's "
                         "token endpoint and an ID token");
  mcp__buf f;
  mcp__buf_init(&f);
  mcp__form_append(&f, "grant_type", GRANT_TOKEN_EXCHANGE);
  mcp__form_append(&f, "requested_token_type", TOKEN_TYPE_ID_JAG);
  mcp__form_append(&f, "subject_token", a->id_token);
  mcp__form_append(&f, "subject_token_type", TOKEN_TYPE_ID_TOKEN);
  mcp__form_append(&f, "audience", a->issuer);
  mcp__form_append(&f, "resource", a->resource);
  mcp__form_append(&f, "scope", scope);
  json_t *doc = NULL;
  long status = 0;
  mcp_status st = post_token_form(
      a, a->idp_token_ep, &f, a->idp_client_id, a->idp_client_secret,
      a->idp_client_secret ? "client_secret_post" : "none", false, &doc,
      &status, err);
  mcp__buf_free(&f);
  if (st != MCP_OK)
    return st;
  const char *t = json_string_value(json_object_get(doc, "access_token"));
  const char *type =
      json_string_value(json_object_get(doc, "issued_token_type"));
  if (status != 200 || t == NULL)
    st = token_refused("the IdP's token exchange", status, doc, err);
  else if (type == NULL || strcmp(type, TOKEN_TYPE_ID_JAG) != 0)
    st = mcp_error_set(err, MCP_ERR_PEER,
                       "the IdP issued %s, not an ID-JAG",
                       type ? type : "a token of no type");
  else if ((*jag = strdup(t)) == NULL)
    st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  json_decref(doc);
  return st;
}

/* The grants without a user: client credentials, JWT bearer (an
 * assertion the workload has), enterprise-managed (the ID-JAG as the
 * JWT-bearer assertion). */
static mcp_status grant_without_user(mcp_oauth_t *a, const char *scope,
                                     mcp_error_t *err) {
  mcp__buf f;
  mcp__buf_init(&f);
  char *jag = NULL;
  mcp_status st = MCP_OK;
  if (a->grant == MCP_OAUTH_GRANT_CLIENT_CREDENTIALS) {
    if (a->client_id == NULL || !a->preregistered)
      st = mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "the client credentials grant needs a client id "
                         "with a secret or a key");
    mcp__form_append(&f, "grant_type", "client_credentials");
  } else {
    const char *assertion = a->assertion;
    if (a->grant == MCP_OAUTH_GRANT_ENTERPRISE) {
      st = exchange_id_token(a, scope, &jag, err);
      assertion = jag;
    } else if (assertion == NULL) {
      st = mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "the JWT-bearer grant needs an assertion");
    }
    mcp__form_append(&f, "grant_type", GRANT_JWT_BEARER);
    mcp__form_append(&f, "assertion", assertion);
  }
  mcp__form_append(&f, "scope", scope);
  mcp__form_append(&f, "resource", a->resource);
  if (st == MCP_OK)
    st = token_request(a, &f, err);
  mcp__buf_free(&f);
  free(jag);
  return st;
}

static mcp_status refresh(mcp_oauth_t *a, mcp_error_t *err) {
  if (a->refresh_token == NULL || a->token_ep == NULL)
    return mcp_error_set(err, MCP_ERR_STATE, "no refresh token");
  mcp__buf f;
  mcp__buf_init(&f);
  mcp__form_append(&f, "grant_type", "refresh_token");
  mcp__form_append(&f, "refresh_token", a->refresh_token);
  mcp__form_append(&f, "resource", a->resource ? a->resource : a->server_url);
  mcp_status st = token_request(a, &f, err);
  mcp__buf_free(&f);
  if (st != MCP_OK)
    replace(&a->refresh_token, NULL); /* do not try it again */
  return st;
}

/* Opens url in a browser (xdg-open) or prints it. */
static void show_url(mcp_oauth_t *a, const char *url) {
  fprintf(stderr, "Open this URL to authorize mcpc:\n  %s\n", url);
  if (a->mode != MCP_OAUTH_BROWSER || access("/usr/bin/xdg-open", X_OK) != 0)
    return;
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    execl("/usr/bin/xdg-open", "xdg-open", url, (char *)NULL);
    _exit(127);
  }
}

/* The whole authorization flow; wanted: scopes a challenge asked for. */
static mcp_status login(mcp_oauth_t *a, const char *challenge,
                        const char *wanted, mcp_error_t *err) {
  bool user = a->grant == MCP_OAUTH_GRANT_AUTHORIZATION_CODE;
  if (a->mode == MCP_OAUTH_NONE && user)
    return mcp_error_set(err, MCP_ERR_STATE,
                         "the server requires authorization: log in first "
                         "(mcpc auth login)");
  json_t *prm = resource_metadata(a, challenge, err);
  const char *as = NULL;
  char *origin = NULL;
  if (prm) {
    if (!resource_matches(json_string_value(json_object_get(prm, "resource")),
                          a->server_url)) {
      json_decref(prm);
      return mcp_error_set(err, MCP_ERR_PEER,
                           "the protected-resource metadata is for another "
                           "resource");
    }
    as = json_string_value(
        json_array_get(json_object_get(prm, "authorization_servers"), 0));
  }
  /* RFC 8707: the resource exactly as published */
  const char *res = json_string_value(json_object_get(prm, "resource"));
  replace(&a->resource, res ? res : a->server_url);
  if (as == NULL) { /* 2025-03-26: the server's origin is the AS */
    size_t ol = origin_len(a->server_url);
    origin = strndup(a->server_url, ol);
    as = origin;
  }
  /* Without resource metadata (2025-03-26) the server's origin only
   * locates the metadata; its issuer is taken as it is. */
  json_t *meta = as_metadata(a, as, prm != NULL, err);
  if (meta == NULL && prm == NULL && !(err && err->status == MCP_ERR_PEER)) {
    /* 2025-03-26: no metadata at all means the default endpoints */
    char ep[3][2048];
    snprintf(ep[0], sizeof ep[0], "%s/authorize", as);
    snprintf(ep[1], sizeof ep[1], "%s/token", as);
    snprintf(ep[2], sizeof ep[2], "%s/register", as);
    meta = json_pack("{s:s,s:s,s:s,s:s,s:[s]}", "issuer", as,
                     "authorization_endpoint", ep[0], "token_endpoint", ep[1],
                     "registration_endpoint", ep[2],
                     "code_challenge_methods_supported", "S256");
  }
  if (meta == NULL) {
    json_decref(prm);
    free(origin);
    if (err && err->status == MCP_ERR_PEER)
      return MCP_ERR_PEER;
    return mcp_error_set(err, MCP_ERR_IO,
                         "no authorization server metadata for %s", as);
  }
  const char *meta_iss = json_string_value(json_object_get(meta, "issuer"));
  replace(&a->issuer, prm == NULL && meta_iss ? meta_iss : as);
  replace(&a->authorize_ep,
          json_string_value(json_object_get(meta, "authorization_endpoint")));
  replace(&a->token_ep,
          json_string_value(json_object_get(meta, "token_endpoint")));
  const json_t *pkce =
      json_object_get(meta, "code_challenge_methods_supported");
  mcp_status st = MCP_OK;
  if ((user && a->authorize_ep == NULL) || a->token_ep == NULL)
    st = mcp_error_set(err, MCP_ERR_PEER,
                       "the authorization server metadata lacks endpoints");
  else if (user && !array_has(pkce, "S256"))
    st = mcp_error_set(err, MCP_ERR_PEER,
                       "the authorization server does not support PKCE S256");
  /* scope: the challenge's, else what the resource supports */
  char *scope = NULL;
  if (st == MCP_OK) {
    char *from_challenge = mcp__challenge_param(challenge, "scope");
    char *base = from_challenge ? from_challenge
                 : prm ? join_array(json_object_get(prm, "scopes_supported"))
                       : NULL;
    if (from_challenge && base != from_challenge)
      free(from_challenge);
    scope = scope_union(base, wanted);
    free(base);
    /* offline_access: a refresh token when the server offers it (for a
     * user's grant only: RFC 6749 4.4.3, client credentials get none) */
    if (scope && user &&
        array_has(json_object_get(meta, "scopes_supported"),
                  "offline_access")) {
      char *s2 = scope_union(scope, "offline_access");
      free(scope);
      scope = s2;
    }
  }
  if (!user) {
    if (st == MCP_OK)
      st = grant_without_user(a, scope, err);
    if (st == MCP_OK && a->scope == NULL)
      replace(&a->scope, scope);
    free(scope);
    free(origin);
    json_decref(meta);
    json_decref(prm);
    return st;
  }
  mcp__redirect_listener l = {-1, 0};
  char redirect[64];
  if (st == MCP_OK)
    st = mcp__redirect_listen(&l, err);
  snprintf(redirect, sizeof redirect, "http://127.0.0.1:%d/callback", l.port);
  if (st == MCP_OK)
    st = register_client(a, meta, redirect, scope, err);
  char *verifier = st == MCP_OK ? mcp__random_b64url() : NULL;
  char *challenge_s = verifier ? mcp__pkce_s256(verifier) : NULL;
  char *state = verifier ? mcp__random_b64url() : NULL;
  if (st == MCP_OK &&
      (verifier == NULL || challenge_s == NULL || state == NULL))
    st = mcp_error_set(err, MCP_ERR_NOMEM, "no randomness");
  char *query = NULL;
  if (st == MCP_OK) {
    mcp__buf q;
    mcp__buf_init(&q);
    mcp__form_append(&q, "response_type", "code");
    mcp__form_append(&q, "client_id", a->client_id);
    mcp__form_append(&q, "redirect_uri", redirect);
    mcp__form_append(&q, "code_challenge", challenge_s);
    mcp__form_append(&q, "code_challenge_method", "S256");
    mcp__form_append(&q, "state", state);
    mcp__form_append(&q, "scope", scope);
    mcp__form_append(&q, "resource", a->resource);
    char *url = NULL;
    if (asprintf(&url, "%s%c%s", a->authorize_ep,
                 strchr(a->authorize_ep, '?') ? '&' : '?', q.data) < 0)
      url = NULL;
    mcp__buf_free(&q);
    if (url == NULL) {
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    } else if (a->mode == MCP_OAUTH_FOLLOW) {
      mcp__oreq req = {url, NULL, NULL, NULL, NULL, a->cacert, NULL};
      mcp__oresp r;
      st = mcp__oauth_http(&req, &r, err);
      const char *qm =
          st == MCP_OK && r.location ? strchr(r.location, '?') : NULL;
      if (st == MCP_OK && qm == NULL)
        st = mcp_error_set(err, MCP_ERR_PEER,
                           "the authorization endpoint did not redirect "
                           "(HTTP %ld)",
                           r.status);
      else if (st == MCP_OK)
        query = strdup(qm + 1);
      mcp__oresp_free(&r);
    } else {
      show_url(a, url);
      st = mcp__redirect_wait(&l, 300000, &query, err);
    }
    free(url);
  }
  mcp__redirect_close(&l);
  if (st == MCP_OK) {
    char *got_state = mcp__query_param(query, "state");
    char *code = mcp__query_param(query, "code");
    char *error = mcp__query_param(query, "error");
    char *iss = mcp__query_param(query, "iss");
    bool iss_required = json_is_true(json_object_get(
        meta, "authorization_response_iss_parameter_supported"));
    if (error)
      st = mcp_error_set(err, MCP_ERR_PEER, "authorization refused: %s", error);
    else if (got_state == NULL || strcmp(got_state, state) != 0)
      st = mcp_error_set(err, MCP_ERR_PEER,
                         "the authorization answer has a wrong state");
    else if (code == NULL)
      st = mcp_error_set(err, MCP_ERR_PEER,
                         "the authorization answer has no code");
    /* RFC 9207: iss, when present or promised, must name our issuer */
    else if ((iss_required && iss == NULL) ||
             (iss != NULL && strcmp(iss, a->issuer) != 0))
      st = mcp_error_set(err, MCP_ERR_PEER,
                         "the authorization answer's iss does not match");
    if (st == MCP_OK) {
      mcp__buf f;
      mcp__buf_init(&f);
      mcp__form_append(&f, "grant_type", "authorization_code");
      mcp__form_append(&f, "code", code);
      mcp__form_append(&f, "redirect_uri", redirect);
      mcp__form_append(&f, "code_verifier", verifier);
      mcp__form_append(&f, "resource", a->resource);
      st = token_request(a, &f, err);
      mcp__buf_free(&f);
      if (st == MCP_OK && a->scope == NULL)
        replace(&a->scope, scope);
    }
    free(got_state);
    free(code);
    free(error);
    free(iss);
  }
  free(query);
  free(verifier);
  free(challenge_s);
  free(state);
  free(scope);
  free(origin);
  json_decref(meta);
  json_decref(prm);
  return st;
}

mcp_status mcp_oauth_login(mcp_oauth_t *a, const char *www_authenticate,
                           mcp_error_t *err) {
  if (a == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no oauth object");
  pthread_mutex_lock(&a->lock);
  mcp_status st = login(a, www_authenticate, NULL, err);
  pthread_mutex_unlock(&a->lock);
  return st;
}

mcp_status mcp_oauth_logout(mcp_oauth_t *a) {
  if (a == NULL)
    return MCP_ERR_INVALID_ARG;
  pthread_mutex_lock(&a->lock);
  forget_tokens(a);
  mcp_status st = save_tokens(a);
  pthread_mutex_unlock(&a->lock);
  return st;
}

json_t *mcp_oauth_status(mcp_oauth_t *a) {
  if (a == NULL)
    return NULL;
  pthread_mutex_lock(&a->lock);
  json_t *o = json_pack("{s:s,s:b,s:b}", "server", a->server_url, "logged_in",
                        a->access_token != NULL, "refreshable",
                        a->refresh_token != NULL);
  if (a->scope)
    json_object_set_new(o, "scope", json_string(a->scope));
  if (a->expires_at)
    json_object_set_new(o, "expires_at", json_integer(a->expires_at));
  if (a->issuer)
    json_object_set_new(o, "authorization_server", json_string(a->issuer));
  if (a->client_id)
    json_object_set_new(o, "client_id", json_string(a->client_id));
  pthread_mutex_unlock(&a->lock);
  return o;
}

/* ---- the transport's token provider -------------------------------------- */

/* Whether the resource still names the authorization server of our
 * tokens. */
static bool same_authorization_server(mcp_oauth_t *a, const char *www) {
  mcp_error_t e;
  json_t *prm = resource_metadata(a, www, &e);
  const char *as = json_string_value(
      json_array_get(json_object_get(prm, "authorization_servers"), 0));
  bool same = as == NULL || a->issuer == NULL || strcmp(as, a->issuer) == 0;
  json_decref(prm);
  return same;
}

/* Whether a 401's challenge asks for a DPoP nonce. */
static bool use_dpop_nonce(const char *www) {
  char *error = mcp__challenge_param(www, "error");
  bool yes = error != NULL && strcmp(error, "use_dpop_nonce") == 0;
  free(error);
  return yes;
}

/* The transport's DPoP hooks (client/internal.h). */
static char *dpop_proof(void *ud, const char *htm, const char *htu,
                        const char *token) {
  mcp_oauth_t *a = ud;
  pthread_mutex_lock(&a->lock);
  char *proof = NULL;
  if (a->dpop && a->token_dpop && a->dpop_key && a->access_token &&
      strcmp(token, a->access_token) == 0)
  {
    proof = mcp__dpop_proof(a->dpop_key, htm, htu, token, a->rs_nonce);
    replace(&a->rs_nonce_sent, a->rs_nonce);
  }
  pthread_mutex_unlock(&a->lock);
  return proof;
}

static void dpop_nonce(void *ud, const char *nonce) {
  mcp_oauth_t *a = ud;
  pthread_mutex_lock(&a->lock);
  if (a->dpop)
    replace(&a->rs_nonce, nonce);
  pthread_mutex_unlock(&a->lock);
}

static mcp_status provide(void *ud, const char *url, int status,
                          const char *www, char **token, mcp_error_t *err) {
  (void)url;
  mcp_oauth_t *a = ud;
  *token = NULL;
  pthread_mutex_lock(&a->lock);
  mcp_status st = MCP_OK;
  if (status == 0) {
    /* before a request: refresh a token about to expire */
    if (a->access_token && a->expires_at &&
        (int64_t)time(NULL) + 30 >= a->expires_at && a->refresh_token) {
      mcp_error_t e;
      refresh(a, &e);
    }
  } else if (status == 401 && a->dpop && a->access_token &&
             use_dpop_nonce(www)) {
    /* RFC 9449 9: the same token again, with a proof carrying the nonce
     * the answer brought (dpop_nonce); not when that nonce was sent */
    if (a->rs_nonce == NULL ||
        (a->rs_nonce_sent && strcmp(a->rs_nonce, a->rs_nonce_sent) == 0))
      st = mcp_error_set(err, MCP_ERR_PEER,
                         "the server asks for a DPoP nonce without a new "
                         "one");
  } else if (status == 401) {
    mcp_error_t e;
    bool had = a->access_token != NULL;
    replace(&a->access_token, NULL);
    /* SEP-2352: when the resource now names another authorization server,
     * nothing of the old one is reused (refresh token, registration) */
    if (had && a->refresh_token && !same_authorization_server(a, www)) {
      replace(&a->refresh_token, NULL);
      if (!a->preregistered) {
        replace(&a->client_id, NULL);
        replace(&a->client_secret, NULL);
      }
    }
    if (!(had && a->refresh_token && refresh(a, &e) == MCP_OK))
      st = login(a, www, NULL, err);
  } else if (status == 403) {
    char *error = mcp__challenge_param(www, "error");
    if (error && strcmp(error, "insufficient_scope") == 0) {
      char *needed = mcp__challenge_param(www, "scope");
      char *wanted = scope_union(a->scope, needed);
      st = login(a, www, wanted, err);
      free(needed);
      free(wanted);
    } else {
      st = mcp_error_set(err, MCP_ERR_PEER, "HTTP 403: forbidden");
    }
    free(error);
  }
  if (st == MCP_OK && a->access_token)
    *token = strdup(a->access_token);
  pthread_mutex_unlock(&a->lock);
  return st;
}

mcp_status mcp_client_options_use_oauth(mcp_client_options_t *o,
                                        mcp_oauth_t *a) {
  mcp_status st =
      mcp_client_options_set_token_provider(o, a ? provide : NULL, a);
  if (st == MCP_OK && a != NULL) {
    o->dpop_proof_fn = dpop_proof;
    o->dpop_nonce_fn = dpop_nonce;
  }
  return st;
}
