/* SPDX-License-Identifier: MIT */
/* inline_runs.h - what the core learns about tools to decide which calls
 * run on a transport's receiving thread (inline_runs.c), used by the
 * scheduler (schedule.c). Private to src/core: transports get the verdicts
 * through core/channel.h (mcp__server_triage, mcp__call_schedule).
 */
#ifndef MCP_CORE_INLINE_RUNS_H
#define MCP_CORE_INLINE_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/call.h"
#include "mcp/server.h"

/* The statistics slot of a call that may run on a transport's network
 * thread once its tool has proven fast, or -1 when it never may. */
int mcp__call_inline_slot(const mcp_call_t *call);
/* The slot of the tool named by len bytes at name (the same slot
 * mcp__call_inline_slot gives its calls), for a decision made from the
 * scan, before parsing. */
int mcp__inline_slot_of_name(const char *name, size_t len);
/* Whether the tool of slot has proven fast enough to run inline. */
bool mcp__server_inline_ok(mcp_server_t *s, int slot);
/* How a tracked call went: run inline or on a worker, how long it took,
 * whether it emitted anything before its response. */
void mcp__server_inline_record(mcp_server_t *s, int slot, bool ran_inline,
                               int64_t elapsed_ns, bool emitted);
/* Times one run for mcp__server_inline_record; start and read it on the
 * same thread. A probed run also counts the thread's CPU time and whether
 * it blocked: when it did not block, its CPU time is what counts, so a run
 * that was slow only because the thread waited for a core (preempted on a
 * busy machine, e.g. by the client its own write woke) does not make a
 * cheap tool look slow. The probe costs two system calls: the scheduler
 * probes the worker runs of tools still being learnt, not the hot path. */
typedef struct {
  int64_t start_ns;
  int64_t cpu_ns; /* probed: the thread's CPU time at the start */
  long voluntary; /* probed: its voluntary context switches so far */
  bool probed;
} mcp__inline_timer;
void mcp__inline_timer_start(mcp__inline_timer *timer, bool probe);
/* The run's cost in nanoseconds: wall time, or a probed run's CPU time
 * when it never blocked. */
int64_t mcp__inline_timer_cost(const mcp__inline_timer *timer);

#endif
