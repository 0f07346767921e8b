/* SPDX-License-Identifier: MIT */
/* relay_answers.c - answers to server-to-client requests across replicas
 * (mcp/relay.h, ops version 2).
 *
 * A handler on replica A asks the client of a shared 2025-11-25 session
 * (elicitation, sampling, roots); the client may POST its answer to any
 * replica. A tells its relay that it waits (before the request leaves) and
 * when it stops waiting; a replica that receives an answer no call of its
 * own waits for hands it to its relay, which finds the replica waiting and
 * delivers it there as {"kind":"answer","session":S,"message":M}, which
 * lands here and wakes the call exactly as a local answer does. Request
 * ids of a shared session never repeat across replicas
 * (mcp__session_set_outbound_base), so an answer names one waiting call.
 */
#include <stdlib.h>
#include <string.h>

#include "core/server_internal.h"
#include "core/session_internal.h" /* se->server */

/* The relay when it routes answers (ops version 2), read under the server
 * lock: it is set before serving and closed by mcp_server_free once calls
 * have ended. */
static bool answer_relay(mcp_server_t *s, mcp_relay *out) {
  pthread_mutex_lock(&s->lock);
  *out = s->relay;
  pthread_mutex_unlock(&s->lock);
  return out->ops && out->ops->version >= 2 && out->ops->await_answer &&
         out->ops->answer_done && out->ops->forward_answer;
}

void mcp__relay_await(mcp_session_t *se, int64_t id, bool waiting) {
  mcp_relay r;
  if (!answer_relay(se->server, &r))
    return;
  char *sid = mcp__session_id_copy(se);
  if (sid == NULL)
    return;
  /* a failure (database away) leaves answers on this replica working */
  if (waiting)
    r.ops->await_answer(r.impl, sid, id);
  else
    r.ops->answer_done(r.impl, sid, id);
  free(sid);
}

mcp_status mcp__relay_forward_answer(mcp_server_t *s, mcp_session_t *se,
                                     const mcp__message *msg) {
  mcp_relay r;
  if (msg->root == NULL || !json_is_integer(msg->id) || !answer_relay(s, &r))
    return MCP_ERR_UNSUPPORTED;
  char *sid = mcp__session_id_copy(se);
  char *text = sid ? json_dumps(msg->root, JSON_COMPACT) : NULL;
  mcp_status st = MCP_ERR_UNSUPPORTED;
  if (text)
    st = r.ops->forward_answer(
        r.impl, sid, (int64_t)json_integer_value(msg->id), text, strlen(text));
  free(text);
  free(sid);
  return st;
}

mcp_status mcp__relay_deliver_answer(mcp_server_t *s, const json_t *event) {
  const char *sid = json_string_value(json_object_get(event, "session"));
  json_t *m = json_object_get(event, "message");
  json_t *id = json_object_get(m, "id");
  bool result = json_object_get(m, "result") != NULL;
  bool error = json_object_get(m, "error") != NULL;
  if (sid == NULL || !json_is_object(m) || !json_is_integer(id) ||
      result == error)
    return MCP_ERR_INVALID_ARG;
  mcp_session_t *target = mcp__server_session_by_id(s, sid);
  if (target == NULL)
    return MCP_ERR_NOT_FOUND;
  mcp__message msg = {0};
  msg.kind = result ? MCP__MSG_RESULT : MCP__MSG_ERROR;
  msg.root = json_deep_copy(m); /* the waiter takes it over */
  msg.id = json_object_get(msg.root, "id");
  msg.result = json_object_get(msg.root, "result");
  msg.error = json_object_get(msg.root, "error");
  bool found = msg.root && mcp__session_deliver_response(target, &msg);
  json_decref(msg.root); /* NULL when taken */
  mcp__session_release(target);
  return found ? MCP_OK : MCP_ERR_NOT_FOUND;
}
