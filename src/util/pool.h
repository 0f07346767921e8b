/* SPDX-License-Identifier: MIT */
/* pool.h - a fixed set of worker threads: started together, stopped
 * together.
 *
 * The stdio transport, the HTTP server and the task runner each run their
 * work on such a set. Each keeps its own queue and its own rule for taking
 * from it (stdio: first in, first out, published per read chunk; HTTP: few
 * wake-ups, idle workers poll behind busy ones; tasks: a running cap per
 * caller) under its own lock; what they share is here: start up to N
 * threads running one function, and at the end set the owner's stop flag
 * under its lock, wake every waiting worker and join them all. Workers
 * drain their queue before they return, so stopping waits for what was
 * queued. The threads are not named. */
#ifndef MCP_UTIL_POOL_H
#define MCP_UTIL_POOL_H

#include <pthread.h>
#include <stdbool.h>

typedef struct mcp__pool {
  pthread_t *threads;
  unsigned n; /* threads running */
} mcp__pool;

/* Starts up to want threads, each running main(arg), into *p (which it
 * initializes). Returns how many started: fewer when the system refuses
 * more threads, 0 when none could start (out of memory included); *p
 * needs mcp__pool_stop either way. */
unsigned mcp__pool_start(mcp__pool *p, unsigned want, void *(*main)(void *),
                         void *arg);

/* Sets *stop under lock and wakes every thread waiting on wake, then joins
 * every thread and frees what *p holds. lock, wake and stop may all be
 * NULL when the owner has already told its threads to stop; then this only
 * joins. Safe on a pool that started nothing, and a second time. */
void mcp__pool_stop(mcp__pool *p, pthread_mutex_t *lock, pthread_cond_t *wake,
                    bool *stop);

#endif
