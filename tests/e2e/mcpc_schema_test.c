/* SPDX-License-Identifier: MIT */
/* mcpc_schema_test.c - "mcpc schema check" end to end: exit codes 0/1/2 and
 * the "<instance pointer>: <message> (<keyword location>)" line format. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Runs mcpc with args (NULL-terminated); returns the exit code and the
 * stdout lines in lines[] (malloc'd, caller frees). */
static int run(const char *const *args, char **lines, size_t max,
               size_t *count) {
  char *argv[16];
  size_t n = 0;
  argv[n++] = MCP_BIN_DIR "/mcpc";
  for (size_t i = 0; args[i] != NULL && n < 15; i++) {
    char *a = malloc(512);
    if (args[i][0] == '@')
      snprintf(a, 512, "%s/%s", dir, args[i] + 1);
    else
      snprintf(a, 512, "%s", args[i]);
    argv[n++] = a;
  }
  argv[n] = NULL;
  tu_proc p;
  assert_int_equal(tu_proc_spawn(&p, argv), 0);
  *count = 0;
  char *line;
  while ((line = tu_proc_read_line(&p, 5000)) != NULL) {
    if (*count < max)
      lines[(*count)++] = line;
    else
      free(line);
  }
  int status = tu_proc_finish(&p, 5000);
  for (size_t i = 1; i < n; i++)
    free(argv[i]);
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static void free_lines(char **lines, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(lines[i]);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/mcpc_schema_XXXXXX");
  if (mkdtemp(dir) == NULL)
    return -1;
  write_file("schema.json",
             "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
             "\"integer\"},\"b\":{\"items\":{\"minimum\":3}},\"mail\":{"
             "\"format\":\"email\"},\"r\":{\"$ref\":\"http://localhost:1234/"
             "sub/pos.json\"}},\"required\":[\"c\"]}");
  char sub[300];
  snprintf(sub, sizeof sub, "%s/remotes/sub", dir);
  char remotes[300];
  snprintf(remotes, sizeof remotes, "%s/remotes", dir);
  mkdir(remotes, 0700);
  mkdir(sub, 0700);
  write_file("remotes/sub/pos.json", "{\"exclusiveMinimum\":0}");
  write_file("valid.json", "{\"a\":1,\"c\":true,\"mail\":\"x\",\"r\":2}");
  write_file("invalid.json",
             "{\"a\":\"x\",\"b\":[5,1],\"c\":1,\"mail\":\"x\",\"r\":0}");
  write_file("bad-schema.json", "{\"type\":\"strange\"}");
  write_file("broken.json", "{\"type\":");
  write_file("simple.json", "{\"type\":\"string\",\"maxLength\":2}");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void test_mcpc_schema_check_exit_codes(void **state) {
  (void)state;
  char *lines[16];
  size_t n;
  const char *valid[] = {"schema",   "check",        "--remote-dir",
                         "@remotes", "@schema.json", "@valid.json",
                         NULL};
  assert_int_equal(run(valid, lines, 16, &n), 0);
  assert_int_equal(n, 0);

  const char *invalid[] = {"schema",   "check",        "--remote-dir",
                           "@remotes", "@schema.json", "@invalid.json",
                           NULL};
  assert_int_equal(run(invalid, lines, 16, &n), 1);
  assert_int_equal(n, 3);
  assert_string_equal(lines[0], "/a: expected integer, got string "
                                "(/properties/a/type)");
  assert_string_equal(lines[1], "/b/1: 1 must be greater than or equal to 3 "
                                "(/properties/b/items/minimum)");
  assert_string_equal(lines[2], "/r: 0 must be greater than 0 "
                                "(/properties/r/$ref/exclusiveMinimum)");
  free_lines(lines, n);

  const char *fmt[] = {"schema",       "check",    "--format-assertion",
                       "--remote-dir", "@remotes", "@schema.json",
                       "@valid.json",  NULL};
  assert_int_equal(run(fmt, lines, 16, &n), 1);
  assert_int_equal(n, 1);
  assert_string_equal(
      lines[0], "/mail: string is not a valid email (/properties/mail/format)");
  free_lines(lines, n);

  const char *root[] = {"schema", "check", "@simple.json", "@valid.json", NULL};
  assert_int_equal(run(root, lines, 16, &n), 1);
  assert_int_equal(n, 1);
  assert_string_equal(lines[0], ": expected string, got object (/type)");
  free_lines(lines, n);
}

static void test_mcpc_schema_check_errors_exit_2(void **state) {
  (void)state;
  char *lines[4];
  size_t n;
  const char *no_remote[] = {"schema", "check", "@schema.json", "@valid.json",
                             NULL};
  assert_int_equal(run(no_remote, lines, 4, &n), 2); /* unresolvable $ref */
  const char *bad[] = {"schema", "check", "@bad-schema.json", "@valid.json",
                       NULL};
  assert_int_equal(run(bad, lines, 4, &n), 2);
  const char *broken[] = {"schema", "check", "@broken.json", "@valid.json",
                          NULL};
  assert_int_equal(run(broken, lines, 4, &n), 2);
  const char *missing[] = {"schema", "check", "@nope.json", "@valid.json",
                           NULL};
  assert_int_equal(run(missing, lines, 4, &n), 2);
  const char *usage1[] = {"schema", "check", "@simple.json", NULL};
  assert_int_equal(run(usage1, lines, 4, &n), 2);
  const char *usage2[] = {"schema",       "check",       "--bogus",
                          "@simple.json", "@valid.json", NULL};
  assert_int_equal(run(usage2, lines, 4, &n), 2);
  const char *unknown[] = {"tools", "frobnicate", NULL};
  assert_int_equal(run(unknown, lines, 4, &n), 2);
  const char *none[] = {NULL};
  assert_int_equal(run(none, lines, 4, &n), 2);
  assert_int_equal(n, 0); /* usage goes to stderr */
}

/* Writes v as JSON text to f, keeping what makes the suite's cases hard to
 * read: a real that stands for an integer beyond int64 (read with
 * JSON_DECODE_INT_AS_REAL) is written back as an integer literal, strings
 * keep their "\u0000". */
static void write_json(FILE *f, json_t *v) {
  size_t i;
  const char *k;
  json_t *x;
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    bool first = true;
    fputc('{', f);
    json_object_foreach(v, k, x) {
      json_t *key = json_string(k);
      char *kt = json_dumps(key, JSON_ENCODE_ANY);
      fprintf(f, "%s%s:", first ? "" : ",", kt);
      free(kt);
      json_decref(key);
      write_json(f, x);
      first = false;
    }
    fputc('}', f);
    break;
  }
  case JSON_ARRAY:
    fputc('[', f);
    json_array_foreach(v, i, x) {
      if (i)
        fputc(',', f);
      write_json(f, x);
    }
    fputc(']', f);
    break;
  case JSON_REAL: {
    double d = json_real_value(v);
    if (d == floor(d) && fabs(d) >= 9223372036854775808.0 && fabs(d) < 1e300)
      fprintf(f, "%.0f", d);
    else
      fprintf(f, "%.17g", d);
    break;
  }
  default: {
    char *t = json_dumps(v, JSON_ENCODE_ANY);
    fputs(t, f);
    free(t);
  }
  }
}

static void write_value(const char *name, json_t *v) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  write_json(f, v);
  fclose(f);
}

/* Runs every case of one official suite file through "mcpc schema check";
 * returns the number of cases run, counting mismatches in *bad. */
static size_t run_suite_file(const char *rel, size_t *bad) {
  char path[4096];
  snprintf(path, sizeof path, "%s/testdata/JSON-Schema-Test-Suite/tests/%s",
           tu_shared_dir(), rel);
  json_error_t e;
  json_t *groups = json_load_file(path, JSON_ALLOW_NUL, &e);
  if (groups == NULL) /* bignums: every integer as a double */
    groups = json_load_file(path, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &e);
  assert_non_null(groups);
  size_t gi, ti, cases = 0;
  json_t *g, *t;
  json_array_foreach(groups, gi, g) {
    write_value("suite-schema.json", json_object_get(g, "schema"));
    json_array_foreach(json_object_get(g, "tests"), ti, t) {
      write_value("suite-data.json", json_object_get(t, "data"));
      char *lines[64];
      size_t n;
      const char *args[] = {"schema", "check", "@suite-schema.json",
                            "@suite-data.json", NULL};
      int rc = run(args, lines, 64, &n);
      free_lines(lines, n);
      int want = json_is_true(json_object_get(t, "valid")) ? 0 : 1;
      if (rc != want) {
        printf("%s: %s / %s: exit %d, want %d\n", rel,
               json_string_value(json_object_get(g, "description")),
               json_string_value(json_object_get(t, "description")), rc, want);
        (*bad)++;
      }
      cases++;
    }
  }
  json_decref(groups);
  return cases;
}

/* Issue #16 item 14: mcpc read files with jansson's defaults, so schemas
 * and data with "\u0000" or integers beyond 64 bits could not be checked.
 * The suite's cases with those, through the CLI. */
static void test_mcpc_schema_check_reads_like_the_library(void **state) {
  (void)state;
  if (tu_shared_dir() == NULL)
    skip();
  size_t bad = 0, cases = 0;
  cases += run_suite_file("draft2020-12/optional/bignum.json", &bad);
  cases += run_suite_file("draft2020-12/const.json", &bad);
  cases += run_suite_file("draft2020-12/enum.json", &bad);
  printf("suite through mcpc: %zu cases, %zu mismatches\n", cases, bad);
  assert_true(cases > 50);
  assert_int_equal(bad, 0);
  /* and directly: a NUL in a string, a 20-digit integer */
  write_file("nul-schema.json", "{\"const\":\"a\\u0000b\"}");
  write_file("nul-data.json", "\"a\\u0000b\"");
  write_file("nul-other.json", "\"a\"");
  write_file("big-schema.json",
             "{\"type\":\"integer\",\"minimum\":18446744073709551615}");
  write_file("big-data.json", "18446744073709551616");
  write_file("small-data.json", "1");
  char *lines[8];
  size_t n;
  const char *nul_ok[] = {"schema", "check", "@nul-schema.json",
                          "@nul-data.json", NULL};
  assert_int_equal(run(nul_ok, lines, 8, &n), 0);
  const char *nul_bad[] = {"schema", "check", "@nul-schema.json",
                           "@nul-other.json", NULL};
  assert_int_equal(run(nul_bad, lines, 8, &n), 1);
  free_lines(lines, n);
  const char *big_ok[] = {"schema", "check", "@big-schema.json",
                          "@big-data.json", NULL};
  assert_int_equal(run(big_ok, lines, 8, &n), 0);
  const char *big_bad[] = {"schema", "check", "@big-schema.json",
                           "@small-data.json", NULL};
  assert_int_equal(run(big_bad, lines, 8, &n), 1);
  free_lines(lines, n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mcpc_schema_check_exit_codes),
      cmocka_unit_test(test_mcpc_schema_check_errors_exit_2),
      cmocka_unit_test(test_mcpc_schema_check_reads_like_the_library),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
