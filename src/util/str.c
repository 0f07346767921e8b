/* SPDX-License-Identifier: MIT */
/* str.c - string helpers (see str.h). */
#include "util/str.h"

#include <stdarg.h>
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
