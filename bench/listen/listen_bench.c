/* SPDX-License-Identifier: MIT */
/* listen_bench.c - many subscriptions/listen streams on one server.
 *
 * A child process serves MCP over HTTP on 127.0.0.1 (release libmcp, one
 * tool that changes the tool list); this process opens N listen streams
 * (one connection each, driven by epoll), waits for every
 * acknowledgement, and reads the server's RSS before and after: the
 * difference divided by N is the memory of one idle stream. Then it asks
 * for a tool-list change ROUNDS times and measures, per round, how long
 * each stream waits for its notifications/tools/list_changed after the
 * trigger's response: p50, p99 and the last one.
 *
 *   listen_bench [-n STREAMS] [-r ROUNDS]
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcp/http.h"
#include "mcp/mcp.h"

#define META                                                                   \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void raise_fd_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

/* ---- the server (child) -------------------------------------------------- */

static mcp_status noop(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "ok");
  return MCP_OK;
}

static mcp_status toggle(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)args, (void)ud;
  mcp_server_t *s = mcp_call_server(call);
  if (mcp_server_remove_tool(s, "dynamic") != MCP_OK) {
    mcp_tool_t *t = NULL;
    if (mcp_tool_new("dynamic", &t) != MCP_OK ||
        mcp_tool_set_handler(t, noop, NULL, NULL) != MCP_OK) {
      mcp_tool_free(t);
      return MCP_ERR_NOMEM;
    }
    mcp_server_add_tool(s, t, NULL);
  }
  mcp_result_add_text(r, "toggled");
  return MCP_OK;
}

/* Bytes the server has allocated right now (glibc), to tell the memory
 * the library holds from what RSS adds (page granularity, libmicrohttpd's
 * pool). */
static mcp_status heap(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)args, (void)ud;
  struct mallinfo2 mi = mallinfo2();
  mcp_result_add_textf(r, "heap=%zu", mi.uordblks + mi.hblkhd);
  return MCP_OK;
}

static void quiet(mcp_log_level l, const char *m, void *ud) {
  (void)l, (void)m, (void)ud;
}

static int serve(int port_pipe, size_t streams) {
  raise_fd_limit();
  mcp_server_t *s = NULL;
  mcp_tool_t *t = NULL;
  if (mcp_server_new("listen-bench", "1.0", &s) != MCP_OK ||
      mcp_tool_new("toggle", &t) != MCP_OK ||
      mcp_tool_set_handler(t, toggle, NULL, NULL) != MCP_OK ||
      mcp_server_add_tool(s, t, NULL) != MCP_OK)
    return 1;
  t = NULL;
  if (mcp_tool_new("heap", &t) != MCP_OK ||
      mcp_tool_set_handler(t, heap, NULL, NULL) != MCP_OK ||
      mcp_server_add_tool(s, t, NULL) != MCP_OK)
    return 1;
  mcp_server_set_log_handler(s, quiet, NULL);
  mcp_http_options_t *o = NULL;
  mcp_http_options_new(&o);
  mcp_http_options_set_bind(o, "127.0.0.1", 0);
  mcp_http_options_set_max_connections(o, streams + 64);
  /* every stream comes from 127.0.0.1: lift the per-address share and the
   * stream limit (docs/security.md) */
  mcp_http_options_set_max_connections_per_address(o, streams + 64);
  mcp_http_options_set_max_streams(o, streams + 64);
  if (getenv("HDR"))
    mcp_http_options_set_max_header_bytes(o, (size_t)atoi(getenv("HDR")));
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  if (mcp_http_server_start(s, o, &h, &err) != MCP_OK) {
    fprintf(stderr, "listen_bench: %s\n", err.message);
    return 1;
  }
  mcp_http_options_free(o);
  uint16_t port = mcp_http_server_port(h);
  if (write(port_pipe, &port, sizeof port) != sizeof port)
    return 1;
  close(port_pipe);
  pause(); /* until SIGTERM */
  return 0;
}

/* ---- the clients (parent) ------------------------------------------------ */

static long rss_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld", &kb) == 1)
      break;
  if (f)
    fclose(f);
  return kb;
}

static int connect_to(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    perror("listen_bench: connect");
    exit(1);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static void post(int fd, uint16_t port, const char *method, const char *name,
                 const char *body) {
  char req[2048];
  int n = snprintf(req, sizeof req,
                   "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                   "Content-Type: application/json\r\n"
                   "Accept: application/json, text/event-stream\r\n"
                   "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: %s\r\n"
                   "%s%s%s"
                   "Content-Length: %zu\r\n\r\n%s",
                   port, method, name ? "Mcp-Name: " : "", name ? name : "",
                   name ? "\r\n" : "", strlen(body), body);
  if (write(fd, req, (size_t)n) != n) {
    perror("listen_bench: write");
    exit(1);
  }
}

/* Reads what fd has; true when needle was in it. */
static bool drain_has(int fd, const char *needle) {
  char buf[8192];
  bool seen = false;
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
    if (n <= 0)
      return seen;
    buf[n] = '\0';
    if (strstr(buf, needle))
      seen = true;
  }
}

/* The server's allocated bytes (the heap tool). */
static long server_heap(uint16_t port) {
  int fd = connect_to(port);
  post(fd, port, "tools/call", "heap",
       "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
       "\"params\":{" META ",\"name\":\"heap\",\"arguments\":{}}}");
  char buf[4096];
  size_t have = 0;
  long v = -1;
  while (have < sizeof buf - 1) {
    ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
    if (n <= 0)
      break;
    have += (size_t)n;
    buf[have] = '\0';
    const char *at = strstr(buf, "heap=");
    if (at && sscanf(at, "heap=%ld", &v) == 1)
      break;
  }
  close(fd);
  return v;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Waits until every stream saw needle; stamps[i] = when (us). */
static void wait_all(int ep, int *fds, size_t n, const char *needle,
                     int64_t *stamps) {
  size_t left = n;
  for (size_t i = 0; i < n; i++)
    stamps[i] = -1;
  struct epoll_event ev[256];
  int64_t deadline = now_us() + 60 * 1000000LL;
  while (left > 0) {
    int k = epoll_wait(ep, ev, 256, 1000);
    if (now_us() > deadline) {
      fprintf(stderr, "listen_bench: %zu streams never saw %s\n", left, needle);
      exit(1);
    }
    for (int j = 0; j < k; j++) {
      size_t i = ev[j].data.u64;
      if (drain_has(fds[i], needle) && stamps[i] < 0) {
        stamps[i] = now_us();
        left--;
      }
    }
  }
}

int main(int argc, char **argv) {
  size_t n = 10000;
  int rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "-n") == 0)
      n = strtoul(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "-r") == 0)
      rounds = atoi(argv[i + 1]);
  }
  raise_fd_limit();
  int pp[2];
  if (pipe(pp) != 0)
    return 1;
  pid_t child = fork();
  if (child == 0) {
    close(pp[0]);
    _exit(serve(pp[1], n));
  }
  close(pp[1]);
  uint16_t port = 0;
  if (read(pp[0], &port, sizeof port) != sizeof port) {
    fprintf(stderr, "listen_bench: the server did not start\n");
    return 1;
  }
  long base_kb = rss_kb(child);
  long base_heap = server_heap(port);

  int *fds = calloc(n, sizeof *fds);
  int64_t *stamps = calloc(n, sizeof *stamps);
  int ep = epoll_create1(0);
  char body[512];
  for (size_t i = 0; i < n; i++) {
    fds[i] = connect_to(port);
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":"
             "\"subscriptions/listen\",\"params\":{" META
             ",\"notifications\":{\"toolsListChanged\":true}}}",
             i);
    post(fds[i], port, "subscriptions/listen", NULL, body);
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = i};
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
    if (i % 1000 == 999) /* let acknowledgements flow while connecting */
      usleep(1000);
  }
  int64_t t0 = now_us();
  wait_all(ep, fds, n, "acknowledged", stamps);
  double open_s = (double)(now_us() - t0) / 1e6;
  usleep(500000);
  long open_kb = rss_kb(child);
  long open_heap = server_heap(port);
  printf("listen streams: %zu open (all acknowledged in %.2f s after the "
         "last connect); server RSS %ld kB -> %ld kB: %.2f kB per stream "
         "(allocated: %.2f kB per stream)\n",
         n, open_s, base_kb, open_kb, (double)(open_kb - base_kb) / (double)n,
         (double)(open_heap - base_heap) / 1024.0 / (double)n);

  int64_t *p50 = calloc((size_t)rounds, sizeof *p50);
  int64_t *p99 = calloc((size_t)rounds, sizeof *p99);
  int64_t *last = calloc((size_t)rounds, sizeof *last);
  for (int r = 0; r < rounds; r++) {
    int tfd = connect_to(port);
    char call[512];
    snprintf(call, sizeof call,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
             "\"params\":{" META ",\"name\":\"toggle\",\"arguments\":{}}}",
             r);
    int64_t start = now_us();
    post(tfd, port, "tools/call", "toggle", call);
    wait_all(ep, fds, n, "tools/list_changed", stamps);
    close(tfd);
    for (size_t i = 0; i < n; i++)
      stamps[i] -= start;
    qsort(stamps, n, sizeof *stamps, cmp_i64);
    p50[r] = stamps[n / 2];
    p99[r] = stamps[(n * 99) / 100];
    last[r] = stamps[n - 1];
    printf("fan-out round %d: p50 %.1f ms  p99 %.1f ms  last %.1f ms\n", r + 1,
           (double)p50[r] / 1000, (double)p99[r] / 1000,
           (double)last[r] / 1000);
    usleep(200000);
  }
  qsort(p50, (size_t)rounds, sizeof *p50, cmp_i64);
  qsort(p99, (size_t)rounds, sizeof *p99, cmp_i64);
  qsort(last, (size_t)rounds, sizeof *last, cmp_i64);
  printf("fan-out of one tools/list_changed to %zu streams, median of %d "
         "rounds: p50 %.1f ms  p99 %.1f ms  last %.1f ms\n",
         n, rounds, (double)p50[rounds / 2] / 1000,
         (double)p99[rounds / 2] / 1000, (double)last[rounds / 2] / 1000);
  kill(child, SIGTERM);
  waitpid(child, NULL, 0);
  return 0;
}
