/* SPDX-License-Identifier: MIT */
/* schedule.h - the scheduler's hook in the end of a call (schedule.c),
 * private to src/core. */
#ifndef MCP_CORE_SCHEDULE_H
#define MCP_CORE_SCHEDULE_H

#include <stdbool.h>

#include "mcp/call.h"

/* A timed call (call->timed) is finishing: records its run for
 * core/inline_runs.c. emitted: it sent something before its response. */
void mcp__sched_finished(mcp_call_t *call, bool emitted);

#endif
