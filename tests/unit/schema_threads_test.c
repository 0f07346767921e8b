/* SPDX-License-Identifier: MIT */
/* schema_threads_test.c - one compiled schema validated from 4 threads at
 * once gives the same answers as from one thread (run under ASan/UBSan);
 * the "id" pattern crosses the lazy-JIT threshold while threads match it. */
#include "testutil.h"

#include <pthread.h>
#include <string.h>

#include "mcp/schema.h"

#define THREADS 4
#define ROUNDS  2000

typedef struct job {
  const mcp_schema_t *schema;
  json_t *valid, *invalid;
  int mismatches;
} job;

static void *worker(void *arg) {
  job *j = arg;
  for (int i = 0; i < ROUNDS; i++) {
    if (!mcp_schema_is_valid(j->schema, j->valid))
      j->mismatches++;
    if (mcp_schema_is_valid(j->schema, j->invalid))
      j->mismatches++;
    if (i % 50 == 0) {
      mcp_validation_t *v = NULL;
      if (mcp_schema_validate(j->schema, j->invalid, &v) != MCP_ERR_INVALID ||
          mcp_validation_count(v) != 3)
        j->mismatches++;
      mcp_validation_free(v);
    }
  }
  return NULL;
}

static void test_schema_is_shareable_between_threads(void **state) {
  (void)state;
  const char *text =
      "{\"$defs\":{\"item\":{\"type\":\"object\",\"properties\":{"
      "\"id\":{\"type\":\"string\",\"pattern\":\"^[a-z]+-[0-9]+$\"},"
      "\"when\":{\"format\":\"date-time\"}},\"required\":[\"id\"]}},"
      "\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\","
      "\"items\":{\"$ref\":\"#/$defs/item\"}}},"
      "\"allOf\":[{\"properties\":{\"n\":{\"type\":\"integer\"}}}],"
      "\"unevaluatedProperties\":false}";
  mcp_schema_options_t *o;
  assert_int_equal(mcp_schema_options_new(&o), MCP_OK);
  mcp_schema_options_set_format_assertion(o, true);
  mcp_schema_t *s = NULL;
  assert_int_equal(mcp_schema_compile_text(text, strlen(text), o, &s, NULL),
                   MCP_OK);
  mcp_schema_options_free(o);
  json_t *valid = json_loads(
      "{\"n\":1,\"items\":[{\"id\":\"ab-1\",\"when\":\"2024-01-01T00:00:00Z\"},"
      "{\"id\":\"cd-22\"}]}",
      0, NULL);
  json_t *invalid = json_loads(
      "{\"n\":1.5,\"items\":[{\"id\":\"AB-1\",\"when\":\"yesterday\"}]}", 0,
      NULL);
  pthread_t t[THREADS];
  job jobs[THREADS];
  for (int i = 0; i < THREADS; i++) {
    jobs[i] = (job){s, valid, invalid, 0};
    assert_int_equal(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(jobs[i].mismatches, 0);
  }
  json_decref(valid);
  json_decref(invalid);
  mcp_schema_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_schema_is_shareable_between_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
