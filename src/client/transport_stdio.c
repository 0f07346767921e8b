/* SPDX-License-Identifier: MIT */
/* transport_stdio.c - client side of the stdio transport: spawn the server,
 * write one JSON message per line to its stdin, read lines from its stdout
 * on a reader thread. Shutdown follows the spec: close stdin, wait, then
 * SIGTERM, wait, then SIGKILL. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/internal.h"
#include "util/clock.h"
#include "util/thread.h"

extern char **environ;

typedef struct stdio_transport {
  mcp__ctransport base;
  pid_t pid;
  int in_fd;  /* child's stdin (we write) */
  int out_fd; /* child's stdout (we read) */
  pthread_t reader;
  bool reader_started;
  atomic_bool stopping;
  pthread_mutex_t write_lock; /* one message per line: writes must not mix */
} stdio_transport;

/* Writes all bytes with SIGPIPE blocked for this thread, so a dead server
 * gives EPIPE instead of killing the process; a SIGPIPE raised meanwhile is
 * consumed before the mask is restored. */
static bool write_all(int fd, const char *p, size_t n) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  bool ok = true;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      ok = false;
      break;
    }
    p += w;
    n -= (size_t)w;
  }
  if (!ok && errno == EPIPE) {
    struct timespec zero = {0, 0};
    sigtimedwait(&pipe_set, NULL, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return ok;
}

static mcp_status stdio_send(mcp__ctransport *t, const char *bytes, size_t len,
                             const mcp__csend *info, mcp_error_t *err) {
  (void)info; /* no headers, no per-exchange timeout on a pipe */
  stdio_transport *s = (stdio_transport *)t;
  pthread_mutex_lock(&s->write_lock);
  errno = EPIPE;
  bool ok = s->in_fd >= 0 && write_all(s->in_fd, bytes, len) &&
            write_all(s->in_fd, "\n", 1);
  pthread_mutex_unlock(&s->write_lock);
  if (!ok)
    return mcp_error_set(err, MCP_ERR_CLOSED,
                         "cannot write to the server's stdin: %s",
                         strerror(errno));
  return MCP_OK;
}

static void deliver_line(stdio_transport *s, char *line, size_t len) {
  if (len > 0 && line[len - 1] == '\r')
    line[--len] = '\0';
  /* a line that is not JSON breaks the stdio rules: observers see it */
  if (len > 0)
    mcp__client_receive_text(s->base.client, line, len);
}

static void *reader_main(void *arg) {
  stdio_transport *s = arg;
  mcp__buf buf;
  mcp__buf_init(&buf);
  char chunk[65536];
  while (!atomic_load(&s->stopping)) {
    struct pollfd pfd = {.fd = s->out_fd, .events = POLLIN};
    int r = poll(&pfd, 1, 100);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      break;
    if (r == 0)
      continue;
    ssize_t n = read(s->out_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    if (!mcp__buf_append(&buf, chunk, (size_t)n))
      break;
    size_t start = 0;
    for (;;) {
      char *nl = memchr(buf.data + start, '\n', buf.len - start);
      if (nl == NULL)
        break;
      *nl = '\0';
      deliver_line(s, buf.data + start, (size_t)(nl - (buf.data + start)));
      start = (size_t)(nl - buf.data) + 1;
    }
    if (start > 0) {
      memmove(buf.data, buf.data + start, buf.len - start);
      buf.len -= start;
      buf.data[buf.len] = '\0';
    }
  }
  mcp__buf_free(&buf);
  mcp__client_closed(s->base.client);
  return NULL;
}

/* Waits up to ms for the child to exit; true when it did. */
static bool wait_child(pid_t pid, int ms) {
  int64_t deadline = mcp__monotonic_ms() + ms;
  for (;;) {
    int status;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD))
      return true;
    if (mcp__monotonic_ms() >= deadline)
      return false;
    struct timespec ts = {0, 10 * 1000000L};
    nanosleep(&ts, NULL);
  }
}

static void stdio_close(mcp__ctransport *t) {
  stdio_transport *s = (stdio_transport *)t;
  pthread_mutex_lock(&s->write_lock);
  if (s->in_fd >= 0)
    close(s->in_fd);
  s->in_fd = -1;
  pthread_mutex_unlock(&s->write_lock);
  if (s->pid > 0 && !wait_child(s->pid, 2000)) {
    /* the whole process group: a shell wrapper may have forked the server */
    kill(-s->pid, SIGTERM);
    if (!wait_child(s->pid, 2000)) {
      kill(-s->pid, SIGKILL);
      wait_child(s->pid, 5000);
    }
  }
  atomic_store(&s->stopping, true);
  if (s->reader_started)
    pthread_join(s->reader, NULL);
  if (s->out_fd >= 0)
    close(s->out_fd);
  pthread_mutex_destroy(&s->write_lock);
  free(s);
}

static const mcp__ctransport_ops STDIO_OPS = {.send = stdio_send,
                                              .set_protocol_version = NULL,
                                              .session_id = NULL,
                                              .reset_session = NULL,
                                              .close = stdio_close};

mcp_status mcp__ctransport_stdio_new(mcp_client_t *c, char *const *argv,
                                     mcp__ctransport **out, mcp_error_t *err) {
  stdio_transport *s = calloc(1, sizeof *s);
  if (s == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  s->base.ops = &STDIO_OPS;
  s->base.client = c;
  s->in_fd = s->out_fd = -1;
  pthread_mutex_init(&s->write_lock, NULL);
  int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (in_pipe[i] >= 0)
        close(in_pipe[i]);
      if (out_pipe[i] >= 0)
        close(out_pipe[i]);
    }
    stdio_close(&s->base);
    return mcp_error_set(err, MCP_ERR_IO, "pipe: %s", strerror(e));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  /* Own process group, so shutdown signals reach everything the command
   * started (a "sh -c" wrapper forks its children). */
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  int rc = posix_spawnp(&s->pid, argv[0], &fa, &attr, argv, environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  close(in_pipe[0]);
  close(out_pipe[1]);
  s->in_fd = in_pipe[1];
  s->out_fd = out_pipe[0];
  if (rc != 0) {
    s->pid = 0;
    stdio_close(&s->base);
    return mcp_error_set(err, MCP_ERR_IO, "cannot start %s: %s", argv[0],
                         strerror(rc));
  }
  if (mcp__thread_start(&s->reader, reader_main, s) != 0) {
    stdio_close(&s->base);
    return mcp_error_set(err, MCP_ERR_NOMEM, "cannot start the reader thread");
  }
  s->reader_started = true;
  *out = &s->base;
  return MCP_OK;
}
