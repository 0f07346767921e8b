/* SPDX-License-Identifier: MIT */
/* thread.c - the library's threads leave the stop signals to the
 * application (see thread.h). */
#include "util/thread.h"

#include <signal.h>

int mcp__thread_start(pthread_t *thread, void *(*fn)(void *), void *arg) {
  /* a new thread inherits its creator's mask: block around the creation */
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGHUP);
  sigaddset(&stop, SIGQUIT);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  int rc = pthread_create(thread, NULL, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}
