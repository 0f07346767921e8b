/* SPDX-License-Identifier: MIT */
/* rand.h - identifiers from the kernel CSPRNG (getrandom), for session and
 * task ids. Never a userspace PRNG: ids are capabilities. */
#ifndef MCP_UTIL_RAND_H
#define MCP_UTIL_RAND_H

#include <pthread.h>
#include <stddef.h>

#include "mcp/status.h"

/* Fills buf with len random bytes. */
mcp_status mcp__random_bytes(void *buf, size_t len);
/* Writes a random UUIDv4 ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", 36 chars +
 * NUL) into out (at least 37 bytes). */
mcp_status mcp__random_uuid(char out[37]);

/* Random bytes drawn in bulk: one getrandom call fills the pool, later
 * draws copy from it under its lock (span and trace ids, one per request
 * when tracing: a system call each cost more than the span). Every byte is
 * handed out once and wiped from the pool as it goes. Owned by whoever
 * draws (an exporter), never shared process-wide. */
#define MCP__RANDOM_POOL_BYTES 1024
typedef struct mcp__random_pool {
  pthread_mutex_t lock;
  size_t used; /* bytes of buf handed out (all of it: refill first) */
  unsigned char buf[MCP__RANDOM_POOL_BYTES];
} mcp__random_pool;

void mcp__random_pool_init(mcp__random_pool *p);
void mcp__random_pool_destroy(mcp__random_pool *p);
/* Fills out with n (at most MCP__RANDOM_POOL_BYTES) random bytes. */
mcp_status mcp__random_pool_take(mcp__random_pool *p, void *out, size_t n);

#endif
