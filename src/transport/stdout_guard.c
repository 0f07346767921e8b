/* SPDX-License-Identifier: MIT */
/* stdout_guard.c - see stdout_guard.h. */
#include "transport/stdout_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>

int mcp__stdout_guard_begin(mcp__stdout_guard *g, mcp_server_t *s) {
  *g = (mcp__stdout_guard){.proto_fd = STDOUT_FILENO};
  if (!mcp__server_guards_stdout(s))
    return STDOUT_FILENO;
  /* What was printed before serving belongs where it was going. */
  fflush(stdout);
  int proto = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (proto < 0) {
    mcp__log(s, MCP_LOG_WARNING, "stdio: stdout not guarded: fd 1: %s",
             strerror(errno));
    return STDOUT_FILENO;
  }
  /* stderr closed: what handlers print is dropped rather than sent */
  int target = STDERR_FILENO, devnull = -1;
  if (fcntl(STDERR_FILENO, F_GETFD) < 0)
    target = devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (target < 0 || dup2(target, STDOUT_FILENO) < 0) {
    mcp__log(s, MCP_LOG_WARNING, "stdio: stdout not guarded: %s",
             strerror(errno));
    if (devnull >= 0)
      close(devnull);
    close(proto);
    return STDOUT_FILENO;
  }
  if (devnull >= 0)
    close(devnull);
  /* stdout now reaches a person reading stderr: line by line, as
   * stderr's own lines come, not in 4 kB blocks at exit */
  g->was_buffered = !__flbf(stdout);
  setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
  g->proto_fd = proto;
  g->active = true;
  mcp__log(s, MCP_LOG_DEBUG,
           "stdio: stdout guarded: the protocol on fd %d, fd 1 to %s", proto,
           devnull >= 0 ? "/dev/null" : "stderr");
  return proto;
}

void mcp__stdout_guard_end(mcp__stdout_guard *g) {
  if (!g->active)
    return;
  fflush(stdout);
  (void)dup2(g->proto_fd, STDOUT_FILENO);
  close(g->proto_fd);
  if (g->was_buffered)
    setvbuf(stdout, NULL, _IOFBF, BUFSIZ);
  g->active = false;
}
