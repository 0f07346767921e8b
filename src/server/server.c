/* SPDX-License-Identifier: MIT */
/* server.c - the server object's life: made by the core
 * (mcp__server_create, core/server_object.c), then every module registers
 * its method rows and state; freed after the task hooks' shutdown. Serving
 * starts with the checks that need every module. Capabilities are derived
 * from what is registered at the moment a client initializes, so a server
 * never advertises a feature it cannot serve.
 */
#include "completion/completion_internal.h"
#include "prompts/prompt_internal.h"
#include "resources/resource_internal.h"
#include "server/internal.h"
#include "skills/skills_internal.h"
#include "tools/tool_internal.h"

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
  /* Every module brings its own method rows and state; the dispatcher
   * names none. */
  st = mcp__lifecycle_register(s);
  if (st == MCP_OK)
    st = mcp__tools_register(s);
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

json_t *mcp__server_capabilities_json(const mcp_server_t *s) {
  json_t *caps = json_object();
  if (caps == NULL)
    return NULL;
  /* tools is declared even when none are registered yet: tools may be added
   * while serving, and list_changed tells the client about them. */
  json_t *tools = json_object();
  if (tools && mcp__tools_of(s)->list_changed)
    json_object_set_new(tools, "listChanged", json_true());
  json_object_set_new(caps, "tools", tools);
  json_object_set_new(caps, "logging", json_object());
  mcp__features_capabilities((mcp_server_t *)s, caps);
  const mcp__task_hooks *hooks = mcp__server_task_hooks(s);
  if (hooks)
    json_object_set_new(caps, "tasks", hooks->capabilities(s));
  return caps;
}
