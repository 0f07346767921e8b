/* SPDX-License-Identifier: MIT */
/* request_state.c - HMAC-SHA256 sealed requestState (SEP-2322).
 *
 * Token: base64(payload) "." base64(HMAC-SHA256(key, base64(payload))).
 * Payload: {"v":1,"m":method,"t":target,"d":sha256(args),"s":subject,
 * "x":expiry_ms,"a":answers,"h":state,"q":[keys of the open questions]}.
 * The MAC covers the encoded payload so verification needs no JSON parse of
 * untrusted bytes; it must be in the canonical encoding (the one seal
 * writes: no other padding, no stray bits in the last character), so that
 * one token has exactly one spelling. The binding is compared after the
 * MAC, the expiry last.
 */
#include "core/request_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "util/base64.h"

#define MAX_TOKEN (1u << 20) /* 1 MiB: far above any honest state */

/* Hex SHA-256 of the canonical (sorted, compact) arguments. */
static bool args_digest(const json_t *args, char out[65]) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  char *text =
      args ? json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)
           : strdup("null");
  if (text == NULL)
    return false;
  SHA256((const unsigned char *)text, strlen(text), md);
  free(text);
  for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
    snprintf(out + 2 * i, 3, "%02x", md[i]);
  return true;
}

static bool mac(const mcp__state_key *key, const char *data, size_t len,
                unsigned char out[32]) {
  unsigned int n = 0;
  return HMAC(EVP_sha256(), key->bytes, (int)key->len,
              (const unsigned char *)data, len, out, &n) != NULL &&
         n == 32;
}

char *mcp__state_seal(const mcp__state_key *key, const mcp__state_binding *b,
                      int64_t ttl_ms, const json_t *answers,
                      const json_t *state, const json_t *asked) {
  char digest[65];
  if (!args_digest(b->args, digest))
    return NULL;
  json_t *p = json_pack("{s:i,s:s,s:s,s:s,s:s,s:I}", "v", 1, "m", b->method,
                        "t", b->target ? b->target : "", "d", digest, "s",
                        b->subject ? b->subject : "", "x",
                        (json_int_t)(b->now_ms + ttl_ms));
  if (p && answers && json_object_size(answers))
    json_object_set(p, "a", (json_t *)answers);
  if (p && state)
    json_object_set(p, "h", (json_t *)state);
  if (p && json_object_size(asked)) {
    json_t *keys = json_array();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)asked, k, v) {
      json_array_append_new(keys, json_string(k));
    }
    if (keys == NULL || json_array_size(keys) != json_object_size(asked) ||
        json_object_set_new(p, "q", keys) != 0) {
      json_decref(p);
      return NULL;
    }
  }
  char *text = p ? json_dumps(p, JSON_COMPACT) : NULL;
  json_decref(p);
  char *body = text ? mcp__base64_encode(text, strlen(text)) : NULL;
  free(text);
  unsigned char tag[32];
  char *sig = body && mac(key, body, strlen(body), tag)
                  ? mcp__base64_encode(tag, sizeof tag)
                  : NULL;
  char *token = NULL;
  if (sig && (token = malloc(strlen(body) + 1 + strlen(sig) + 1)))
    sprintf(token, "%s.%s", body, sig);
  free(body);
  free(sig);
  return token;
}

static mcp_status refuse(const char **why, const char *reason) {
  *why = reason;
  return MCP_ERR_INVALID;
}

mcp_status mcp__state_open(const mcp__state_key *key,
                           const mcp__state_binding *b, const char *token,
                           json_t **answers, json_t **state, json_t **open,
                           const char **why) {
  *answers = *state = *open = NULL;
  size_t len = strnlen(token, MAX_TOKEN + 1);
  const char *dot = memchr(token, '.', len);
  if (len > MAX_TOKEN || dot == NULL)
    return refuse(why, "requestState is malformed");
  size_t body_len = (size_t)(dot - token);
  size_t sig_len;
  unsigned char *sig =
      mcp__base64_decode(dot + 1, len - body_len - 1, &sig_len);
  /* one spelling per MAC: its canonical encoding, nothing else */
  char *canonical = sig && sig_len == 32 ? mcp__base64_encode(sig, 32) : NULL;
  bool canonical_ok = canonical && strlen(canonical) == len - body_len - 1 &&
                      memcmp(canonical, dot + 1, len - body_len - 1) == 0;
  free(canonical);
  if (sig && sig_len == 32 && !canonical_ok) {
    free(sig);
    return refuse(why, "requestState is malformed");
  }
  unsigned char tag[32];
  bool ok = sig && sig_len == 32 && mac(key, token, body_len, tag) &&
            CRYPTO_memcmp(sig, tag, 32) == 0;
  free(sig);
  if (!ok)
    return refuse(why, "requestState was not issued by this server or was "
                       "altered");
  size_t text_len;
  char *text = (char *)mcp__base64_decode(token, body_len, &text_len);
  json_t *p = text ? json_loadb(text, text_len, 0, NULL) : NULL;
  free(text);
  char digest[65];
  mcp_status st = MCP_OK;
  json_int_t expiry = 0;
  const char *m = NULL, *t = NULL, *d = NULL, *s = NULL;
  if (json_unpack(p, "{s:s,s:s,s:s,s:s,s:I}", "m", &m, "t", &t, "d", &d, "s",
                  &s, "x", &expiry) != 0)
    st = refuse(why, "requestState is malformed");
  else if (!args_digest(b->args, digest))
    st = MCP_ERR_NOMEM;
  else if (strcmp(m, b->method) != 0 ||
           strcmp(t, b->target ? b->target : "") != 0 || strcmp(d, digest) != 0)
    st = refuse(why, "requestState belongs to another request (method, name "
                     "or arguments differ)");
  else if (strcmp(s, b->subject ? b->subject : "") != 0)
    st = refuse(why, "requestState belongs to another caller");
  else if (b->now_ms > expiry)
    st = refuse(why, "requestState has expired; send the request again "
                     "without it");
  if (st == MCP_OK) {
    json_t *a = json_object_get(p, "a"), *h = json_object_get(p, "h");
    json_t *q = json_object_get(p, "q");
    *answers = json_is_object(a) ? json_incref(a) : NULL;
    *state = h ? json_incref(h) : NULL;
    *open = json_is_array(q) ? json_incref(q) : NULL;
  }
  json_decref(p);
  return st;
}
