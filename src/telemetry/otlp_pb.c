/* SPDX-License-Identifier: MIT */
/* otlp_pb.c - see otlp_pb.h. One table per OTLP message: a row per field
 * (its JSON name, its number in the .proto by its otlp_fields.h name, how
 * its JSON value is written on the wire). Adding a field to the model is
 * adding its row (and its number to otlp_fields.h). The JSON side follows
 * OTLP's JSON rules: ids in hex (not base64), enums as numbers, 64-bit
 * integers as decimal strings (numbers accepted too). */
#include "telemetry/otlp_pb.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "telemetry/otlp_fields.h"
#include "telemetry/pb.h"
#include "util/base64.h"
#include "util/hex.h"

typedef enum pb_kind {
  K_STRING,  /* string: a JSON string */
  K_HEX,     /* bytes: a JSON string of hex digits (trace and span ids) */
  K_BASE64,  /* bytes: a JSON string in base64 (AnyValue.bytesValue) */
  K_ENUM,    /* enum or int32: a JSON integer, as a varint */
  K_UINT32,  /* uint32: a JSON integer, as a varint */
  K_BOOL,    /* bool: true/false, as a varint */
  K_INT64,   /* int64: a decimal string or integer, as a varint */
  K_FIXED64, /* fixed64: a decimal string or integer */
  K_SFIXED64,/* sfixed64: a decimal string or integer */
  K_FIXED32, /* fixed32: a JSON integer */
  K_DOUBLE,  /* double: a number, or "NaN", "Infinity", "-Infinity" */
  K_MESSAGE, /* a message; repeated when the JSON value is an array */
  K_PACKED_FIXED64, /* repeated fixed64: an array, packed */
  K_PACKED_DOUBLE   /* repeated double: an array, packed */
} pb_kind;

typedef struct pb_message pb_message;
typedef struct pb_field {
  const char *json;
  uint32_t number;
  pb_kind kind;
  const pb_message *message; /* K_MESSAGE: its table */
  /* written even when zero or empty: members of a oneof and proto3
   * `optional` fields; the others are skipped at their default, as the
   * official encoders do, so the bytes are the canonical ones */
  bool presence;
} pb_field;
struct pb_message {
  const char *name; /* in reasons */
  const pb_field *fields;
  size_t count;
};

/* Rows: F a scalar, P a scalar that tracks presence (written even at its
 * default), M a message (repeated when the JSON holds an array), PM a
 * message member of a oneof; field names the number in otlp_fields.h
 * (MCP__OTLP_ before it). */
#define F(json, field, kind) {json, MCP__OTLP_##field, kind, NULL, false}
#define P(json, field, kind) {json, MCP__OTLP_##field, kind, NULL, true}
#define M(json, field, table)                                                 \
  {json, MCP__OTLP_##field, K_MESSAGE, &table, false}
#define PM(json, field, table)                                                \
  {json, MCP__OTLP_##field, K_MESSAGE, &table, true}
#define TABLE(var, label, ...)                                                \
  static const pb_field var##_fields[] = {__VA_ARGS__};                       \
  static const pb_message var = {                                             \
      label, var##_fields, sizeof var##_fields / sizeof var##_fields[0]}

/* common/v1/common.proto (AnyValue and KeyValue refer to each other). */
static const pb_message ANY_VALUE, KEY_VALUE;
TABLE(ARRAY_VALUE, "ArrayValue",
      M("values", ARRAY_VALUE_VALUES, ANY_VALUE));
TABLE(KEY_VALUE_LIST, "KeyValueList",
      M("values", KEY_VALUE_LIST_VALUES, KEY_VALUE));
TABLE(ANY_VALUE, "AnyValue",
      P("stringValue", ANY_VALUE_STRING_VALUE, K_STRING),
      P("boolValue", ANY_VALUE_BOOL_VALUE, K_BOOL),
      P("intValue", ANY_VALUE_INT_VALUE, K_INT64),
      P("doubleValue", ANY_VALUE_DOUBLE_VALUE, K_DOUBLE),
      PM("arrayValue", ANY_VALUE_ARRAY_VALUE, ARRAY_VALUE),
      PM("kvlistValue", ANY_VALUE_KVLIST_VALUE, KEY_VALUE_LIST),
      P("bytesValue", ANY_VALUE_BYTES_VALUE, K_BASE64));
TABLE(KEY_VALUE, "KeyValue",
      F("key", KEY_VALUE_KEY, K_STRING),
      M("value", KEY_VALUE_VALUE, ANY_VALUE));
TABLE(SCOPE, "InstrumentationScope",
      F("name", INSTRUMENTATION_SCOPE_NAME, K_STRING),
      F("version", INSTRUMENTATION_SCOPE_VERSION, K_STRING),
      M("attributes", INSTRUMENTATION_SCOPE_ATTRIBUTES, KEY_VALUE),
      F("droppedAttributesCount",
        INSTRUMENTATION_SCOPE_DROPPED_ATTRIBUTES_COUNT, K_UINT32));

/* resource/v1/resource.proto */
TABLE(RESOURCE, "Resource",
      M("attributes", RESOURCE_ATTRIBUTES, KEY_VALUE),
      F("droppedAttributesCount", RESOURCE_DROPPED_ATTRIBUTES_COUNT, K_UINT32));

/* trace/v1/trace.proto */
TABLE(STATUS, "Status",
      F("message", STATUS_MESSAGE, K_STRING),
      F("code", STATUS_CODE, K_ENUM));
TABLE(EVENT, "Span.Event",
      F("timeUnixNano", SPAN_EVENT_TIME_UNIX_NANO, K_FIXED64),
      F("name", SPAN_EVENT_NAME, K_STRING),
      M("attributes", SPAN_EVENT_ATTRIBUTES, KEY_VALUE),
      F("droppedAttributesCount",
        SPAN_EVENT_DROPPED_ATTRIBUTES_COUNT, K_UINT32));
TABLE(LINK, "Span.Link",
      F("traceId", SPAN_LINK_TRACE_ID, K_HEX),
      F("spanId", SPAN_LINK_SPAN_ID, K_HEX),
      F("traceState", SPAN_LINK_TRACE_STATE, K_STRING),
      M("attributes", SPAN_LINK_ATTRIBUTES, KEY_VALUE),
      F("droppedAttributesCount", SPAN_LINK_DROPPED_ATTRIBUTES_COUNT, K_UINT32),
      F("flags", SPAN_LINK_FLAGS, K_FIXED32));
TABLE(SPAN, "Span",
      F("traceId", SPAN_TRACE_ID, K_HEX),
      F("spanId", SPAN_SPAN_ID, K_HEX),
      F("traceState", SPAN_TRACE_STATE, K_STRING),
      F("parentSpanId", SPAN_PARENT_SPAN_ID, K_HEX),
      F("name", SPAN_NAME, K_STRING),
      F("kind", SPAN_KIND, K_ENUM),
      F("startTimeUnixNano", SPAN_START_TIME_UNIX_NANO, K_FIXED64),
      F("endTimeUnixNano", SPAN_END_TIME_UNIX_NANO, K_FIXED64),
      M("attributes", SPAN_ATTRIBUTES, KEY_VALUE),
      F("droppedAttributesCount", SPAN_DROPPED_ATTRIBUTES_COUNT, K_UINT32),
      M("events", SPAN_EVENTS, EVENT),
      F("droppedEventsCount", SPAN_DROPPED_EVENTS_COUNT, K_UINT32),
      M("links", SPAN_LINKS, LINK),
      F("droppedLinksCount", SPAN_DROPPED_LINKS_COUNT, K_UINT32),
      M("status", SPAN_STATUS, STATUS),
      F("flags", SPAN_FLAGS, K_FIXED32));
TABLE(SCOPE_SPANS, "ScopeSpans",
      M("scope", SCOPE_SPANS_SCOPE, SCOPE),
      M("spans", SCOPE_SPANS_SPANS, SPAN),
      F("schemaUrl", SCOPE_SPANS_SCHEMA_URL, K_STRING));
TABLE(RESOURCE_SPANS, "ResourceSpans",
      M("resource", RESOURCE_SPANS_RESOURCE, RESOURCE),
      M("scopeSpans", RESOURCE_SPANS_SCOPE_SPANS, SCOPE_SPANS),
      F("schemaUrl", RESOURCE_SPANS_SCHEMA_URL, K_STRING));

/* collector/trace/v1/trace_service.proto */
TABLE(TRACE_REQUEST, "ExportTraceServiceRequest",
      M("resourceSpans",
        EXPORT_TRACE_SERVICE_REQUEST_RESOURCE_SPANS, RESOURCE_SPANS));

/* metrics/v1/metrics.proto (no exemplars, exponential histograms or
 * summaries: libmcp records none) */
TABLE(NUMBER_POINT, "NumberDataPoint",
      F("startTimeUnixNano", NUMBER_DATA_POINT_START_TIME_UNIX_NANO, K_FIXED64),
      F("timeUnixNano", NUMBER_DATA_POINT_TIME_UNIX_NANO, K_FIXED64),
      P("asDouble", NUMBER_DATA_POINT_AS_DOUBLE, K_DOUBLE),
      P("asInt", NUMBER_DATA_POINT_AS_INT, K_SFIXED64),
      M("attributes", NUMBER_DATA_POINT_ATTRIBUTES, KEY_VALUE),
      F("flags", NUMBER_DATA_POINT_FLAGS, K_UINT32));
TABLE(HISTOGRAM_POINT, "HistogramDataPoint",
      F("startTimeUnixNano",
        HISTOGRAM_DATA_POINT_START_TIME_UNIX_NANO, K_FIXED64),
      F("timeUnixNano", HISTOGRAM_DATA_POINT_TIME_UNIX_NANO, K_FIXED64),
      F("count", HISTOGRAM_DATA_POINT_COUNT, K_FIXED64),
      P("sum", HISTOGRAM_DATA_POINT_SUM, K_DOUBLE),
      F("bucketCounts", HISTOGRAM_DATA_POINT_BUCKET_COUNTS, K_PACKED_FIXED64),
      F("explicitBounds",
        HISTOGRAM_DATA_POINT_EXPLICIT_BOUNDS, K_PACKED_DOUBLE),
      M("attributes", HISTOGRAM_DATA_POINT_ATTRIBUTES, KEY_VALUE),
      F("flags", HISTOGRAM_DATA_POINT_FLAGS, K_UINT32),
      P("min", HISTOGRAM_DATA_POINT_MIN, K_DOUBLE),
      P("max", HISTOGRAM_DATA_POINT_MAX, K_DOUBLE));
TABLE(GAUGE, "Gauge",
      M("dataPoints", GAUGE_DATA_POINTS, NUMBER_POINT));
TABLE(SUM, "Sum",
      M("dataPoints", SUM_DATA_POINTS, NUMBER_POINT),
      F("aggregationTemporality", SUM_AGGREGATION_TEMPORALITY, K_ENUM),
      F("isMonotonic", SUM_IS_MONOTONIC, K_BOOL));
TABLE(HISTOGRAM, "Histogram",
      M("dataPoints", HISTOGRAM_DATA_POINTS, HISTOGRAM_POINT),
      F("aggregationTemporality", HISTOGRAM_AGGREGATION_TEMPORALITY, K_ENUM));
TABLE(METRIC, "Metric",
      F("name", METRIC_NAME, K_STRING),
      F("description", METRIC_DESCRIPTION, K_STRING),
      F("unit", METRIC_UNIT, K_STRING),
      M("gauge", METRIC_GAUGE, GAUGE),
      M("sum", METRIC_SUM, SUM),
      M("histogram", METRIC_HISTOGRAM, HISTOGRAM),
      M("metadata", METRIC_METADATA, KEY_VALUE));
TABLE(SCOPE_METRICS, "ScopeMetrics",
      M("scope", SCOPE_METRICS_SCOPE, SCOPE),
      M("metrics", SCOPE_METRICS_METRICS, METRIC),
      F("schemaUrl", SCOPE_METRICS_SCHEMA_URL, K_STRING));
TABLE(RESOURCE_METRICS, "ResourceMetrics",
      M("resource", RESOURCE_METRICS_RESOURCE, RESOURCE),
      M("scopeMetrics", RESOURCE_METRICS_SCOPE_METRICS, SCOPE_METRICS),
      F("schemaUrl", RESOURCE_METRICS_SCHEMA_URL, K_STRING));

/* collector/metrics/v1/metrics_service.proto */
TABLE(METRICS_REQUEST, "ExportMetricsServiceRequest",
      M("resourceMetrics",
        EXPORT_METRICS_SERVICE_REQUEST_RESOURCE_METRICS, RESOURCE_METRICS));

typedef struct encoder {
  mcp__pb w;
  char *why;
  size_t n;
  bool bad; /* why holds the first reason */
} encoder;

static bool refuse(encoder *e, const pb_message *m, const char *member,
                   const char *problem) {
  if (!e->bad)
    snprintf(e->why, e->n, "%s.%s: %s", m->name, member, problem);
  e->bad = true;
  return false;
}

/* A 64-bit integer from a decimal string or a JSON integer. */
static bool integer64(const json_t *v, bool is_signed, uint64_t *out) {
  if (json_is_integer(v)) {
    json_int_t i = json_integer_value(v);
    if (!is_signed && i < 0)
      return false;
    *out = (uint64_t)i;
    return true;
  }
  const char *s = json_string_value(v);
  if (s == NULL || s[0] == '\0' || (!is_signed && s[0] == '-'))
    return false;
  char *end;
  errno = 0;
  *out = is_signed ? (uint64_t)strtoll(s, &end, 10) : strtoull(s, &end, 10);
  return errno == 0 && *end == '\0';
}

static bool real(const json_t *v, double *out) {
  const char *s = json_string_value(v);
  if (json_is_number(v))
    *out = json_number_value(v);
  else if (s && strcmp(s, "NaN") == 0)
    *out = NAN;
  else if (s && strcmp(s, "Infinity") == 0)
    *out = INFINITY;
  else if (s && strcmp(s, "-Infinity") == 0)
    *out = -INFINITY;
  else
    return false;
  return true;
}

static bool message(encoder *e, const pb_message *m, const json_t *obj);

static bool hex_bytes(encoder *e, const pb_field *f, const pb_message *m,
                      const json_t *v) {
  const char *s = json_string_value(v);
  size_t len = s ? strlen(s) : 0;
  unsigned char bytes[64];
  if (s == NULL || len % 2 || len / 2 > sizeof bytes)
    return refuse(e, m, f->json, "not an id in hex");
  for (size_t i = 0; i < len / 2; i++) {
    int hi = mcp__hex_digit((unsigned char)s[2 * i]),
        lo = mcp__hex_digit((unsigned char)s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return refuse(e, m, f->json, "not an id in hex");
    bytes[i] = (unsigned char)(hi << 4 | lo);
  }
  mcp__pb_bytes(&e->w, f->number, bytes, len / 2);
  return true;
}

static bool base64_bytes(encoder *e, const pb_field *f, const pb_message *m,
                         const json_t *v) {
  const char *s = json_string_value(v);
  size_t n = 0;
  unsigned char *bytes = s ? mcp__base64_decode(s, strlen(s), &n) : NULL;
  if (bytes == NULL)
    return refuse(e, m, f->json, "not base64");
  mcp__pb_bytes(&e->w, f->number, bytes, n);
  free(bytes);
  return true;
}

static bool packed(encoder *e, const pb_field *f, const pb_message *m,
                   const json_t *v) {
  if (!json_is_array(v))
    return refuse(e, m, f->json, "not an array");
  mcp__pb_begin(&e->w, f->number);
  size_t i;
  const json_t *x;
  json_array_foreach(v, i, x) {
    uint64_t u;
    double d;
    if (f->kind == K_PACKED_FIXED64 && integer64(x, false, &u))
      mcp__pb_raw_fixed64(&e->w, u);
    else if (f->kind == K_PACKED_DOUBLE && real(x, &d))
      mcp__pb_raw_double(&e->w, d);
    else
      return refuse(e, m, f->json, "an element of the wrong type");
  }
  mcp__pb_end(&e->w);
  return true;
}

/* Whether v is the proto3 default of a scalar field (0, false, "", +0.0,
 * an empty array): not written unless the field tracks presence. */
static bool is_default(const pb_field *f, const json_t *v) {
  double d;
  uint64_t u;
  switch (f->kind) {
  case K_MESSAGE:
    return false; /* a message that is there is written, even empty */
  case K_STRING:
  case K_HEX:
  case K_BASE64:
    return json_is_string(v) && json_string_length(v) == 0;
  case K_BOOL:
    return json_is_false(v);
  case K_DOUBLE:
    return real(v, &d) && d == 0 && !signbit(d);
  case K_PACKED_FIXED64:
  case K_PACKED_DOUBLE:
    return json_is_array(v) && json_array_size(v) == 0;
  default:
    return integer64(v, true, &u) && u == 0;
  }
}

/* One occurrence of field f with JSON value v. */
static bool field(encoder *e, const pb_field *f, const pb_message *m,
                  const json_t *v) {
  uint64_t u;
  double d;
  if (!f->presence && is_default(f, v))
    return true;
  switch (f->kind) {
  case K_STRING: {
    const char *s = json_string_value(v);
    if (s == NULL)
      return refuse(e, m, f->json, "not a string");
    mcp__pb_bytes(&e->w, f->number, s, json_string_length(v));
    return true;
  }
  case K_HEX:
    return hex_bytes(e, f, m, v);
  case K_BASE64:
    return base64_bytes(e, f, m, v);
  case K_ENUM: /* int32 and enums: negative values take ten bytes */
    if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
        json_integer_value(v) > INT32_MAX)
      return refuse(e, m, f->json, "not an enum number");
    mcp__pb_varint(&e->w, f->number, (uint64_t)json_integer_value(v));
    return true;
  case K_UINT32:
  case K_FIXED32:
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > UINT32_MAX)
      return refuse(e, m, f->json, "not a 32-bit unsigned integer");
    if (f->kind == K_UINT32)
      mcp__pb_varint(&e->w, f->number, (uint64_t)json_integer_value(v));
    else
      mcp__pb_fixed32(&e->w, f->number, (uint32_t)json_integer_value(v));
    return true;
  case K_BOOL:
    if (!json_is_boolean(v))
      return refuse(e, m, f->json, "not a boolean");
    mcp__pb_varint(&e->w, f->number, json_is_true(v));
    return true;
  case K_INT64:
  case K_FIXED64:
  case K_SFIXED64:
    if (!integer64(v, f->kind != K_FIXED64, &u))
      return refuse(e, m, f->json, "not a 64-bit integer");
    if (f->kind == K_INT64)
      mcp__pb_varint(&e->w, f->number, u);
    else
      mcp__pb_fixed64(&e->w, f->number, u);
    return true;
  case K_DOUBLE:
    if (!real(v, &d))
      return refuse(e, m, f->json, "not a number");
    mcp__pb_double(&e->w, f->number, d);
    return true;
  case K_PACKED_FIXED64:
  case K_PACKED_DOUBLE:
    return packed(e, f, m, v);
  case K_MESSAGE:
    mcp__pb_begin(&e->w, f->number);
    if (!message(e, f->message, v))
      return false;
    mcp__pb_end(&e->w);
    return true;
  }
  return refuse(e, m, f->json, "unknown kind");
}

/* The members of obj in the table's order (field numbers need no order on
 * the wire; a fixed one makes the bytes reproducible); a member without a
 * row fails. */
static bool message(encoder *e, const pb_message *m, const json_t *obj) {
  if (!json_is_object(obj))
    return refuse(e, m, "", "not an object");
  size_t matched = 0;
  for (size_t i = 0; i < m->count; i++) {
    const pb_field *f = &m->fields[i];
    const json_t *v = json_object_get(obj, f->json);
    if (v == NULL || json_is_null(v))
      continue;
    matched++;
    if (f->kind == K_MESSAGE && json_is_array(v)) { /* repeated */
      size_t k;
      const json_t *x;
      json_array_foreach(v, k, x) {
        if (!field(e, f, m, x))
          return false;
      }
    } else if (!field(e, f, m, v)) {
      return false;
    }
  }
  if (matched != json_object_size(obj)) {
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
      bool known = false;
      for (size_t i = 0; i < m->count && !known; i++)
        known = strcmp(key, m->fields[i].json) == 0;
      if (!known)
        return refuse(e, m, key, "no protobuf field for this member");
    }
  }
  return !e->w.failed;
}

/* json as a message m (NULL: the request its first member names). */
static bool transcode(const pb_message *m, const char *json, size_t len,
                      mcp__buf *out, char *why, size_t n) {
  json_error_t jerr;
  json_t *root = json_loadb(json, len, JSON_ALLOW_NUL, &jerr);
  if (root == NULL) {
    snprintf(why, n, "OTLP/JSON body: %s", jerr.text);
    return false;
  }
  if (m == NULL)
    m = json_object_get(root, "resourceSpans") ? &TRACE_REQUEST
                                               : &METRICS_REQUEST;
  encoder e = {.why = why, .n = n};
  mcp__pb_init(&e.w, MCP__OTLP_PB_MAX_BYTES);
  bool ok = message(&e, m, root);
  json_decref(root);
  if (!ok && !e.bad)
    snprintf(why, n, "%s: over %zu bytes or out of memory", m->name,
             (size_t)MCP__OTLP_PB_MAX_BYTES);
  ok = ok && mcp__buf_append(out, e.w.out.data ? e.w.out.data : "",
                             e.w.out.len);
  mcp__pb_free(&e.w);
  return ok;
}

bool mcp__otlp_json_to_pb(const char *json, size_t len, mcp__buf *out,
                          char *why, size_t n) {
  return transcode(NULL, json, len, out, why, n);
}

bool mcp__otlp_resource_json_to_pb(const char *attributes_json,
                                   mcp__buf *out, char *why, size_t n) {
  mcp__buf json;
  mcp__buf_init(&json);
  mcp__buf_append_str(&json, "{\"attributes\":[");
  mcp__buf_append_str(&json, attributes_json);
  bool ok = mcp__buf_append_str(&json, "]}");
  ok = ok ? transcode(&RESOURCE, json.data, json.len, out, why, n)
          : (snprintf(why, n, "out of memory"), false);
  mcp__buf_free(&json);
  return ok;
}
