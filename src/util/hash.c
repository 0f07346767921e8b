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

uint64_t mcp__hash_words(const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 29;
  }
  uint64_t w = 0;
  if (len >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + len - 4, 4);
    w = (uint64_t)hi << 32 | lo;
  } else if (len > 0) {
    w = (uint64_t)p[0] << 16 | (uint64_t)p[len / 2] << 8 | p[len - 1];
  }
  h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
  return h ^ h >> 32;
}
