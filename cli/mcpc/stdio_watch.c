/* SPDX-License-Identifier: MIT */
/* stdio_watch.c - knowing why a stdio server died. The client library
 * spawns the server with mcpc's stderr and reaps it without telling its
 * exit status, so mcpc runs the server under itself:
 *
 *   mcpc --stdio-supervisor FD ARGV...
 *
 * The supervisor forks ARGV (stdin and stdout pass through), copies the
 * child's stderr to its own as it comes (the user still sees it) and keeps
 * the last lines in a ring. When the child has exited it writes on FD
 *   "exit N\n" or "signal N\n", then the kept lines,
 * and exits like the child. mcpc reads FD only when a request failed
 * because the connection closed (mcpc_watch_report). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "util/clock.h"

enum { RING = 2048, KEEP_LINES = 10 };

/* The last RING bytes of the child's stderr. */
typedef struct ring {
  char data[RING];
  size_t len; /* bytes ever written */
} ring;

static void ring_add(ring *r, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    r->data[(r->len + i) % RING] = p[i];
  r->len += n;
}

/* The kept bytes in order, cut to the last KEEP_LINES lines. */
static size_t ring_tail(const ring *r, char *out) {
  size_t n = r->len < RING ? r->len : RING;
  for (size_t i = 0; i < n; i++)
    out[i] = r->data[(r->len - n + i) % RING];
  while (n > 0 && out[n - 1] == '\n')
    n--;
  size_t start = 0;
  if (r->len > RING) { /* the ring cut the first line: drop it */
    char *nl = memchr(out, '\n', n);
    start = nl ? (size_t)(nl - out) + 1 : 0;
  }
  int lines = 0;
  for (size_t i = n; i > start; i--)
    if (out[i - 1] == '\n' && ++lines == KEEP_LINES) {
      start = i;
      break;
    }
  memmove(out, out + start, n - start);
  return n - start;
}

static void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    p += w;
    n -= (size_t)w;
  }
}

int mcpc_supervise(int argc, char **argv) {
  if (argc < 2)
    return 127;
  int report = atoi(argv[0]);
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0)
    return 127;
  fcntl(report, F_SETFD, FD_CLOEXEC);
  pid_t pid = fork();
  if (pid < 0)
    return 127;
  if (pid == 0) {
    dup2(err_pipe[1], 2);
    execvp(argv[1], argv + 1);
    fprintf(stderr, "cannot start %s: %s\n", argv[1], strerror(errno));
    _exit(127);
  }
  close(err_pipe[1]);
  /* stdin and stdout belong to the server: mcpc sees EOF when it exits */
  int null = open("/dev/null", O_RDWR);
  dup2(null, 0);
  dup2(null, 1);
  close(null);
  signal(SIGPIPE, SIG_IGN);
  static ring r;
  char buf[4096];
  int status = 0;
  bool exited = false, eof = false;
  int64_t exited_at = 0;
  /* after the child exits, stderr may still be held by a grandchild: give
   * it 200 ms, then report */
  while (!eof && !(exited && mcp__monotonic_ms() - exited_at > 200)) {
    struct pollfd pfd = {.fd = err_pipe[0], .events = POLLIN};
    int pr = poll(&pfd, 1, 50);
    if (pr > 0) {
      ssize_t n = read(err_pipe[0], buf, sizeof buf);
      if (n > 0) {
        write_all(2, buf, (size_t)n);
        ring_add(&r, buf, (size_t)n);
      } else if (n == 0 || errno != EINTR) {
        eof = true;
      }
    }
    if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      exited_at = mcp__monotonic_ms();
    }
  }
  if (!exited)
    waitpid(pid, &status, 0);
  char head[64], tail[RING];
  snprintf(head, sizeof head, "%s %d\n",
           WIFSIGNALED(status) ? "signal" : "exit",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  write_all(report, head, strlen(head));
  write_all(report, tail, ring_tail(&r, tail));
  close(report);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int report_fd = -1; /* read end, mcpc side */
static int report_wr = -1; /* write end until the spawn */

char **mcpc_watch_argv(char *const *argv) {
  static char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  int fds[2];
  if (n <= 0 || pipe2(fds, O_CLOEXEC) != 0)
    return NULL;
  self[n] = '\0';
  /* the write end must reach the supervisor through the library's spawn */
  fcntl(fds[1], F_SETFD, 0);
  size_t count = 0;
  while (argv[count] != NULL)
    count++;
  char **out = calloc(count + 4, sizeof *out);
  static char fdtext[16];
  if (out == NULL) {
    close(fds[0]);
    close(fds[1]);
    return NULL;
  }
  snprintf(fdtext, sizeof fdtext, "%d", fds[1]);
  if (report_fd >= 0) /* a second connection: only the last one is watched */
    close(report_fd);
  mcpc_watch_spawned();
  out[0] = self;
  out[1] = "--stdio-supervisor";
  out[2] = fdtext;
  for (size_t i = 0; i < count; i++)
    out[3 + i] = argv[i];
  report_fd = fds[0];
  report_wr = fds[1];
  return out;
}

void mcpc_watch_spawned(void) {
  if (report_wr >= 0)
    close(report_wr);
  report_wr = -1;
}

bool mcpc_watch_report(int wait_ms, json_t *details, char *what, size_t n,
                       char *lines, size_t linesn) {
  if (report_fd < 0)
    return false;
  mcpc_watch_spawned();
  char buf[RING + 64];
  size_t len = 0;
  int64_t deadline = mcp__monotonic_ms() + wait_ms;
  for (;;) {
    int left = (int)(deadline - mcp__monotonic_ms());
    struct pollfd pfd = {.fd = report_fd, .events = POLLIN};
    if (left <= 0 || poll(&pfd, 1, left) <= 0)
      return false; /* still running */
    ssize_t r = read(report_fd, buf + len, sizeof buf - 1 - len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0 || (len += (size_t)r) == sizeof buf - 1)
      break;
  }
  buf[len] = '\0';
  close(report_fd);
  report_fd = -1;
  int code;
  if (sscanf(buf, "exit %d", &code) == 1) {
    snprintf(what, n, "the server exited with status %d", code);
    json_object_set_new(details, "serverExit", json_integer(code));
  } else if (sscanf(buf, "signal %d", &code) == 1) {
    snprintf(what, n, "the server was killed by signal %d (%s)", code,
             strsignal(code));
    json_object_set_new(details, "serverSignal", json_integer(code));
  } else {
    return false;
  }
  const char *tail = strchr(buf, '\n');
  tail = tail ? tail + 1 : "";
  json_t *arr = json_array();
  lines[0] = '\0';
  size_t used = 0;
  while (*tail) {
    size_t l = strcspn(tail, "\n");
    json_array_append_new(arr, json_stringn(tail, l));
    int w = snprintf(lines + used, linesn - used, "  | %.*s\n", (int)l, tail);
    if (w > 0 && (size_t)w < linesn - used)
      used += (size_t)w;
    tail += l + (tail[l] == '\n');
  }
  json_object_set_new(details, "serverStderr", arr);
  return true;
}
