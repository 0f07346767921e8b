/* SPDX-License-Identifier: MIT */
/* hash.h - byte strings: the FNV-1a hash and a call-free equality for short
 * keys, shared by the JSON tape (duplicate keys) and the schema compiler and
 * evaluator (property tables, enum values); and a hash of the calling thread
 * for per-thread slots (stdio's in-flight count, session stripes). */
#ifndef MCP_UTIL_HASH_H
#define MCP_UTIL_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* FNV-1a (64 bits) of p[0..len). */
uint64_t mcp__hash_bytes(const void *p, size_t len);
/* A hash of p[0..len) eight bytes a step, the tail in two overlapping
 * loads: for a hot lookup that compares the bytes anyway (the metric
 * series of every request), where FNV-1a's byte a step cost more than the
 * rest of the lookup. Not the same values as mcp__hash_bytes. */
uint64_t mcp__hash_words(const void *p, size_t len);

/* The calling thread spread over 64 bits (Fibonacci hashing of its id):
 * take the top bits to pick a per-thread slot, so that each thread mostly
 * writes its own cache line. */
uint64_t mcp__hash_thread(void);

/* a[0..n) == b[0..n) for short keys without a call: 8-byte words, then
 * overlapping 4-, 2- or 1-byte tails. */
static inline bool mcp__bytes_eq(const char *a, const char *b, size_t n) {
  while (n >= 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x != y)
      return false;
    a += 8;
    b += 8;
    n -= 8;
  }
  if (n >= 4) {
    uint32_t x, y, z, w;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    memcpy(&z, a + n - 4, 4);
    memcpy(&w, b + n - 4, 4);
    return x == y && z == w;
  }
  if (n >= 2) {
    uint16_t x, y, z, w;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    memcpy(&z, a + n - 2, 2);
    memcpy(&w, b + n - 2, 2);
    return x == y && z == w;
  }
  return n == 0 || *a == *b;
}

#endif
