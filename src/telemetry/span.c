/* SPDX-License-Identifier: MIT */
/* span.c - see span.h. */
#include "telemetry/span.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void mcp__span_draft_init(mcp__span_draft *d) {
  /* the attributes are set as they are added */
  memset(&d->h, 0, offsetof(mcp__span_head, attrs));
  mcp__buf_init_on(&d->text, d->small, sizeof d->small);
  d->failed = false;
}

/* Copies v into the text; its offset in *off. false when out of memory or
 * past 4 GiB (the draft is then finished as NULL). */
static bool keep(mcp__span_draft *d, const char *v, size_t n, uint32_t *off) {
  mcp__buf *t = &d->text;
  *off = (uint32_t)t->len;
  if (n > UINT32_MAX - t->len || !mcp__buf_append(t, v, n))
    d->failed = true;
  return !d->failed;
}

void mcp__span_draft_name(mcp__span_draft *d, const char *prefix,
                          const char *target, size_t target_len) {
  size_t n = strlen(prefix);
  if (!keep(d, prefix, n, &d->h.name_off))
    return;
  if (target != NULL) {
    uint32_t unused;
    if (!keep(d, " ", 1, &unused) || !keep(d, target, target_len, &unused))
      return;
    n += 1 + target_len;
  }
  d->h.name_len = (uint32_t)n;
}

void mcp__span_draft_ids(mcp__span_draft *d, const unsigned char trace_id[16],
                         const unsigned char span_id[8], bool has_parent,
                         const unsigned char parent_id[8]) {
  mcp__span_head *h = &d->h;
  memcpy(h->trace_id, trace_id, sizeof h->trace_id);
  memcpy(h->span_id, span_id, sizeof h->span_id);
  h->has_parent = has_parent;
  if (has_parent)
    memcpy(h->parent_id, parent_id, sizeof h->parent_id);
}

void mcp__span_draft_trace_state(mcp__span_draft *d, const char *state) {
  size_t n = strlen(state);
  if (keep(d, state, n, &d->h.state_off)) {
    d->h.state_len = (uint32_t)n;
    d->h.has_trace_state = true;
  }
}

static mcp__span_attr *next_attr(mcp__span_draft *d, const char *key,
                                 size_t key_len) {
  if (d->h.attr_count == MCP__SPAN_MAX_ATTRS || key_len > UINT16_MAX) {
    d->h.dropped_attrs++;
    return NULL;
  }
  mcp__span_attr *a = &d->h.attrs[d->h.attr_count];
  a->key = key;
  a->key_len = (uint16_t)key_len;
  a->is_int = false;
  a->int_value = 0;
  a->off = a->len = 0;
  return a;
}

void mcp__span_draft_attr_str_slow(mcp__span_draft *d, const char *key,
                                   size_t key_len, const char *v, size_t n) {
  mcp__span_attr *a = next_attr(d, key, key_len);
  if (a != NULL && keep(d, v, n, &a->off)) {
    a->len = (uint32_t)n;
    d->h.attr_count++;
  }
}

void mcp__span_draft_attr_int(mcp__span_draft *d, const char *key,
                              size_t key_len, int64_t v) {
  mcp__span_attr *a = next_attr(d, key, key_len);
  if (a != NULL) {
    a->is_int = true;
    a->int_value = v;
    d->h.attr_count++;
  }
}

size_t mcp__span_draft_bytes(const mcp__span_draft *d) {
  return d->failed || d->text.data == NULL
             ? 0
             : sizeof(mcp__span) + d->text.len + 1;
}

void mcp__span_draft_copy(const mcp__span_draft *d, mcp__span *to) {
  /* the attributes in use only */
  memcpy(&to->h, &d->h,
         offsetof(mcp__span_head, attrs) +
             d->h.attr_count * sizeof d->h.attrs[0]);
  to->text_len = (uint32_t)d->text.len;
  memcpy(to->text, d->text.data, d->text.len + 1); /* and its NUL */
}

void mcp__span_draft_free(mcp__span_draft *d) { mcp__buf_free(&d->text); }

mcp__span *mcp__span_draft_finish(mcp__span_draft *d) {
  size_t n = mcp__span_draft_bytes(d);
  mcp__span *sp = n ? malloc(n) : NULL;
  if (sp != NULL) {
    sp->next = NULL;
    sp->size = n;
    mcp__span_draft_copy(d, sp);
  }
  mcp__span_draft_free(d);
  return sp;
}
