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

unsigned mcp__http_accepts_each(const char *accept, const char *const *types,
                                unsigned n) {
  if (accept == NULL || n == 0)
    return 0;
  size_t len[MCP__HTTP_ACCEPT_MAX], major[MCP__HTTP_ACCEPT_MAX];
  if (n > MCP__HTTP_ACCEPT_MAX)
    n = MCP__HTTP_ACCEPT_MAX;
  for (unsigned t = 0; t < n; t++) {
    len[t] = strlen(types[t]);
    const char *slash = memchr(types[t], '/', len[t]);
    major[t] = slash ? (size_t)(slash - types[t]) : len[t];
  }
  unsigned all = (1u << n) - 1, got = 0;
  const char *p = accept, *s;
  size_t item_len;
  while (got != all && mcp__http_list_next(&p, &s, &item_len)) {
    const char *end = s + item_len;
    const char *semi = memchr(s, ';', item_len);
    const char *range_end = semi ? semi : end;
    while (range_end > s && (range_end[-1] == ' ' || range_end[-1] == '\t'))
      range_end--;
    size_t rn = (size_t)(range_end - s);
    bool any = rn == 3 && strncmp(s, "*/*", 3) == 0;
    unsigned match = 0;
    for (unsigned t = 0; t < n; t++)
      if (any || (rn == len[t] && strncasecmp(s, types[t], rn) == 0) ||
          (rn == major[t] + 2 && strncasecmp(s, types[t], major[t]) == 0 &&
           s[major[t]] == '/' && s[major[t] + 1] == '*'))
        match |= 1u << t;
    if (match && !q_is_zero(range_end, end))
      got |= match;
  }
  return got;
}

bool mcp__http_accepts(const char *accept, const char *type) {
  return mcp__http_accepts_each(accept, &type, 1) != 0;
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

bool mcp__http_list_next(const char **p, const char **item, size_t *len) {
  const char *at = *p;
  while (*at == ' ' || *at == '\t' || *at == ',')
    at++;
  if (*at == '\0') {
    *p = at;
    return false;
  }
  const char *s = at;
  while (*at && *at != ',')
    at++;
  const char *e = at;
  while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
    e--;
  *item = s;
  *len = (size_t)(e - s);
  *p = at;
  return true;
}

bool mcp__http_coding_is_identity(const char *content_encoding) {
  const char *p = content_encoding, *item;
  size_t n;
  while (mcp__http_list_next(&p, &item, &n))
    if (n != 8 || strncasecmp(item, "identity", 8) != 0)
      return false;
  return true;
}
