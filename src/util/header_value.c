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

static const char open_marker[] = "=?base64?", close_marker[] = "?=";
#define OPEN_LEN  (sizeof open_marker - 1)
#define CLOSE_LEN (sizeof close_marker - 1)

/* The value of raw without optional whitespace: *s and *n; false when it
 * holds controls or obs-text (not a field value). */
static bool field_value(const char *raw, const char **s, size_t *n) {
  while (is_ows(*raw))
    raw++;
  size_t len = strlen(raw);
  while (len > 0 && is_ows(raw[len - 1]))
    len--;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)raw[i];
    if ((c < 0x21 || c > 0x7e) && !is_ows((char)c))
      return false;
  }
  *s = raw;
  *n = len;
  return true;
}

/* Whether the field value s (n bytes) is "=?base64?...?=". */
static bool is_encoded(const char *s, size_t n) {
  return n >= OPEN_LEN + CLOSE_LEN && memcmp(s, open_marker, OPEN_LEN) == 0 &&
         memcmp(s + n - CLOSE_LEN, close_marker, CLOSE_LEN) == 0;
}

mcp_status mcp__header_value_decode(const char *raw, char **out) {
  *out = NULL;
  const char *s;
  size_t n;
  if (!field_value(raw, &s, &n))
    return MCP_ERR_INVALID;
  if (is_encoded(s, n)) {
    size_t len;
    unsigned char *bytes =
        mcp__base64_decode(s + OPEN_LEN, n - OPEN_LEN - CLOSE_LEN, &len);
    if (bytes == NULL || !is_utf8(bytes, len)) {
      free(bytes);
      return MCP_ERR_INVALID;
    }
    *out = (char *)bytes; /* NUL-terminated by the decoder */
    return MCP_OK;
  }
  *out = strndup(s, n);
  return *out ? MCP_OK : MCP_ERR_NOMEM;
}

bool mcp__header_value_equalsn(const char *raw, const char *body, size_t n) {
  /* The usual case in one pass: the body byte for byte, all visible ASCII
   * (so no whitespace to trim) and not starting like an encoded value. */
  if (raw[0] != '=' && n > 0) {
    size_t i = 0;
    while (i < n && raw[i] == body[i] &&
           (unsigned char)(raw[i] - 0x21) <= 0x7e - 0x21)
      i++;
    if (i == n && raw[n] == '\0')
      return true;
  }
  const char *s;
  size_t len;
  if (!field_value(raw, &s, &len))
    return false;
  if (!is_encoded(s, len)) /* plain: compared in place, no copy */
    return len == n && memcmp(s, body, n) == 0;
  char *value;
  if (mcp__header_value_decode(raw, &value) != MCP_OK)
    return false;
  bool same = strlen(value) == n && memcmp(value, body, n) == 0;
  free(value);
  return same;
}

bool mcp__header_value_equals(const char *raw, const char *body) {
  return mcp__header_value_equalsn(raw, body, strlen(body));
}

char *mcp__header_value_encode(const char *text, size_t n) {
  bool plain = true; /* visible ASCII and spaces only (so no NUL) */
  for (size_t i = 0; plain && i < n; i++)
    plain = (unsigned char)text[i] >= 0x20 && (unsigned char)text[i] <= 0x7e;
  if (plain && n > 0 && (is_ows(text[0]) || is_ows(text[n - 1])))
    plain = false;
  if (plain && is_encoded(text, n))
    plain = false;
  if (plain)
    return strndup(text, n);
  char *b64 = mcp__base64_encode(text, n);
  if (b64 == NULL)
    return NULL;
  size_t need = strlen(b64) + sizeof open_marker + sizeof close_marker;
  char *out = malloc(need);
  if (out != NULL)
    snprintf(out, need, "%s%s%s", open_marker, b64, close_marker);
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
