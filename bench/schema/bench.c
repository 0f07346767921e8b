/* bench.c - validations per second of compiled schemas (fast path,
 * mcp_schema_is_valid), for the cases in bench/schema/cases. Run by
 * bench/schema/run next to Ajv; never by ctest.
 * Usage: bench_schema CASES_DIR [runs] [seconds-per-run]
 * Prints "<case>/<valid|invalid> <median ops/s> <run1> <run2> ..." lines,
 * each followed by a "<case>/<kind>:walk" line: a bare recursive walk over
 * the instance through jansson's public API (every member and item visited,
 * every scalar read), the floor for any validator over jansson values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/schema.h"

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

static double walk_once(const json_t *inst, double seconds) {
  long iters = 0, batch = 1000, acc = 0;
  double t0 = now_s(), t;
  do {
    for (long i = 0; i < batch; i++)
      acc += walk(inst);
    iters += batch;
    t = now_s();
  } while (t - t0 < seconds);
  walk_sink = acc;
  return (double)iters / (t - t0);
}

/* ops/s of one timed run lasting about `seconds`. */
static double run_once(const mcp_schema_t *s, const json_t *inst,
                       double seconds, bool expect) {
  long iters = 0;
  long batch = 1000;
  double t0 = now_s(), t;
  int bad = 0;
  do {
    for (long i = 0; i < batch; i++)
      bad += mcp_schema_is_valid(s, inst) != expect;
    iters += batch;
    t = now_s();
  } while (t - t0 < seconds);
  if (bad) {
    fprintf(stderr, "bench: unexpected result\n");
    exit(1);
  }
  return (double)iters / (t - t0);
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
      if (inst == NULL)
        return 1;
      double r[99];
      run_once(s, inst, seconds / 5, k == 0); /* warm up */
      for (int i = 0; i < runs; i++)
        r[i] = run_once(s, inst, seconds, k == 0);
      double sorted[99];
      memcpy(sorted, r, sizeof(double) * (size_t)runs);
      qsort(sorted, (size_t)runs, sizeof(double), cmp_double);
      printf("%s/%s %.0f", cases[c], kinds[k], sorted[runs / 2]);
      for (int i = 0; i < runs; i++)
        printf(" %.0f", r[i]);
      printf("\n");
      fflush(stdout);
      walk_once(inst, seconds / 5);
      for (int i = 0; i < runs; i++)
        r[i] = walk_once(inst, seconds);
      memcpy(sorted, r, sizeof(double) * (size_t)runs);
      qsort(sorted, (size_t)runs, sizeof(double), cmp_double);
      printf("%s/%s:walk %.0f", cases[c], kinds[k], sorted[runs / 2]);
      for (int i = 0; i < runs; i++)
        printf(" %.0f", r[i]);
      printf("\n");
      fflush(stdout);
      json_decref(inst);
    }
    mcp_schema_free(s);
    json_decref(schema);
  }
  mcp_schema_options_free(o);
  return 0;
}
