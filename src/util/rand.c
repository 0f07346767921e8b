/* SPDX-License-Identifier: MIT */
/* rand.c - CSPRNG ids via getrandom(2). */
#include "util/rand.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

mcp_status mcp__random_bytes(void *buf, size_t len) {
  unsigned char *p = buf;
  while (len > 0) {
    ssize_t got = getrandom(p, len, 0);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return MCP_ERR_IO;
    }
    p += got;
    len -= (size_t)got;
  }
  return MCP_OK;
}

mcp_status mcp__random_uuid(char out[37]) {
  unsigned char b[16];
  mcp_status st = mcp__random_bytes(b, sizeof b);
  if (st != MCP_OK)
    return st;
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
  snprintf(
      out, 37,
      "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
      b[12], b[13], b[14], b[15]);
  return MCP_OK;
}

void mcp__random_pool_init(mcp__random_pool *p) {
  pthread_mutex_init(&p->lock, NULL);
  p->used = sizeof p->buf; /* empty: the first draw fills it */
  memset(p->buf, 0, sizeof p->buf);
}

void mcp__random_pool_destroy(mcp__random_pool *p) {
  explicit_bzero(p->buf, sizeof p->buf);
  pthread_mutex_destroy(&p->lock);
}

mcp_status mcp__random_pool_take(mcp__random_pool *p, void *out, size_t n) {
  if (n > sizeof p->buf)
    return MCP_ERR_INVALID_ARG;
  pthread_mutex_lock(&p->lock);
  mcp_status st = MCP_OK;
  if (sizeof p->buf - p->used < n) {
    st = mcp__random_bytes(p->buf, sizeof p->buf);
    p->used = st == MCP_OK ? 0 : sizeof p->buf;
  }
  if (st == MCP_OK) {
    memcpy(out, p->buf + p->used, n);
    memset(p->buf + p->used, 0, n); /* handed out: not kept */
    p->used += n;
  }
  pthread_mutex_unlock(&p->lock);
  return st;
}
