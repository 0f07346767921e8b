/* SPDX-License-Identifier: MIT */
/* stdout_guard.h - keeping a handler's printf out of the stdio protocol
 * stream (issue #26 item 2): while a server serves stdio, the protocol goes
 * to a private duplicate of fd 1 and fd 1 (so stdout and the stdout of
 * child processes) points at stderr. */
#ifndef MCP_TRANSPORT_STDOUT_GUARD_H
#define MCP_TRANSPORT_STDOUT_GUARD_H

#include <stdbool.h>

#include "core/channel.h"

typedef struct mcp__stdout_guard {
  int proto_fd;      /* the protocol's descriptor while active */
  bool active;       /* fd 1 was moved and must be restored */
  bool was_buffered; /* stdout was fully buffered before */
} mcp__stdout_guard;

/* Moves fd 1 aside for s (logged at debug); returns the descriptor the
 * protocol is written to: the private duplicate, or fd 1 itself when
 * guarding is off or impossible (fd 1 closed; the reason is logged). */
int mcp__stdout_guard_begin(mcp__stdout_guard *g, mcp_server_t *s);
/* Points fd 1 back at the protocol's stream and closes the duplicate. */
void mcp__stdout_guard_end(mcp__stdout_guard *g);

#endif
