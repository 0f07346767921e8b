/* SPDX-License-Identifier: MIT */
/* http_share.c - the HTTP transport's use of a session store
 * (mcp/session_store.h): a session's state is saved when it was
 * initialized (before the answer leaves, so the client's next request may
 * go to any replica) and whenever a request changed it; a request for a
 * session id this replica does not know loads it from the store.
 *
 * What the store keeps is {"session":STATE,"subject":SUBJECT}: the core
 * session's state (core/session_share.c) and the authenticated subject that
 * opened the session (null without authorization), so that another replica
 * refuses the session to anyone else exactly as this one does. A row
 * without "session" (saved before the subject was kept) is a state without
 * subject. */
#include <stdio.h>
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
  /* the subject is set when the session is made, never changed after */
  json_t *subject = hs->subject ? json_string(hs->subject) : json_null();
  char *who = subject && !same ? json_dumps(subject, JSON_ENCODE_ANY) : NULL;
  json_decref(subject);
  size_t n = who ? strlen(state) + strlen(who) + 32 : 0;
  char *row = n ? malloc(n) : NULL;
  if (row)
    snprintf(row, n, "{\"session\":%s,\"subject\":%s}", state, who);
  free(who);
  bool saved = row && ss->ops->save(ss->impl, hs->id, row) == MCP_OK;
  free(row);
  if (!saved) { /* unchanged, or the store failed: try again next time */
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
  /* {"session":STATE,"subject":S}, or an older row: STATE alone */
  json_t *row = json_loads(state, JSON_REJECT_DUPLICATES, NULL);
  json_t *session = json_object_get(row, "session");
  json_t *subject = json_object_get(row, "subject");
  char *text = json_is_object(session)
                   ? json_dumps(session, JSON_COMPACT | JSON_SORT_KEYS)
                   : NULL;
  hs_session *hs = NULL;
  if (json_is_object(session)
          ? text != NULL && (json_is_null(subject) || json_is_string(subject))
          : row != NULL)
    mcp__hs_session_adopt(h, id, text ? text : state,
                          json_string_value(subject), base, &hs);
  free(text);
  json_decref(row);
  free(state);
  return hs;
}

void mcp__hs_share_drop(hs_session *hs) {
  const mcp_session_store *ss = &hs->h->o->sessions;
  if (ss->ops)
    ss->ops->drop(ss->impl, hs->id);
}
