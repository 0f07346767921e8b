/* SPDX-License-Identifier: MIT */
/* rand.h - identifiers from the kernel CSPRNG (getrandom), for session and
 * task ids. Never a userspace PRNG: ids are capabilities. */
#ifndef MCP_UTIL_RAND_H
#define MCP_UTIL_RAND_H

#include <stddef.h>

#include "mcp/status.h"

/* Fills buf with len random bytes. */
mcp_status mcp__random_bytes(void *buf, size_t len);
/* Writes a random UUIDv4 ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", 36 chars +
 * NUL) into out (at least 37 bytes). */
mcp_status mcp__random_uuid(char out[37]);

#endif
