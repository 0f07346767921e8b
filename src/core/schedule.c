/* SPDX-License-Identifier: MIT */
/* schedule.c - the one scheduling decision: where a message is accepted
 * and where its call runs.
 *
 * A transport only offers threads (core/channel.h, mcp__runner): the
 * thread that received the bytes, and its workers. The rules:
 *  - responses and notifications are accepted at once on the receiving
 *    thread: they only flip flags or wake waiters, and a cancellation must
 *    never wait behind busy workers;
 *  - lifecycle requests (initialize, ping) run there too, in input order:
 *    requests pipelined behind initialize must find the session
 *    initialized, and ping answers even when every worker is busy;
 *  - a tools/call of a tool that has proven cheap runs there when nothing
 *    can need that thread while it runs (inline_runs.c): the hand-off to a
 *    worker costs two thread wake-ups, more than such a tool;
 *  - everything else goes to a worker, as bytes when the scan already
 *    tells (the worker parses, so a message's memory stays on one thread).
 * Runs of tools are timed here and recorded when the call finishes
 * (mcp__sched_finished, from call_finish.c), which is how the core learns
 * which tools are cheap.
 */
#include <string.h>

#include "core/call_internal.h"
#include "core/inline_runs.h"
#include "core/schedule.h"

static bool method_is(const char *m, size_t n, const char *lit) {
  size_t len = strlen(lit);
  return m != NULL && n == len && memcmp(m, lit, len) == 0;
}

/* Requests answered in input order on the receiving thread. */
static bool lifecycle(const char *m, size_t n) {
  return method_is(m, n, "initialize") || method_is(m, n, "ping");
}

mcp__triage mcp__server_triage(mcp_server_t *s, const mcp__prescan *scan) {
  mcp__triage t = {0};
  /* anything but a request, unreadable text included (the parser answers
   * it at once) */
  if (scan->kind != MCP__SCAN_REQUEST) {
    t.at_once = true;
    return t;
  }
  const char *m = scan->method;
  size_t n = scan->method_len;
  if (lifecycle(m, n)) {
    t.at_once = true;
    t.opens_session = method_is(m, n, "initialize");
  } else if (method_is(m, n, "tools/call")) {
    t.cheap = scan->name != NULL &&
              mcp__server_inline_ok(
                  s, mcp__inline_slot_of_name(scan->name, scan->name_len));
  } else if (method_is(m, n, "subscriptions/listen")) {
    t.long_lived = true;
  }
  return t;
}

/* Runs call, timed for the tool of slot. */
static void run_timed(mcp_call_t *call, const mcp__runner *r, int slot,
                      bool here, bool probe) {
  call->timed = true;
  call->slot = slot;
  call->ran_here = here;
  call->events_count = r->holds_events;
  mcp__inline_timer_start(&call->timer, probe);
  mcp__call_run(call);
}

bool mcp__call_schedule(mcp_call_t *call, const mcp__runner *r) {
  const char *m = call->msg.method;
  if (lifecycle(m, strlen(m))) {
    if (r->before_run)
      r->before_run(r->ctx, false); /* earlier requests stay ahead */
    mcp__call_run(call);
    return true;
  }
  int slot = mcp__call_inline_slot(call);
  if (mcp__server_inline_ok(call->server, slot)) {
    if (r->before_run)
      r->before_run(r->ctx, true);
    run_timed(call, r, slot, true, false);
    return true;
  }
  if (r->queue && r->queue(r->ctx, call))
    return false;
  mcp__call_run_queued(call, r); /* out of memory: still answer it */
  return true;
}

void mcp__call_run_queued(mcp_call_t *call, const mcp__runner *r) {
  int slot = mcp__call_inline_slot(call);
  bool cheap = mcp__server_inline_ok(call->server, slot);
  if (r->before_run)
    r->before_run(r->ctx, cheap);
  if (r->any_thread)
    call->can_suspend = true;
  if (slot < 0) {
    mcp__call_run(call);
    return;
  }
  /* A worker run of a tool still being learnt is probed: on a busy
   * machine a worker is preempted now and then (its write of the answer
   * can wake the client onto its core), and such runs, slow by the clock
   * alone, would keep a cheap tool from ever being learnt. */
  run_timed(call, r, slot, false, !cheap);
}

void mcp__sched_finished(mcp_call_t *call, bool emitted) {
  call->timed = false;
  mcp__server_inline_record(call->server, call->slot, call->ran_here,
                            mcp__inline_timer_cost(&call->timer),
                            emitted && call->events_count);
}
