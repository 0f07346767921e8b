/* SPDX-License-Identifier: MIT */
/* task_relay.c - tasks across replicas (mcp/relay.h): a status change made
 * here is published, so that the creating session's status notifications
 * reach it on whichever replica the client listens, and tasks/result
 * waiters elsewhere wake at once; a tasks/cancel answered here is
 * published, so that the replica running the task cancels its handler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks/runner_internal.h"

void mcp__runner_publish_status(mcp__task_runner *e,
                                const mcp_task_record *rec) {
  mcp_server_t *s = e->server;
  if (!mcp__relay_active(s))
    return;
  json_t *task = mcp__task_json(rec);
  json_t *ev = task ? json_pack("{s:s,s:o,s:s?}", "kind", "task_status", "task",
                                task, "session", rec->session)
                    : NULL;
  mcp__relay_publish_event(s, ev);
}

void mcp__runner_publish_cancel(mcp__task_runner *e, const char *id) {
  mcp_server_t *s = e->server;
  if (!mcp__relay_active(s))
    return;
  mcp__relay_publish_event(
      s, json_pack("{s:s,s:s}", "kind", "task_cancel", "taskId", id));
}

static bool has_tasks_key(mcp_session_t *se, void *ud) {
  return mcp__session_has_owner_key(se, ud);
}

mcp_status mcp__tasks_remote_status(mcp_server_t *s, const json_t *event) {
  mcp__task_runner *e = mcp__tasks_runner(s);
  json_t *task = json_object_get(event, "task");
  const char *key = json_string_value(json_object_get(event, "session"));
  if (!json_is_object(task) || !json_is_string(json_object_get(task, "taskId")))
    return MCP_ERR_INVALID_ARG;
  if (e == NULL)
    return MCP_ERR_UNSUPPORTED;
  if (key && *key) {
    mcp__buf msg;
    mcp__buf_init(&msg);
    if (mcp__jsonrpc_encode_notification(&msg, "notifications/tasks/status",
                                         task))
      mcp__notify_sessions(s, has_tasks_key, (void *)key, &msg);
    mcp__buf_free(&msg);
  }
  /* tasks/result waiting here answer now, not at their next poll */
  pthread_mutex_lock(&e->lock);
  e->change_seq++;
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
  return MCP_OK;
}

mcp_status mcp__tasks_remote_cancel(mcp_server_t *s, const json_t *event) {
  const char *id = json_string_value(json_object_get(event, "taskId"));
  if (id == NULL)
    return MCP_ERR_INVALID_ARG;
  if (mcp__tasks_runner(s) == NULL)
    return MCP_ERR_UNSUPPORTED;
  mcp__runner_cancel_run(mcp__tasks_runner(s), id);
  return MCP_OK;
}

/* ---- questions of 2025-11-25 tasks across replicas ----------------------
 * A task's handler on replica A asks its client (mcp_call_request); when no
 * stream on A can carry the question (the client waits in tasks/result, or
 * listens on its standalone stream, on replica B) A keeps it queued and
 * publishes it: {"kind":"task_question","taskId":T,"session":S,
 * "subject":U,"message":M}. A replica with a tasks/result waiter of T from
 * the same requestor (session S or subject U), else with S's standalone
 * stream, sends it there and publishes {"kind":"task_question_taken",
 * "taskId":T,"id":N}, on which A drops it from its queue. A stream opened
 * later (tasks/result of T, or S's standalone stream) publishes
 * {"kind":"task_want_questions","taskId":T} or {...,"session":S}, on which
 * the replica running the task publishes its queued questions again. The
 * answer comes back through the relay's answer routing (core). */

void mcp__runner_publish_question(mcp__task_runner *e, const char *task_id,
                                  mcp_session_t *session, const char *subject,
                                  const char *msg, size_t len) {
  mcp_server_t *s = e->server;
  if (!mcp__relay_active(s))
    return;
  char *sid = session ? mcp__session_id_copy(session) : NULL;
  json_t *m = json_loadb(msg, len, 0, NULL);
  if (json_is_object(m) && (sid || subject))
    mcp__relay_publish_event(s, json_pack("{s:s,s:s,s:s?,s:s?,s:O}", "kind",
                                          "task_question", "taskId", task_id,
                                          "session", sid, "subject", subject,
                                          "message", m));
  json_decref(m);
  free(sid);
}

void mcp__runner_publish_want(mcp__task_runner *e, const char *task_id,
                              mcp_session_t *session) {
  mcp_server_t *s = e->server;
  if (!mcp__relay_active(s))
    return;
  char *sid = session ? mcp__session_id_copy(session) : NULL;
  if (task_id || sid)
    mcp__relay_publish_event(s, json_pack("{s:s,s:s?,s:s?}", "kind",
                                          "task_want_questions", "taskId",
                                          task_id, "session", sid));
  free(sid);
}

/* Whether call comes from the requestor named by session id sid or
 * subject. */
static bool same_requestor(mcp_call_t *call, const char *sid,
                           const char *subject) {
  if (sid && mcp__call_session(call) &&
      mcp__session_id_is(mcp__call_session(call), sid))
    return true;
  const char *mine = mcp_call_subject(call);
  return subject && mine && strcmp(subject, mine) == 0;
}

static mcp_status question_here(mcp_server_t *s, const json_t *event) {
  mcp__task_runner *e = mcp__tasks_runner(s);
  const char *id = json_string_value(json_object_get(event, "taskId"));
  const char *sid = json_string_value(json_object_get(event, "session"));
  const char *subject = json_string_value(json_object_get(event, "subject"));
  json_t *m = json_object_get(event, "message");
  json_t *rid = json_object_get(m, "id");
  if (id == NULL || !json_is_object(m) || !json_is_integer(rid) ||
      !json_is_string(json_object_get(m, "method")))
    return MCP_ERR_INVALID_ARG;
  char *text = json_dumps(m, JSON_COMPACT);
  if (text == NULL)
    return MCP_ERR_NOMEM;
  size_t len = strlen(text);
  bool sent = false;
  pthread_mutex_lock(&e->lock);
  if (mcp__runner_find_run(e, id) == NULL) /* not one of our own */
    for (waiter *w = e->waiters; w && !sent; w = w->next)
      if (strcmp(w->id, id) == 0 && !mcp_call_is_cancelled(w->call) &&
          same_requestor(w->call, sid, subject))
        sent =
            mcp__call_send_raw(w->call, text, len, MCP__SEND_REQUEST) == MCP_OK;
  pthread_mutex_unlock(&e->lock);
  if (!sent && sid) { /* the session's standalone stream, if open here */
    mcp_session_t *se = mcp__server_session_by_id(s, sid);
    if (se) {
      sent =
          mcp__session_notify_live(se, text, len, MCP__SEND_REQUEST) == MCP_OK;
      mcp__session_release(se);
    }
  }
  free(text);
  if (sent)
    mcp__relay_publish_event(s, json_pack("{s:s,s:s,s:O}", "kind",
                                          "task_question_taken", "taskId", id,
                                          "id", rid));
  return MCP_OK;
}

/* The JSON-RPC id of a queued request, or -1. */
static json_int_t pending_id(const pending_msg *p) {
  json_t *m = json_loadb(p->data, p->len, 0, NULL);
  json_t *id = json_object_get(m, "id");
  json_int_t v = json_is_integer(id) ? json_integer_value(id) : -1;
  json_decref(m);
  return v;
}

static mcp_status question_taken(mcp__task_runner *e, const json_t *event) {
  const char *id = json_string_value(json_object_get(event, "taskId"));
  json_t *rid = json_object_get(event, "id");
  if (id == NULL || !json_is_integer(rid))
    return MCP_ERR_INVALID_ARG;
  pthread_mutex_lock(&e->lock);
  task_run *r = mcp__runner_find_run(e, id);
  pending_msg *prev = NULL;
  for (pending_msg *p = r ? r->phead : NULL; p; prev = p, p = p->next)
    if ((p->flags & MCP__SEND_REQUEST) &&
        pending_id(p) == json_integer_value(rid)) {
      if (prev)
        prev->next = p->next;
      else
        r->phead = p->next;
      if (r->ptail == p)
        r->ptail = prev;
      free(p);
      break;
    }
  pthread_mutex_unlock(&e->lock);
  return MCP_OK;
}

/* A copy of a queued question with what names its requestor. */
typedef struct wanted {
  struct wanted *next;
  char task[40];
  mcp_session_t *session; /* retained, or NULL */
  char *subject;
  size_t len;
  char data[];
} wanted;

static mcp_status want_questions(mcp__task_runner *e, const json_t *event) {
  const char *id = json_string_value(json_object_get(event, "taskId"));
  const char *sid = json_string_value(json_object_get(event, "session"));
  if (id == NULL && sid == NULL)
    return MCP_ERR_INVALID_ARG;
  wanted *list = NULL;
  pthread_mutex_lock(&e->lock);
  for (unsigned b = 0; b < RUN_BUCKETS; b++)
    for (task_run *r = e->runs[b]; r; r = r->next) {
      if (r->call == NULL ||
          !(id ? strcmp(r->id, id) == 0
               : mcp__call_session(r->call) &&
                     mcp__session_id_is(mcp__call_session(r->call), sid)))
        continue;
      for (pending_msg *p = r->phead; p; p = p->next) {
        if (!(p->flags & MCP__SEND_REQUEST))
          continue;
        wanted *w = malloc(sizeof *w + p->len);
        if (w == NULL)
          continue;
        snprintf(w->task, sizeof w->task, "%s", r->id);
        w->session = mcp__call_session(r->call);
        if (w->session)
          mcp__session_retain(w->session);
        w->subject = r->subject ? strdup(r->subject) : NULL;
        w->len = p->len;
        memcpy(w->data, p->data, p->len);
        w->next = list;
        list = w;
      }
    }
  pthread_mutex_unlock(&e->lock);
  while (list) {
    wanted *w = list;
    list = w->next;
    mcp__runner_publish_question(e, w->task, w->session, w->subject, w->data,
                                 w->len);
    if (w->session)
      mcp__session_release(w->session);
    free(w->subject);
    free(w);
  }
  return MCP_OK;
}

mcp_status mcp__tasks_remote_question(mcp_server_t *s, const char *kind,
                                      const json_t *event) {
  if (mcp__tasks_runner(s) == NULL)
    return MCP_ERR_UNSUPPORTED;
  if (strcmp(kind, "task_question") == 0)
    return question_here(s, event);
  if (strcmp(kind, "task_question_taken") == 0)
    return question_taken(mcp__tasks_runner(s), event);
  if (strcmp(kind, "task_want_questions") == 0)
    return want_questions(mcp__tasks_runner(s), event);
  return MCP_ERR_INVALID_ARG;
}
