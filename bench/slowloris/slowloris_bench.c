/* SPDX-License-Identifier: MIT */
/* slowloris_bench.c - a server with the default HTTP limits under N slow
 * connections (one header byte every 2 s, from one address or spread over
 * --spread loopback addresses); measures how long a normal client waits for
 * initialize and a tools/call. Prints the median and the worst round. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mcp/http.h"
#include "mcp/mcp.h"
#include "transport/http_internal.h"

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static mcp_status echo(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call;
  (void)args;
  (void)ud;
  mcp_result_add_text(r, "ok");
  return MCP_OK;
}

static int connect_from(const char *src, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, src, &a.sin_addr);
  if (src[0] && bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  a.sin_port = htons((uint16_t)port);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* One request, the whole answer read (Content-Length); status or 0. */
static int request(int port, const char *sid_in, char *sid_out,
                   const char *body) {
  int fd = connect_from("", port);
  if (fd < 0)
    return 0;
  char req[2048];
  int n = snprintf(req, sizeof req,
                   "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                   "Accept: application/json, text/event-stream\r\n"
                   "Content-Type: application/json\r\n%s%s%s"
                   "Content-Length: %zu\r\n\r\n%s",
                   port, sid_in ? "Mcp-Session-Id: " : "", sid_in ? sid_in : "",
                   sid_in ? "\r\n" : "", strlen(body), body);
  if (write(fd, req, (size_t)n) != n) {
    close(fd);
    return 0;
  }
  char buf[8192];
  size_t len = 0;
  int status = 0;
  for (;;) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0)
      break;
    ssize_t k = read(fd, buf + len, sizeof buf - 1 - len);
    if (k <= 0)
      break;
    len += (size_t)k;
    buf[len] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    const char *cl = strcasestr(buf, "Content-Length:");
    if (end && cl &&
        (size_t)(end + 4 - buf) + strtoul(cl + 15, NULL, 10) <= len) {
      sscanf(buf, "HTTP/%*s %d", &status);
      const char *s = strcasestr(buf, "Mcp-Session-Id: ");
      if (sid_out && s)
        sscanf(s + 16, "%36s", sid_out);
      break;
    }
  }
  close(fd);
  return status;
}

static int cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int n = 1100, rounds = 20, spread = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "-n") == 0)
      n = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "-r") == 0)
      rounds = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--spread") == 0)
      spread = atoi(argv[i + 1]);
  }
  if (rounds < 1)
    rounds = 1;
  mcp_server_t *s;
  mcp_tool_t *t;
  mcp_server_new("slowloris", "1", &s);
  mcp_tool_new("echo", &t);
  mcp_tool_set_input_schema_text(t, "{\"type\":\"object\"}");
  mcp_tool_set_handler(t, echo, NULL, NULL);
  mcp_server_add_tool(s, t, NULL);
  mcp_http_options_t *o;
  mcp_http_options_new(&o);
  mcp_http_options_set_bind(o, "127.0.0.1", 0);
  mcp_http_server_t *h;
  mcp_error_t err;
  if (mcp_http_server_start(s, o, &h, &err) != MCP_OK) {
    fprintf(stderr, "start: %s\n", err.message);
    return 1;
  }
  int port = mcp_http_server_port(h);
  int *fds = calloc((size_t)n, sizeof *fds);
  char src[32] = "";
  char head[128];
  int hl = snprintf(head, sizeof head,
                    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n", port);
  int opened = 0;
  for (int i = 0; i < n; i++) {
    if (spread > 0)
      snprintf(src, sizeof src, "127.0.2.%d", 1 + i % spread);
    fds[i] = connect_from(src, port);
    if (fds[i] >= 0 && write(fds[i], head, (size_t)hl) == hl)
      opened++;
  }
  int64_t *lat = calloc((size_t)rounds, sizeof *lat);
  int served = 0;
  for (int r = 0; r < rounds; r++) {
    /* the slow clients: one more header byte each, every 2 s */
    for (int i = 0; i < n; i++)
      if (fds[i] >= 0 && write(fds[i], "X", 1) != 1) {
        close(fds[i]);
        fds[i] = -1;
      }
    int64_t t0 = now_us();
    char sid[64] = "";
    int a = request(port, NULL, sid,
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                    "\"params\":{\"protocolVersion\":\"2025-11-25\","
                    "\"capabilities\":{},\"clientInfo\":{\"name\":\"b\","
                    "\"version\":\"1\"}}}");
    int b = a == 200 ? request(port, sid, NULL,
                               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
                               "\"tools/call\",\"params\":{\"name\":\"echo\","
                               "\"arguments\":{}}}")
                     : 0;
    lat[r] = now_us() - t0;
    served += a == 200 && b == 200;
    struct timespec ts = {2, 0};
    nanosleep(&ts, NULL);
  }
  hs_limits_stats st = mcp__hs_limits_stats(h->limits);
  qsort(lat, (size_t)rounds, sizeof *lat, cmp);
  printf("slowloris %d conns (%s): served %d/%d, initialize+call median "
         "%.1f ms, worst %.1f ms; server: %zu conns, %zu evicted, %zu past "
         "deadline\n",
         opened, spread ? "many addresses" : "one address", served, rounds,
         lat[rounds / 2] / 1000.0, lat[rounds - 1] / 1000.0, st.connections,
         st.evicted, st.deadline_closed);
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0)
      close(fds[i]);
  mcp_http_server_stop(h);
  mcp_http_options_free(o);
  mcp_server_free(s);
  free(fds);
  free(lat);
  return served == rounds ? 0 : 1;
}
