/* SPDX-License-Identifier: MIT */
/* http_guard.c - stateless request checks of the HTTP transport. */
#include "transport/http_guard.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

/* q=0 on a media range means "not acceptable" (RFC 9110 12.5.1). */
static bool q_is_zero(const char *params, const char *end) {
  for (const char *p = params; p < end; p++) {
    if (*p != ';')
      continue;
    const char *q = skip_ws(p + 1, end);
    if (end - q >= 2 && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=') {
      double v = strtod(q + 2, NULL);
      return v <= 0.0;
    }
  }
  return false;
}

bool mcp__http_accepts(const char *accept, const char *type) {
  if (accept == NULL)
    return false;
  const char *slash = strchr(type, '/');
  size_t major_len = slash ? (size_t)(slash - type) : strlen(type);
  const char *p = accept;
  while (*p) {
    const char *end = strchr(p, ',');
    if (end == NULL)
      end = p + strlen(p);
    const char *s = skip_ws(p, end);
    const char *semi = end > s ? memchr(s, ';', (size_t)(end - s)) : NULL;
    const char *range_end = semi ? semi : end;
    while (range_end > s && (range_end[-1] == ' ' || range_end[-1] == '\t'))
      range_end--;
    size_t n = (size_t)(range_end - s);
    bool match = (n == strlen(type) && strncasecmp(s, type, n) == 0) ||
                 (n == 3 && strncmp(s, "*/*", 3) == 0) ||
                 (n == major_len + 2 && strncasecmp(s, type, major_len) == 0 &&
                  s[major_len] == '/' && s[major_len + 1] == '*');
    if (match && !q_is_zero(range_end, end))
      return true;
    p = *end ? end + 1 : end;
  }
  return false;
}

bool mcp__http_list_has(char *const *list, size_t count, const char *value) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(list[i], "*") == 0 || (value && strcasecmp(list[i], value) == 0))
      return true;
  return false;
}

/* The value between optional whitespace; *n gets its length. */
static const char *trim(const char *s, size_t *n) {
  const char *end = s + strlen(s);
  s = skip_ws(s, end);
  while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  *n = (size_t)(end - s);
  return s;
}

bool mcp__http_media_type_is(const char *content_type, const char *type) {
  if (content_type == NULL)
    return false;
  size_t n, tl = strlen(type);
  const char *s = trim(content_type, &n);
  if (n < tl || strncasecmp(s, type, tl) != 0)
    return false;
  /* RFC 9110 8.3.1: media-type = type "/" subtype *( OWS ";" OWS parameter ),
   * so only whitespace or a ';' may follow the subtype. */
  const char *rest = skip_ws(s + tl, s + n);
  return rest == s + n || *rest == ';';
}

bool mcp__http_coding_is_identity(const char *content_encoding) {
  const char *p = content_encoding;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == ',')
      p++;
    if (*p == '\0')
      return true;
    const char *s = p;
    while (*p && *p != ',')
      p++;
    const char *e = p;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
      e--;
    if (e - s != 8 || strncasecmp(s, "identity", 8) != 0)
      return false;
  }
}
