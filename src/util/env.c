/* SPDX-License-Identifier: MIT */
/* env.c - settings from the environment (env.h). */
#include "util/env.h"

#include <stdlib.h>

const char *mcp__env(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0' ? v : NULL;
}

int64_t mcp__env_positive(const char *name, int64_t fallback) {
  const char *v = mcp__env(name);
  char *end;
  long long n = v ? strtoll(v, &end, 10) : 0;
  return v && *end == '\0' && n > 0 ? (int64_t)n : fallback;
}
