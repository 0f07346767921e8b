/* SPDX-License-Identifier: MIT */
/* backoff.h - an endpoint that failed is left alone for a while: the first
 * wait, doubling with each failure in a row up to a ceiling, and reset when
 * it answers. For the resource server's introspection and DPoP replay
 * record (src/auth), whose callers get a 503 with Retry-After meanwhile.
 *
 * Thread-safety: none; the owner's lock guards a backoff. */
#ifndef MCP_UTIL_BACKOFF_H
#define MCP_UTIL_BACKOFF_H

#include <stdbool.h>
#include <stdint.h>

#include "util/clock.h"

typedef struct mcp__backoff {
  unsigned failures; /* in a row */
  int64_t until_ms;  /* monotonic: nothing is tried before */
} mcp__backoff;

/* Whether b holds now. */
static inline bool mcp__backoff_active(const mcp__backoff *b) {
  return mcp__monotonic_ms() < b->until_ms;
}

/* A failure: first_ms, then twice as long for each failure in a row (at
 * most max_ms). Failures while b holds are the same outage and count
 * once. */
static inline void mcp__backoff_fail(mcp__backoff *b, int64_t first_ms,
                                     int64_t max_ms) {
  if (mcp__backoff_active(b))
    return;
  unsigned shift = b->failures < 5 ? b->failures : 5;
  int64_t wait = first_ms << shift;
  b->failures++;
  b->until_ms = mcp__monotonic_ms() + (wait < max_ms ? wait : max_ms);
}

/* The endpoint answered. */
static inline void mcp__backoff_reset(mcp__backoff *b) { b->failures = 0; }

/* Seconds until b ends, at least 1 (a Retry-After value). */
static inline unsigned mcp__backoff_retry_after_s(const mcp__backoff *b) {
  int64_t left = b->until_ms - mcp__monotonic_ms();
  return left <= 1000 ? 1 : (unsigned)((left + 999) / 1000);
}

#endif
