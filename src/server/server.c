/* SPDX-License-Identifier: MIT */
/* server.c - the server object's life: made by the core
 * (mcp__server_create, core/server_object.c), then every module registers
 * its method rows, capability hooks and state; freed after the task hooks'
 * shutdown. Serving starts with the checks that need every module.
 */
#include "completion/completion_internal.h"
#include "prompts/prompt_internal.h"
#include "resources/resource_internal.h"
#include "server/internal.h"
#include "skills/skills_internal.h"
#include "tools/tool_internal.h"

/* "logging" (2025-11-25 and older): logging/setLevel is a lifecycle
 * method; in 2026-07-28 the level rides in _meta. */
static void logging_capability(const mcp_server_t *s, json_t *caps,
                               unsigned era) {
  (void)s;
  if (era == MCP__ERA_LEGACY)
    json_object_set_new(caps, "logging", json_object());
}

mcp_status mcp_server_new(const char *name, const char *version,
                          mcp_server_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (name == NULL || *name == '\0' || version == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_server_t *s;
  mcp_status st = mcp__server_create(name, version, &s);
  if (st != MCP_OK)
    return st;
  /* Every module brings its own method rows, capability hooks and state;
   * the dispatcher names none. The order of the capability hooks is the
   * order of the members of ServerCapabilities (tools, logging, then the
   * features'), which clients see byte for byte. */
  st = mcp__lifecycle_register(s);
  if (st == MCP_OK)
    st = mcp__tools_register(s);
  if (st == MCP_OK)
    st = mcp__server_add_capability(s, logging_capability);
  if (st == MCP_OK)
    st = mcp__resources_register(s);
  if (st == MCP_OK)
    st = mcp__prompts_register(s);
  if (st == MCP_OK)
    st = mcp__completion_register(s);
  if (st == MCP_OK)
    st = mcp__skills_register(s);
  if (st != MCP_OK) {
    mcp__log(s, MCP_LOG_ERROR, "mcp_server_new: a module failed to register "
             "(%s)", mcp_status_name(st));
    mcp_server_free(s);
    return st;
  }
  *out = s;
  return MCP_OK;
}

void mcp_server_free(mcp_server_t *s) {
  if (s == NULL)
    return;
  mcp__relay_close(s); /* no remote delivery from now on */
  const mcp__task_hooks *hooks = mcp__server_task_hooks(s);
  if (hooks) /* its threads still use the server */
    hooks->shutdown(s);
  mcp__server_destroy(s); /* the modules' state, the last registered first */
}

mcp_status mcp__server_start_serving(mcp_server_t *s, mcp_error_t *err) {
  /* serving first: a tool added meanwhile is refused by add_tool, one
   * added before is seen by the check */
  mcp__server_set_serving(s, true);
  mcp_status st = mcp__tools_check_task_support(s, err);
  if (st == MCP_OK) /* apps.h: every linked view is registered */
    st = mcp__tools_check_ui_links(s, err);
  if (st != MCP_OK)
    mcp__server_set_serving(s, false);
  return st;
}
