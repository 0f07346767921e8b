/* SPDX-License-Identifier: MIT */
/* form.c - application/x-www-form-urlencoded fields (form.h). */
#include "util/form.h"

#include <string.h>

static bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
         c == '~';
}

bool mcp__form_append(mcp__buf *b, const char *name, const char *value) {
  static const char hex[] = "0123456789ABCDEF";
  if (value == NULL)
    return true;
  size_t n = strlen(value);
  /* the worst case at once: every byte escaped */
  if (!mcp__buf_reserve(b, 1 + strlen(name) + 1 + 3 * n))
    return false;
  if (b->len)
    mcp__buf_append_char(b, '&');
  mcp__buf_append_str(b, name);
  mcp__buf_append_char(b, '=');
  char *o = b->data + b->len;
  for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
    if (unreserved(*p)) {
      *o++ = (char)*p;
    } else {
      *o++ = '%';
      *o++ = hex[*p >> 4];
      *o++ = hex[*p & 15];
    }
  }
  *o = '\0';
  b->len = (size_t)(o - b->data);
  return true;
}
