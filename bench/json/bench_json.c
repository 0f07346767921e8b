/* SPDX-License-Identifier: MIT */
/* bench_json.c - nanoseconds per parse of typical MCP messages into jansson
 * values: json_loadb (JSON_DECODE_ANY | JSON_ALLOW_NUL, what the JSON-RPC
 * layer used) against mcp__json_load (src/json/load.c, what it uses now),
 * medians of RUNS runs. Run by bench/json/run; never by ctest.
 * Usage: bench_json [runs] [seconds-per-run] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/load.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* ns per parse (+ free) of text, one run of about `seconds`. */
static double run_once(const char *text, size_t len, int use_tape,
                       double seconds) {
  long iters = 0;
  double t0 = now_s(), t;
  do {
    for (int i = 0; i < 1000; i++) {
      json_t *v = use_tape ? mcp__json_load(text, len, NULL)
                           : json_loadb(text, len,
                                        JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
      if (v == NULL) {
        fprintf(stderr, "bench_json: parse failed\n");
        exit(1);
      }
      json_decref(v);
    }
    iters += 1000;
    t = now_s();
  } while (t - t0 < seconds);
  return (t - t0) * 1e9 / (double)iters;
}

/* A tools/list result with n tools, as a server's client would read it. */
static char *tools_list(int n) {
  size_t cap = 256 + (size_t)n * 512, len = 0;
  char *b = malloc(cap);
  len +=
      (size_t)snprintf(b + len, cap - len,
                       "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[");
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(
        b + len, cap - len,
        "%s{\"name\":\"tool_%d\",\"description\":\"Looks up record %d in the "
        "back end and returns it as Markdown.\",\"inputSchema\":{\"type\":"
        "\"object\",\"properties\":{\"id\":{\"type\":\"string\",\"pattern\":"
        "\"^[A-Z]{2}[0-9]{4}$\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,"
        "\"maximum\":100}},\"required\":[\"id\"]},\"annotations\":{"
        "\"readOnlyHint\":true,\"openWorldHint\":false}}",
        i ? "," : "", i, i);
  snprintf(b + len, cap - len, "]}}");
  return b;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 5;
  double seconds = argc > 2 ? atof(argv[2]) : 0.3;
  if (runs < 1 || runs > 99)
    runs = 5;
  char *list = tools_list(50);
  const struct {
    const char *name;
    const char *text;
  } cases[] = {
      {"tools/call add",
       "{\"jsonrpc\":\"2.0\",\"id\":12345,\"method\":\"tools/call\",\"params\":"
       "{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2},\"_meta\":{"
       "\"progressToken\":\"p1\"}}}"},
      {"tools/call flight",
       "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
       "\"name\":\"get_flight_details\",\"arguments\":{\"airline_code\":\"LH\","
       "\"flight_number\":400}}}"},
      {"initialize",
       "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
       "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"roots\":{"
       "\"listChanged\":true},\"sampling\":{},\"elicitation\":{\"form\":{},"
       "\"url\":{}}},\"clientInfo\":{\"name\":\"example-client\",\"title\":"
       "\"Example Client\",\"version\":\"1.0.0\"}}}"},
      {"tools/list, 50 tools", list},
  };
  printf("%-22s %8s %12s %12s %7s\n", "message", "bytes", "json_loadb",
         "mcp__json_load", "ratio");
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t len = strlen(cases[c].text);
    double r[2][99];
    run_once(cases[c].text, len, 0, seconds / 5); /* warm-up */
    for (int k = 0; k < runs; k++)
      for (int t = 0; t < 2; t++)
        r[t][k] = run_once(cases[c].text, len, t, seconds);
    qsort(r[0], (size_t)runs, sizeof r[0][0], cmp_double);
    qsort(r[1], (size_t)runs, sizeof r[1][0], cmp_double);
    double a = r[0][runs / 2], b = r[1][runs / 2];
    printf("%-22s %8zu %9.0f ns %11.0f ns %6.2fx\n", cases[c].name, len, a, b,
           a / b);
  }
  free(list);
  return 0;
}
