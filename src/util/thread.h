/* SPDX-License-Identifier: MIT */
/* thread.h - starting the library's own threads. */
#ifndef MCP_UTIL_THREAD_H
#define MCP_UTIL_THREAD_H

#include <pthread.h>
#include <stdbool.h>

/* pthread_create with the process's stop signals (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT) blocked in the new thread: they reach the application's threads
 * (its handler, or the sigwait of mcp_http_serve_until_signal) and never
 * one of ours, where their default action would end the process at once.
 * The caller's own mask is unchanged. Returns pthread_create's result. */
int mcp__thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

/* For assert() only: whether m is locked, as a function documented "lock
 * held" expects of its caller. A trylock that succeeds proves the lock was
 * free (it is given back at once): the caller broke the rule. EBUSY is what
 * a held lock answers; a lock held by another thread answers the same, so
 * the check can miss a broken rule but never reports a kept one. */
static inline bool mcp__mutex_held(pthread_mutex_t *m) {
  if (pthread_mutex_trylock(m) != 0)
    return true;
  pthread_mutex_unlock(m);
  return false;
}

#endif
