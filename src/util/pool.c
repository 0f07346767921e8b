/* SPDX-License-Identifier: MIT */
/* pool.c - a fixed set of worker threads (see pool.h). */
#include "util/pool.h"
#include "util/thread.h"

#include <stdlib.h>

unsigned mcp__pool_start(mcp__pool *p, unsigned want, void *(*main)(void *),
                         void *arg) {
  p->n = 0;
  p->threads = want ? calloc(want, sizeof *p->threads) : NULL;
  if (p->threads == NULL)
    return 0;
  while (p->n < want && mcp__thread_start(&p->threads[p->n], main, arg) == 0)
    p->n++;
  return p->n;
}

void mcp__pool_stop(mcp__pool *p, pthread_mutex_t *lock, pthread_cond_t *wake,
                    bool *stop) {
  if (lock != NULL) {
    pthread_mutex_lock(lock);
    if (stop != NULL)
      *stop = true;
    if (wake != NULL)
      pthread_cond_broadcast(wake);
    pthread_mutex_unlock(lock);
  }
  for (unsigned i = 0; i < p->n; i++)
    pthread_join(p->threads[i], NULL);
  free(p->threads);
  p->threads = NULL;
  p->n = 0;
}
