/* SPDX-License-Identifier: MIT */
/* http_share.c - the HTTP transport's use of a session store
 * (mcp/session_store.h): a session's state is saved when it was
 * initialized (before the answer leaves, so the client's next request may
 * go to any replica) and whenever a request changed it; a request for a
 * session id this replica does not know loads it from the store. */
#include <stdlib.h>
#include <string.h>

#include "server/dispatch.h"
#include "transport/http_internal.h"

mcp_status mcp_http_options_set_session_store(mcp_http_options_t *o,
                                              mcp_session_store store) {
  if (o == NULL ||
      (store.ops && (store.ops->version < 1 || store.ops->save == NULL ||
                     store.ops->load == NULL || store.ops->drop == NULL)))
    return MCP_ERR_INVALID_ARG;
  o->sessions = store;
  return MCP_OK;
}

void mcp__hs_share_save(hs_session *hs) {
  const mcp_session_store *ss = &hs->h->o->sessions;
  if (ss->ops == NULL)
    return;
  char *state = mcp__session_export(hs->se);
  if (state == NULL)
    return;
  pthread_mutex_lock(&hs->lock);
  bool same = hs->shared && strcmp(hs->shared, state) == 0;
  pthread_mutex_unlock(&hs->lock);
  if (same || ss->ops->save(ss->impl, hs->id, state) != MCP_OK) {
    free(state);
    return;
  }
  pthread_mutex_lock(&hs->lock);
  free(hs->shared);
  hs->shared = state;
  pthread_mutex_unlock(&hs->lock);
}

hs_session *mcp__hs_share_load(mcp_http_server_t *h, const char *id,
                               bool *unreachable) {
  const mcp_session_store *ss = &h->o->sessions;
  char *state = NULL;
  uint32_t base = 1;
  mcp_status st = ss->ops->load(ss->impl, id, &state, &base);
  if (st != MCP_OK) {
    if (unreachable && st != MCP_ERR_NOT_FOUND)
      *unreachable = true;
    return NULL;
  }
  hs_session *hs = NULL;
  mcp__hs_session_adopt(h, id, state, base, &hs);
  free(state);
  return hs;
}

void mcp__hs_share_drop(hs_session *hs) {
  const mcp_session_store *ss = &hs->h->o->sessions;
  if (ss->ops)
    ss->ops->drop(ss->impl, hs->id);
}
