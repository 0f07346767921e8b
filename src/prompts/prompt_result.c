/* SPDX-License-Identifier: MIT */
/* prompt_result.c - GetPromptResult under construction. Content blocks are
 * built by the tool result builder (tools/result.c), so prompts and tools
 * produce identical blocks and share the mcp_content_set_* refiners; each
 * block becomes one PromptMessage {role, content}. */
#include "prompts/prompt_internal.h"
#include "util/str.h"

static mcp_content_t *with_role(mcp_prompt_result_t *r, mcp_role role,
                                mcp_content_t *c) {
  if (c == NULL)
    return NULL;
  const char *name = role == MCP_ROLE_ASSISTANT ? "assistant" : "user";
  if (json_array_append_new(r->roles, json_string(name)) != 0) {
    r->blocks.failed = true;
    return NULL;
  }
  return c;
}

static bool role_ok(mcp_prompt_result_t *r, mcp_role role) {
  return r && (role == MCP_ROLE_USER || role == MCP_ROLE_ASSISTANT);
}

mcp_status mcp_prompt_result_set_description(mcp_prompt_result_t *r,
                                             const char *description) {
  return r ? mcp__str_replace(&r->description, description)
           : MCP_ERR_INVALID_ARG;
}

mcp_content_t *mcp_prompt_add_text(mcp_prompt_result_t *r, mcp_role role,
                                   const char *text) {
  return role_ok(r, role)
             ? with_role(r, role, mcp_result_add_text(&r->blocks, text))
             : NULL;
}

mcp_content_t *mcp_prompt_add_image(mcp_prompt_result_t *r, mcp_role role,
                                    const char *base64, const char *mime) {
  return role_ok(r, role)
             ? with_role(r, role,
                         mcp_result_add_image(&r->blocks, base64, mime))
             : NULL;
}

mcp_content_t *mcp_prompt_add_audio(mcp_prompt_result_t *r, mcp_role role,
                                    const char *base64, const char *mime) {
  return role_ok(r, role)
             ? with_role(r, role,
                         mcp_result_add_audio(&r->blocks, base64, mime))
             : NULL;
}

mcp_content_t *mcp_prompt_add_resource_link(mcp_prompt_result_t *r,
                                            mcp_role role, const char *uri,
                                            const char *name) {
  return role_ok(r, role)
             ? with_role(r, role,
                         mcp_result_add_resource_link(&r->blocks, uri, name))
             : NULL;
}

mcp_content_t *mcp_prompt_add_text_resource(mcp_prompt_result_t *r,
                                            mcp_role role, const char *uri,
                                            const char *text,
                                            const char *mime) {
  return role_ok(r, role) ? with_role(r, role,
                                      mcp_result_add_text_resource(
                                          &r->blocks, uri, text, mime))
                          : NULL;
}

mcp_content_t *mcp_prompt_add_blob_resource(mcp_prompt_result_t *r,
                                            mcp_role role, const char *uri,
                                            const void *data, size_t len,
                                            const char *mime) {
  return role_ok(r, role) ? with_role(r, role,
                                      mcp_result_add_blob_resource(
                                          &r->blocks, uri, data, len, mime))
                          : NULL;
}
