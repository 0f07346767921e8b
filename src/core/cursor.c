/* SPDX-License-Identifier: MIT */
/* cursor.c - see cursor.h. */
#include "core/cursor.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"

json_t *mcp__cursor_encode(const char *list, uint64_t seq) {
  char plain[96];
  snprintf(plain, sizeof plain, "%s:%" PRIu64, list, seq);
  char *b64 = mcp__base64_encode(plain, strlen(plain));
  if (b64 == NULL)
    return NULL;
  json_t *s = json_string(b64);
  free(b64);
  return s;
}

bool mcp__cursor_decode(const char *list, const json_t *cursor, uint64_t *seq) {
  *seq = 0;
  if (cursor == NULL || json_is_null(cursor))
    return true;
  if (!json_is_string(cursor))
    return false;
  size_t len = json_string_length(cursor);
  if (len == 0 || len > 128)
    return false;
  size_t n;
  unsigned char *plain = mcp__base64_decode(json_string_value(cursor), len, &n);
  if (plain == NULL)
    return false;
  size_t ll = strlen(list);
  bool ok = n > ll + 1 && memcmp(plain, list, ll) == 0 && plain[ll] == ':';
  if (ok) {
    const char *digits = (const char *)plain + ll + 1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, 10);
    ok = *digits >= '0' && *digits <= '9' && *end == '\0' && errno == 0 &&
         v > 0 && (size_t)(end - (const char *)plain) == n;
    *seq = v;
  }
  free(plain);
  return ok;
}
