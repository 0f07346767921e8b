/* testutil.c - see testutil.h. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf)
    return NULL;
  buf[n] = '\0';
  if (len)
    *len = n;
  return buf;
}

const char *tu_shared_dir(void) {
  const char *d = getenv("MCP_SHARED_DIR");
#ifdef MCP_SHARED_DIR
  if (!d)
    d = MCP_SHARED_DIR;
#endif
  struct stat st;
  if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
    return NULL;
  return d;
}

int tu_proc_spawn(tu_proc *p, char *const argv[]) {
  int in[2], out[2];
  memset(p, 0, sizeof *p);
  if (pipe(in) != 0)
    return -1;
  if (pipe(out) != 0) {
    close(in[0]);
    close(in[1]);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  signal(SIGPIPE, SIG_IGN);
  p->pid = pid;
  p->in_fd = in[1];
  p->out_fd = out[0];
  return 0;
}

int tu_proc_write(tu_proc *p, const char *data, size_t len) {
  while (len > 0) {
    ssize_t w = write(p->in_fd, data, len);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    data += w;
    len -= (size_t)w;
  }
  return 0;
}

int tu_proc_send_line(tu_proc *p, const char *line) {
  if (tu_proc_write(p, line, strlen(line)) != 0)
    return -1;
  return tu_proc_write(p, "\n", 1);
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *tu_proc_read_line(tu_proc *p, int timeout_ms) {
  long long deadline = now_ms() + timeout_ms;
  for (;;) {
    char *nl = p->len ? memchr(p->buf, '\n', p->len) : NULL;
    if (nl) {
      size_t n = (size_t)(nl - p->buf);
      char *line = malloc(n + 1);
      memcpy(line, p->buf, n);
      line[n] = '\0';
      memmove(p->buf, nl + 1, p->len - n - 1);
      p->len -= n + 1;
      return line;
    }
    long long left = deadline - now_ms();
    if (left <= 0)
      return NULL;
    struct pollfd pfd = {.fd = p->out_fd, .events = POLLIN};
    int r = poll(&pfd, 1, (int)left);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return NULL;
    if (p->cap - p->len < 65536) {
      size_t ncap = p->cap ? p->cap * 2 : 131072;
      char *nb = realloc(p->buf, ncap);
      if (!nb)
        return NULL;
      p->buf = nb;
      p->cap = ncap;
    }
    ssize_t got = read(p->out_fd, p->buf + p->len, p->cap - p->len);
    if (got <= 0)
      return NULL;
    p->len += (size_t)got;
  }
}

int tu_proc_finish(tu_proc *p, int timeout_ms) {
  int status = -1;
  if (p->in_fd >= 0)
    close(p->in_fd);
  p->in_fd = -1;
  long long deadline = now_ms() + timeout_ms;
  for (;;) {
    pid_t r = waitpid(p->pid, &status, WNOHANG);
    if (r == p->pid)
      break;
    if (r < 0) {
      status = -1;
      break;
    }
    if (now_ms() > deadline) {
      kill(p->pid, SIGKILL);
      waitpid(p->pid, &status, 0);
      status = -1;
      break;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (p->out_fd >= 0)
    close(p->out_fd);
  p->out_fd = -1;
  free(p->buf);
  p->buf = NULL;
  return status;
}
