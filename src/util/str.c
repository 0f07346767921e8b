/* SPDX-License-Identifier: MIT */
/* str.c - string helpers (see str.h). */
#include "util/str.h"

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
