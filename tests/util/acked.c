/* SPDX-License-Identifier: MIT */
/* acked.c - the ledger of acknowledged task results (acked.h). */
#include "acked.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

mcp_status tu_square_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                          void *ud) {
  (void)call, (void)ud;
  int64_t n = 0;
  mcp_arg_integer(args, "n", &n);
  mcp_result_add_textf(r, "%lld", (long long)(n * n));
  return MCP_OK;
}

int tu_ledger_init(tu_ledger *l, size_t cap) {
  memset(l, 0, sizeof *l);
  l->a = malloc(cap * sizeof *l->a);
  if (l->a == NULL)
    return -1;
  /* every entry written now (not zeroes, which the compiler may turn into
   * calloc's untouched pages): a long run (the soak) must not see the
   * ring's pages become resident one by one as growth of the process */
  for (size_t i = 0; i < cap; i++)
    l->a[i] = (tu_acked){.n = -1, .at_ms = -1};
  l->cap = cap;
  pthread_mutex_init(&l->lock, NULL);
  return 0;
}

void tu_ledger_destroy(tu_ledger *l) {
  if (l->a == NULL)
    return;
  pthread_mutex_destroy(&l->lock);
  free(l->a);
  l->a = NULL;
}

#define AT(l, i) (&(l)->a[(i) % (l)->cap])

void tu_ledger_add(tu_ledger *l, const char *id, long long n) {
  pthread_mutex_lock(&l->lock);
  tu_acked *e = AT(l, l->n);
  snprintf(e->id, sizeof e->id, "%s", id);
  e->n = n;
  e->at_ms = mcp__monotonic_ms();
  l->n++;
  pthread_mutex_unlock(&l->lock);
}

size_t tu_ledger_count(tu_ledger *l) {
  pthread_mutex_lock(&l->lock);
  size_t n = l->n;
  pthread_mutex_unlock(&l->lock);
  return n;
}

/* The first index in [lo, hi) acknowledged at or after limit (entries are
 * in acknowledgement order); the caller holds the lock. */
static size_t first_since(tu_ledger *l, size_t lo, size_t hi, int64_t limit) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (AT(l, mid)->at_ms < limit)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Copies entry i under the lock (other threads may be adding). */
static tu_acked entry(tu_ledger *l, size_t i) {
  pthread_mutex_lock(&l->lock);
  tu_acked e = *AT(l, i);
  pthread_mutex_unlock(&l->lock);
  return e;
}

/* The first index of [first, from) younger than max_age_ms now (first
 * when there is no age limit). */
static size_t oldest_checkable(tu_ledger *l, size_t first, size_t from,
                               int64_t max_age_ms) {
  if (max_age_ms <= 0)
    return first;
  pthread_mutex_lock(&l->lock);
  size_t lo = first_since(l, first, from, mcp__monotonic_ms() - max_age_ms);
  pthread_mutex_unlock(&l->lock);
  return lo;
}

size_t tu_ledger_verify(tu_ledger *l, size_t old, int64_t max_age_ms,
                        tu_ledger_check_fn check, void *ctx) {
  pthread_mutex_lock(&l->lock);
  size_t n = l->n;
  size_t first = n > l->cap ? n - l->cap : 0;
  size_t from = l->checked > first ? l->checked : first;
  pthread_mutex_unlock(&l->lock);
  size_t lost = 0, k = 0;
  for (size_t i = from; i < n; i++, k++) {
    tu_acked e = entry(l, i);
    lost += !check(ctx, &e, k);
  }
  /* The age limit is taken again for each old result: checking the new
   * ones may take long on a loaded machine, and a result whose ttl ended
   * meanwhile is gone by design. */
  if (old == TU_LEDGER_ALL) {
    for (size_t i = oldest_checkable(l, first, from, max_age_ms); i < from;
         i++, k++) {
      tu_acked e = entry(l, i);
      lost += !check(ctx, &e, k);
    }
  } else {
    unsigned seed = (unsigned)n;
    for (size_t j = 0; j < old; j++, k++) {
      size_t lo = oldest_checkable(l, first, from, max_age_ms);
      if (lo >= from)
        break;
      tu_acked e = entry(l, lo + (size_t)rand_r(&seed) % (from - lo));
      lost += !check(ctx, &e, k);
    }
  }
  pthread_mutex_lock(&l->lock);
  if (n > l->checked)
    l->checked = n;
  pthread_mutex_unlock(&l->lock);
  return lost;
}

json_t *tu_proc_response(tu_proc *p, const char *id, int timeout_ms) {
  for (;;) {
    char *line = tu_proc_read_line(p, timeout_ms);
    if (line == NULL)
      return NULL;
    json_t *m = json_loads(line, 0, NULL);
    free(line);
    const char *got = json_string_value(json_object_get(m, "id"));
    if (got && strcmp(got, id) == 0)
      return m;
    json_decref(m);
  }
}

const char *tu_result_text(const json_t *res) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(res, "result"), "content"),
                     0),
      "text"));
}

bool tu_ledger_check_stdio(void *ctx, const tu_acked *e, size_t k) {
  tu_proc *p = ctx;
  char rid[32], req[256], want[32];
  snprintf(rid, sizeof rid, "v%zu", k);
  snprintf(req, sizeof req,
           "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"tasks/result\","
           "\"params\":{\"taskId\":\"%s\"}}",
           rid, e->id);
  tu_proc_send_line(p, req);
  json_t *m = tu_proc_response(p, rid, 30000);
  snprintf(want, sizeof want, "%lld", e->n * e->n);
  const char *got = tu_result_text(m);
  bool ok = got != NULL && strcmp(got, want) == 0;
  if (!ok) {
    char *dump = m ? json_dumps(m, JSON_COMPACT) : NULL;
    fprintf(stderr,
            "LOST acknowledged result of task %s (n=%lld, want %s, got "
            "%.160s)\n",
            e->id, e->n, want, dump ? dump : "(no answer)");
    free(dump);
  }
  json_decref(m);
  return ok;
}
