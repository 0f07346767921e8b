/* SPDX-License-Identifier: MIT */
/* admit.c - HTTP admission of the resource server: RFC 9728 metadata, RFC
 * 6750 bearer tokens and their WWW-Authenticate challenges, and the
 * per-method / per-target scope rules (403 insufficient_scope). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth/auth_http.h"
#include "auth/auth_internal.h"
#include "auth/dpop.h"
#include "util/buf.h"

#define WELL_KNOWN "/.well-known/oauth-protected-resource"

void mcp__auth_reply_free(mcp__auth_reply *reply) {
  free(reply->www_authenticate);
  free(reply->body);
  free(reply->dpop_nonce);
  memset(reply, 0, sizeof *reply);
}

/* The path part of an http(s) resource URL ("" for none), or NULL when the
 * resource is not an http(s) URL. *origin_len gets the length of
 * scheme://authority. */
static const char *resource_path(const char *resource, size_t *origin_len) {
  if (strncasecmp(resource, "http://", 7) != 0 &&
      strncasecmp(resource, "https://", 8) != 0)
    return NULL;
  const char *auth = strstr(resource, "://") + 3;
  const char *path = auth + strcspn(auth, "/?#");
  *origin_len = (size_t)(path - resource);
  return *path == '/' ? path : "";
}

/* RFC 9728 3.1: the well-known segment goes between origin and path. */
static char *metadata_url(mcp_auth_t *a, const mcp__auth_request *req) {
  size_t olen = 0;
  const char *path = resource_path(a->resource, &olen);
  char *url = NULL;
  int n;
  if (path) {
    size_t plen = strcspn(path, "?#");
    n = asprintf(&url, "%.*s" WELL_KNOWN "%.*s", (int)olen, a->resource,
                 (int)plen, path);
  } else {
    /* a resource that is not a URL: name this server as the client saw it */
    const char *host = req->host ? req->host : "localhost";
    n = asprintf(&url, "%s://%.*s" WELL_KNOWN "%s", req->tls ? "https" : "http",
                 (int)strcspn(host, "\"\\ \r\n"), host, req->endpoint);
  }
  return n < 0 ? NULL : url;
}

static bool is_metadata_path(mcp_auth_t *a, const mcp__auth_request *req) {
  const char *p = req->path;
  if (strncmp(p, WELL_KNOWN, strlen(WELL_KNOWN)) != 0)
    return false;
  p += strlen(WELL_KNOWN);
  if (*p == '\0' || strcmp(p, req->endpoint) == 0)
    return true;
  size_t olen;
  const char *rp = resource_path(a->resource, &olen);
  return rp && rp[0] && strncmp(p, rp, strcspn(rp, "?#")) == 0 &&
         p[strcspn(rp, "?#")] == '\0';
}

static void metadata_reply(mcp_auth_t *a, mcp__auth_reply *reply) {
  json_t *doc = json_pack("{s:s,s:[s]}", "resource", a->resource,
                          "bearer_methods_supported", "header");
  if (a->issuer)
    json_object_set_new(doc, "authorization_servers",
                        json_pack("[s]", a->issuer));
  if (a->nscopes_supported) {
    json_t *l = json_array();
    for (size_t i = 0; i < a->nscopes_supported; i++)
      json_array_append_new(l, json_string(a->scopes_supported[i]));
    json_object_set_new(doc, "scopes_supported", l);
  }
  reply->status = 200;
  reply->body = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
  reply->body_len = reply->body ? strlen(reply->body) : 0;
  if (reply->body == NULL)
    reply->status = 500;
  json_decref(doc);
}

static void add_scopes(mcp__buf *need, const char *list);

/* Scopes a client should ask for when it has no (valid) token: those
 * every request needs, else scopes_supported; each once, however many
 * rules name it. Malloc'd, maybe "". */
static char *scope_hint(mcp_auth_t *a) {
  mcp__buf b;
  mcp__buf_init(&b);
  for (size_t i = 0; i < a->nrules; i++)
    if (strcmp(a->rules[i].method, "*") == 0 && a->rules[i].name == NULL)
      add_scopes(&b, a->rules[i].scopes);
  bool from_rules = b.len > 0;
  for (size_t i = 0; !from_rules && i < a->nscopes_supported; i++)
    add_scopes(&b, a->scopes_supported[i]);
  mcp__buf_append(&b, "", 1);
  size_t n;
  return mcp__buf_steal(&b, &n);
}

/* Fills a challenge reply. error NULL: no token was sent (RFC 6750 3.1:
 * no error code then). description and scope come from this module, never
 * from the request, so they need no escaping beyond what they are. */
static void challenge_as(mcp_auth_t *a, const mcp__auth_request *req,
                         bool dpop, unsigned status, const char *error,
                         const char *description, const char *scope,
                         mcp__auth_reply *reply) {
  char *url = metadata_url(a, req);
  char *hint = scope ? NULL : scope_hint(a);
  const char *sc = scope ? scope : hint;
  mcp__buf h;
  mcp__buf_init(&h);
  /* RFC 9449 7.1: the DPoP scheme names the proof algorithms accepted */
  mcp__buf_append_str(&h, dpop ? "DPoP algs=\"" MCP__DPOP_ALGS "\", "
                               : "Bearer ");
  if (error) {
    mcp__buf_append_str(&h, "error=\"");
    mcp__buf_append_str(&h, error);
    mcp__buf_append_str(&h, "\", error_description=\"");
    for (const char *d = description; *d; d++) /* quoted-string safe */
      if ((unsigned char)*d >= 0x20 && *d != '"' && *d != '\\' && *d != 0x7f)
        mcp__buf_append_char(&h, *d);
    mcp__buf_append_str(&h, "\", ");
  }
  mcp__buf_append_str(&h, "resource_metadata=\"");
  mcp__buf_append_str(&h, url ? url : "");
  mcp__buf_append_char(&h, '"');
  if (sc && sc[0]) {
    mcp__buf_append_str(&h, ", scope=\"");
    mcp__buf_append_str(&h, sc);
    mcp__buf_append_char(&h, '"');
  }
  mcp__buf_append(&h, "", 1);
  size_t n;
  reply->status = status;
  reply->www_authenticate = mcp__buf_steal(&h, &n);
  json_t *body =
      json_pack("{s:s,s:s}", "error", error ? error : "invalid_request",
                "error_description", description);
  reply->body = body ? json_dumps(body, JSON_COMPACT) : NULL;
  reply->body_len = reply->body ? strlen(reply->body) : 0;
  json_decref(body);
  free(url);
  free(hint);
  if (dpop)
    reply->dpop_nonce = mcp__dpop_current_nonce(a, (int64_t)time(NULL));
}

/* A challenge in the scheme this server asks for: DPoP when it requires
 * it, else Bearer. */
static void challenge(mcp_auth_t *a, const mcp__auth_request *req,
                      unsigned status, const char *error,
                      const char *description, const char *scope,
                      mcp__auth_reply *reply) {
  challenge_as(a, req, a->dpop_mode == MCP_AUTH_DPOP_REQUIRE, status, error,
               description, scope, reply);
}

/* The token of "Bearer <token>" (RFC 6750 2.1) or "DPoP <token>" (RFC
 * 9449 7.1; schemes are case-insensitive), copied; NULL when the header is
 * something else. *dpop: which scheme. */
static char *bearer_token(const char *h, bool *dpop) {
  *dpop = h != NULL && strncasecmp(h, "DPoP ", 5) == 0;
  if (h == NULL || (!*dpop && strncasecmp(h, "Bearer ", 7) != 0))
    return NULL;
  const char *t = h + (*dpop ? 5 : 7);
  while (*t == ' ')
    t++;
  size_t n = strcspn(t, " \t");
  if (n == 0 || t[n + strspn(t + n, " \t")] != '\0')
    return NULL;
  for (size_t i = 0; i < n; i++) { /* token68 */
    char c = t[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || strchr("-._~+/=", c)))
      return NULL;
  }
  return strndup(t, n);
}

/* A refused DPoP proof: 503 when it cannot be checked now (why: a fixed
 * text of dpop.c, nothing to escape), else a 401 DPoP challenge. */
static void dpop_refusal(mcp_auth_t *a, const mcp__auth_request *req,
                         mcp__dpop_result r, const char *why,
                         unsigned retry_after_s, mcp__auth_reply *reply) {
  if (r == MCP__DPOP_BUSY) {
    reply->status = 503;
    if (asprintf(&reply->body,
                 "{\"error\":\"temporarily_unavailable\","
                 "\"error_description\":\"%s\"}",
                 why ? why : "DPoP proofs cannot be checked now") < 0)
      reply->body = NULL;
    reply->body_len = reply->body ? strlen(reply->body) : 0;
    reply->retry_after_s = retry_after_s ? retry_after_s : 1;
    return;
  }
  challenge_as(a, req, true, 401,
               r == MCP__DPOP_NONCE ? "use_dpop_nonce" : "invalid_dpop_proof",
               why, NULL, reply);
}

/* How conclude goes on when the shared replay record must be told: on a
 * recorder thread (ready, ctx; w reused when not NULL, *wait set) or, with
 * ready NULL, on this thread. */
typedef struct conclude_async {
  mcp__auth_ready_fn ready;
  void *ctx;
  mcp__auth_wait *w;
  mcp__auth_wait **wait;
} conclude_async;

static mcp__admit conclude(mcp_auth_t *a, const mcp__auth_request *req,
                           bool dpop, char *jkt, const mcp__dpop_record *rec,
                           mcp__verdict v, mcp__principal *p, const char *why,
                           unsigned retry_after_s, const conclude_async *as,
                           char **subject, char **scopes,
                           mcp__auth_reply *reply);

mcp__admit mcp__auth_admit(mcp_auth_t *a, const mcp__auth_request *req,
                           char **subject, char **scopes,
                           mcp__auth_reply *reply, mcp__auth_ready_fn ready,
                           void *ctx, mcp__auth_wait **wait) {
  memset(reply, 0, sizeof *reply);
  *subject = *scopes = NULL;
  if (wait)
    *wait = NULL;
  if (strcmp(req->http_method, "GET") == 0 && is_metadata_path(a, req)) {
    metadata_reply(a, reply);
    return MCP__ADMIT_REPLY;
  }
  if (req->authorization == NULL) {
    challenge(a, req, 401, NULL, "authorization required", NULL, reply);
    return MCP__ADMIT_REPLY;
  }
  if (req->repeated_authorization) {
    challenge(a, req, 400, "invalid_request",
              "more than one Authorization header", NULL, reply);
    return MCP__ADMIT_REPLY;
  }
  if (strlen(req->authorization) > MCP__AUTH_MAX_TOKEN + 16) {
    challenge(a, req, 401, "invalid_token", "the token is too long", NULL,
              reply);
    return MCP__ADMIT_REPLY;
  }
  bool dpop = false;
  char *token = bearer_token(req->authorization, &dpop);
  if (token == NULL) {
    challenge(a, req, 401, "invalid_token",
              a->dpop_mode == MCP_AUTH_DPOP_REQUIRE
                  ? "use an Authorization: DPoP token with a DPoP proof"
                  : "use an Authorization: Bearer token",
              NULL, reply);
    return MCP__ADMIT_REPLY;
  }
  if (!dpop && a->dpop_mode == MCP_AUTH_DPOP_REQUIRE) {
    memset(token, 0, strlen(token));
    free(token);
    challenge_as(a, req, true, 401, "invalid_token",
                 "this server requires DPoP-bound tokens (Authorization: "
                 "DPoP with a DPoP proof), not Bearer",
                 NULL, reply);
    return MCP__ADMIT_REPLY;
  }
  char *jkt = NULL; /* the proof key's thumbprint */
  mcp__dpop_record rec = {0}; /* what the shared replay record is told */
  if (dpop) {
    const char *why = "a DPoP token needs exactly one DPoP proof header";
    mcp__dpop_result r = MCP__DPOP_INVALID;
    if (req->dpop != NULL && !req->repeated_dpop) {
      size_t olen = 0;
      const char *rpath = resource_path(a->resource, &olen);
      mcp__dpop_check c = {req->dpop,
                           req->http_method,
                           req->tls ? "https" : "http",
                           req->host,
                           req->path,
                           rpath ? a->resource : NULL,
                           token,
                           (int64_t)time(NULL)};
      /* the shared record is told last, once the token is granted too
       * (conclude): it may need a database, never asked on this thread */
      r = mcp__dpop_verify_local(a, &c, &jkt, &why, &rec);
    }
    if (r != MCP__DPOP_OK) {
      memset(token, 0, strlen(token));
      free(token);
      dpop_refusal(a, req, r, why, 1, reply);
      return MCP__ADMIT_REPLY;
    }
  }
  mcp__principal p;
  mcp__key_state keys;
  mcp_error_t err;
  memset(&err, 0, sizeof err);
  /* the transport's network thread: never wait for a key fetch, nor for
   * an introspection (ready is called when its answer is in) */
  mcp__auth_async async = {ready, ctx, wait};
  mcp__verdict v = mcp__auth_check_token(a, token, MCP__KEYS_NO_WAIT,
                                         ready ? &async : NULL, &keys, &p,
                                         &err);
  /* the token goes nowhere: wipe our copy */
  memset(token, 0, strlen(token));
  free(token);
  if (v == MCP__TOKEN_PENDING) {
    /* the rest once the answer is in (the introspection threads never
     * touch these) */
    (*wait)->dpop = dpop;
    (*wait)->jkt = jkt;
    (*wait)->rec = rec;
    return MCP__ADMIT_PENDING;
  }
  conclude_async as = {ready, ctx, NULL, wait};
  return conclude(a, req, dpop, jkt, &rec, v, &p, err.message,
                  keys.retry_after_s, &as, subject, scopes, reply);
}

mcp__admit mcp__auth_admit_resume(mcp_auth_t *a, mcp__auth_wait *wait,
                                  const mcp__auth_request *req, char **subject,
                                  char **scopes, mcp__auth_reply *reply) {
  memset(reply, 0, sizeof *reply);
  *subject = *scopes = NULL;
  unsigned retry_after_s = 0;
  if (wait->recording) { /* the shared replay record answered */
    mcp_status st = mcp__replay_record_take(a, wait, &retry_after_s);
    const char *why = NULL;
    mcp__dpop_result r = mcp__dpop_record_result(st, &why);
    mcp__principal p = wait->p;
    memset(&wait->p, 0, sizeof wait->p);
    mcp__auth_wait_free(wait);
    if (r != MCP__DPOP_OK) {
      mcp__principal_clear(&p);
      dpop_refusal(a, req, r, why, retry_after_s, reply);
      return MCP__ADMIT_REPLY;
    }
    *subject = p.subject;
    *scopes = p.scopes;
    free(p.jkt);
    return MCP__ADMIT_GRANTED;
  }
  mcp__principal p;
  mcp_error_t err;
  memset(&err, 0, sizeof err);
  mcp__verdict v = mcp__introspect_take(a, wait, &p, &retry_after_s, &err);
  bool dpop = wait->dpop;
  char *jkt = wait->jkt;
  wait->jkt = NULL;
  mcp__dpop_record rec = wait->rec;
  conclude_async as = {wait->ready, wait->ctx, wait, &wait};
  mcp__admit ad = conclude(a, req, dpop, jkt, &rec, v, &p, err.message,
                           retry_after_s, &as, subject, scopes, reply);
  if (ad != MCP__ADMIT_PENDING)
    mcp__auth_wait_free(wait);
  return ad;
}

/* The admission once the token's verdict v is known (p: its principal
 * when MCP__TOKEN_OK; why: the reason otherwise). Takes jkt, the DPoP
 * proof's key thumbprint (or NULL), and p's strings. */
static mcp__admit conclude(mcp_auth_t *a, const mcp__auth_request *req,
                           bool dpop, char *jkt, const mcp__dpop_record *rec,
                           mcp__verdict v, mcp__principal *p, const char *why,
                           unsigned retry_after_s, const conclude_async *as,
                           char **subject, char **scopes,
                           mcp__auth_reply *reply) {
  /* RFC 9449 7.1: a bound token only with a proof of its key; a DPoP
   * proof only for a token bound to its key */
  const char *binding = NULL;
  if (v == MCP__TOKEN_OK && !dpop && p->jkt != NULL)
    binding = "the token is DPoP-bound: present it as Authorization: DPoP "
              "with a DPoP proof";
  else if (v == MCP__TOKEN_OK && dpop && p->jkt == NULL)
    binding = "the token is not DPoP-bound (no cnf.jkt)";
  else if (v == MCP__TOKEN_OK && dpop && (jkt == NULL || strcmp(p->jkt, jkt) != 0))
    binding = "the token is bound to another key than the DPoP proof's";
  free(jkt);
  if (binding != NULL) {
    mcp__principal_clear(p);
    challenge_as(a, req, true, 401, "invalid_token", binding, NULL, reply);
    return MCP__ADMIT_REPLY;
  }
  if (v == MCP__TOKEN_OK && dpop && rec->needed) {
    /* the replicas' replay record, last: a proof they could not learn of
     * is never accepted */
    const char *rwhy = NULL;
    mcp__dpop_result r = MCP__DPOP_BUSY;
    unsigned rretry = 1;
    if (as->ready == NULL) {
      r = mcp__dpop_record_shared(a, rec, &rwhy);
    } else {
      mcp__auth_wait *w = as->w ? as->w : calloc(1, sizeof *w);
      if (w != NULL) {
        w->ready = as->ready;
        w->ctx = as->ctx;
        w->rec = *rec;
        w->p = *p; /* handed out once the record is told */
        memset(p, 0, sizeof *p);
        if (mcp__replay_record_queue(a, w, &rretry)) {
          *as->wait = w;
          return MCP__ADMIT_PENDING;
        }
        *p = w->p;
        memset(&w->p, 0, sizeof w->p);
        if (as->w == NULL)
          free(w);
      }
      rwhy = "the DPoP replay record is unavailable";
    }
    if (r != MCP__DPOP_OK) {
      mcp__principal_clear(p);
      dpop_refusal(a, req, r, rwhy, rretry, reply);
      return MCP__ADMIT_REPLY;
    }
  }
  if (v == MCP__TOKEN_OK) {
    *subject = p->subject;
    *scopes = p->scopes;
    free(p->jkt);
    return MCP__ADMIT_GRANTED;
  }
  mcp__principal_clear(p);
  if (v != MCP__TOKEN_INVALID) {
    reply->status = 503;
    reply->body = strdup("{\"error\":\"temporarily_unavailable\","
                         "\"error_description\":\"the token cannot be "
                         "checked now\"}");
    reply->body_len = reply->body ? strlen(reply->body) : 0;
    reply->retry_after_s = retry_after_s ? retry_after_s : 1;
    return MCP__ADMIT_REPLY;
  }
  challenge_as(a, req, dpop || a->dpop_mode == MCP_AUTH_DPOP_REQUIRE, 401,
               "invalid_token", why, NULL, reply);
  return MCP__ADMIT_REPLY;
}

/* Appends to need each scope of list not already there. */
static void add_scopes(mcp__buf *need, const char *list) {
  for (const char *p = list; *p;) {
    while (*p == ' ')
      p++;
    size_t n = strcspn(p, " ");
    if (n && !mcp__scope_has_n(need->len ? need->data : "", p, n)) {
      if (need->len)
        mcp__buf_append_char(need, ' ');
      mcp__buf_append(need, p, n);
      mcp__buf_append(need, "", 1);
      need->len--; /* keep it NUL-terminated for mcp__scope_has_n */
    }
    p += n;
  }
}

/* The rule's target of a request: tool/prompt name or resource URI. */
static const char *target_of(const char *method, const json_t *params) {
  if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
    return json_string_value(json_object_get(params, "name"));
  if (strncmp(method, "resources/", 10) == 0)
    return json_string_value(json_object_get(params, "uri"));
  return NULL;
}

/* Appends to need the scopes the rules ask of method on target (NULL:
 * none named). */
/* Whether rule r covers method on target (NULL: none). */
static bool rule_applies(const mcp__scope_rule *r, const char *method,
                         const char *target) {
  return (strcmp(r->method, "*") == 0 || strcmp(r->method, method) == 0) &&
         (r->name == NULL || (target != NULL && strcmp(r->name, target) == 0));
}

static void needed_scopes(mcp_auth_t *a, const char *method, const char *target,
                          mcp__buf *need) {
  for (size_t i = 0; i < a->nrules; i++)
    if (rule_applies(&a->rules[i], method, target))
      add_scopes(need, a->rules[i].scopes);
}

/* Whether the granted scopes hold every scope of the space-separated
 * list. */
static bool holds_list(const char *scopes, const char *list) {
  for (const char *p = list; *p;) {
    while (*p == ' ')
      p++;
    size_t n = strcspn(p, " ");
    if (n && !mcp__scope_has_n(scopes, p, n))
      return false;
    p += n;
  }
  return true;
}

bool mcp__auth_may_read(const void *policy, const char *scopes,
                        const char *uri) {
  mcp_auth_t *a = (mcp_auth_t *)policy;
  if (a == NULL || a->nrules == 0)
    return true;
  /* every rule for resources/read of uri, checked where it stands: no
   * list built (this runs per listener for each resource update, under
   * the listener registry's lock) */
  for (size_t i = 0; i < a->nrules; i++)
    if (rule_applies(&a->rules[i], "resources/read", uri) &&
        !holds_list(scopes ? scopes : "", a->rules[i].scopes))
      return false;
  return true;
}

mcp__admit mcp__auth_authorize(mcp_auth_t *a, const mcp__auth_request *req,
                               const char *scopes, const char *body, size_t len,
                               mcp__auth_reply *reply) {
  memset(reply, 0, sizeof *reply);
  if (a->nrules == 0)
    return MCP__ADMIT_GRANTED;
  json_t *msg = json_loadb(body, len, 0, NULL);
  const char *method = json_string_value(json_object_get(msg, "method"));
  if (method == NULL) { /* a response, or malformed: the server judges */
    json_decref(msg);
    return MCP__ADMIT_GRANTED;
  }
  const char *target = target_of(method, json_object_get(msg, "params"));
  mcp__buf need;
  mcp__buf_init(&need);
  needed_scopes(a, method, target, &need);
  json_decref(msg);
  bool ok = holds_list(scopes, need.len ? need.data : "");
  if (!ok)
    challenge(a, req, 403, "insufficient_scope",
              "the token lacks a scope this request needs", need.data, reply);
  mcp__buf_free(&need);
  return ok ? MCP__ADMIT_GRANTED : MCP__ADMIT_REPLY;
}
