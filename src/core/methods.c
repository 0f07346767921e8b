/* SPDX-License-Identifier: MIT */
/* methods.c - the method rows and capability hooks registered by feature
 * modules. */
#include <string.h>

#include "core/server_internal.h"
#include "util/hash.h"

static size_t slot_of(const char *name) {
  return mcp__hash_bytes(name, strlen(name)) & (MCP__METHOD_SLOTS - 1);
}

mcp_status mcp__server_add_methods(mcp_server_t *s, const mcp__method *rows,
                                   size_t n) {
  if (s->method_tables_count == MCP__METHOD_TABLES)
    return MCP_ERR_LIMIT;
  size_t used = 0; /* rows in the slots: those of the tables so far */
  for (size_t t = 0; t < s->method_tables_count; t++)
    used += s->method_tables[t].count;
  if (used + n > MCP__METHOD_SLOTS / 2) /* probes stay short */
    return MCP_ERR_LIMIT;
  unsigned table = (unsigned)s->method_tables_count++;
  s->method_tables[table] = (mcp__method_table){.rows = rows, .count = n};
  for (size_t i = 0; i < n; i++) {
    size_t k = slot_of(rows[i].name);
    while (s->method_slots[k].row != NULL)
      k = (k + 1) & (MCP__METHOD_SLOTS - 1);
    s->method_slots[k] = (mcp__method_slot){&rows[i], table};
  }
  return MCP_OK;
}

mcp_status mcp__server_add_capability(mcp_server_t *s, mcp__capability_fn fn) {
  for (size_t i = 0; i < s->capability_hooks_count; i++)
    if (s->capability_hooks[i] == fn)
      return MCP_OK;
  if (s->capability_hooks_count == MCP__CAPABILITY_HOOKS)
    return MCP_ERR_LIMIT;
  s->capability_hooks[s->capability_hooks_count++] = fn;
  return MCP_OK;
}

json_t *mcp__server_capabilities(const mcp_server_t *s, unsigned era) {
  json_t *caps = json_object();
  for (size_t i = 0; caps && i < s->capability_hooks_count; i++)
    s->capability_hooks[i](s, caps, era);
  return caps;
}

void mcp__capability_extension(json_t *caps, const char *name, json_t *value) {
  json_t *ext = json_object_get(caps, "extensions");
  if (!json_is_object(ext)) {
    ext = json_object();
    if (ext == NULL || json_object_set_new(caps, "extensions", ext) != 0) {
      json_decref(value);
      return;
    }
  }
  json_object_set_new(ext, name, value);
}

mcp__method_fn mcp__server_find_method(const mcp_server_t *s, const char *name,
                                       bool modern) {
  unsigned era = modern ? MCP__ERA_MODERN : MCP__ERA_LEGACY;
  const mcp__method_slot *best = NULL;
  for (size_t k = slot_of(name); s->method_slots[k].row != NULL;
       k = (k + 1) & (MCP__METHOD_SLOTS - 1)) {
    const mcp__method_slot *slot = &s->method_slots[k];
    if ((slot->row->eras & era) && strcmp(slot->row->name, name) == 0 &&
        (best == NULL || slot->table > best->table))
      best = slot;
  }
  return best ? best->row->fn : NULL;
}

const char *const mcp__frequent_methods[] = {
    "tools/call",
    "tools/list",
    "ping",
    "initialize",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    NULL,
};
