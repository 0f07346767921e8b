/* SPDX-License-Identifier: MIT */
/* methods.c - the method rows registered by feature modules. */
#include <string.h>

#include "core/core.h"

mcp_status mcp__server_add_methods(mcp_server_t *s, const mcp__method *rows,
                                   size_t n) {
  if (s->method_tables_count == MCP__METHOD_TABLES)
    return MCP_ERR_LIMIT;
  s->method_tables[s->method_tables_count++] =
      (mcp__method_table){.rows = rows, .count = n};
  return MCP_OK;
}

mcp_status mcp__server_add_extension(mcp_server_t *s, mcp__extension_fn fn) {
  for (size_t i = 0; i < s->extensions_count; i++)
    if (s->extensions[i] == fn)
      return MCP_OK;
  if (s->extensions_count == MCP__EXTENSIONS)
    return MCP_ERR_LIMIT;
  s->extensions[s->extensions_count++] = fn;
  return MCP_OK;
}

void mcp__server_extensions(const mcp_server_t *s, json_t *caps) {
  if (!json_is_object(caps))
    return;
  for (size_t i = 0; i < s->extensions_count; i++)
    s->extensions[i](s, caps);
}

mcp__method_fn mcp__server_find_method(const mcp_server_t *s, const char *name,
                                       bool modern) {
  unsigned era = modern ? MCP__ERA_MODERN : MCP__ERA_LEGACY;
  if (name[0] == '\0')
    return NULL;
  /* Most names differ in their first two bytes ("tools/", "tasks/",
   * "resources/", ...): compare those inline before a strcmp. */
  for (size_t t = s->method_tables_count; t-- > 0;) {
    const mcp__method_table *tab = &s->method_tables[t];
    for (size_t i = 0; i < tab->count; i++) {
      const char *row = tab->rows[i].name;
      if (row[0] == name[0] && row[1] == name[1] && (tab->rows[i].eras & era) &&
          strcmp(row + 1, name + 1) == 0)
        return tab->rows[i].fn;
    }
  }
  return NULL;
}
