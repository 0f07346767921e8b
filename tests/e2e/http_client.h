/* SPDX-License-Identifier: MIT */
/* http_client.h - a tiny raw-socket HTTP/1.1 client for the HTTP transport
 * tests: full control over headers, chunked SSE reading and abrupt
 * disconnects, which a high-level client would hide. Header-only so the
 * test CMake glob (one executable per *_test.c) needs no change. */
#ifndef MCP_TEST_HTTP_CLIENT_H
#define MCP_TEST_HTTP_CLIENT_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct tc_conn {
  int fd;
  char *buf; /* raw bytes read, not yet consumed */
  size_t len, cap;
  int status;
  char headers[4096];
  bool chunked;
  long content_length;
  char *body; /* de-chunked body bytes (SSE: accumulates) */
  size_t body_len, body_cap;
  size_t body_off; /* consumed SSE prefix */
  bool eof;
  bool ended; /* the final chunk was seen */
} tc_conn;

static int tc_connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static void tc_grow(char **p, size_t *cap, size_t need) {
  if (need + 1 <= *cap)
    return;
  size_t c = *cap ? *cap : 4096;
  while (c < need + 1)
    c *= 2;
  *p = realloc(*p, c);
  *cap = c;
}

/* Reads more raw bytes; false on EOF/timeout. */
static bool tc_fill(tc_conn *c, int timeout_ms) {
  struct pollfd p = {c->fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0)
    return false;
  tc_grow(&c->buf, &c->cap, c->len + 65536);
  ssize_t n = read(c->fd, c->buf + c->len, 65536);
  if (n <= 0) {
    c->eof = true;
    return false;
  }
  c->len += (size_t)n;
  c->buf[c->len] = '\0';
  return true;
}

static void tc_consume(tc_conn *c, size_t n) {
  memmove(c->buf, c->buf + n, c->len - n);
  c->len -= n;
  if (c->buf)
    c->buf[c->len] = '\0';
}

static void tc_body_add(tc_conn *c, const char *p, size_t n) {
  tc_grow(&c->body, &c->body_cap, c->body_len + n);
  memcpy(c->body + c->body_len, p, n);
  c->body_len += n;
  c->body[c->body_len] = '\0';
}

/* Writes one request on fd, with the Host line host, extra header lines
 * ("Name: value\r\n") and a JSON body when non-NULL. False when not all of
 * it was written. */
static bool tc_write_request(int fd, const char *host, const char *method,
                             const char *path, const char *extra,
                             const char *body) {
  size_t blen = body ? strlen(body) : 0;
  size_t cap = 1024 + strlen(host) + (extra ? strlen(extra) : 0) + blen;
  char *req = malloc(cap);
  int n = snprintf(req, cap,
                   "%s %s HTTP/1.1\r\nHost: %s\r\n%s%s"
                   "Content-Length: %zu\r\n\r\n",
                   method, path, host, extra ? extra : "",
                   body ? "Content-Type: application/json\r\n" : "", blen);
  if (body)
    memcpy(req + n, body, blen);
  size_t total = (size_t)n + blen, off = 0;
  while (off < total) {
    ssize_t w = write(fd, req + off, total - off);
    if (w <= 0)
      break;
    off += (size_t)w;
  }
  free(req);
  return off == total;
}

/* Reads the status line and headers of a response on c (zeroed but for
 * its fd). False on EOF or timeout before their end. */
static bool tc_read_head(tc_conn *c, int timeout_ms) {
  c->content_length = -1;
  char *end;
  while ((end = c->buf ? strstr(c->buf, "\r\n\r\n") : NULL) == NULL)
    if (!tc_fill(c, timeout_ms))
      return false;
  size_t hlen = (size_t)(end - c->buf) + 4;
  snprintf(c->headers, sizeof c->headers, "%.*s", (int)hlen, c->buf);
  sscanf(c->headers, "HTTP/%*s %d", &c->status);
  tc_consume(c, hlen);
  const char *te = strcasestr(c->headers, "\r\nTransfer-Encoding: chunked");
  c->chunked = te != NULL;
  const char *cl = strcasestr(c->headers, "\r\nContent-Length:");
  if (cl)
    c->content_length = strtol(cl + 17, NULL, 10);
  return true;
}

/* Opens a connection and sends a request (Host 127.0.0.1:port); reads the
 * status line and headers. extra: "Name: value\r\n" lines. Returns false
 * on failure. */
static bool tc_open(tc_conn *c, int port, const char *method, const char *path,
                    const char *extra, const char *body, int timeout_ms) {
  memset(c, 0, sizeof *c);
  c->content_length = -1;
  c->fd = tc_connect(port);
  if (c->fd < 0)
    return false;
  char host[32];
  snprintf(host, sizeof host, "127.0.0.1:%d", port);
  /* a short write is left for the response to show */
  tc_write_request(c->fd, host, method, path, extra, body);
  return tc_read_head(c, timeout_ms);
}

/* A response header value (copied into out) or NULL. */
static const char *tc_header(tc_conn *c, const char *name, char *out,
                             size_t outlen) {
  char key[128];
  snprintf(key, sizeof key, "\r\n%s:", name);
  const char *p = strcasestr(c->headers, key);
  if (p == NULL)
    return NULL;
  p += strlen(key);
  while (*p == ' ')
    p++;
  size_t n = strcspn(p, "\r\n");
  snprintf(out, outlen, "%.*s", (int)n, p);
  return out;
}

/* De-chunks what is buffered; true when the final chunk was seen. */
static bool tc_dechunk(tc_conn *c) {
  for (;;) {
    char *crlf = c->buf ? strstr(c->buf, "\r\n") : NULL;
    if (crlf == NULL)
      return false;
    size_t size = strtoul(c->buf, NULL, 16);
    size_t head = (size_t)(crlf - c->buf) + 2;
    if (c->len < head + size + 2)
      return false;
    if (size == 0) {
      tc_consume(c, head + 2);
      return true;
    }
    tc_body_add(c, c->buf + head, size);
    tc_consume(c, head + size + 2);
  }
}

/* Reads the whole body (Content-Length or chunked or until close). */
static bool tc_read_body(tc_conn *c, int timeout_ms) {
  if (c->status == 204 || c->status == 304) /* never a body (RFC 9110) */
    return true;
  for (;;) {
    if (c->chunked) {
      if (tc_dechunk(c))
        return true;
    } else if (c->content_length >= 0 && c->len >= (size_t)c->content_length) {
      tc_body_add(c, c->buf, (size_t)c->content_length);
      tc_consume(c, (size_t)c->content_length);
      return true;
    }
    if (!tc_fill(c, timeout_ms)) {
      if (c->eof && !c->chunked && c->content_length < 0) {
        tc_body_add(c, c->buf ? c->buf : "", c->len);
        return true;
      }
      return false;
    }
  }
}

/* Next SSE event of a chunked stream (malloc'd text without the blank
 * line), or NULL on end/timeout. Comment-only blocks (heartbeats) are
 * returned too; callers skip them. */
static char *tc_next_event(tc_conn *c, int timeout_ms) {
  for (;;) {
    char *start = c->body ? c->body + c->body_off : NULL;
    char *sep = start ? strstr(start, "\n\n") : NULL;
    if (sep) {
      size_t n = (size_t)(sep - start);
      char *ev = malloc(n + 1);
      memcpy(ev, start, n);
      ev[n] = '\0';
      c->body_off += n + 2;
      return ev;
    }
    if (c->ended)
      return NULL;
    if (c->chunked) {
      size_t before = c->body_len;
      if (tc_dechunk(c)) {
        c->ended = true; /* events de-chunked with the last chunk first */
        continue;
      }
      if (c->body_len != before)
        continue; /* whole chunks arrived: look for an event in them */
    }
    if (!c->chunked && c->len) {
      tc_body_add(c, c->buf, c->len);
      tc_consume(c, c->len);
      continue;
    }
    if (!tc_fill(c, timeout_ms))
      return NULL;
  }
}

static void tc_close(tc_conn *c) {
  if (c->fd >= 0)
    close(c->fd);
  free(c->buf);
  free(c->body);
  c->fd = -1;
  c->buf = c->body = NULL;
}

/* One whole request/response; returns the status (0 on failure), body in
 * *body (malloc'd) when non-NULL, session id header in sid when non-NULL. */
static int tc_do(int port, const char *method, const char *extra,
                 const char *body, char **body_out, char sid[64]) {
  tc_conn c;
  int status = 0;
  if (tc_open(&c, port, method, "/mcp", extra, body, 5000) &&
      tc_read_body(&c, 5000)) {
    status = c.status;
    if (sid && !tc_header(&c, "Mcp-Session-Id", sid, 64))
      sid[0] = '\0';
    if (body_out) {
      *body_out = c.body ? c.body : strdup("");
      c.body = NULL;
    }
  }
  tc_close(&c);
  return status;
}

#endif
