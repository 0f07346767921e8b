/* SPDX-License-Identifier: MIT */
/* span.h - a finished span as the OTLP exporter (telemetry/otlp.h) queues
 * it (issue #26): ids, times, kind, status and a small fixed array of
 * typed attributes, every string (name, trace state, attribute values)
 * copied into the record's one allocation. The request path only fills
 * this in; the exporter's thread encodes it (telemetry/span_encode.h), so
 * a traced request pays for no JSON text, no escaping and no parsing.
 * Attribute keys are not copied: they are string literals. */
#ifndef MCP_TELEMETRY_SPAN_H
#define MCP_TELEMETRY_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/buf.h"

/* Span.SpanKind of trace.proto */
enum {
  MCP__SPAN_KIND_INTERNAL = 1,
  MCP__SPAN_KIND_SERVER = 2,
  MCP__SPAN_KIND_CLIENT = 3
};

/* Attributes a span keeps at most (a request's have 17 at most); more are
 * counted in droppedAttributesCount, as OpenTelemetry's limits do. */
#define MCP__SPAN_MAX_ATTRS 20

typedef struct mcp__span_attr {
  const char *key;  /* lives as long as the span (a literal) */
  uint16_t key_len; /* strlen(key), under 64 KiB */
  bool is_int;      /* intValue, else stringValue */
  int64_t int_value;
  uint32_t off, len; /* a string value: the record's text[off, off + len) */
} mcp__span_attr;

typedef struct mcp__span_head {
  unsigned char trace_id[16], span_id[8], parent_id[8];
  unsigned char link_trace_id[16], link_span_id[8]; /* has_link */
  bool has_parent, has_link, has_trace_state;
  bool error; /* status code ERROR (2); else the status is left unset */
  int kind;   /* MCP__SPAN_KIND_... */
  int64_t start_ns, end_ns; /* Unix epoch nanoseconds */
  uint32_t name_off, name_len, state_off, state_len; /* in text */
  uint32_t attr_count, dropped_attrs;
  mcp__span_attr attrs[MCP__SPAN_MAX_ATTRS];
} mcp__span_head;

/* A finished span: one allocation of size bytes (the exporter recycles
 * them), freed with free(). */
typedef struct mcp__span {
  struct mcp__span *next; /* the exporter's list of spare records */
  size_t size;
  mcp__span_head h;
  uint32_t text_len;
  char text[]; /* the strings the head points into, back to back */
} mcp__span;

/* A span being filled in, on the caller's stack: its strings gather in
 * small storage of its own (the heap only past it). */
typedef struct mcp__span_draft {
  mcp__span_head h;
  mcp__buf text;
  bool failed; /* a string could not be kept: no span */
  char small[512];
} mcp__span_draft;

/* The head is zeroed but for what the caller sets directly (ids, flags,
 * kind, times). */
void mcp__span_draft_init(mcp__span_draft *d);
/* The span's identity: its trace and span ids, and its parent's when it
 * has one (parent_id is ignored otherwise). */
void mcp__span_draft_ids(mcp__span_draft *d, const unsigned char trace_id[16],
                         const unsigned char span_id[8], bool has_parent,
                         const unsigned char parent_id[8]);
/* The name: prefix, then " " and target when target is not NULL. */
void mcp__span_draft_name(mcp__span_draft *d, const char *prefix,
                          const char *target, size_t target_len);
void mcp__span_draft_trace_state(mcp__span_draft *d, const char *state);
/* Attributes, in the order they are added. key: a string for the life of
 * the span (key_len its length). A string attribute is added inline when
 * it fits the draft's storage (a traced request adds a dozen: calls and
 * strlen of literal values cost a tenth of its span), else by
 * mcp__span_draft_attr_str_slow. */
void mcp__span_draft_attr_str_slow(mcp__span_draft *d, const char *key,
                                   size_t key_len, const char *v, size_t n);
static inline void mcp__span_draft_attr_str(mcp__span_draft *d,
                                            const char *key, size_t key_len,
                                            const char *v, size_t n) {
  mcp__buf *t = &d->text;
  if (d->h.attr_count < MCP__SPAN_MAX_ATTRS && key_len <= UINT16_MAX &&
      t->data != NULL && n < t->cap - t->len) {
    mcp__span_attr *a = &d->h.attrs[d->h.attr_count++];
    a->key = key;
    a->key_len = (uint16_t)key_len;
    a->is_int = false;
    a->int_value = 0;
    a->off = (uint32_t)t->len;
    a->len = (uint32_t)n;
    mcp__buf_append(t, v, n); /* fits: no growth, cannot fail */
    return;
  }
  mcp__span_draft_attr_str_slow(d, key, key_len, v, n);
}
void mcp__span_draft_attr_int(mcp__span_draft *d, const char *key,
                              size_t key_len, int64_t v);
/* The same with a string literal's key (measured at compile time; ""
 * refuses anything else). */
#define mcp__span_draft_str(d, key, v, n)                                    \
  mcp__span_draft_attr_str((d), "" key, sizeof(key) - 1, (v), (n))
#define mcp__span_draft_cstr(d, key, v)                                      \
  mcp__span_draft_cstr_value((d), "" key, sizeof(key) - 1, (v))
#define mcp__span_draft_int(d, key, v)                                       \
  mcp__span_draft_attr_int((d), "" key, sizeof(key) - 1, (v))
/* A NUL-terminated value (a literal's length known at compile time). */
static inline void mcp__span_draft_cstr_value(mcp__span_draft *d,
                                              const char *key, size_t key_len,
                                              const char *v) {
  mcp__span_draft_attr_str(d, key, key_len, v, strlen(v));
}
/* The bytes of the record d makes; 0 when a string could not be kept. */
size_t mcp__span_draft_bytes(const mcp__span_draft *d);
/* Fills to (at least mcp__span_draft_bytes(d) bytes) from d. */
void mcp__span_draft_copy(const mcp__span_draft *d, mcp__span *to);
/* Frees what d holds (its strings past its own storage). */
void mcp__span_draft_free(mcp__span_draft *d);
/* The finished span in an allocation of its own (NULL when out of
 * memory); d is spent either way. */
mcp__span *mcp__span_draft_finish(mcp__span_draft *d);

/* Accessors for the encoders. */
static inline const char *mcp__span_str(const mcp__span *sp, uint32_t off) {
  return sp->text + off;
}

#endif
