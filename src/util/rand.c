/* SPDX-License-Identifier: MIT */
/* rand.c - CSPRNG ids via getrandom(2). */
#include "util/rand.h"

#include <errno.h>
#include <stdio.h>
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
