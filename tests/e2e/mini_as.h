/* SPDX-License-Identifier: MIT */
/* mini_as.h - a tiny authorization-server stand-in for the resource-server
 * tests: one thread on 127.0.0.1 (ephemeral port) answering each
 * connection with what a callback returns for its method, path and body
 * (discovery metadata, a JWKS, introspection answers), and counting the
 * requests per path. Header-only (one executable per *_test.c). */
#ifndef MCP_TEST_MINI_AS_H
#define MCP_TEST_MINI_AS_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct mini_as mini_as;
/* Returns a malloc'd JSON body and sets *status; NULL for 404. */
typedef char *(*mini_as_fn)(mini_as *as, const char *method, const char *path,
                            const char *body, int *status);

struct mini_as {
  int fd, port;
  pthread_t thread;
  atomic_bool stop;
  mini_as_fn fn;
  void *ud;
  atomic_int requests; /* all requests so far */
  char last_auth[256]; /* Authorization header of the last request */
  char last_dpop[4096]; /* DPoP header of the last request, or "" */
  char location[4096]; /* set by the callback for a redirect answer */
  char extra[512];     /* header lines ("Name: value\r\n") the callback adds */
};

static void mini_as_serve_one(mini_as *as, int c) {
  char buf[65536];
  size_t len = 0;
  char *end = NULL;
  while (len < sizeof buf - 1) {
    ssize_t n = read(c, buf + len, sizeof buf - 1 - len);
    if (n <= 0)
      return;
    len += (size_t)n;
    buf[len] = '\0';
    if ((end = strstr(buf, "\r\n\r\n")) != NULL) {
      const char *cl = strcasestr(buf, "\r\nContent-Length:");
      size_t want = cl ? strtoul(cl + 17, NULL, 10) : 0;
      if (len - (size_t)(end + 4 - buf) >= want)
        break;
    }
  }
  if (end == NULL)
    return;
  char method[16] = "", path[512] = "";
  sscanf(buf, "%15s %511s", method, path);
  const char *auth = strcasestr(buf, "\r\nAuthorization:");
  if (auth)
    snprintf(as->last_auth, sizeof as->last_auth, "%.*s",
             (int)strcspn(auth + 16, "\r\n"), auth + 16);
  const char *dpop = strcasestr(buf, "\r\nDPoP:");
  as->last_dpop[0] = '\0';
  if (dpop) {
    dpop += 7;
    while (*dpop == ' ')
      dpop++;
    snprintf(as->last_dpop, sizeof as->last_dpop, "%.*s",
             (int)strcspn(dpop, "\r\n"), dpop);
  }
  atomic_fetch_add(&as->requests, 1);
  int status = 200;
  as->location[0] = '\0';
  as->extra[0] = '\0';
  char *body = as->fn(as, method, path, end + 4, &status);
  if (body == NULL)
    status = 404;
  char head[5000];
  int hn = snprintf(head, sizeof head,
                    "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                    "%s%s%s%sContent-Length: %zu\r\nConnection: close\r\n\r\n",
                    status, as->location[0] ? "Location: " : "", as->location,
                    as->location[0] ? "\r\n" : "", as->extra,
                    body ? strlen(body) : 0);
  if (write(c, head, (size_t)hn) < 0 ||
      (body && write(c, body, strlen(body)) < 0))
    perror("mini_as write");
  free(body);
}

static void *mini_as_main(void *arg) {
  mini_as *as = arg;
  while (!atomic_load(&as->stop)) {
    struct pollfd p = {as->fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0)
      continue;
    int c = accept(as->fd, NULL, NULL);
    if (c < 0)
      continue;
    mini_as_serve_one(as, c);
    close(c);
  }
  return NULL;
}

static void mini_as_start(mini_as *as, mini_as_fn fn, void *ud) {
  memset(as, 0, sizeof *as);
  as->fn = fn;
  as->ud = ud;
  as->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (bind(as->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      listen(as->fd, 16) != 0 ||
      getsockname(as->fd, (struct sockaddr *)&a, &al) != 0)
    abort();
  as->port = ntohs(a.sin_port);
  pthread_create(&as->thread, NULL, mini_as_main, as);
}

static void mini_as_stop(mini_as *as) {
  atomic_store(&as->stop, true);
  pthread_join(as->thread, NULL);
  close(as->fd);
}

#endif
