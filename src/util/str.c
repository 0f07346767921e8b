/* SPDX-License-Identifier: MIT */
/* str.c - string helpers (see str.h). */
#include "util/str.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mcp_status mcp__str_replace(char **slot, const char *value) {
  char *copy = NULL;
  if (value != NULL && (copy = strdup(value)) == NULL)
    return MCP_ERR_NOMEM;
  free(*slot);
  *slot = copy;
  return MCP_OK;
}

size_t mcp__str_copy(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  size_t take = n < cap ? n : cap - 1;
  memcpy(dst, src, take);
  dst[take] = '\0';
  return n;
}

mcp_status mcp__str_add_line(char **list, const char *fmt, ...) {
  char *line = NULL, *all = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&line, fmt, ap);
  va_end(ap);
  if (n < 0)
    return MCP_ERR_NOMEM;
  if (*list == NULL) {
    *list = line;
    return MCP_OK;
  }
  n = asprintf(&all, "%s\n%s", *list, line);
  free(line);
  if (n < 0)
    return MCP_ERR_NOMEM;
  free(*list);
  *list = all;
  return MCP_OK;
}

void mcp__str_drop_lines(char **list, const char *name) {
  if (*list == NULL)
    return;
  size_t nl = strlen(name), k = 0;
  char *w = *list;
  for (const char *r = *list; *r;) {
    const char *end = strchr(r, '\n');
    size_t len = end ? (size_t)(end - r) : strlen(r);
    bool drop = len > nl && strncmp(r, name, nl) == 0 &&
                (r[nl] == ':' || r[nl] == '(');
    if (!drop) {
      if (k > 0)
        w[k++] = '\n';
      memmove(w + k, r, len);
      k += len;
    }
    r += len + (end ? 1 : 0);
  }
  w[k] = '\0';
  if (k == 0) {
    free(*list);
    *list = NULL;
  }
}

void mcp__str_one_line(const char *lines, char *buf, size_t cap) {
  size_t k = 0;
  for (const char *c = lines; *c && k + 3 < cap; c++)
    if (*c == '\n')
      buf[k++] = ';', buf[k++] = ' ';
    else
      buf[k++] = *c;
  buf[k] = '\0';
}
