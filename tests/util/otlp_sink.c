/* SPDX-License-Identifier: MIT */
/* otlp_sink.c - a collector for tests (otlp_sink.h). */
#include "otlp_sink.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* One request's body into c; false when the peer left first. */
static bool take_request(collector *c, int conn) {
  char *buf = NULL;
  size_t got = 0, cap = 0;
  bool whole = false;
  for (;;) {
    if (cap - got < 4096) {
      cap = cap ? 2 * cap : 65536;
      char *grown = realloc(buf, cap + 1);
      if (grown == NULL)
        break;
      buf = grown;
    }
    ssize_t r = recv(conn, buf + got, cap - got, 0);
    if (r <= 0)
      break;
    got += (size_t)r;
    buf[got] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    const char *cl = end ? strstr(buf, "Content-Length: ") : NULL;
    if (cl && got >= (size_t)(end + 4 - buf) + (size_t)atoi(cl + 16)) {
      size_t body = got - (size_t)(end + 4 - buf);
      pthread_mutex_lock(&c->lock);
      char *all = realloc(c->bodies, c->len + body + 1);
      if (all != NULL) {
        c->bodies = all;
        memcpy(c->bodies + c->len, end + 4, body);
        c->len += body;
        c->bodies[c->len] = '\0';
        c->requests++;
        c->holding = c->requests == 1 && c->hold_first_ms > 0;
      }
      pthread_mutex_unlock(&c->lock);
      whole = all != NULL;
      break;
    }
  }
  free(buf);
  return whole;
}

static void *collect(void *arg) {
  collector *c = arg;
  for (;;) {
    int conn = accept(c->fd, NULL, NULL);
    if (conn < 0)
      return NULL;
    if (take_request(c, conn)) {
      pthread_mutex_lock(&c->lock);
      bool hold = c->holding;
      pthread_mutex_unlock(&c->lock);
      if (hold) {
        long ms = c->hold_first_ms;
        nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
        pthread_mutex_lock(&c->lock);
        c->holding = false;
        pthread_mutex_unlock(&c->lock);
      }
    }
    static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    if (send(conn, ok, sizeof ok - 1, MSG_NOSIGNAL) < 0)
      perror("send");
    close(conn);
  }
}

void collector_start(collector *c) {
  int hold = c->hold_first_ms;
  memset(c, 0, sizeof *c);
  c->hold_first_ms = hold;
  pthread_mutex_init(&c->lock, NULL);
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      listen(c->fd, 16) != 0 ||
      getsockname(c->fd, (struct sockaddr *)&a, &len) != 0) {
    perror("collector_start");
    abort();
  }
  c->port = ntohs(a.sin_port);
  if (pthread_create(&c->thread, NULL, collect, c) != 0)
    abort();
}

void collector_stop(collector *c) {
  shutdown(c->fd, SHUT_RDWR); /* accept fails: the thread ends */
  pthread_join(c->thread, NULL);
  close(c->fd);
  free(c->bodies);
  pthread_mutex_destroy(&c->lock);
}
