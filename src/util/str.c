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
