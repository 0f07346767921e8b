/* SPDX-License-Identifier: MIT */
/* bench.c - validations per second of compiled schemas (fast path,
 * mcp_schema_is_valid), for the cases in bench/schema/cases. Run by
 * bench/schema/run next to Ajv; never by ctest.
 * Usage: bench_schema CASES_DIR [runs] [seconds-per-run]
 * Prints "<case>/<valid|invalid> <median ops/s> <run1> <run2> ..." lines,
 * each followed by a "<case>/<kind>:walk" line: a bare recursive walk over
 * the instance through jansson's public API (every member and item visited,
 * every scalar read), the floor for any validator over jansson values.
 * Then the rows from text: "<case>/<kind>:text" mcp_schema_validate_text on
 * the file's bytes as on disk (parse + validate), ":tape" the same
 * validation over a tape parsed once beforehand (validation alone), ":parse"
 * the tape parse alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/schema.h"
#include "schema/validate_tape.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static json_t *load(const char *dir, const char *name, const char *kind) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s.json", dir, name, kind);
  json_error_t e;
  json_t *j = json_load_file(path, 0, &e);
  if (j == NULL)
    fprintf(stderr, "bench: %s: %s\n", path, e.text);
  return j;
}

/* Visits every value the way a validator must: iterator calls per member,
 * the scalar of every leaf. */
static long walk(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    long n = 0;
    json_t *o = (json_t *)v;
    for (void *it = json_object_iter(o); it != NULL;
         it = json_object_iter_next(o, it))
      n += (long)json_object_iter_key_len(it) +
           (json_object_iter_key(it) != NULL) +
           walk(json_object_iter_value(it));
    return n;
  }
  case JSON_ARRAY: {
    long n = 0;
    for (size_t i = 0; i < json_array_size(v); i++)
      n += walk(json_array_get(v, i));
    return n;
  }
  case JSON_STRING:
    return (long)json_string_length(v) + (json_string_value(v)[0] != 0);
  case JSON_INTEGER:
    return (long)json_integer_value(v);
  case JSON_REAL:
    return json_real_value(v) > 0;
  default:
    return 1;
  }
}

static volatile long walk_sink;

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      char *nb = realloc(buf, cap = cap ? cap * 2 : 4096);
      if (nb == NULL) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  fclose(f);
  *len = n;
  return buf;
}

/* One timed run of `expr` (which yields true when the result is the one
 * expected) lasting about `seconds`: ops/s. A macro, so each row's loop
 * calls its function directly, as a user would. */
#define TIMED_RUN(seconds, expr)                                               \
  ({                                                                           \
    long iters_ = 0;                                                           \
    int bad_ = 0;                                                              \
    double t0_ = now_s(), t_;                                                  \
    do {                                                                       \
      for (long i_ = 0; i_ < 1000; i_++)                                       \
        bad_ += !(expr);                                                       \
      iters_ += 1000;                                                          \
      t_ = now_s();                                                            \
    } while (t_ - t0_ < (seconds));                                            \
    if (bad_) {                                                                \
      fprintf(stderr, "bench: unexpected result\n");                           \
      exit(1);                                                                 \
    }                                                                          \
    (double)iters_ / (t_ - t0_);                                               \
  })

typedef struct row {
  const mcp_schema_t *s;
  const json_t *inst;
  const char *text; /* the instance file's bytes */
  size_t len;
  const mcp__tnode *tape; /* the same, parsed once */
  bool expect;
} row;

enum { ROW_JSON, ROW_WALK, ROW_TEXT, ROW_TAPE, ROW_PARSE };

static double run_once(const row *r, int kind, double seconds) {
  mcp_status want = r->expect ? MCP_OK : MCP_ERR_INVALID;
  switch (kind) {
  case ROW_JSON:
    return TIMED_RUN(seconds, mcp_schema_is_valid(r->s, r->inst) == r->expect);
  case ROW_WALK: {
    long acc = 0;
    double rate = TIMED_RUN(seconds, (acc += walk(r->inst), true));
    walk_sink = acc;
    return rate;
  }
  case ROW_TEXT:
    return TIMED_RUN(seconds,
                     mcp_schema_validate_text(r->s, r->text, r->len) == want);
  case ROW_TAPE:
    return TIMED_RUN(seconds, mcp__validate_tape(r->s, r->tape) == want);
  default: {
    mcp__tape t;
    bool ok;
    return TIMED_RUN(seconds,
                     (ok = mcp__tape_parse(&t, r->text, r->len) == MCP_OK,
                      mcp__tape_release(&t), ok));
  }
  }
}

static void print_row(const row *r, int kind, const char *label, int runs,
                      double seconds) {
  double v[99], sorted[99];
  run_once(r, kind, seconds / 5); /* warm up */
  for (int i = 0; i < runs; i++)
    v[i] = run_once(r, kind, seconds);
  memcpy(sorted, v, sizeof(double) * (size_t)runs);
  qsort(sorted, (size_t)runs, sizeof(double), cmp_double);
  printf("%s %.0f", label, sorted[runs / 2]);
  for (int i = 0; i < runs; i++)
    printf(" %.0f", v[i]);
  printf("\n");
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_schema CASES_DIR [runs] [seconds]\n");
    return 2;
  }
  const char *dir = argv[1];
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  double seconds = argc > 3 ? atof(argv[3]) : 0.5;
  if (runs < 1 || runs > 99)
    runs = 5;
  static const char *const cases[] = {"flight", "medium", "uneval"};
  static const char *const kinds[] = {"valid", "invalid"};
  mcp_schema_options_t *o;
  if (mcp_schema_options_new(&o) != MCP_OK)
    return 1;
  mcp_schema_options_set_format_assertion(o, true);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    json_t *schema = load(dir, cases[c], "schema");
    mcp_schema_t *s = NULL;
    mcp_error_t err;
    if (schema == NULL || mcp_schema_compile(schema, o, &s, &err) != MCP_OK) {
      fprintf(stderr, "bench: cannot compile %s: %s\n", cases[c],
              schema ? err.message : "unreadable");
      return 1;
    }
    for (size_t k = 0; k < 2; k++) {
      json_t *inst = load(dir, cases[c], kinds[k]);
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.%s.json", dir, cases[c], kinds[k]);
      size_t len;
      char *text = read_file(path, &len);
      mcp__tape tape;
      if (inst == NULL || text == NULL ||
          mcp__tape_parse(&tape, text, len) != MCP_OK)
        return 1;
      row r = {s, inst, text, len, tape.nodes, k == 0};
      static const char *const suffix[] = {"", ":walk", ":text", ":tape",
                                           ":parse"};
      for (int kind = ROW_JSON; kind <= ROW_PARSE; kind++) {
        char label[256];
        snprintf(label, sizeof label, "%s/%s%s", cases[c], kinds[k],
                 suffix[kind]);
        print_row(&r, kind, label, runs, seconds);
      }
      mcp__tape_release(&tape);
      free(text);
      json_decref(inst);
    }
    mcp_schema_free(s);
    json_decref(schema);
  }
  mcp_schema_options_free(o);
  return 0;
}
