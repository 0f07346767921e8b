/* SPDX-License-Identifier: MIT */
/* mcpc_run.h - helpers for tests that drive mcpc: run it and capture its
 * output and exit code, run it under a pseudo-terminal, and start a server
 * over HTTP on a free port. Header-only (static functions) because each
 * e2e test is one executable. */
#ifndef MCPC_RUN_H
#define MCPC_RUN_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static char mr_tmpdir[256];
static char mr_mcpc[1024];

/* Creates the scratch directory and finds mcpc. */
static inline int mr_setup(const char *name) {
  snprintf(mr_tmpdir, sizeof mr_tmpdir, "/tmp/%s.XXXXXX", name);
  if (mkdtemp(mr_tmpdir) == NULL)
    return -1;
  snprintf(mr_mcpc, sizeof mr_mcpc, "%s/mcpc", MCP_BIN_DIR);
  return 0;
}

static inline void mr_teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", mr_tmpdir);
  if (system(cmd) != 0)
    fprintf(stderr, "cannot remove %s\n", mr_tmpdir);
}

/* Runs mcpc with args (NULL-terminated) in the scratch directory, stdin
 * from /dev/null; returns its exit code. *out and *err (malloc'd, may be
 * NULL) receive stdout and stderr. */
static inline int mr_run(const char *const *args, char **out, char **err) {
  char out_path[300], err_path[300];
  snprintf(out_path, sizeof out_path, "%s/out.%d", mr_tmpdir, (int)getpid());
  snprintf(err_path, sizeof err_path, "%s/err.%d", mr_tmpdir, (int)getpid());
  const char *argv[64] = {mr_mcpc};
  int n = 1;
  for (; args[n - 1] != NULL && n < 63; n++)
    argv[n] = args[n - 1];
  argv[n] = NULL;
  pid_t parent_ = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    tu_child_dies_with(parent_);
    int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/dev/null", O_RDONLY);
    dup2(o, 1);
    dup2(e, 2);
    dup2(in, 0);
    if (chdir(mr_tmpdir) != 0)
      _exit(126);
    execv(mr_mcpc, (char *const *)argv);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  char *o = tu_read_file(out_path, NULL), *e = tu_read_file(err_path, NULL);
  if (out)
    *out = o;
  else
    free(o);
  if (err)
    *err = e;
  else
    free(e);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs mcpc; asserts the exit code (printing stderr when it differs). */
#define MR_RUN(expect, out, ...)                                               \
  do {                                                                         \
    const char *a_[] = {__VA_ARGS__, NULL};                                    \
    char *e_ = NULL;                                                           \
    int rc_ = mr_run(a_, out, &e_);                                            \
    if (rc_ != (expect))                                                       \
      fprintf(stderr, "mcpc exit %d, stderr: %s\n", rc_, e_ ? e_ : "");        \
    free(e_);                                                                  \
    assert_int_equal(rc_, (expect));                                           \
  } while (0)

/* Same, keeping stderr in *err. */
#define MR_RUN2(expect, out, err, ...)                                         \
  do {                                                                         \
    const char *a_[] = {__VA_ARGS__, NULL};                                    \
    int rc_ = mr_run(a_, out, err);                                            \
    if (rc_ != (expect))                                                       \
      fprintf(stderr, "mcpc exit %d, stderr: %s\n", rc_, *(err));              \
    assert_int_equal(rc_, (expect));                                           \
  } while (0)

/* Runs mcpc under a pseudo-terminal (stdin, stdout and stderr are the
 * terminal) with input typed on it (may be NULL; the terminal's line
 * discipline hands it over line by line); returns what appeared on the
 * terminal (malloc'd: mcpc's output and the echo of the input) and its exit
 * code in *rc. */
static inline char *mr_run_pty_input(const char *const *args, const char *input,
                                     int *rc);
static inline char *mr_run_pty(const char *const *args, int *rc) {
  return mr_run_pty_input(args, NULL, rc);
}
static inline char *mr_run_pty_input(const char *const *args, const char *input,
                                     int *rc) {
  const char *argv[64] = {mr_mcpc};
  int n = 1;
  for (; args[n - 1] != NULL && n < 63; n++)
    argv[n] = args[n - 1];
  argv[n] = NULL;
  int master;
  pid_t parent_ = getpid();
  pid_t pid = forkpty(&master, NULL, NULL, NULL);
  if (pid < 0)
    return NULL;
  if (pid == 0) {
    tu_child_dies_with(parent_);
    if (chdir(mr_tmpdir) != 0)
      _exit(126);
    execv(mr_mcpc, (char *const *)argv);
    _exit(127);
  }
  if (input != NULL && write(master, input, strlen(input)) < 0)
    kill(pid, SIGKILL);
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (len + 1 >= cap)
      buf = realloc(buf, cap *= 2);
    ssize_t r = read(master, buf + len, cap - 1 - len);
    if (r <= 0)
      break; /* EIO once the child closed the terminal */
    len += (size_t)r;
  }
  buf[len] = '\0';
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return buf;
}

/* A port that was free a moment ago (bind to 0, read it, close). */
static inline int mr_free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  int port = -1;
  if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
      getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0)
    close(fd);
  return port;
}

/* Starts argv (NULL-terminated, stderr to /dev/null) in the scratch
 * directory and waits until "mcpc -u url ping" succeeds; returns the pid,
 * or -1. */
static inline pid_t mr_start_http(char *const *argv, const char *url) {
  pid_t parent_ = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    tu_child_dies_with(parent_);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    if (chdir(mr_tmpdir) != 0)
      _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  for (int i = 0; i < 600; i++) { /* up to 30 s on a loaded machine */
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
    const char *a[] = {"-u", url, "--timeout", "2000", "ping", NULL};
    if (mr_run(a, NULL, NULL) == 0)
      return pid;
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

/* The demo server over HTTP on a free port, with its database and task
 * store in db_name in the scratch directory: argv and url for
 * mr_start_http. */
typedef struct mr_demo_http {
  char hp[64], url[128], bin[1024], db[400], store[420];
  char *argv[8];
} mr_demo_http;

static inline void mr_demo_http_init(mr_demo_http *d, const char *db_name) {
  int port = mr_free_port();
  assert_true(port > 0);
  snprintf(d->hp, sizeof d->hp, "127.0.0.1:%d", port);
  snprintf(d->url, sizeof d->url, "http://%s/mcp", d->hp);
  snprintf(d->bin, sizeof d->bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  snprintf(d->db, sizeof d->db, "%s/%s", mr_tmpdir, db_name);
  snprintf(d->store, sizeof d->store, "sqlite:%s", d->db);
  char *argv[] = {d->bin, "--http",  d->hp,    "--db",
                  d->db,  "--store", d->store, NULL};
  memcpy(d->argv, argv, sizeof argv);
}

/* Stops a server started by mr_start_http: SIGTERM, then up to
 * MR_STOP_SECONDS (60: a graceful stop under ThreadSanitizer on a loaded
 * machine) for it to exit. A server that does not stop is a bug, not a
 * reason to hang the test: it is killed, its pid and what it was sent are
 * printed, and false is returned (callers fail on it). */
#define MR_STOP_SECONDS 60
static inline bool mr_stop(pid_t pid) {
  if (pid <= 0)
    return true;
  kill(pid, SIGTERM);
  for (int i = 0; i < MR_STOP_SECONDS * 20; i++) {
    pid_t r = waitpid(pid, NULL, WNOHANG);
    if (r == pid || r < 0)
      return true;
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
  }
  fprintf(stderr, "server %d did not exit within %d s of SIGTERM: its "
                  "threads, then SIGKILL\n",
          (int)pid, MR_STOP_SECONDS);
  /* where it hangs, for the log (gdb is optional: without it, nothing) */
  char cmd[160];
  snprintf(cmd, sizeof cmd,
           "command -v gdb >/dev/null && timeout 60 gdb -p %d -batch -ex "
           "'thread apply all bt' 2>&1 | grep -E '^(Thread|#)' >&2",
           (int)pid);
  if (system(cmd) != 0)
    fprintf(stderr, "(no backtrace: gdb missing or failed)\n");
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return false;
}

#endif
