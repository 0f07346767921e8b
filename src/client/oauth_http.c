/* SPDX-License-Identifier: MIT */
/* oauth_http.c - HTTP, encoding and PKCE helpers of the OAuth client. */
#include "client/oauth_http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/base64.h"
#include "util/hex.h"

#define MAX_BODY (1u << 20)

typedef struct sink {
  mcp__buf body;
  char *location;
  char *dpop_nonce;
  bool too_big;
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
  sink *s = ud;
  if (s->body.len + size * n > MAX_BODY) {
    s->too_big = true;
    return 0;
  }
  return mcp__buf_append(&s->body, p, size * n) ? size * n : 0;
}

/* The value of header line p (len bytes) when it is "name:", malloc'd. */
static char *header_value(const char *p, size_t len, const char *name) {
  size_t nl = strlen(name);
  if (len <= nl || strncasecmp(p, name, nl) != 0)
    return NULL;
  const char *v = p + nl;
  while (v < p + len && *v == ' ')
    v++;
  size_t vl = (size_t)(p + len - v);
  while (vl > 0 &&
         (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
    vl--;
  return strndup(v, vl);
}

static size_t on_header(char *p, size_t size, size_t n, void *ud) {
  sink *s = ud;
  size_t len = size * n;
  char *v;
  if ((v = header_value(p, len, "location:")) != NULL) {
    free(s->location);
    s->location = v;
  } else if ((v = header_value(p, len, "dpop-nonce:")) != NULL) {
    free(s->dpop_nonce);
    s->dpop_nonce = v;
  }
  return len;
}

mcp_status mcp__oauth_http(const mcp__oreq *req, mcp__oresp *resp,
                           mcp_error_t *err) {
  memset(resp, 0, sizeof *resp);
  CURL *c = curl_easy_init();
  if (c == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "curl_easy_init failed");
  sink s = {0};
  mcp__buf_init(&s.body);
  struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json");
  if (req->json)
    h = curl_slist_append(h, "Content-Type: application/json");
  char *dpop_line = NULL;
  if (req->dpop && asprintf(&dpop_line, "DPoP: %s", req->dpop) > 0)
    h = curl_slist_append(h, dpop_line);
  free(dpop_line);
  curl_easy_setopt(c, CURLOPT_URL, req->url);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 30000L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  if (req->cacert)
    curl_easy_setopt(c, CURLOPT_CAINFO, req->cacert);
  if (req->form || req->json)
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->form ? req->form : req->json);
  if (req->user) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
    curl_easy_setopt(c, CURLOPT_USERNAME, req->user);
    curl_easy_setopt(c, CURLOPT_PASSWORD, req->password ? req->password : "");
  }
  CURLcode rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
  curl_easy_cleanup(c);
  curl_slist_free_all(h);
  mcp__buf_append(&s.body, "", 1);
  size_t n;
  resp->body = mcp__buf_steal(&s.body, &n);
  resp->location = s.location;
  resp->dpop_nonce = s.dpop_nonce;
  if (rc != CURLE_OK) {
    mcp__oresp_free(resp);
    return mcp_error_set(err, MCP_ERR_IO, "%s: %s", req->url,
                         s.too_big ? "answer too large"
                                   : curl_easy_strerror(rc));
  }
  return MCP_OK;
}

void mcp__oresp_free(mcp__oresp *r) {
  free(r->body);
  free(r->location);
  free(r->dpop_nonce);
  memset(r, 0, sizeof *r);
}

char *mcp__query_param(const char *query, const char *name) {
  size_t nl = strlen(name);
  for (const char *p = query; p && *p;) {
    const char *amp = strchr(p, '&');
    size_t len = amp ? (size_t)(amp - p) : strlen(p);
    if (len > nl && strncmp(p, name, nl) == 0 && p[nl] == '=') {
      char *out = malloc(len - nl);
      size_t o = 0;
      for (size_t i = nl + 1; out && i < len; i++) {
        int hi = p[i] == '%' && i + 2 < len + 1
                     ? mcp__hex_digit((unsigned char)p[i + 1])
                     : -1;
        int lo = hi >= 0 ? mcp__hex_digit((unsigned char)p[i + 2]) : -1;
        if (lo >= 0) {
          out[o++] = (char)(hi * 16 + lo);
          i += 2;
        } else {
          out[o++] = p[i] == '+' ? ' ' : p[i];
        }
      }
      if (out)
        out[o] = '\0';
      return out;
    }
    p = amp ? amp + 1 : NULL;
  }
  return NULL;
}

char *mcp__random_b64url(void) {
  unsigned char r[32];
  if (RAND_bytes(r, sizeof r) != 1)
    return NULL;
  return mcp__base64url_encode(r, sizeof r);
}

char *mcp__pkce_s256(const char *verifier) {
  unsigned char md[32];
  unsigned int n = 0;
  if (EVP_Digest(verifier, strlen(verifier), md, &n, EVP_sha256(), NULL) != 1)
    return NULL;
  return mcp__base64url_encode(md, n);
}

char *mcp__challenge_param(const char *h, const char *name) {
  if (h == NULL)
    return NULL;
  size_t nl = strlen(name);
  for (const char *p = h; *p; p++) {
    if (strncasecmp(p, name, nl) != 0 || p[nl] != '=' ||
        (p != h && p[-1] != ' ' && p[-1] != ','))
      continue;
    const char *v = p + nl + 1;
    if (*v == '"') {
      v++;
      mcp__buf b;
      mcp__buf_init(&b);
      for (; *v && *v != '"'; v++) {
        if (*v == '\\' && v[1])
          v++;
        mcp__buf_append_char(&b, *v);
      }
      mcp__buf_append(&b, "", 1);
      size_t n;
      return mcp__buf_steal(&b, &n);
    }
    return strndup(v, strcspn(v, " ,"));
  }
  return NULL;
}

mcp_status mcp__redirect_listen(mcp__redirect_listener *l, mcp_error_t *err) {
  l->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      listen(l->fd, 4) != 0 ||
      getsockname(l->fd, (struct sockaddr *)&a, &al) != 0) {
    if (l->fd >= 0)
      close(l->fd);
    l->fd = -1;
    return mcp_error_set(err, MCP_ERR_IO, "cannot listen for the redirect");
  }
  l->port = ntohs(a.sin_port);
  return MCP_OK;
}

mcp_status mcp__redirect_wait(mcp__redirect_listener *l, int timeout_ms,
                              char **query, mcp_error_t *err) {
  *query = NULL;
  for (;;) {
    struct pollfd p = {l->fd, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0)
      return mcp_error_set(err, MCP_ERR_TIMEOUT,
                           "no answer from the browser in time");
    int c = accept(l->fd, NULL, NULL);
    if (c < 0)
      continue;
    char buf[8192];
    size_t len = 0;
    buf[0] = '\0';
    while (len < sizeof buf - 1 && strstr(buf, "\r\n\r\n") == NULL) {
      struct pollfd cp = {c, POLLIN, 0};
      if (poll(&cp, 1, 5000) <= 0)
        break;
      ssize_t r = read(c, buf + len, sizeof buf - 1 - len);
      if (r <= 0)
        break;
      len += (size_t)r;
      buf[len] = '\0';
    }
    buf[len] = '\0';
    const char *page = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                       "Connection: close\r\n\r\n<html><body>Authorization "
                       "received; you can close this window.</body></html>";
    bool ok = strncmp(buf, "GET /callback?", 14) == 0;
    if (!ok)
      page = "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n";
    if (write(c, page, strlen(page)) < 0) { /* the browser left */
    }
    close(c);
    if (ok) {
      const char *q = buf + 14;
      *query = strndup(q, strcspn(q, " \r\n"));
      return *query ? MCP_OK : mcp_error_set(err, MCP_ERR_NOMEM, "no memory");
    }
  }
}

void mcp__redirect_close(mcp__redirect_listener *l) {
  if (l->fd >= 0)
    close(l->fd);
  l->fd = -1;
}
