/* SPDX-License-Identifier: MIT */
/* header_value.c - an HTTP header value as MCP compares it with the body
 * (SEP-2243): optional whitespace trimmed, "=?base64?...?=" decoded; the
 * encoding a client sends; which body value Mcp-Name repeats. */
#include "util/header_value.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"

static bool is_ows(char c) {
  return c == ' ' || c == '\t';
}

static bool is_utf8(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    size_t len = c < 0x80         ? 1
                 : (c >> 5) == 6  ? 2
                 : (c >> 4) == 14 ? 3
                 : (c >> 3) == 30 ? 4
                                  : 0;
    if (len == 0 || (len == 1 && c == 0) || i + len > n)
      return false;
    uint32_t cp = len == 1 ? c : c & (0x7f >> len);
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xc0) != 0x80)
        return false;
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    static const uint32_t min_for[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += len;
  }
  return true;
}

mcp_status mcp__header_value_decode(const char *raw, char **out) {
  *out = NULL;
  while (is_ows(*raw))
    raw++;
  size_t n = strlen(raw);
  while (n > 0 && is_ows(raw[n - 1]))
    n--;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)raw[i];
    if ((c < 0x21 || c > 0x7e) && !is_ows((char)c))
      return MCP_ERR_INVALID; /* controls and obs-text: not a field value */
  }
  static const char open[] = "=?base64?", close[] = "?=";
  const size_t lo = sizeof open - 1, lc = sizeof close - 1;
  if (n >= lo + lc && memcmp(raw, open, lo) == 0 &&
      memcmp(raw + n - lc, close, lc) == 0) {
    size_t len;
    unsigned char *bytes = mcp__base64_decode(raw + lo, n - lo - lc, &len);
    if (bytes == NULL || !is_utf8(bytes, len)) {
      free(bytes);
      return MCP_ERR_INVALID;
    }
    *out = (char *)bytes; /* NUL-terminated by the decoder */
    return MCP_OK;
  }
  *out = strndup(raw, n);
  return *out ? MCP_OK : MCP_ERR_NOMEM;
}

bool mcp__header_value_equals(const char *raw, const char *body) {
  const char *s = raw;
  while (is_ows(*s))
    s++;
  size_t n = strlen(s);
  while (n > 0 && is_ows(s[n - 1]))
    n--;
  bool plain = strncmp(s, "=?base64?", 9) != 0;
  for (size_t i = 0; plain && i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x21 || c > 0x7e) && !is_ows((char)c))
      return false; /* as the decoder: controls and obs-text are invalid */
  }
  if (plain)
    return strlen(body) == n && memcmp(s, body, n) == 0;
  char *value; /* the encoded form: decode, then compare */
  if (mcp__header_value_decode(raw, &value) != MCP_OK)
    return false;
  bool same = strcmp(value, body) == 0;
  free(value);
  return same;
}

char *mcp__header_value_encode(const char *text, size_t n) {
  static const char open[] = "=?base64?", close[] = "?=";
  bool plain = memchr(text, '\0', n) == NULL;
  for (size_t i = 0; plain && i < n; i++)
    plain = (unsigned char)text[i] >= 0x20 && (unsigned char)text[i] <= 0x7e;
  if (plain && n > 0 && (is_ows(text[0]) || is_ows(text[n - 1])))
    plain = false;
  if (plain && n >= sizeof open - 1 + sizeof close - 1 &&
      memcmp(text, open, sizeof open - 1) == 0 &&
      memcmp(text + n - (sizeof close - 1), close, sizeof close - 1) == 0)
    plain = false;
  if (plain)
    return strndup(text, n);
  char *b64 = mcp__base64_encode(text, n);
  if (b64 == NULL)
    return NULL;
  size_t need = strlen(b64) + sizeof open + sizeof close;
  char *out = malloc(need);
  if (out != NULL)
    snprintf(out, need, "%s%s%s", open, b64, close);
  free(b64);
  return out;
}

const char *mcp__header_name_field(const char *method) {
  if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
    return "name";
  if (strcmp(method, "resources/read") == 0)
    return "uri";
  /* the tasks extension's methods (tasks/result is not one of them) */
  if (strcmp(method, "tasks/get") == 0 || strcmp(method, "tasks/update") == 0 ||
      strcmp(method, "tasks/cancel") == 0)
    return "taskId";
  return NULL;
}
