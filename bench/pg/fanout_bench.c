/* SPDX-License-Identifier: MIT */
/* fanout_bench.c - notification fan-out latency between two replicas on
 * PostgreSQL LISTEN/NOTIFY: server A broadcasts, a session of server B (its
 * own store, pool and listening connection on the same database) receives;
 * one notification in flight at a time; p50 / p99 / max of the time from
 * mcp_server_broadcast on A to arrival in B's session channel.
 *
 *   fanout_bench CONNINFO [-n N]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mcp/mcp.h>

#include "server/dispatch.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER;
static int received;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static mcp_status on_note(void *ctx, const char *m, size_t l, unsigned f) {
  (void)ctx, (void)f;
  if (memmem(m, l, "notifications/message", 21) == NULL)
    return MCP_OK;
  pthread_mutex_lock(&lock);
  received++;
  pthread_cond_signal(&arrived);
  pthread_mutex_unlock(&lock);
  return MCP_OK;
}

static mcp_status ignore(void *ctx, const char *m, size_t l, unsigned f) {
  (void)ctx, (void)m, (void)l, (void)f;
  return MCP_OK;
}

static mcp_server_t *replica(const char *conninfo, mcp_store_t **store) {
  mcp_error_t err;
  mcp_server_t *s = NULL;
  mcp_relay relay;
  if (mcp_store_postgres_open(conninfo, 2, store, &err) != MCP_OK ||
      mcp_server_new("fanout", "1", &s) != MCP_OK ||
      mcp_relay_postgres_new(*store, &relay, &err) != MCP_OK ||
      mcp_server_set_relay(s, relay) != MCP_OK) {
    fprintf(stderr, "fanout_bench: %s\n", err.message);
    exit(1);
  }
  return s;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fanout_bench CONNINFO [-n N]\n");
    return 2;
  }
  int n = argc > 3 && strcmp(argv[2], "-n") == 0 ? atoi(argv[3]) : 2000;
  mcp_store_t *sa, *sb;
  mcp_server_t *a = replica(argv[1], &sa), *b = replica(argv[1], &sb);
  mcp__channel note = {on_note, NULL, NULL, NULL, false},
               none = {ignore, NULL, NULL, NULL, false};
  mcp_session_t *se;
  mcp__session_new(b, note, &se);
  const char *init =
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
      "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
      "{\"name\":\"b\",\"version\":\"1\"}}}";
  const char *ready = "{\"jsonrpc\":\"2.0\",\"method\":"
                      "\"notifications/initialized\"}";
  mcp_call_t *call;
  if (mcp__server_accept(b, se, NULL, init, strlen(init), none, &call) ==
      MCP__ACCEPT_REQUEST)
    mcp__call_run(call);
  mcp__server_accept(b, se, NULL, ready, strlen(ready), none, &call);
  /* wait until B listens: the first broadcasts may go unheard */
  for (int i = 0; i < 200; i++) {
    mcp_server_broadcast(a, "notifications/message",
                         json_pack("{s:s,s:s}", "level", "info", "data", "w"));
    pthread_mutex_lock(&lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 50000000;
    if (until.tv_nsec >= 1000000000) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000;
    }
    if (received == 0)
      pthread_cond_timedwait(&arrived, &lock, &until);
    int got = received;
    pthread_mutex_unlock(&lock);
    if (got > 0)
      break;
  }
  double *lat = malloc(sizeof *lat * (size_t)n);
  for (int i = 0; i < n; i++) {
    pthread_mutex_lock(&lock);
    received = 0;
    pthread_mutex_unlock(&lock);
    double t0 = now_us();
    mcp_server_broadcast(a, "notifications/message",
                         json_pack("{s:s,s:i}", "level", "info", "data", i));
    pthread_mutex_lock(&lock);
    while (received == 0)
      pthread_cond_wait(&arrived, &lock);
    pthread_mutex_unlock(&lock);
    lat[i] = now_us() - t0;
  }
  qsort(lat, (size_t)n, sizeof *lat, cmp);
  printf("fan-out A->B over LISTEN/NOTIFY: %d notifications, p50 %.0f us, "
         "p99 %.0f us, max %.0f us\n",
         n, lat[n / 2], lat[(size_t)(n * 0.99)], lat[n - 1]);
  free(lat);
  mcp__session_close(se);
  mcp__session_release(se);
  mcp_server_free(a);
  mcp_server_free(b);
  mcp_store_free(sa);
  mcp_store_free(sb);
  return 0;
}
