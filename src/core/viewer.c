/* SPDX-License-Identifier: MIT */
/* viewer.c - the caller behind a notification stream (viewer.h). */
#include "core/viewer.h"

#include <stdlib.h>
#include <string.h>

#include "core/call_internal.h"
#include "core/session_internal.h"

void mcp__viewer_clear(mcp__viewer *v) {
  free(v->subject);
  free(v->scopes);
  memset(v, 0, sizeof *v);
}

static mcp_status viewer_of_peer(mcp__viewer *v, const mcp__peer *p) {
  mcp__viewer_clear(v);
  if (p->subject && (v->subject = strdup(p->subject)) == NULL)
    return MCP_ERR_NOMEM;
  if (p->subject && p->scopes && (v->scopes = strdup(p->scopes)) == NULL) {
    mcp__viewer_clear(v);
    return MCP_ERR_NOMEM;
  }
  v->may_read = p->may_read;
  v->policy = p->policy;
  return MCP_OK;
}

mcp_status mcp__viewer_set(mcp__viewer *v, const mcp_call_t *call) {
  return viewer_of_peer(v, &call->peer);
}

bool mcp__viewer_may_read(const mcp__viewer *v, const char *uri) {
  if (v->may_read == NULL)
    return true;
  return uri && v->may_read(v->policy, v->scopes ? v->scopes : "", uri);
}

bool mcp__viewer_sees_owner(const mcp__viewer *v, const char *owner) {
  if (owner == NULL || v->subject == NULL)
    return owner == NULL && v->subject == NULL;
  return strcmp(owner, v->subject) == 0;
}

mcp_status mcp__session_set_viewer(mcp_session_t *se, const mcp_call_t *call) {
  return mcp__session_set_viewer_peer(se, &call->peer);
}

mcp_status mcp__session_set_viewer_peer(mcp_session_t *se,
                                        const mcp__peer *peer) {
  mcp__viewer v = {0};
  mcp_status st = viewer_of_peer(&v, peer);
  if (st != MCP_OK)
    return st;
  pthread_mutex_lock(&se->lock);
  mcp__viewer old = se->viewer;
  se->viewer = v;
  pthread_mutex_unlock(&se->lock);
  mcp__viewer_clear(&old);
  return MCP_OK;
}

bool mcp__session_may_read(mcp_session_t *se, const char *uri) {
  pthread_mutex_lock(&se->lock);
  bool ok = mcp__viewer_may_read(&se->viewer, uri);
  pthread_mutex_unlock(&se->lock);
  return ok;
}
