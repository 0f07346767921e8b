/* SPDX-License-Identifier: MIT */
/* viewer.h - who is on the other end of a notification stream, so that a
 * stream only carries what its caller may see: the authenticated subject
 * (task notifications: only tasks it created) and its scopes with the
 * resource server's rules (resource updates: only resources it may read).
 * subscriptions/listen streams keep the viewer of their request; an
 * old-era session the viewer of its latest resources/subscribe.
 */
#ifndef MCP_CORE_VIEWER_H
#define MCP_CORE_VIEWER_H

#include <stdbool.h>

#include "mcp/call.h"
#include "mcp/server.h"
#include "mcp/status.h"

typedef struct mcp__viewer {
  char *subject; /* malloc'd; NULL: not authenticated */
  char *scopes;  /* malloc'd; NULL: none */
  bool (*may_read)(const void *policy, const char *scopes, const char *uri);
  const void *policy;
} mcp__viewer;

/* Copies the caller of call into v (cleared first). MCP_ERR_NOMEM leaves
 * v empty. */
mcp_status mcp__viewer_set(mcp__viewer *v, const mcp_call_t *call);
void mcp__viewer_clear(mcp__viewer *v);
/* Whether v may see updates of resource uri (no rules: yes). */
bool mcp__viewer_may_read(const mcp__viewer *v, const char *uri);
/* Whether v may see a task whose creator was owner (NULL: created without
 * authentication): the rule of tasks/get, the same subject or neither
 * authenticated. */
bool mcp__viewer_sees_owner(const mcp__viewer *v, const char *owner);

/* The session's viewer becomes the caller of call (resources/subscribe
 * over a session: its updates go to the session's stream). */
mcp_status mcp__session_set_viewer(mcp_session_t *s, const mcp_call_t *call);
/* Whether the session's viewer may see updates of uri. */
bool mcp__session_may_read(mcp_session_t *s, const char *uri);

#endif
