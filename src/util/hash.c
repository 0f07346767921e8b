/* SPDX-License-Identifier: MIT */
/* hash.c - FNV-1a over bytes, and the calling thread's hash (hash.h). */
#include "util/hash.h"

#include <pthread.h>

uint64_t mcp__hash_bytes(const void *p, size_t len) {
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++) {
    h ^= s[i];
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t mcp__hash_thread(void) {
  return (uint64_t)(uintptr_t)pthread_self() * 0x9E3779B97F4A7C15ull;
}
