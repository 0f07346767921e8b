/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "core/call_internal.h"
#include "core/inline_runs.h"
#include "util/clock.h"

/* inline_runs.c - which calls a transport may run on its network thread.
 *
 * The hand-off to a worker costs two thread wake-ups per request, more than
 * a cheap tool itself. A call may run on the network thread only when it
 * cannot need that thread while it runs, and has shown that it is cheap:
 *  - no event can have to reach the client before the response (a
 *    server-to-client request would wait for an answer that the SSE stream,
 *    queued only when the handler returns, never carried): tools/call only,
 *    no progressToken, and a client that declared none of the capabilities
 *    that server-to-client requests need (the core refuses them then);
 *  - its tool finished its last INLINE_STREAK runs within INLINE_FAST_NS
 *    without emitting anything but its response (a worker run of a tool
 *    still being learnt that did not block counts its CPU time, see
 *    mcp__inline_timer; once learnt, INLINE_STRIKES slow worker runs in a
 *    row start the learning again). INLINE_STRIKES
 *    consecutive runs on this thread that turn out slow send the tool back
 *    to the workers for INLINE_PENALTY runs, so a tool that blocks
 *    (database, sleep) stalls the other connections of one network thread
 *    only once in a while. One slow run is not enough: under CPU contention
 *    the thread itself gets preempted now and then, and sending a cheap
 *    tool to the workers then costs two wake-ups on each of the next
 *    INLINE_PENALTY requests (bench/http, 64 connections on 2 cores: p99
 *    1.4-2.0 ms with one strike, 1.3-1.5 ms without penalties).
 * Tools are tracked by a hash of their name (collisions only make a tool
 * run on workers more often). */
#define INLINE_STREAK  32
#define INLINE_PENALTY 1024
#define INLINE_STRIKES 2
#define INLINE_FAST_NS 200000

int mcp__call_inline_slot(const mcp_call_t *call) {
  if (call->progress_token || strcmp(call->msg.method, "tools/call") != 0)
    return -1;
  /* an empty object (the common case) asks nothing: skip three lookups
   * (on the tape while a 2026-07-28 request's are still there) */
  bool some = call->client_capabilities == NULL && call->caps_tape != NULL
                  ? call->caps_tape->n > 0
                  : json_object_size(call->client_capabilities) > 0;
  if (some && (mcp_call_client_has(call, "elicitation") ||
               mcp_call_client_has(call, "sampling") ||
               mcp_call_client_has(call, "roots")))
    return -1;
  const char *name;
  size_t len;
  if (!mcp__call_param_string(call, "name", &name, &len))
    return -1;
  return mcp__inline_slot_of_name(name, len);
}

int mcp__inline_slot_of_name(const char *name, size_t len) {
  uint32_t x = 2166136261u;
  for (size_t i = 0; i < len; i++)
    x = (x ^ (unsigned char)name[i]) * 16777619u;
  return (int)(x & (MCP__INLINE_SLOTS - 1));
}

bool mcp__server_inline_ok(mcp_server_t *s, int slot) {
  return slot >= 0 &&
         atomic_load_explicit(&s->inline_streak[slot], memory_order_relaxed) >=
             INLINE_STREAK;
}

void mcp__server_inline_record(mcp_server_t *s, int slot, bool ran_inline,
                               int64_t elapsed_ns, bool emitted) {
  if (slot < 0)
    return;
  atomic_int *streak = &s->inline_streak[slot];
  atomic_int *strikes = &s->inline_strikes[slot];
  bool fast = !emitted && elapsed_ns < INLINE_FAST_NS;
  if (fast) {
    atomic_store_explicit(strikes, 0, memory_order_relaxed);
    if (atomic_load_explicit(streak, memory_order_relaxed) < INLINE_STREAK)
      atomic_fetch_add_explicit(streak, 1, memory_order_relaxed);
  } else if (!ran_inline) {
    /* Slow on a worker: the count starts again (a penalty stays whole).
     * A tool that has proven cheap gets the same grace as on the network
     * thread, since its runs there are timed by the clock alone: a worker
     * preempted on a busy machine would otherwise send it back to learning
     * every few hundred calls. */
    int now = atomic_load_explicit(streak, memory_order_relaxed);
    if (!emitted && now >= INLINE_STREAK &&
        atomic_fetch_add_explicit(strikes, 1, memory_order_relaxed) + 1 <
            INLINE_STRIKES)
      return;
    atomic_store_explicit(strikes, 0, memory_order_relaxed);
    if (now > 0)
      atomic_store_explicit(streak, 0, memory_order_relaxed);
  } else if (emitted ||
             atomic_fetch_add_explicit(strikes, 1, memory_order_relaxed) + 1 >=
                 INLINE_STRIKES) {
    /* It emitted something, or it was slow again: it does not belong here. */
    atomic_store_explicit(strikes, 0, memory_order_relaxed);
    atomic_store_explicit(streak, -INLINE_PENALTY, memory_order_relaxed);
  }
}

/* The calling thread's CPU time and voluntary context switches (it blocked:
 * a lock, I/O, a sleep). false where the system cannot tell. */
static bool thread_usage(int64_t *cpu_ns, long *voluntary) {
#ifdef RUSAGE_THREAD
  struct rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru) != 0)
    return false;
  *cpu_ns = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
            ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
  *voluntary = ru.ru_nvcsw;
  return true;
#else
  (void)cpu_ns;
  (void)voluntary;
  return false;
#endif
}

void mcp__inline_timer_start(mcp__inline_timer *timer, bool probe) {
  timer->probed = probe && thread_usage(&timer->cpu_ns, &timer->voluntary);
  timer->start_ns = mcp__monotonic_ns();
}

int64_t mcp__inline_timer_cost(const mcp__inline_timer *timer) {
  int64_t wall = mcp__monotonic_ns() - timer->start_ns;
  int64_t cpu_ns;
  long voluntary;
  if (timer->probed && thread_usage(&cpu_ns, &voluntary) &&
      voluntary == timer->voluntary && cpu_ns - timer->cpu_ns < wall)
    return cpu_ns - timer->cpu_ns;
  return wall;
}
