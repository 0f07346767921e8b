/* SPDX-License-Identifier: MIT */
/* fuzz_schema.c - libFuzzer: JSON Schema compile + validate. An input is a
 * file of the official JSON-Schema-Test-Suite format (an array of
 * {"schema": ..., "tests": [{"data": ...}, ...]}), so the suite's own files
 * are the seed corpus (tests/fuzz/run passes its directory, read in place).
 * Each schema is compiled; each data is validated by all three paths (fast,
 * detailed, over text), which must agree. Anything else: the whole input
 * is compiled as a schema and validated against itself. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/schema.h"
#include "json/load.h"

static void check(const mcp_schema_t *s, const json_t *data) {
  bool fast = mcp_schema_is_valid(s, data);
  mcp_validation_t *v = NULL;
  mcp_status st = mcp_schema_validate(s, data, &v);
  mcp_validation_free(v);
  char *text = json_dumps(data, JSON_ENCODE_ANY | JSON_COMPACT);
  mcp_status tst =
      text ? mcp_schema_validate_text(s, text, strlen(text)) : MCP_ERR_NOMEM;
  free(text);
  if ((st == MCP_OK) != fast ||
      (tst != MCP_ERR_NOMEM && (tst == MCP_OK) != fast)) {
    fprintf(stderr,
            "validation paths disagree: fast %d, detailed %d, text %d\n", fast,
            st, tst);
    abort();
  }
}

static void one(json_t *schema, const json_t *tests) {
  mcp_schema_t *s = NULL;
  if (mcp_schema_compile(schema, NULL, &s, NULL) != MCP_OK)
    return;
  size_t i;
  json_t *t;
  if (json_is_array(tests))
    json_array_foreach(tests, i, t) {
      json_t *data = json_object_get(t, "data");
      if (data)
        check(s, data);
    }
  else
    check(s, schema);
  mcp_schema_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_t *doc = mcp__json_load((const char *)data, size, NULL);
  if (doc == NULL)
    return 0;
  size_t i;
  json_t *group;
  if (json_is_array(doc) && json_array_size(doc) > 0 &&
      json_object_get(json_array_get(doc, 0), "schema"))
    json_array_foreach(doc, i, group)
        one(json_object_get(group, "schema"), json_object_get(group, "tests"));
  else
    one(doc, NULL);
  json_decref(doc);
  return 0;
}
