/* SPDX-License-Identifier: MIT */
/* span_encode.c - see span_encode.h. Both encodings write the members in
 * the same order (that of trace.proto), which is the order the OTLP/JSON
 * transcoder writes fields in, so an http/protobuf body is byte for byte
 * what transcoding the http/json one gives (span_encode_test checks). */
#include "telemetry/span_encode.h"

#include <stdlib.h>
#include <string.h>

#include "telemetry/otlp_fields.h"
#include "telemetry/pb.h"
#include "util/hex.h"

/* The JSON is written piece by piece into room reserved per span (an
 * upper bound: json_span_bound), so each append is a plain copy (the
 * buffer's appends are inline). */
#define PUT(b, literal) mcp__buf_append(b, literal, sizeof literal - 1)

static void json_hex(mcp__buf *b, const unsigned char *p, size_t n) {
  char text[2 * 16];
  mcp__hex_lower(text, p, n);
  mcp__buf_append(b, text, 2 * n);
}

/* A 64-bit integer as a JSON string of its decimal digits. */
static void json_int64_string(mcp__buf *b, int64_t v) {
  mcp__buf_append_char(b, '"');
  mcp__buf_append_json_int(b, v);
  mcp__buf_append_char(b, '"');
}

/* Room for the span's JSON: escaping writes 6 bytes per byte at most. */
static size_t json_span_bound(const mcp__span *sp) {
  const mcp__span_head *h = &sp->h;
  size_t n = 640 + 6 * (size_t)h->name_len + 6 * (size_t)h->state_len;
  for (uint32_t i = 0; i < h->attr_count; i++)
    n += 64 + h->attrs[i].key_len + 6 * (size_t)h->attrs[i].len;
  return n;
}

/* false when out of memory (nothing can fail past the reservation). */
static bool json_span(mcp__buf *b, const mcp__span *sp) {
  const mcp__span_head *h = &sp->h;
  if (!mcp__buf_reserve(b, json_span_bound(sp)))
    return false;
  PUT(b, "{\"traceId\":\"");
  json_hex(b, h->trace_id, 16);
  PUT(b, "\",\"spanId\":\"");
  json_hex(b, h->span_id, 8);
  PUT(b, "\"");
  if (h->has_parent) {
    PUT(b, ",\"parentSpanId\":\"");
    json_hex(b, h->parent_id, 8);
    PUT(b, "\"");
  }
  if (h->has_trace_state) {
    PUT(b, ",\"traceState\":");
    mcp__buf_append_escaped(b, mcp__span_str(sp, h->state_off),
                            h->state_len);
  }
  PUT(b, ",\"name\":");
  mcp__buf_append_escaped(b, mcp__span_str(sp, h->name_off), h->name_len);
  char kind[] = ",\"kind\":0";
  kind[sizeof kind - 2] = (char)('0' + (h->kind % 10));
  PUT(b, kind);
  PUT(b, ",\"startTimeUnixNano\":");
  json_int64_string(b, h->start_ns);
  PUT(b, ",\"endTimeUnixNano\":");
  json_int64_string(b, h->end_ns);
  PUT(b, ",\"attributes\":[");
  for (uint32_t i = 0; i < h->attr_count; i++) {
    const mcp__span_attr *a = &h->attrs[i];
    if (i)
      PUT(b, ",{\"key\":\"");
    else
      PUT(b, "{\"key\":\"");
    mcp__buf_append(b, a->key, a->key_len); /* a literal: nothing to escape */
    if (a->is_int) {
      PUT(b, "\",\"value\":{\"intValue\":");
      json_int64_string(b, a->int_value);
    } else {
      PUT(b, "\",\"value\":{\"stringValue\":");
      mcp__buf_append_escaped(b, mcp__span_str(sp, a->off), a->len);
    }
    PUT(b, "}}");
  }
  PUT(b, "]");
  if (h->dropped_attrs) {
    PUT(b, ",\"droppedAttributesCount\":");
    mcp__buf_append_json_int(b, h->dropped_attrs);
  }
  if (h->has_link) {
    PUT(b, ",\"links\":[{\"traceId\":\"");
    json_hex(b, h->link_trace_id, 16);
    PUT(b, "\",\"spanId\":\"");
    json_hex(b, h->link_span_id, 8);
    PUT(b, "\"}]");
  }
  if (h->error)
    PUT(b, ",\"status\":{\"code\":2}");
  PUT(b, "}");
  return true;
}

bool mcp__spans_to_json(const mcp__span_batch_head *head,
                        mcp__span *const *spans, size_t n, mcp__buf *out) {
  bool ok =
      mcp__buf_append_str(out, "{\"resourceSpans\":[{\"resource\":{"
                               "\"attributes\":[") &&
      mcp__buf_append_str(out, head->resource_json) &&
      mcp__buf_append_str(out, "]},\"scopeSpans\":[{\"scope\":{\"name\":") &&
      mcp__buf_append_escaped(out, head->scope_name,
                              strlen(head->scope_name)) &&
      mcp__buf_append_str(out, ",\"version\":") &&
      mcp__buf_append_escaped(out, head->scope_version,
                              strlen(head->scope_version)) &&
      mcp__buf_append_str(out, "},\"spans\":[");
  for (size_t i = 0; ok && i < n; i++)
    ok = (i == 0 || mcp__buf_append_char(out, ',')) &&
         json_span(out, spans[i]);
  return ok && mcp__buf_append_str(out, "]}]}]}");
}

/* The protobuf writing below sizes a span's messages before writing it,
 * so each length goes in front of its message directly: no nested message
 * is moved (as the general writer of telemetry/pb.h does). The wire types:
 * 0 varint, 1 fixed64, 2 length-delimited. */
/* A length-delimited field of n bytes (field numbers below 16: one byte
 * of tag) in full, and its head. */
static size_t len_field_size(size_t n) {
  return 1 + mcp__pb_varint_size(n) + n;
}

static unsigned char *put_len_head(unsigned char *o, unsigned field,
                                   size_t n) {
  *o++ = (unsigned char)(field << 3 | 2);
  return mcp__pb_put_varint(o, n);
}

static unsigned char *put_len_field(unsigned char *o, unsigned field,
                                    const void *p, size_t n) {
  o = put_len_head(o, field, n);
  memcpy(o, p, n);
  return o + n;
}

static unsigned char *put_fixed64(unsigned char *o, unsigned field,
                                  uint64_t v) {
  *o++ = (unsigned char)(field << 3 | 1);
  for (int i = 0; i < 8; i++)
    *o++ = (unsigned char)(v >> (8 * i));
  return o;
}

/* An attribute's AnyValue (a oneof: written even when empty) and the
 * KeyValue around it (its key left out when empty, proto3's default). */
static size_t any_size(const mcp__span_attr *a) {
  return a->is_int ? 1 + mcp__pb_varint_size((uint64_t)a->int_value)
                   : len_field_size(a->len);
}

static size_t kv_size(const mcp__span_attr *a, size_t key_len) {
  if (!a->is_int && key_len != 0 && key_len < 0x80 && a->len < 0x80 - 2)
    return key_len + a->len + 6; /* every length one byte (put_span) */
  return (key_len ? len_field_size(key_len) : 0) +
         len_field_size(any_size(a));
}

/* The Span message's contents; kv[i] the size of attribute i's KeyValue. */
static size_t span_size(const mcp__span *sp, size_t *kv) {
  const mcp__span_head *h = &sp->h;
  size_t n = len_field_size(16) + len_field_size(8);
  if (h->has_trace_state && h->state_len)
    n += len_field_size(h->state_len);
  if (h->has_parent)
    n += len_field_size(8);
  if (h->name_len)
    n += len_field_size(h->name_len);
  if (h->kind)
    n += 1 + mcp__pb_varint_size((uint64_t)h->kind);
  n += (h->start_ns ? 9 : 0) + (h->end_ns ? 9 : 0);
  for (uint32_t i = 0; i < h->attr_count; i++) {
    kv[i] = kv_size(&h->attrs[i], h->attrs[i].key_len);
    n += len_field_size(kv[i]);
  }
  if (h->dropped_attrs)
    n += 1 + mcp__pb_varint_size(h->dropped_attrs);
  if (h->has_link)
    n += len_field_size(len_field_size(16) + len_field_size(8));
  if (h->error)
    n += len_field_size(2);
  return n;
}

/* The span as field 2 of ScopeSpans at o (room for it checked). */
static unsigned char *put_span(unsigned char *o, const mcp__span *sp,
                               size_t size, const size_t *kv) {
  const mcp__span_head *h = &sp->h;
  o = put_len_head(o, MCP__OTLP_SCOPE_SPANS_SPANS, size);
  o = put_len_field(o, MCP__OTLP_SPAN_TRACE_ID, h->trace_id, 16);
  o = put_len_field(o, MCP__OTLP_SPAN_SPAN_ID, h->span_id, 8);
  if (h->has_trace_state && h->state_len)
    o = put_len_field(o, MCP__OTLP_SPAN_TRACE_STATE,
                      mcp__span_str(sp, h->state_off), h->state_len);
  if (h->has_parent)
    o = put_len_field(o, MCP__OTLP_SPAN_PARENT_SPAN_ID, h->parent_id, 8);
  if (h->name_len)
    o = put_len_field(o, MCP__OTLP_SPAN_NAME, mcp__span_str(sp, h->name_off),
                      h->name_len);
  if (h->kind) {
    *o++ = MCP__OTLP_SPAN_KIND << 3;
    o = mcp__pb_put_varint(o, (uint64_t)h->kind);
  }
  if (h->start_ns)
    o = put_fixed64(o, MCP__OTLP_SPAN_START_TIME_UNIX_NANO,
                    (uint64_t)h->start_ns);
  if (h->end_ns)
    o = put_fixed64(o, MCP__OTLP_SPAN_END_TIME_UNIX_NANO, (uint64_t)h->end_ns);
  for (uint32_t i = 0; i < h->attr_count; i++) {
    const mcp__span_attr *a = &h->attrs[i];
    if (!a->is_int && a->key_len != 0 && kv[i] < 0x80) {
      /* the common attribute: a string KeyValue under 128 bytes, so every
       * length in it is one byte (no varint loops) */
      o[0] = MCP__OTLP_SPAN_ATTRIBUTES << 3 | 2;
      o[1] = (unsigned char)kv[i];
      o[2] = MCP__OTLP_KEY_VALUE_KEY << 3 | 2;
      o[3] = (unsigned char)a->key_len;
      memcpy(o + 4, a->key, a->key_len);
      o += 4 + a->key_len;
      o[0] = MCP__OTLP_KEY_VALUE_VALUE << 3 | 2;
      o[1] = (unsigned char)(2 + a->len);
      o[2] = MCP__OTLP_ANY_VALUE_STRING_VALUE << 3 | 2;
      o[3] = (unsigned char)a->len;
      memcpy(o + 4, mcp__span_str(sp, a->off), a->len);
      o += 4 + a->len;
      continue;
    }
    o = put_len_head(o, MCP__OTLP_SPAN_ATTRIBUTES, kv[i]);
    if (a->key_len)
      o = put_len_field(o, MCP__OTLP_KEY_VALUE_KEY, a->key, a->key_len);
    if (a->is_int) {
      o = put_len_head(o, MCP__OTLP_KEY_VALUE_VALUE,
                       1 + mcp__pb_varint_size((uint64_t)a->int_value));
      *o++ = MCP__OTLP_ANY_VALUE_INT_VALUE << 3;
      o = mcp__pb_put_varint(o, (uint64_t)a->int_value);
    } else {
      o = put_len_head(o, MCP__OTLP_KEY_VALUE_VALUE, len_field_size(a->len));
      o = put_len_field(o, MCP__OTLP_ANY_VALUE_STRING_VALUE,
                        mcp__span_str(sp, a->off), a->len);
    }
  }
  if (h->dropped_attrs) {
    *o++ = MCP__OTLP_SPAN_DROPPED_ATTRIBUTES_COUNT << 3;
    o = mcp__pb_put_varint(o, h->dropped_attrs);
  }
  if (h->has_link) {
    o = put_len_head(o, MCP__OTLP_SPAN_LINKS,
                     len_field_size(16) + len_field_size(8));
    o = put_len_field(o, MCP__OTLP_SPAN_LINK_TRACE_ID, h->link_trace_id, 16);
    o = put_len_field(o, MCP__OTLP_SPAN_LINK_SPAN_ID, h->link_span_id, 8);
  }
  if (h->error) {
    o = put_len_head(o, MCP__OTLP_SPAN_STATUS, 2);
    *o++ = MCP__OTLP_STATUS_CODE << 3;
    *o++ = 2; /* STATUS_CODE_ERROR */
  }
  return o;
}

/* Every span is sized first (its attributes' sizes kept for the writing,
 * not computed twice), so the request's head, whose lengths count them
 * all, is written first and each span after it in place: one reservation,
 * nothing moved. */
typedef struct span_sizes {
  size_t span, kv[MCP__SPAN_MAX_ATTRS];
} span_sizes;

bool mcp__spans_to_pb(const mcp__span_batch_head *head,
                      mcp__span *const *spans, size_t n, size_t limit,
                      mcp__buf *out) {
  span_sizes *sizes = malloc((n ? n : 1) * sizeof *sizes);
  if (sizes == NULL)
    return false;
  size_t name_len = strlen(head->scope_name),
         version_len = strlen(head->scope_version);
  size_t scope = (name_len ? len_field_size(name_len) : 0) +
                 (version_len ? len_field_size(version_len) : 0);
  size_t scope_spans = len_field_size(scope);
  for (size_t i = 0; i < n; i++) {
    sizes[i].span = span_size(spans[i], sizes[i].kv);
    scope_spans += len_field_size(sizes[i].span);
  }
  size_t resource_spans =
      len_field_size(head->resource_pb_len) + len_field_size(scope_spans);
  size_t total = len_field_size(resource_spans);
  bool ok = total <= limit && mcp__buf_reserve(out, total);
  if (ok) {
    unsigned char *start = (unsigned char *)out->data + out->len, *o = start;
    o = put_len_head(o, MCP__OTLP_EXPORT_TRACE_SERVICE_REQUEST_RESOURCE_SPANS,
                     resource_spans);
    o = put_len_field(o, MCP__OTLP_RESOURCE_SPANS_RESOURCE, head->resource_pb,
                      head->resource_pb_len);
    o = put_len_head(o, MCP__OTLP_RESOURCE_SPANS_SCOPE_SPANS, scope_spans);
    o = put_len_head(o, MCP__OTLP_SCOPE_SPANS_SCOPE, scope);
    if (name_len)
      o = put_len_field(o, MCP__OTLP_INSTRUMENTATION_SCOPE_NAME,
                        head->scope_name, name_len);
    if (version_len)
      o = put_len_field(o, MCP__OTLP_INSTRUMENTATION_SCOPE_VERSION,
                        head->scope_version, version_len);
    for (size_t i = 0; i < n; i++)
      o = put_span(o, spans[i], sizes[i].span, sizes[i].kv);
    out->len += (size_t)(o - start);
    out->data[out->len] = '\0';
  }
  free(sizes);
  return ok;
}
