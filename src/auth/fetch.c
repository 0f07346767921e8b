/* SPDX-License-Identifier: MIT */
/* fetch.c - HTTP GET/POST through libcurl loaded with dlopen (see fetch.h). */
#define CURL_DISABLE_TYPECHECK
#include "auth/fetch.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FETCH_FUNCTIONS(X)                                                     \
  X(curl_easy_init)                                                            \
  X(curl_easy_setopt)                                                          \
  X(curl_easy_perform)                                                         \
  X(curl_easy_getinfo)                                                         \
  X(curl_easy_cleanup)                                                         \
  X(curl_easy_strerror)

typedef struct curl_api {
#define FETCH_MEMBER(name) __typeof__(&name) name;
  FETCH_FUNCTIONS(FETCH_MEMBER)
#undef FETCH_MEMBER
} curl_api;

/* Process-wide, written once under `once` (like transport/mhd.c). */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static curl_api api;
static const curl_api *loaded;
static char why[256];

static void load(void) {
  void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    lib = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    snprintf(why, sizeof why, "cannot load libcurl.so.4: %s", dlerror());
    return;
  }
#define FETCH_LOAD(name)                                                       \
  {                                                                            \
    void *sym = dlsym(lib, #name);                                             \
    if (sym == NULL) {                                                         \
      snprintf(why, sizeof why, "libcurl lacks %s", #name);                    \
      return;                                                                  \
    }                                                                          \
    memcpy(&api.name, &sym, sizeof sym);                                       \
  }
  FETCH_FUNCTIONS(FETCH_LOAD)
#undef FETCH_LOAD
  loaded = &api;
}

typedef struct sink {
  char *data;
  size_t len, cap;
  bool too_big;
} sink;

static size_t on_data(char *p, size_t size, size_t n, void *ud) {
  sink *s = ud;
  size_t add = size * n;
  if (s->len + add > MCP__FETCH_MAX_BYTES) {
    s->too_big = true;
    return 0;
  }
  if (s->len + add + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->len + add + 1)
      cap *= 2;
    char *d = realloc(s->data, cap);
    if (d == NULL)
      return 0;
    s->data = d;
    s->cap = cap;
  }
  memcpy(s->data + s->len, p, add);
  s->len += add;
  s->data[s->len] = '\0';
  return add;
}

/* libcurl calls it about once a second even while nothing moves: a set
 * cancel flag ends the transfer (a hanging server cannot hold an
 * mcp_auth_free for the whole timeout). */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow) {
  (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  return atomic_load((const atomic_bool *)ud) ? 1 : 0;
}

mcp_status mcp__fetch(const mcp__fetch_request *req, long *status, char **body,
                      size_t *len, mcp_error_t *err) {
  pthread_once(&once, load);
  if (loaded == NULL)
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED, "%s", why);
  const curl_api *c = loaded;
  CURL *h = c->curl_easy_init();
  if (h == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "curl_easy_init failed");
  sink s = {0};
  c->curl_easy_setopt(h, CURLOPT_URL, req->url);
  c->curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  c->curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  c->curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                      req->timeout_ms > 0 ? req->timeout_ms : 5000L);
  c->curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
  c->curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
  c->curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  c->curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  if (req->cainfo)
    c->curl_easy_setopt(h, CURLOPT_CAINFO, req->cainfo);
  if (req->cancel) {
    c->curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    c->curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    c->curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)req->cancel);
  }
  if (req->form) {
    c->curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->form);
  }
  if (req->user) {
    c->curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
    c->curl_easy_setopt(h, CURLOPT_USERNAME, req->user);
    c->curl_easy_setopt(h, CURLOPT_PASSWORD,
                        req->password ? req->password : "");
  }
  CURLcode rc = c->curl_easy_perform(h);
  mcp_status st = MCP_OK;
  if (rc != CURLE_OK) {
    st = s.too_big
             ? mcp_error_set(err, MCP_ERR_LIMIT, "%s: answer over %u bytes",
                             req->url, MCP__FETCH_MAX_BYTES)
         : rc == CURLE_ABORTED_BY_CALLBACK
             ? mcp_error_set(err, MCP_ERR_CANCELLED, "%s: cancelled", req->url)
             : mcp_error_set(err, MCP_ERR_IO, "%s: %s", req->url,
                             c->curl_easy_strerror(rc));
    free(s.data);
  } else {
    c->curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    if (s.data == NULL)
      s.data = calloc(1, 1);
    if (s.data == NULL)
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    *body = s.data;
    *len = s.len;
  }
  c->curl_easy_cleanup(h);
  return st;
}
