/* SPDX-License-Identifier: MIT */
/* clock.h - monotonic and wall clocks, RFC 3339 timestamps. */
#ifndef MCP_UTIL_CLOCK_H
#define MCP_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Milliseconds since an arbitrary point; never goes backwards. */
int64_t mcp__monotonic_ms(void);
/* The same in nanoseconds (timing short runs). */
int64_t mcp__monotonic_ns(void);
/* Milliseconds since the Unix epoch. */
int64_t mcp__wall_ms(void);
/* Nanoseconds since the Unix epoch (span and data point times). */
int64_t mcp__wall_ns(void);
/* The instant ms milliseconds from now on clock (CLOCK_MONOTONIC or
 * CLOCK_REALTIME), for pthread_cond_timedwait and friends. */
void mcp__deadline_in(clockid_t clock, int64_t ms, struct timespec *out);
/* Formats epoch milliseconds as "2025-11-25T10:30:00.123Z" (25 bytes + NUL). */
void mcp__format_rfc3339_ms(int64_t epoch_ms, char out[32]);

#endif
