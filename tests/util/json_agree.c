/* SPDX-License-Identifier: MIT */
/* json_agree.c - the differential check of the JSON tape loader against
 * jansson (testutil.h), shared by tests/unit/json_load_test.c and the
 * libFuzzer target tests/fuzz/fuzz_json_tape.c. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/load.h"

#define FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

bool tu_json_same(const json_t *a, const json_t *b) {
  if (json_typeof(a) != json_typeof(b))
    return false;
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
      return false;
    for (size_t i = 0; i < json_array_size(a); i++)
      if (!tu_json_same(json_array_get(a, i), json_array_get(b, i)))
        return false;
    return true;
  case JSON_OBJECT: {
    if (json_object_size(a) != json_object_size(b))
      return false;
    void *i = json_object_iter((json_t *)a), *j = json_object_iter((json_t *)b);
    for (; i && j; i = json_object_iter_next((json_t *)a, i),
                   j = json_object_iter_next((json_t *)b, j)) {
      size_t n = json_object_iter_key_len(i);
      if (n != json_object_iter_key_len(j) ||
          memcmp(json_object_iter_key(i), json_object_iter_key(j), n) != 0 ||
          !tu_json_same(json_object_iter_value(i), json_object_iter_value(j)))
        return false;
    }
    return i == NULL && j == NULL;
  }
  default:
    return true;
  }
}

bool tu_json_load_agrees(const char *buf, size_t len, const char *label) {
  json_error_t ej, em;
  memset(&ej, 0, sizeof ej);
  memset(&em, 0, sizeof em);
  json_t *want = json_loadb(buf, len, FLAGS, &ej);
  json_t *got = mcp__json_load(buf, len, &em);
  const char *nul = len ? memchr(buf, '\0', len) : NULL;
  size_t rn;
  char *rewritten =
      want == NULL && json_error_code(&ej) == json_error_numeric_overflow
          ? tu_bigints_as_reals(buf, len, &rn)
          : NULL;
  bool ok;
  if (want != NULL && nul != NULL) {
    ok = got == NULL && json_error_code(&em) == json_error_invalid_syntax &&
         em.position == (int)(nul - buf);
  } else if (rewritten != NULL) {
    /* jansson stopped at the big integer; the rewritten text tells the
     * value. Error positions differ by the inserted bytes: only verdicts
     * and values are compared. */
    want = json_loadb(rewritten, rn, FLAGS, &ej);
    if (want != NULL && nul != NULL) /* a raw NUL still refuses it */
      ok = got == NULL;
    else
      ok = want == NULL ? got == NULL : got != NULL && tu_json_same(want, got);
  } else if (want == NULL || got == NULL) {
    ok = want == got && strcmp(ej.text, em.text) == 0 && ej.line == em.line &&
         ej.column == em.column && ej.position == em.position;
  } else {
    ok = tu_json_same(want, got);
  }
  if (!ok)
    fprintf(stderr, "DIFFERENT %s: jansson %s (%s), mcp__json_load %s (%s)\n",
            label ? label : "", want ? "value" : "error", want ? "" : ej.text,
            got ? "value" : "error", got ? "" : em.text);
  json_decref(want);
  json_decref(got);
  free(rewritten);
  return ok;
}
