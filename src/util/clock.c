/* SPDX-License-Identifier: MIT */
/* clock.c - clocks and RFC 3339 formatting (UTC, millisecond precision). */
#include "util/clock.h"

#include <stdio.h>
#include <time.h>

int64_t mcp__monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mcp__wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mcp__wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void mcp__deadline_in(clockid_t clock, int64_t ms, struct timespec *out) {
  clock_gettime(clock, out);
  out->tv_sec += (time_t)(ms / 1000);
  out->tv_nsec += (long)(ms % 1000) * 1000000L;
  if (out->tv_nsec >= 1000000000L) {
    out->tv_sec++;
    out->tv_nsec -= 1000000000L;
  }
}

void mcp__format_rfc3339_ms(int64_t epoch_ms, char out[32]) {
  time_t secs = (time_t)(epoch_ms / 1000);
  int ms = (int)(epoch_ms % 1000);
  if (ms < 0) { /* floor division for instants before 1970 */
    ms += 1000;
    secs -= 1;
  }
  struct tm tm;
  gmtime_r(&secs, &tm);
  /* The arguments are range-limited by gmtime; the casts tell the compiler. */
  snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
           (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100, tm.tm_mday % 100,
           tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100, ms % 1000);
}

int64_t mcp__monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
