/* SPDX-License-Identifier: MIT */
/* fuzz_json_tape.c - libFuzzer: the JSON tape loader against jansson
 * (differential). Both must agree on every document under the rules of
 * json/load.h: same verdict, same values, and on failure jansson's own
 * error text, line, column and position; a raw NUL is a syntax error at
 * that byte; an integer beyond int64 is the real of the literal (the check
 * is tu_json_load_agrees, shared with json_load_test). Any difference
 * aborts. */
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!tu_json_load_agrees((const char *)data, size, "input"))
    abort();
  return 0;
}
