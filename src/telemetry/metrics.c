/* SPDX-License-Identifier: MIT */
/* metrics.c - see metrics.h. */
#include "telemetry/metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/version.h"
#include "telemetry/otlp_http.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/hash.h"

/* The conventions' buckets for MCP operation and session durations. */
static const double BOUNDS[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
                                2,    5,    10,   30,  60,  120, 300};
#define NBOUNDS (sizeof BOUNDS / sizeof BOUNDS[0])

static const struct {
  const char *name, *description;
} INSTRUMENTS[MCP__METRIC_COUNT] = {
    {"mcp.server.operation.duration",
     "Duration of an MCP request as the server saw it"},
    {"mcp.server.session.duration",
     "Duration of an MCP session from initialize to its end"},
    {"mcp.client.operation.duration",
     "Duration of an MCP request as the client saw it"},
    {"mcp.client.session.duration",
     "Duration of an MCP client's connection from connect to close"}};

typedef struct series {
  mcp__instrument instrument;
  char *attrs; /* NULL: free slot */
  size_t len;
  /* its attributes in packed form (see pack_attrs), in attrs' allocation
   * after the text: what a lookup compares */
  const struct packed_attr *packed;
  size_t packed_count;
  uint64_t hash;
  uint64_t count, buckets[NBOUNDS + 1];
  double sum, min, max;
} series;

struct mcp__metrics {
  mcp__otlp_target target;
  char *resource;
  int64_t interval_ms, start_ns;
  uint64_t (*dropped_spans)(void *ctx);
  void *dropped_ctx;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  bool stopping;
  series *table; /* open addressing, a power of two >= 2 * max_series */
  size_t slots, used, max_series;
  uint64_t dropped_series, dropped_exports;
  bool exporting; /* a metrics_url was given: the thread runs */
  pthread_t thread;
};

/* One more value in s. */
static void bump(series *s, double seconds) {
  size_t b = 0;
  while (b < NBOUNDS && seconds > BOUNDS[b])
    b++;
  s->buckets[b]++;
  s->count++;
  s->sum += seconds;
  if (seconds < s->min)
    s->min = seconds;
  if (seconds > s->max)
    s->max = seconds;
}

/* A series' attribute as mcp__metrics_record_attrs compares it: the
 * key's address (a literal's: equal addresses, equal keys), both lengths;
 * the keys' and values' bytes follow the array, in order. */
typedef struct packed_attr {
  const char *key;
  uint32_t key_len, len;
} packed_attr;

/* Takes the free slot x for a new series whose text is attrs and whose
 * packed form (packed_len bytes) follows it in one allocation, aligned;
 * NULL when the series limit is reached or out of memory (counted). */
static series *claim(mcp__metrics *m, series *x, mcp__instrument instrument,
                     uint64_t h, const char *attrs, size_t len,
                     const void *packed, size_t packed_len,
                     size_t packed_count, double seconds) {
  size_t at = (len + 1 + _Alignof(packed_attr) - 1) &
              ~(_Alignof(packed_attr) - 1);
  if (m->used >= m->max_series ||
      (x->attrs = malloc(at + packed_len)) == NULL) {
    m->dropped_series++;
    return NULL;
  }
  memcpy(x->attrs, attrs, len);
  x->attrs[len] = '\0';
  memcpy(x->attrs + at, packed, packed_len);
  x->packed = (const packed_attr *)(void *)(x->attrs + at);
  x->packed_count = packed_count;
  x->instrument = instrument;
  x->len = len;
  x->hash = h;
  x->min = x->max = seconds;
  m->used++;
  return x;
}

/* The packed form of n attributes: packed_attr[n], then the bytes. */
static size_t packed_size(const mcp__metrics_attr *a, size_t n) {
  size_t len = n * sizeof(packed_attr);
  for (size_t i = 0; i < n; i++)
    len += a[i].key_len + a[i].len;
  return len;
}

static void pack_attrs(packed_attr *o, const mcp__metrics_attr *a, size_t n) {
  char *bytes = (char *)(o + n);
  for (size_t i = 0; i < n; i++) {
    o[i].key = a[i].key;
    o[i].key_len = (uint32_t)a[i].key_len;
    o[i].len = (uint32_t)a[i].len;
    memcpy(bytes, a[i].key, a[i].key_len);
    memcpy(bytes + a[i].key_len, a[i].value, a[i].len);
    bytes += a[i].key_len + a[i].len;
  }
}

/* Whether the count attributes packed at p are exactly attributes a. */
static bool packed_equal(const packed_attr *p, size_t count,
                         const mcp__metrics_attr *a, size_t n) {
  if (count != n)
    return false;
  const char *bytes = (const char *)(p + n);
  for (size_t i = 0; i < n; i++) {
    if (p[i].key_len != a[i].key_len || p[i].len != a[i].len ||
        (p[i].key != a[i].key && !mcp__bytes_eq(bytes, a[i].key, a[i].key_len)) ||
        !mcp__bytes_eq(bytes + a[i].key_len, a[i].value, a[i].len))
      return false;
    bytes += a[i].key_len + a[i].len;
  }
  return true;
}

/* One attribute as an OTLP/JSON KeyValue (comma separated after the
 * first), the value escaped only when it holds a character JSON escapes. */
static bool append_kv(mcp__buf *b, const mcp__metrics_attr *a) {
  return mcp__buf_append_str(b, b->len ? ",{\"key\":\"" : "{\"key\":\"") &&
         mcp__buf_append(b, a->key, a->key_len) &&
         mcp__buf_append_str(b, "\",\"value\":{\"stringValue\":") &&
         mcp__buf_append_escaped(b, a->value, a->len) &&
         mcp__buf_append_str(b, "}}");
}

void mcp__metrics_record_attrs(mcp__metrics *m, mcp__instrument instrument,
                               const mcp__metrics_attr *attrs, size_t n,
                               double seconds) {
  /* the hash: the values and both lengths (keys are nearly always the
   * same literals; the comparison checks them) */
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  for (size_t i = 0; i < n; i++)
    h = (h ^ mcp__hash_words(attrs[i].value, attrs[i].len) ^
         (uint64_t)attrs[i].key_len << 48) *
        0xFF51AFD7ED558CCDull;
  h = (h ^ h >> 29) ^ (uint64_t)instrument;
  pthread_mutex_lock(&m->lock);
  series *s = NULL;
  for (size_t i = 0; i < m->slots; i++) {
    series *x = &m->table[(h + i) & (m->slots - 1)];
    if (x->attrs == NULL) {
      /* a new series: its text and packed form, once */
      bool ok = true; /* lengths the packed form holds */
      for (size_t k = 0; k < n; k++)
        ok &= attrs[k].key_len <= UINT32_MAX && attrs[k].len <= UINT32_MAX;
      size_t plen = packed_size(attrs, n);
      packed_attr small_packed[32];
      packed_attr *packed =
          plen <= sizeof small_packed ? small_packed : malloc(plen);
      char small_text[512];
      mcp__buf text;
      mcp__buf_init_on(&text, small_text, sizeof small_text);
      for (size_t k = 0; k < n && ok; k++)
        ok = append_kv(&text, &attrs[k]);
      if (packed != NULL && ok) {
        pack_attrs(packed, attrs, n);
        s = claim(m, x, instrument, h, text.data, text.len, packed, plen, n,
                  seconds);
      } else {
        m->dropped_series++;
      }
      if (packed != small_packed)
        free(packed);
      mcp__buf_free(&text);
      break;
    }
    if (x->hash == h && x->instrument == instrument &&
        packed_equal(x->packed, x->packed_count, attrs, n)) {
      s = x;
      break;
    }
  }
  if (s != NULL)
    bump(s, seconds);
  pthread_mutex_unlock(&m->lock);
}

static void append_u64(mcp__buf *b, uint64_t v) {
  char num[32];
  snprintf(num, sizeof num, "\"%llu\"", (unsigned long long)v);
  mcp__buf_append_str(b, num);
}

static void append_double(mcp__buf *b, double v) {
  char num[40];
  snprintf(num, sizeof num, "%.17g", v);
  mcp__buf_append_str(b, num);
}

/* One series as a HistogramDataPoint. */
static void append_point(mcp__buf *b, const series *s, const char *times) {
  mcp__buf_append_str(b, "{\"attributes\":[");
  mcp__buf_append(b, s->attrs, s->len);
  mcp__buf_append_str(b, "],");
  mcp__buf_append_str(b, times);
  mcp__buf_append_str(b, ",\"count\":");
  append_u64(b, s->count);
  mcp__buf_append_str(b, ",\"sum\":");
  append_double(b, s->sum);
  mcp__buf_append_str(b, ",\"bucketCounts\":[");
  for (size_t k = 0; k <= NBOUNDS; k++) {
    if (k)
      mcp__buf_append_char(b, ',');
    append_u64(b, s->buckets[k]);
  }
  mcp__buf_append_str(b, "],\"explicitBounds\":[");
  for (size_t k = 0; k < NBOUNDS; k++) {
    if (k)
      mcp__buf_append_char(b, ',');
    append_double(b, BOUNDS[k]);
  }
  mcp__buf_append_str(b, "],\"min\":");
  append_double(b, s->min);
  mcp__buf_append_str(b, ",\"max\":");
  append_double(b, s->max);
  mcp__buf_append_char(b, '}');
}

/* The request body, built under the lock (cumulative since start). */
static void build(mcp__metrics *m, mcp__buf *b, uint64_t dropped_spans) {
  char times[96];
  snprintf(times, sizeof times,
           "\"startTimeUnixNano\":\"%lld\",\"timeUnixNano\":\"%lld\"",
           (long long)m->start_ns, (long long)mcp__wall_ns());
  mcp__buf_append_str(b, "{\"resourceMetrics\":[{\"resource\":{"
                         "\"attributes\":[");
  mcp__buf_append_str(b, m->resource);
  mcp__buf_append_str(b, "]},\"scopeMetrics\":[{\"scope\":{\"name\":"
                         "\"libmcp\",\"version\":\"" MCP_VERSION_STRING
                         "\"},\"metrics\":[");
  for (int inst = 0; inst < MCP__METRIC_COUNT; inst++) {
    bool first = true;
    for (size_t i = 0; i < m->slots; i++) {
      const series *s = &m->table[i];
      if (s->attrs == NULL || s->instrument != (mcp__instrument)inst)
        continue;
      if (first) {
        mcp__buf_append_str(b, "{\"name\":\"");
        mcp__buf_append_str(b, INSTRUMENTS[inst].name);
        mcp__buf_append_str(b, "\",\"unit\":\"s\",\"description\":\"");
        mcp__buf_append_str(b, INSTRUMENTS[inst].description);
        mcp__buf_append_str(b, "\",\"histogram\":{"
                               "\"aggregationTemporality\":2,\"dataPoints\":[");
      } else {
        mcp__buf_append_char(b, ',');
      }
      first = false;
      append_point(b, s, times);
    }
    if (!first)
      mcp__buf_append_str(b, "]}},");
  }
  mcp__buf_append_str(
      b, "{\"name\":\"libmcp.telemetry.dropped\",\"unit\":\"{item}\","
         "\"description\":\"Spans, series and metric exports libmcp "
         "dropped\",\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":"
         "true,\"dataPoints\":[{");
  mcp__buf_append_str(b, times);
  mcp__buf_append_str(b, ",\"asInt\":");
  append_u64(b, dropped_spans + m->dropped_series + m->dropped_exports);
  mcp__buf_append_str(b, "}]}}]}]}]}");
}

const double *mcp__metrics_bounds(size_t *n) {
  *n = NBOUNDS;
  return BOUNDS;
}

const char *mcp__metrics_name(mcp__instrument instrument) {
  return INSTRUMENTS[instrument].name;
}

const char *mcp__metrics_description(mcp__instrument instrument) {
  return INSTRUMENTS[instrument].description;
}

uint64_t mcp__metrics_each(mcp__metrics *m, mcp__instrument instrument,
                           void (*fn)(void *ctx, const mcp__metrics_series *s),
                           void *ctx, const char **resource) {
  uint64_t spans = m->dropped_spans ? m->dropped_spans(m->dropped_ctx) : 0;
  if (resource)
    *resource = m->resource;
  pthread_mutex_lock(&m->lock);
  for (size_t i = 0; fn && i < m->slots; i++) {
    const series *s = &m->table[i];
    if (s->attrs == NULL || s->instrument != instrument)
      continue;
    mcp__metrics_series view = {s->instrument, s->attrs, s->len,
                                s->count,      s->buckets, s->sum};
    fn(ctx, &view);
  }
  uint64_t dropped = spans + m->dropped_series + m->dropped_exports;
  pthread_mutex_unlock(&m->lock);
  return dropped;
}

static void export_now(mcp__metrics *m) {
  uint64_t spans = m->dropped_spans ? m->dropped_spans(m->dropped_ctx) : 0;
  mcp__buf b;
  mcp__buf_init(&b);
  pthread_mutex_lock(&m->lock);
  build(m, &b, spans);
  pthread_mutex_unlock(&m->lock);
  bool sent = b.data != NULL && mcp__otlp_post(&m->target, b.data, b.len);
  mcp__buf_free(&b);
  if (!sent) {
    pthread_mutex_lock(&m->lock);
    m->dropped_exports++;
    pthread_mutex_unlock(&m->lock);
  }
}

static void *metrics_main(void *arg) {
  mcp__metrics *m = arg;
  for (;;) {
    pthread_mutex_lock(&m->lock);
    struct timespec until;
    mcp__deadline_in(CLOCK_MONOTONIC, m->interval_ms, &until);
    while (!m->stopping &&
           pthread_cond_timedwait(&m->wake, &m->lock, &until) == 0)
      ;
    bool last = m->stopping;
    pthread_mutex_unlock(&m->lock);
    /* at each interval, and once more after the stop was asked for: a stop
     * that came during an export must not end the thread before what was
     * recorded since that export's snapshot is sent */
    export_now(m);
    if (last)
      return NULL;
  }
}

mcp_status mcp__metrics_start(const mcp__metrics_config *cfg,
                              mcp__metrics **out, char *why, size_t n) {
  *out = NULL;
  mcp__metrics *m = calloc(1, sizeof *m);
  if (m == NULL)
    return MCP_ERR_NOMEM;
  m->exporting = cfg->metrics_url != NULL;
  if (m->exporting && !mcp__otlp_target_init(&m->target, cfg->metrics_url,
                                             cfg->headers, why, n)) {
    free(m);
    return MCP_ERR_INVALID_ARG;
  }
  m->target.protocol = cfg->protocol;
  m->interval_ms = cfg->interval_ms > 0 ? cfg->interval_ms : 60000;
  m->max_series = cfg->max_series ? cfg->max_series : 1000;
  /* a power of two: a probe masks instead of dividing */
  for (m->slots = 16; m->slots < 2 * m->max_series; m->slots *= 2)
    ;
  m->table = calloc(m->slots, sizeof *m->table);
  m->resource = strdup(cfg->resource_attributes_json
                           ? cfg->resource_attributes_json
                           : "");
  m->dropped_spans = cfg->dropped_spans;
  m->dropped_ctx = cfg->dropped_ctx;
  m->start_ns = mcp__wall_ns();
  if (m->table == NULL || m->resource == NULL) {
    free(m->table);
    free(m->resource);
    if (m->exporting)
      mcp__otlp_target_clear(&m->target);
    free(m);
    return MCP_ERR_NOMEM;
  }
  pthread_mutex_init(&m->lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&m->wake, &ca);
  pthread_condattr_destroy(&ca);
  if (m->exporting && pthread_create(&m->thread, NULL, metrics_main, m) != 0) {
    pthread_cond_destroy(&m->wake);
    pthread_mutex_destroy(&m->lock);
    free(m->table);
    free(m->resource);
    mcp__otlp_target_clear(&m->target);
    free(m);
    return MCP_ERR_NOMEM;
  }
  *out = m;
  return MCP_OK;
}

void mcp__metrics_stop(mcp__metrics *m) {
  if (m == NULL)
    return;
  if (m->exporting) {
    pthread_mutex_lock(&m->lock);
    m->stopping = true;
    pthread_cond_signal(&m->wake);
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->thread, NULL);
    mcp__otlp_target_clear(&m->target);
  }
  for (size_t i = 0; i < m->slots; i++)
    free(m->table[i].attrs);
  free(m->table);
  free(m->resource);
  pthread_cond_destroy(&m->wake);
  pthread_mutex_destroy(&m->lock);
  free(m);
}
