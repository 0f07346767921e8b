/* SPDX-License-Identifier: MIT */
/* prometheus.c - see prometheus.h. The series keep their attributes as
 * the OTLP JSON they are exported in (KeyValue objects with string values,
 * written by core/request_metrics.c and telemetry/resource.c); they are
 * read back here, one string at a time, into labels. */
#include "telemetry/prometheus.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hex.h"

/* Output with one failure flag, so that a long run of appends is checked
 * once. */
typedef struct writer {
  mcp__buf *b;
  bool ok;
} writer;

static void put(writer *w, const char *s, size_t n) {
  w->ok = mcp__buf_append(w->b, s, n) && w->ok;
}

static void puts_(writer *w, const char *s) {
  put(w, s, strlen(s));
}

bool mcp__prometheus_name(mcp__buf *out, const char *name, size_t len,
                          bool metric) {
  bool ok = true;
  if (len > 0 && name[0] >= '0' && name[0] <= '9')
    ok = mcp__buf_append_char(out, '_');
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '_' || (metric && c == ':');
    ok = mcp__buf_append_char(out, keep ? c : '_') && ok;
  }
  return ok;
}

/* A number as Prometheus reads it (Go's ParseFloat): the shortest of %.15g
 * and %.17g that reads back as v. */
static void put_double(writer *w, double v) {
  char num[40];
  snprintf(num, sizeof num, "%.15g", v);
  if (strtod(num, NULL) != v)
    snprintf(num, sizeof num, "%.17g", v);
  puts_(w, num);
}

static void put_u64(writer *w, uint64_t v) {
  char num[24];
  snprintf(num, sizeof num, "%llu", (unsigned long long)v);
  puts_(w, num);
}

/* HELP text: backslash and line feed escaped. */
static void put_help(writer *w, const char *s) {
  for (; *s; s++) {
    if (*s == '\\')
      puts_(w, "\\\\");
    else if (*s == '\n')
      puts_(w, "\\n");
    else
      put(w, s, 1);
  }
}

/* ---- reading the recorded KeyValue JSON --------------------------------- */

static bool read_hex4(const char *p, const char *end, unsigned *out) {
  if (end - p < 4)
    return false;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int d = mcp__hex_digit((unsigned char)p[i]);
    if (d < 0)
      return false;
    v = v << 4 | (unsigned)d;
  }
  *out = v;
  return true;
}

static void put_utf8(mcp__buf *out, unsigned cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp, n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
    u[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
  } else {
    u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    u[2] = (char)(0x80 | (cp >> 6 & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f));
    n = 4;
  }
  mcp__buf_append(out, u, n);
}

/* Decodes the JSON string at *p (its opening quote) into out and moves *p
 * past it. false when it is not one. */
static bool read_string(const char **p, const char *end, mcp__buf *out) {
  const char *s = *p;
  if (s >= end || *s != '"')
    return false;
  for (s++; s < end && *s != '"'; s++) {
    if (*s != '\\') {
      mcp__buf_append_char(out, *s);
      continue;
    }
    if (++s >= end)
      return false;
    unsigned cp;
    switch (*s) {
    case 'b': mcp__buf_append_char(out, '\b'); break;
    case 'f': mcp__buf_append_char(out, '\f'); break;
    case 'n': mcp__buf_append_char(out, '\n'); break;
    case 'r': mcp__buf_append_char(out, '\r'); break;
    case 't': mcp__buf_append_char(out, '\t'); break;
    case 'u':
      if (!read_hex4(s + 1, end, &cp))
        return false;
      s += 4;
      if (cp >= 0xd800 && cp < 0xdc00) { /* a surrogate pair */
        unsigned lo;
        if (end - s < 7 || s[1] != '\\' || s[2] != 'u' ||
            !read_hex4(s + 3, end, &lo) || lo < 0xdc00 || lo > 0xdfff)
          return false;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        s += 6;
      }
      put_utf8(out, cp);
      break;
    default: /* \" \\ \/ */
      mcp__buf_append_char(out, *s);
    }
  }
  if (s >= end)
    return false;
  *p = s + 1;
  return true;
}

static bool skip_literal(const char **p, const char *end, const char *lit) {
  size_t n = strlen(lit);
  if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
    return false;
  *p += n;
  return true;
}

/* Label value: backslash, double quote and line feed escaped. */
static void put_label_value(writer *w, const char *v, size_t n) {
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    const char *esc = v[i] == '\\'  ? "\\\\"
                      : v[i] == '"' ? "\\\""
                      : v[i] == '\n' ? "\\n"
                                     : NULL;
    if (esc == NULL)
      continue;
    put(w, v + run, i - run);
    puts_(w, esc);
    run = i + 1;
  }
  put(w, v + run, n - run);
}

/* Appends the labels of the KeyValue objects attrs (`a="x",b="y"`, no
 * braces). An attribute whose value is not a string is left out (none is
 * recorded today). false: attrs could not be read, or out of memory. */
static bool put_labels(writer *w, const char *attrs, size_t len) {
  const char *p = attrs, *end = attrs + len;
  bool first = true;
  mcp__buf key, value;
  mcp__buf_init(&key);
  mcp__buf_init(&value);
  bool ok = true;
  while (ok && p < end) {
    mcp__buf_reset(&key);
    mcp__buf_reset(&value);
    if (*p == ',')
      p++;
    ok = skip_literal(&p, end, "{\"key\":") && read_string(&p, end, &key) &&
         skip_literal(&p, end, ",\"value\":{");
    if (!ok)
      break;
    bool text = skip_literal(&p, end, "\"stringValue\":");
    if (text) {
      ok = read_string(&p, end, &value) && skip_literal(&p, end, "}}");
    } else { /* another kind of value: skip to the end of this object */
      int depth = 2;
      bool in_string = false;
      for (; p < end && depth > 0; p++) {
        if (in_string) {
          if (*p == '\\')
            p++;
          else if (*p == '"')
            in_string = false;
        } else if (*p == '"') {
          in_string = true;
        } else if (*p == '{' || *p == '[') {
          depth++;
        } else if (*p == '}' || *p == ']') {
          depth--;
        }
      }
      ok = depth == 0;
    }
    if (!ok || !text)
      continue;
    if (!first)
      puts_(w, ",");
    first = false;
    w->ok = mcp__prometheus_name(w->b, key.data ? key.data : "", key.len,
                                 false) && w->ok;
    puts_(w, "=\"");
    put_label_value(w, value.data ? value.data : "", value.len);
    puts_(w, "\"");
  }
  mcp__buf_free(&key);
  mcp__buf_free(&value);
  return ok;
}

/* ---- the families --------------------------------------------------------- */

/* One series' lines, kept to be sorted by labels (the table's order is
 * its hashes': a scrape in label order reads and diffs better). */
typedef struct rendered {
  char *labels, *text;
  size_t text_len;
} rendered;

typedef struct histogram_ctx {
  writer *w; /* the series being rendered */
  const char *name; /* the Prometheus base name */
  const double *bounds;
  size_t nbounds;
  mcp__buf labels; /* one series' labels, reused */
  rendered *series;
  size_t n, cap;
  bool ok; /* false: out of memory */
} histogram_ctx;

/* name + suffix + {labels[,extra]} */
static void put_sample_name(histogram_ctx *h, const char *suffix,
                            const char *extra_label, double le, bool inf) {
  writer *w = h->w;
  puts_(w, h->name);
  puts_(w, suffix);
  bool any = h->labels.len > 0;
  if (!any && extra_label == NULL) {
    puts_(w, " ");
    return;
  }
  puts_(w, "{");
  if (any)
    put(w, h->labels.data, h->labels.len);
  if (extra_label != NULL) {
    puts_(w, any ? "," : "");
    puts_(w, extra_label);
    puts_(w, "=\"");
    if (inf)
      puts_(w, "+Inf");
    else
      put_double(w, le);
    puts_(w, "\"");
  }
  puts_(w, "} ");
}

static void render_series(histogram_ctx *h, const mcp__metrics_series *s) {
  uint64_t cumulative = 0;
  for (size_t k = 0; k <= h->nbounds; k++) {
    cumulative += s->buckets[k];
    put_sample_name(h, "_bucket", "le", k < h->nbounds ? h->bounds[k] : 0,
                    k == h->nbounds);
    put_u64(h->w, cumulative);
    puts_(h->w, "\n");
  }
  put_sample_name(h, "_sum", NULL, 0, false);
  put_double(h->w, s->sum);
  puts_(h->w, "\n");
  put_sample_name(h, "_count", NULL, 0, false);
  put_u64(h->w, s->count);
  puts_(h->w, "\n");
}

static void put_histogram_series(void *ctx, const mcp__metrics_series *s) {
  histogram_ctx *h = ctx;
  mcp__buf_reset(&h->labels);
  writer lw = {&h->labels, true};
  if (!put_labels(&lw, s->attrs, s->len) || !lw.ok) {
    h->ok = h->ok && lw.ok; /* unreadable attributes: series left out */
    return;
  }
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 16;
    rendered *grown = realloc(h->series, cap * sizeof *grown);
    if (grown == NULL) {
      h->ok = false;
      return;
    }
    h->series = grown;
    h->cap = cap;
  }
  mcp__buf text;
  mcp__buf_init(&text);
  writer tw = {&text, true};
  h->w = &tw;
  render_series(h, s);
  h->w = NULL;
  size_t n;
  char *labels = strndup(h->labels.data ? h->labels.data : "", h->labels.len);
  char *bytes = tw.ok ? mcp__buf_steal(&text, &n) : NULL;
  mcp__buf_free(&text);
  if (labels == NULL || bytes == NULL) {
    free(labels);
    free(bytes);
    h->ok = false;
    return;
  }
  h->series[h->n++] = (rendered){labels, bytes, n};
}

static int by_labels(const void *a, const void *b) {
  return strcmp(((const rendered *)a)->labels, ((const rendered *)b)->labels);
}

/* Appends the series rendered so far in label order and forgets them. */
static void put_sorted(histogram_ctx *h, writer *w) {
  if (h->n > 1)
    qsort(h->series, h->n, sizeof *h->series, by_labels);
  for (size_t i = 0; i < h->n; i++) {
    put(w, h->series[i].text, h->series[i].text_len);
    free(h->series[i].labels);
    free(h->series[i].text);
  }
  h->n = 0;
}

static void put_family_head(writer *w, const char *name, const char *help,
                            const char *type) {
  puts_(w, "# HELP ");
  puts_(w, name);
  puts_(w, " ");
  put_help(w, help);
  puts_(w, "\n# TYPE ");
  puts_(w, name);
  puts_(w, " ");
  puts_(w, type);
  puts_(w, "\n");
}

bool mcp__prometheus_text(mcp__metrics *m, mcp__buf *out) {
  writer w = {out, true};
  histogram_ctx h = {.ok = true};
  h.bounds = mcp__metrics_bounds(&h.nbounds);
  mcp__buf_init(&h.labels);
  mcp__buf name;
  mcp__buf_init(&name);
  uint64_t dropped = 0;
  const char *resource = NULL;
  /* the server's instruments (the client's are a client's, never here) */
  for (int i = 0; i < MCP__METRIC_CLIENT_OPERATION; i++) {
    mcp__buf_reset(&name);
    const char *otel = mcp__metrics_name((mcp__instrument)i);
    if (!mcp__prometheus_name(&name, otel, strlen(otel), true) ||
        !mcp__buf_append_str(&name, "_seconds")) { /* unit "s" */
      w.ok = false;
      break;
    }
    h.name = name.data;
    put_family_head(&w, h.name, mcp__metrics_description((mcp__instrument)i),
                    "histogram");
    dropped = mcp__metrics_each(m, (mcp__instrument)i, put_histogram_series,
                                &h, &resource);
    put_sorted(&h, &w); /* outside the metrics' lock */
  }
  mcp__buf_free(&name);
  mcp__buf_free(&h.labels);
  free(h.series);
  w.ok = w.ok && h.ok;
  /* libmcp.telemetry.dropped, unit {item}: a monotonic sum, so a counter;
   * an annotation unit adds no suffix */
  put_family_head(&w, "libmcp_telemetry_dropped_total",
                  "Spans, series and metric exports libmcp dropped",
                  "counter");
  puts_(&w, "libmcp_telemetry_dropped_total ");
  put_u64(&w, dropped);
  puts_(&w, "\n");
  /* the resource, as the OpenTelemetry mapping has it */
  if (resource != NULL && resource[0] != '\0') {
    mcp__buf labels;
    mcp__buf_init(&labels);
    writer lw = {&labels, true};
    if (put_labels(&lw, resource, strlen(resource)) && lw.ok &&
        labels.len > 0) {
      put_family_head(&w, "target_info", "Target metadata", "gauge");
      puts_(&w, "target_info{");
      put(&w, labels.data, labels.len);
      puts_(&w, "} 1\n");
    }
    w.ok = w.ok && lw.ok;
    mcp__buf_free(&labels);
  }
  return w.ok;
}
