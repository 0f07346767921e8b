/* SPDX-License-Identifier: MIT */
/* env.h - settings read from the environment (the OpenTelemetry
 * variables, the client's defaults), where an empty value means unset.
 *
 * Thread-safety: as getenv (nothing here changes the environment). */
#ifndef MCP_UTIL_ENV_H
#define MCP_UTIL_ENV_H

#include <stdint.h>

/* The variable's value, or NULL when it is unset or empty. */
const char *mcp__env(const char *name);
/* The variable as a positive decimal integer; fallback when it is unset,
 * empty, not a number or not above 0. */
int64_t mcp__env_positive(const char *name, int64_t fallback);

#endif
