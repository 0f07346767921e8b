/* SPDX-License-Identifier: MIT */
/* extensions.c - what server/discover declares under
 * capabilities.extensions. */
#include "server/extensions.h"

void mcp__extensions_discover(const mcp_server_t *s, json_t *caps) {
  if (!json_is_object(caps))
    return;
  mcp__ext_tasks_capabilities(s, caps);
  mcp__skills_capabilities(s, caps);
}
