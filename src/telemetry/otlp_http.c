/* SPDX-License-Identifier: MIT */
/* otlp_http.c - see otlp_http.h. */
#include "telemetry/otlp_http.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "telemetry/otlp_pb.h"
#include "util/buf.h"

#define IO_TIMEOUT_S 2 /* connect, send, receive: a slow collector loses */

static bool parse_url(mcp__otlp_target *e, const char *url, char *why,
                      size_t n) {
  if (url == NULL || strncmp(url, "http://", 7) != 0) {
    snprintf(why, n, "OTLP endpoint \"%s\": only http:// URLs are supported",
             url ? url : "");
    return false;
  }
  const char *h = url + 7, *slash = strchr(h, '/');
  size_t hl = slash ? (size_t)(slash - h) : strlen(h);
  char hostport[300];
  if (hl == 0 || hl >= sizeof hostport) {
    snprintf(why, n, "OTLP endpoint \"%s\": no host", url);
    return false;
  }
  memcpy(hostport, h, hl);
  hostport[hl] = '\0';
  snprintf(e->path, sizeof e->path, "%s", slash ? slash : "/");
  char *colon = strrchr(hostport, ':');
  char *close = strrchr(hostport, ']');
  if (colon != NULL && (close == NULL || colon > close)) {
    *colon = '\0';
    snprintf(e->port, sizeof e->port, "%.7s", colon + 1);
  } else {
    snprintf(e->port, sizeof e->port, "80");
  }
  char *host = hostport;
  if (host[0] == '[') { /* [::1] */
    host++;
    char *end = strchr(host, ']');
    if (end)
      *end = '\0';
  }
  snprintf(e->host, sizeof e->host, "%.255s", host);
  if (e->host[0] == '\0' || atoi(e->port) <= 0) {
    snprintf(why, n, "OTLP endpoint \"%s\": bad host or port", url);
    return false;
  }
  return true;
}

/* "k=v,k2=v2" as HTTP header lines (values trimmed, %20 and friends kept
 * as written: the W3C baggage octets collectors expect). */
static char *header_lines(const char *spec) {
  mcp__buf b;
  mcp__buf_init(&b);
  mcp__buf_append_str(&b, "");
  for (const char *p = spec; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (eq != NULL && eq > p) {
      const char *k = p, *v = eq + 1;
      size_t kl = (size_t)(eq - p), vl = len - kl - 1;
      while (kl && (k[kl - 1] == ' '))
        kl--;
      while (*k == ' ' && kl)
        k++, kl--;
      while (vl && *v == ' ')
        v++, vl--;
      bool clean = true; /* no header injection through the environment */
      for (size_t i = 0; i < vl; i++)
        clean &= v[i] != '\r' && v[i] != '\n';
      for (size_t i = 0; i < kl; i++)
        clean &= k[i] != '\r' && k[i] != '\n' && k[i] != ':';
      if (clean && kl) {
        mcp__buf_append(&b, k, kl);
        mcp__buf_append_str(&b, ": ");
        mcp__buf_append(&b, v, vl);
        mcp__buf_append_str(&b, "\r\n");
      }
    }
    p = comma ? comma + 1 : NULL;
  }
  size_t n;
  char *s = mcp__buf_steal(&b, &n);
  mcp__buf_free(&b);
  return s;
}

bool mcp__otlp_protocol_parse(const char *name, mcp__otlp_protocol *out) {
  if (name != NULL && strcmp(name, "http/protobuf") == 0)
    *out = MCP__OTLP_HTTP_PROTOBUF;
  else if (name != NULL && strcmp(name, "http/json") == 0)
    *out = MCP__OTLP_HTTP_JSON;
  else
    return false;
  return true;
}

const char *mcp__otlp_protocol_name(mcp__otlp_protocol p) {
  return p == MCP__OTLP_HTTP_JSON ? "http/json" : "http/protobuf";
}

static bool post_bytes(const mcp__otlp_target *e, const char *content_type,
                       const char *body, size_t len);

bool mcp__otlp_post(const mcp__otlp_target *e, const char *body, size_t len) {
  if (e->protocol == MCP__OTLP_HTTP_JSON)
    return post_bytes(e, "application/json", body, len);
  mcp__buf pb;
  mcp__buf_init(&pb);
  char why[200];
  bool ok = mcp__otlp_json_to_pb(body, len, &pb, why, sizeof why) &&
            post_bytes(e, "application/x-protobuf", pb.data ? pb.data : "",
                       pb.len);
  mcp__buf_free(&pb);
  return ok;
}

bool mcp__otlp_post_encoded(const mcp__otlp_target *e, const char *body,
                            size_t len) {
  return post_bytes(e,
                    e->protocol == MCP__OTLP_HTTP_JSON
                        ? "application/json"
                        : "application/x-protobuf",
                    body, len);
}

static bool post_bytes(const mcp__otlp_target *e, const char *content_type,
                       const char *body, size_t len) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
  if (getaddrinfo(e->host, e->port, &hints, &ai) != 0)
    return false;
  int fd = -1;
  for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
      continue;
    struct timeval tv = {IO_TIMEOUT_S, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(ai);
  if (fd < 0)
    return false;
  char head[2048];
  int hl = snprintf(head, sizeof head,
                    "POST %s HTTP/1.1\r\nHost: %s:%s\r\n"
                    "Content-Type: %s\r\n"
                    "Content-Length: %zu\r\nConnection: close\r\n%s\r\n",
                    e->path, e->host, e->port, content_type, len, e->headers);
  bool ok = hl > 0 && (size_t)hl < sizeof head;
  const char *parts[2] = {head, body};
  size_t sizes[2] = {ok ? (size_t)hl : 0, len};
  for (int i = 0; ok && i < 2; i++)
    for (size_t off = 0; ok && off < sizes[i];) {
      ssize_t w = send(fd, parts[i] + off, sizes[i] - off, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR)
        continue;
      ok = w > 0;
      off += w > 0 ? (size_t)w : 0;
    }
  /* the status line, then the rest read and dropped until the collector
   * closes (Connection: close), so it never sees a reset */
  char status[64] = "", rest[512];
  size_t got = 0;
  while (ok) {
    bool in_status = got < sizeof status - 1;
    ssize_t r = in_status ? recv(fd, status + got, sizeof status - 1 - got, 0)
                     : recv(fd, rest, sizeof rest, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    if (in_status)
      got += (size_t)r;
  }
  close(fd);
  status[got] = '\0';
  return ok && strncmp(status, "HTTP/1.", 7) == 0 && status[9] == '2';
}

bool mcp__otlp_target_init(mcp__otlp_target *t, const char *url,
                           const char *headers, char *why, size_t n) {
  *t = (mcp__otlp_target){0};
  if (!parse_url(t, url, why, n))
    return false;
  t->headers = header_lines(headers);
  if (t->headers == NULL) {
    snprintf(why, n, "out of memory");
    return false;
  }
  return true;
}

void mcp__otlp_target_clear(mcp__otlp_target *t) {
  free(t->headers);
  t->headers = NULL;
}
