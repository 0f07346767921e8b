/* SPDX-License-Identifier: MIT */
/* acked.h - the ledger of acknowledged task results shared by the crash
 * tests (tests/e2e/sigkill_test.c, tests/soak/soak.c; issue #16): a task's
 * result that reached the client is "acknowledged" and must be answered the
 * same after any crash or restart of the server. The ledger keeps the last
 * cap acknowledged results in a ring; tu_ledger_verify checks everything
 * acknowledged since the previous check and some or all older ones through
 * a caller's check function. Thread-safe: results may be added from other
 * threads while one thread verifies. */
#ifndef MCP_TEST_ACKED_H
#define MCP_TEST_ACKED_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "testutil.h"

/* The tool whose results the ledger checks ("square"): the text of the
 * result is n*n for the integer argument n. */
mcp_status tu_square_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                          void *ud);

/* One acknowledged result: task id, the argument n of "square" (the result
 * text is n*n), when it was acknowledged (monotonic ms). */
typedef struct tu_acked {
  char id[40];
  long long n;
  int64_t at_ms;
} tu_acked;

typedef struct tu_ledger {
  pthread_mutex_t lock;
  tu_acked *a; /* ring of cap entries (owned) */
  size_t cap;
  size_t n;       /* acknowledged so far */
  size_t checked; /* every result before this was checked at least once */
} tu_ledger;

/* Ring of cap entries; returns 0, or -1 when out of memory. */
int tu_ledger_init(tu_ledger *l, size_t cap);
/* Frees the ring. */
void tu_ledger_destroy(tu_ledger *l);
/* Records the acknowledged result of task id for argument n. */
void tu_ledger_add(tu_ledger *l, const char *id, long long n);
/* Results acknowledged so far. */
size_t tu_ledger_count(tu_ledger *l);

/* Checks one acknowledged result (k: its position in this verification,
 * usable for unique request ids); true when it is intact. */
typedef bool (*tu_ledger_check_fn)(void *ctx, const tu_acked *e, size_t k);

/* Every old result, not a sample (for tu_ledger_verify's old). */
#define TU_LEDGER_ALL SIZE_MAX

/* Checks every result acknowledged since the previous verification, plus
 * old results acknowledged before it: all of them (old TU_LEDGER_ALL) or
 * old chosen at random (seeded by the count, so a run reproduces), only
 * among those younger than max_age_ms (0: any age; older ones may be gone
 * by design, with their ttl). Returns how many were not intact. */
size_t tu_ledger_verify(tu_ledger *l, size_t old, int64_t max_age_ms,
                        tu_ledger_check_fn check, void *ctx);

/* The response to request id read from p (notifications and other
 * responses are skipped), or NULL on EOF or timeout. New reference. */
json_t *tu_proc_response(tu_proc *p, const char *id, int timeout_ms);
/* result.content[0].text of a tools/call or tasks/result response, or
 * NULL. Borrowed from res. */
const char *tu_result_text(const json_t *res);
/* A tu_ledger_check_fn for a stdio server (ctx: its tu_proc): sends
 * tasks/result for the task (request id "v<k>") and compares the text with
 * n*n; prints what was lost to stderr. */
bool tu_ledger_check_stdio(void *ctx, const tu_acked *e, size_t k);

#endif
