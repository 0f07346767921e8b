/* SPDX-License-Identifier: MIT */
/* stdio_bench.c - throughput of an MCP server over stdio.
 *
 *   stdio_bench [-n CALLS] [--raw] -- COMMAND [ARGS...]
 *
 * Spawns COMMAND, performs initialize, then pipes CALLS `tools/call add`
 * requests from a writer thread while the main thread reads the responses,
 * and prints calls/s plus the child's idle RSS (after initialize) and peak
 * RSS (VmHWM) from /proc. --raw skips the handshake and only counts lines
 * (for the line-echo baseline).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long calls = 200000;
static int to_child, from_child;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long proc_kb(pid_t pid, const char *key) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  long v = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, key, strlen(key)) == 0)
      v = strtol(line + strlen(key), NULL, 10);
  if (f)
    fclose(f);
  return v;
}

static void write_all(const char *p, size_t n) {
  while (n) {
    ssize_t w = write(to_child, p, n);
    if (w <= 0) {
      perror("write");
      exit(1);
    }
    p += w;
    n -= (size_t)w;
  }
}

static void *writer(void *arg) {
  (void)arg;
  char *buf = malloc(1 << 20);
  size_t len = 0;
  for (long i = 0; i < calls; i++) {
    len += (size_t)sprintf(buf + len,
                           "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":"
                           "\"tools/call\",\"params\":{\"name\":\"add\","
                           "\"arguments\":{\"a\":%ld,\"b\":5}}}\n",
                           i + 10, i);
    if (len > (1 << 20) - 256) {
      write_all(buf, len);
      len = 0;
    }
  }
  write_all(buf, len);
  free(buf);
  return NULL;
}

/* Reads until n newlines were seen. */
static char rbuf[1 << 16];
static long read_lines(long n) {
  long seen = 0;
  while (seen < n) {
    ssize_t r = read(from_child, rbuf, sizeof rbuf);
    if (r <= 0)
      break;
    for (ssize_t i = 0; i < r; i++)
      if (rbuf[i] == '\n')
        seen++;
  }
  return seen;
}

int main(int argc, char **argv) {
  int i = 1, raw = 0;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      calls = atol(argv[++i]);
    else if (strcmp(argv[i], "--raw") == 0)
      raw = 1;
  }
  if (i + 1 >= argc) {
    fprintf(stderr, "usage: stdio_bench [-n CALLS] [--raw] -- COMMAND...\n");
    return 2;
  }
  char **cmd = argv + i + 1;
  int in[2], out[2];
  if (pipe(in) || pipe(out))
    return 1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execvp(cmd[0], cmd);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_child = in[1];
  from_child = out[0];
  signal(SIGPIPE, SIG_IGN);
  if (!raw) {
    const char *init =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
        "{\"name\":\"bench\",\"version\":\"1\"}}}\n";
    write_all(init, strlen(init));
    read_lines(1);
    const char *inited =
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    write_all(inited, strlen(inited));
  } else {
    usleep(100000);
  }
  usleep(200000);
  long idle_rss = proc_kb(pid, "VmRSS:");
  pthread_t th;
  double t0 = now();
  pthread_create(&th, NULL, writer, NULL);
  long got = read_lines(calls);
  double dt = now() - t0;
  pthread_join(th, NULL);
  long peak = proc_kb(pid, "VmHWM:");
  close(to_child);
  int status;
  waitpid(pid, &status, 0);
  printf("%s: %ld calls in %.3f s = %.0f calls/s; idle RSS %ld kB, peak RSS "
         "%ld kB\n",
         cmd[0], got, dt, got / dt, idle_rss, peak);
  return got == calls ? 0 : 1;
}
