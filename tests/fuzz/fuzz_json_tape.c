/* SPDX-License-Identifier: MIT */
/* fuzz_json_tape.c - libFuzzer: the JSON tape loader against jansson
 * (differential). Both must agree on every document under the rules of
 * json/load.h: same verdict, same values, and on failure jansson's own
 * error text, line, column and position; a raw NUL is a syntax error at
 * that byte; an integer beyond int64 is the real of the literal. Any
 * difference aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "json/load.h"

#define FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

/* Same values, integers and reals kept apart, key order compared. */
static int same(const json_t *a, const json_t *b) {
  if (json_typeof(a) != json_typeof(b))
    return 0;
  switch (json_typeof(a)) {
  case JSON_INTEGER:
    return json_integer_value(a) == json_integer_value(b);
  case JSON_REAL: {
    double x = json_real_value(a), y = json_real_value(b);
    return memcmp(&x, &y, sizeof x) == 0;
  }
  case JSON_STRING:
    return json_string_length(a) == json_string_length(b) &&
           memcmp(json_string_value(a), json_string_value(b),
                  json_string_length(a)) == 0;
  case JSON_ARRAY:
    if (json_array_size(a) != json_array_size(b))
      return 0;
    for (size_t i = 0; i < json_array_size(a); i++)
      if (!same(json_array_get(a, i), json_array_get(b, i)))
        return 0;
    return 1;
  case JSON_OBJECT: {
    if (json_object_size(a) != json_object_size(b))
      return 0;
    void *i = json_object_iter((json_t *)a), *j = json_object_iter((json_t *)b);
    for (; i && j; i = json_object_iter_next((json_t *)a, i),
                   j = json_object_iter_next((json_t *)b, j)) {
      size_t n = json_object_iter_key_len(i);
      if (n != json_object_iter_key_len(j) ||
          memcmp(json_object_iter_key(i), json_object_iter_key(j), n) != 0 ||
          !same(json_object_iter_value(i), json_object_iter_value(j)))
        return 0;
    }
    return i == NULL && j == NULL;
  }
  default:
    return 1;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  json_error_t ej, em;
  memset(&ej, 0, sizeof ej);
  memset(&em, 0, sizeof em);
  json_t *want = json_loadb(buf, size, FLAGS, &ej);
  json_t *got = mcp__json_load(buf, size, &em);
  const char *nul = size ? memchr(buf, '\0', size) : NULL;
  size_t rn;
  char *rewritten =
      want == NULL && json_error_code(&ej) == json_error_numeric_overflow
          ? tu_bigints_as_reals(buf, size, &rn)
          : NULL;
  int ok;
  if (want != NULL && nul != NULL) {
    ok = got == NULL && json_error_code(&em) == json_error_invalid_syntax &&
         em.position == (int)(nul - buf);
  } else if (rewritten != NULL) {
    /* jansson stopped at the big integer; the rewritten text tells the
     * value. A raw NUL anywhere still refuses the document. */
    want = json_loadb(rewritten, rn, FLAGS, &ej);
    if (want != NULL && nul != NULL)
      ok = got == NULL;
    else
      ok = want == NULL ? got == NULL : got != NULL && same(want, got);
  } else if (want == NULL || got == NULL) {
    ok = want == got && strcmp(ej.text, em.text) == 0 && ej.line == em.line &&
         ej.column == em.column && ej.position == em.position;
  } else {
    ok = same(want, got);
  }
  if (!ok) {
    fprintf(stderr, "DIFFERENT: jansson %s (%s), mcp__json_load %s (%s)\n",
            want ? "value" : "error", want ? "" : ej.text,
            got ? "value" : "error", got ? "" : em.text);
    abort();
  }
  free(rewritten);
  json_decref(want);
  json_decref(got);
  return 0;
}
