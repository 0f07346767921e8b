/* engine.c - tasks inside a server: task-augmented tools/call, the tasks
 * methods (get, result, list, cancel), the executor and the sweeper.
 *
 * A task-augmented tools/call creates the task in the store, answers with
 * CreateTaskResult and hands the mcp_call_t over to the engine (the
 * dispatcher's handoff): the call stays valid until the task ends, so the
 * handler keeps its progress token, log, cancellation flag and
 * mcp_call_request. After the handoff the call's messages go to a task
 * channel: to the stream of a client blocked in tasks/result for this task
 * when there is one, else to the session's standalone stream when a client
 * is connected to it, else into the task's queue, delivered (in order, each
 * message once) when a tasks/result or standalone stream opens.
 *
 * tasks/result on a transport that can suspend calls (HTTP) does not hold
 * a thread while it waits: its waiter is parked and the watcher thread
 * answers it when the task ends (woken by every change, and every
 * RESULT_POLL_MS for changes made by other processes). Only the watcher
 * unlinks such waiters, so it may use them outside the lock.
 *
 * Locking: engine->lock guards the run table, waiters, per-caller counts and
 * the executor queue. Order: a call's send_lock, then engine->lock, then a
 * session lock; store calls are made without engine->lock.
 */
#include "tasks/tasks_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/internal.h"
#include "tools/tool_internal.h"
#include "util/clock.h"
#include "util/rand.h"

#define RUN_BUCKETS 256
/* How often a blocked tasks/result re-reads the store: changes made by
 * another process are only seen this way. */
#define RESULT_POLL_MS 200

/* At most this many notifications wait in a task's queue; more are
 * dropped (requests are always kept: the handler waits for their answer). */
#define PENDING_MAX_NOTES 256

typedef struct waiter {
  struct waiter *next;
  mcp_call_t *call; /* a tasks/result call waiting for this task */
  char id[40];      /* the task */
  bool async;       /* suspended call: answered by the watcher */
  bool armed;       /* async: its handler returned, the watcher may end it */
} waiter;

/* A task message no stream could carry yet. */
typedef struct pending_msg {
  struct pending_msg *next;
  unsigned flags;
  size_t len;
  char data[];
} pending_msg;

typedef struct task_run {
  struct task_run *next;  /* bucket chain */
  struct task_run *qnext; /* executor queue */
  char id[40];
  mcp__task_engine *e;
  mcp_call_t *call; /* owned once handed off */
  mcp_tool_t *tool; /* retained */
  json_t *args;     /* borrowed from the call's params */
  char *caller;
  pending_msg *phead, *ptail; /* queued messages, oldest first */
  unsigned pnotes;            /* notifications among them */
  int input_waits;            /* server-to-client requests outstanding */
  bool deferred;
} task_run;

typedef struct caller_count {
  struct caller_count *next;
  char *key;
  unsigned n;
} caller_count;

struct mcp__task_engine {
  mcp_server_t *server;
  mcp_tasks_t tasks;
  mcp_task_options_t opts;
  pthread_mutex_t lock;
  pthread_cond_t changed; /* CLOCK_MONOTONIC; any task changed */
  uint64_t change_seq;
  task_run *runs[RUN_BUCKETS];
  waiter *waiters; /* tasks/result calls, blocked or suspended */
  caller_count *callers;
  pthread_cond_t work;
  task_run *qhead, *qtail;
  pthread_t *threads;
  unsigned nthreads;
  bool stopping;
  pthread_t sweeper;
  bool has_sweeper;
  pthread_t watcher;
  bool has_watcher;
  pthread_cond_t sweep_wake; /* CLOCK_MONOTONIC */
};

/* ---- small helpers --------------------------------------------------------
 */
static unsigned bucket_of(const char *id) {
  unsigned h = 5381;
  for (const char *p = id; *p; p++)
    h = h * 33 + (unsigned char)*p;
  return h % RUN_BUCKETS;
}

static task_run *find_run(mcp__task_engine *e, const char *id) {
  for (task_run *r = e->runs[bucket_of(id)]; r; r = r->next)
    if (strcmp(r->id, id) == 0)
      return r;
  return NULL;
}

static void cond_init_monotonic(pthread_cond_t *c) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(c, &a);
  pthread_condattr_destroy(&a);
}

static void wait_ms(pthread_cond_t *c, pthread_mutex_t *m, int64_t ms) {
  struct timespec ts;
  mcp__deadline_in(CLOCK_MONOTONIC, ms, &ts);
  pthread_cond_timedwait(c, m, &ts);
}

static void wake_session(mcp_session_t *se) {
  if (se == NULL)
    return;
  pthread_mutex_lock(&se->lock);
  pthread_cond_broadcast(&se->cond);
  pthread_mutex_unlock(&se->lock);
}

static const char *session_key(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  if (se->tasks_key[0] == '\0' && mcp__random_uuid(se->tasks_key) != MCP_OK)
    se->tasks_key[0] = '\0';
  pthread_mutex_unlock(&se->lock);
  return se->tasks_key[0] ? se->tasks_key : NULL;
}

/* Who a task counts against for the per-caller cap. */
static char *caller_key(mcp_call_t *call) {
  const char *subject = mcp_call_subject(call);
  const char *key = subject ? subject : session_key(call->session);
  char *out = NULL;
  if (asprintf(&out, "%s:%s", subject ? "sub" : "ses", key ? key : "") < 0)
    return NULL;
  return out;
}

/* Without authentication the unguessable id is the capability; with it, a
 * task is visible only to the subject that created it. */
static bool visible(mcp_call_t *call, const mcp_task_record *rec) {
  const char *subject = mcp_call_subject(call);
  if (subject == NULL && rec->owner == NULL)
    return true;
  return subject && rec->owner && strcmp(subject, rec->owner) == 0;
}

static mcp_status load_visible(mcp__task_engine *e, mcp_call_t *call,
                               const char *id, mcp_task_record *rec) {
  mcp_status st = mcp__tasks_load(&e->tasks, id, rec);
  if (st == MCP_OK && !visible(call, rec)) {
    mcp_task_record_clear(rec);
    st = MCP_ERR_NOT_FOUND;
  }
  return st;
}

static mcp_status not_found(mcp_call_t *call, const char *id) {
  char msg[160];
  snprintf(msg, sizeof msg, "Invalid params: task not found or expired: %.64s",
           id);
  return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
}

static mcp_status no_tasks(mcp_call_t *call) {
  char msg[200];
  snprintf(msg, sizeof msg, "Method not found: %.150s", call->msg.method);
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, msg);
}

/* The common start of tasks/get, tasks/result and tasks/cancel: the engine,
 * params.taskId, and the task as this caller may see it. On any failure the
 * call's error is set and the status returned; on MCP_OK *e, *id (borrowed
 * from params) and *rec (clear it) are filled. */
static mcp_status load_param_task(mcp_call_t *call, mcp__task_engine **e,
                                  const char **id, mcp_task_record *rec) {
  *id = NULL;
  *e = call->server->tasks;
  if (*e == NULL)
    return no_tasks(call);
  json_t *param = json_object_get(call->params, "taskId");
  if (!json_is_string(param))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: taskId must be a string");
  *id = json_string_value(param);
  mcp_status st = load_visible(*e, call, *id, rec);
  return st == MCP_ERR_NOT_FOUND ? not_found(call, *id) : st;
}

/* ---- change reporting -------------------------------------------------------
 */
void mcp__engine_changed(mcp__task_engine *e, const mcp_task_record *rec) {
  mcp_session_t *se = NULL;
  pthread_mutex_lock(&e->lock);
  task_run *r = find_run(e, rec->task_id);
  if (r && r->call && r->call->session) {
    se = r->call->session;
    mcp__session_retain(se);
  }
  pthread_mutex_unlock(&e->lock);
  /* notifications/tasks/status on the creator's standalone stream; the spec
   * says requestors must not rely on it, so a closed stream just drops it.
   * It goes out before waiters (tasks/result) are woken, so a client sees
   * the status change before the result it announces. */
  if (se != NULL) {
    json_t *params = mcp__task_json(rec);
    mcp__buf msg;
    mcp__buf_init(&msg);
    if (params && mcp__jsonrpc_encode_notification(
                      &msg, "notifications/tasks/status", params))
      mcp__session_notify(se, msg.data, msg.len);
    mcp__buf_free(&msg);
    json_decref(params);
    mcp__session_release(se);
  }
  pthread_mutex_lock(&e->lock);
  e->change_seq++;
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
}

void mcp__engine_cancel_run(mcp__task_engine *e, const char *id) {
  mcp_session_t *se = NULL;
  pthread_mutex_lock(&e->lock);
  task_run *r = find_run(e, id);
  if (r && r->call) {
    atomic_store(&r->call->cancelled, true);
    if ((se = r->call->session) != NULL)
      mcp__session_retain(se);
  }
  pthread_mutex_unlock(&e->lock);
  /* Wake the handler if it waits for a client answer. */
  wake_session(se);
  if (se)
    mcp__session_release(se);
}

/* ---- the task channel
 * ---------------------------------------------------------- */
/* Hands one message to a stream: a waiting tasks/result call of the task,
 * else the creator's standalone stream if a client is connected to it.
 * e->lock held (it keeps waiters and their calls alive). */
static mcp_status deliver(mcp__task_engine *e, task_run *r, const char *msg,
                          size_t len, unsigned flags) {
  for (waiter *w = e->waiters; w; w = w->next)
    if (strcmp(w->id, r->id) == 0 && !atomic_load(&w->call->cancelled) &&
        w->call->reply.send(w->call->reply.ctx, msg, len, flags) == MCP_OK)
      return MCP_OK;
  if (r->call && r->call->session)
    return mcp__session_notify_live(r->call->session, msg, len, flags);
  return MCP_ERR_CLOSED;
}

/* Delivers queued messages while a stream takes them. e->lock held. */
static void flush_pending(mcp__task_engine *e, task_run *r) {
  while (r->phead) {
    pending_msg *p = r->phead;
    if (deliver(e, r, p->data, p->len, p->flags) != MCP_OK)
      return;
    r->phead = p->next;
    if (r->phead == NULL)
      r->ptail = NULL;
    if (!(p->flags & MCP__SEND_REQUEST))
      r->pnotes--;
    free(p);
  }
}

static void free_pending(task_run *r) {
  for (pending_msg *p = r->phead, *next; p; p = next) {
    next = p->next;
    free(p);
  }
  r->phead = r->ptail = NULL;
  r->pnotes = 0;
}

static mcp_status task_send(void *ctx, const char *msg, size_t len,
                            unsigned flags) {
  task_run *r = ctx;
  mcp__task_engine *e = r->e;
  mcp_status st = MCP_ERR_CLOSED;
  pthread_mutex_lock(&e->lock);
  /* Queued messages go first: nothing may overtake them. */
  if (r->phead == NULL)
    st = deliver(e, r, msg, len, flags);
  bool note = !(flags & MCP__SEND_REQUEST);
  if (st != MCP_OK && (!note || r->pnotes < PENDING_MAX_NOTES)) {
    pending_msg *p = malloc(sizeof *p + len);
    if (p == NULL) {
      st = MCP_ERR_NOMEM;
    } else {
      p->next = NULL;
      p->flags = flags & ~(unsigned)MCP__SEND_LIVE;
      p->len = len;
      memcpy(p->data, msg, len);
      if (r->ptail)
        r->ptail->next = p;
      else
        r->phead = p;
      r->ptail = p;
      if (note)
        r->pnotes++;
      st = MCP_OK;
    }
  } else if (st != MCP_OK) {
    st = MCP_OK; /* a dropped notification: requestors must not rely on them */
  }
  pthread_mutex_unlock(&e->lock);
  return st;
}

static void task_input(mcp_call_t *call, bool waiting) {
  task_run *r = call->handoff_ctx;
  mcp__task_engine *e = r->e;
  pthread_mutex_lock(&e->lock);
  bool change = waiting ? r->input_waits++ == 0 : --r->input_waits == 0;
  pthread_mutex_unlock(&e->lock);
  if (change) /* a cancelled task stays cancelled: the CAS refuses */
    mcp__tasks_transition(
        &e->tasks, r->id, waiting ? MCP_TASK_INPUT_REQUIRED : MCP_TASK_WORKING,
        waiting ? "Waiting for input from the client" : NULL, NULL, NULL, NULL);
}

/* ---- running
 * ------------------------------------------------------------------ */
static void finish_run(task_run *r) {
  mcp__task_engine *e = r->e;
  pthread_mutex_lock(&e->lock);
  for (task_run **pp = &e->runs[bucket_of(r->id)]; *pp; pp = &(*pp)->next)
    if (*pp == r) {
      *pp = r->next;
      break;
    }
  for (caller_count **pp = &e->callers; *pp; pp = &(*pp)->next)
    if (strcmp((*pp)->key, r->caller) == 0) {
      caller_count *c = *pp;
      if (--c->n == 0) {
        *pp = c->next;
        free(c->key);
        free(c);
      }
      break;
    }
  free_pending(r);
  e->change_seq++;
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
  mcp__call_release(r->call);
  mcp__tool_release(r->tool);
  free(r->caller);
  free(r);
}

#define INTERRUPTED "Interrupted: the server stopped while the task was running"

static void execute(task_run *r) {
  mcp__task_engine *e = r->e;
  mcp_call_t *call = r->call;
  pthread_mutex_lock(&e->lock);
  bool stopping = e->stopping;
  pthread_mutex_unlock(&e->lock);
  if (stopping) {
    mcp_task_fail(&e->tasks, r->id, INTERRUPTED);
    return;
  }
  if (atomic_load(&call->cancelled))
    return; /* cancelled while queued: already marked */
  mcp__buf out;
  mcp__buf_init(&out);
  bool is_error = false;
  mcp_status st = mcp__tool_execute(call, r->tool, r->args, &out, &is_error);
  pthread_mutex_lock(&e->lock);
  stopping = e->stopping;
  bool deferred = r->deferred;
  pthread_mutex_unlock(&e->lock);
  if (stopping) {
    /* The handler saw the shutdown as a cancellation: whatever it returned
     * is partial work. */
    mcp_task_fail(&e->tasks, r->id, INTERRUPTED);
  } else if (st == MCP_OK && deferred) {
    /* the application completes it later */
  } else if (st == MCP_OK) {
    mcp__tasks_transition(
        &e->tasks, r->id, is_error ? MCP_TASK_FAILED : MCP_TASK_COMPLETED,
        is_error ? "The tool reported an error (isError result)" : NULL,
        out.data, NULL, NULL);
  } else {
    /* The original request would have got a JSON-RPC error: keep it, so
     * tasks/result can replay exactly that. */
    int code;
    const char *message;
    json_t *data;
    mcp__call_error_for_status(call, st, &code, &message, &data);
    json_t *err = json_pack("{s:i,s:s}", "code", code, "message", message);
    if (err && data)
      json_object_set(err, "data", data);
    char *text = err ? json_dumps(err, JSON_COMPACT) : NULL;
    json_decref(err);
    mcp__tasks_transition(&e->tasks, r->id, MCP_TASK_FAILED, message, NULL,
                          text, NULL);
    free(text);
  }
  mcp__buf_free(&out);
}

static void *executor_main(void *arg) {
  mcp__task_engine *e = arg;
  pthread_mutex_lock(&e->lock);
  for (;;) {
    while (e->qhead == NULL && !e->stopping)
      pthread_cond_wait(&e->work, &e->lock);
    task_run *r = e->qhead;
    if (r == NULL)
      break;
    e->qhead = r->qnext;
    if (e->qhead == NULL)
      e->qtail = NULL;
    pthread_mutex_unlock(&e->lock);
    execute(r);
    finish_run(r);
    pthread_mutex_lock(&e->lock);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

/* The dispatcher's handoff: the CreateTaskResult has been sent. */
static void start_run(mcp_call_t *call, void *ctx) {
  task_run *r = ctx;
  mcp__task_engine *e = r->e;
  /* From now on notifications/cancelled for the tools/call id no longer
   * applies (tasks are cancelled with tasks/cancel), and closing the
   * session does not cancel the task. */
  if (call->session)
    mcp__session_remove_inflight(call->session, call);
  mcp__channel ch = {task_send, NULL, r};
  pthread_mutex_lock(&call->send_lock);
  call->reply = ch;
  pthread_mutex_unlock(&call->send_lock);
  if (atomic_load(&call->cancelled)) {
    /* Cancelled before the client saw the task: it never starts. */
    mcp__tasks_transition(&e->tasks, r->id, MCP_TASK_CANCELLED,
                          "The request was cancelled before the task started",
                          NULL, NULL, NULL);
    finish_run(r);
    return;
  }
  pthread_mutex_lock(&e->lock);
  r->qnext = NULL;
  if (e->qtail)
    e->qtail->qnext = r;
  else
    e->qhead = r;
  e->qtail = r;
  pthread_cond_signal(&e->work);
  pthread_mutex_unlock(&e->lock);
}

/* ---- tools/call ------------------------------------------------------------
 */
static mcp_status support_error(mcp_call_t *call, mcp_tool_t *tool,
                                bool required) {
  char msg[256];
  if (required)
    snprintf(msg, sizeof msg,
             "Method not found: tool '%.128s' must be called as a task "
             "(execution.taskSupport is \"required\")",
             tool->entry.key);
  else
    snprintf(msg, sizeof msg,
             "Method not found: tool '%.128s' does not support task-augmented "
             "calls",
             tool->entry.key);
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, msg);
}

/* Takes a slot of the caller's concurrent-task budget. */
static bool take_slot(mcp__task_engine *e, const char *key) {
  bool ok = true;
  pthread_mutex_lock(&e->lock);
  caller_count *c = e->callers;
  while (c && strcmp(c->key, key) != 0)
    c = c->next;
  if (c == NULL) {
    c = calloc(1, sizeof *c);
    if (c == NULL || (c->key = strdup(key)) == NULL) {
      free(c);
      ok = false;
    } else {
      c->next = e->callers;
      e->callers = c;
    }
  }
  if (ok && c->n >= e->opts.max_per_caller)
    ok = false;
  else if (ok)
    c->n++;
  pthread_mutex_unlock(&e->lock);
  return ok;
}

static void give_slot(mcp__task_engine *e, const char *key) {
  pthread_mutex_lock(&e->lock);
  for (caller_count **pp = &e->callers; *pp; pp = &(*pp)->next)
    if (strcmp((*pp)->key, key) == 0) {
      caller_count *c = *pp;
      if (--c->n == 0) {
        *pp = c->next;
        free(c->key);
        free(c);
      }
      break;
    }
  pthread_mutex_unlock(&e->lock);
}

mcp_status mcp__tasks_tools_call(mcp_call_t *call, mcp_tool_t *tool,
                                 json_t *args, json_t **result, bool *handled) {
  mcp__task_engine *e = call->server->tasks;
  *handled = false;
  if (e == NULL || call->stateless || call->session == NULL)
    return MCP_OK; /* no tasks here: params.task is ignored */
  json_t *task = json_object_get(call->params, "task");
  if (task != NULL && !json_is_object(task))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: task must be an object");
  if (task == NULL && tool->task_support == MCP_TASK_REQUIRED)
    return support_error(call, tool, true);
  if (task != NULL && tool->task_support == MCP_TASK_FORBIDDEN)
    return support_error(call, tool, false);
  if (task == NULL)
    return MCP_OK;
  json_t *jttl = json_object_get(task, "ttl");
  if (jttl != NULL && !json_is_null(jttl) &&
      !(json_is_integer(jttl) && json_integer_value(jttl) >= 0))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: task.ttl must be a non-negative "
                          "integer (milliseconds)");
  int64_t ttl = json_is_integer(jttl) ? (int64_t)json_integer_value(jttl)
                                      : e->opts.default_ttl_ms;
  if (e->opts.max_ttl_ms >= 0 && (ttl < 0 || ttl > e->opts.max_ttl_ms))
    ttl = e->opts.max_ttl_ms;

  char *caller = caller_key(call);
  if (caller == NULL)
    return MCP_ERR_NOMEM;
  if (!take_slot(e, caller)) {
    free(caller);
    char msg[128];
    snprintf(msg, sizeof msg,
             "Too many concurrent tasks for this caller (limit %u)",
             e->opts.max_per_caller);
    mcp_call_set_error(call, MCP_RPC_INTERNAL_ERROR, msg,
                       json_pack("{s:i}", "limit", e->opts.max_per_caller));
    return MCP_ERR_LIMIT;
  }
  task_run *r = calloc(1, sizeof *r);
  mcp_task_record rec = {0};
  mcp_status st = r ? mcp__random_uuid(r->id) : MCP_ERR_NOMEM;
  if (st == MCP_OK) {
    rec.scope = e->tasks.scope;
    rec.task_id = r->id;
    rec.owner = (char *)mcp_call_subject(call);
    rec.session = (char *)session_key(call->session);
    rec.tool = tool->entry.key;
    rec.status = MCP_TASK_WORKING;
    rec.created_ms = rec.updated_ms = mcp__wall_ms();
    rec.ttl_ms = ttl;
    rec.poll_interval_ms = e->opts.poll_interval_ms;
    st = mcp_store_task_put(e->tasks.store, &rec, NULL);
  }
  json_t *task_json = st == MCP_OK ? mcp__task_json(&rec) : NULL;
  json_t *res = task_json ? json_pack("{s:o}", "task", task_json) : NULL;
  if (res == NULL) {
    if (st == MCP_OK) { /* stored but cannot answer: do not leave it */
      mcp_store_task_delete(e->tasks.store, e->tasks.scope, r->id, NULL);
      st = MCP_ERR_NOMEM;
    }
    give_slot(e, caller);
    free(caller);
    free(r);
    return st;
  }
  if (e->opts.immediate_response) {
    char text[512];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(text, sizeof text, e->opts.immediate_response, tool->entry.key);
#pragma GCC diagnostic pop
    json_object_set_new(
        res, "_meta",
        json_pack("{s:s}", "io.modelcontextprotocol/model-immediate-response",
                  text));
  }
  r->e = e;
  r->call = call;
  mcp__tool_retain(tool);
  r->tool = tool;
  r->args = args;
  r->caller = caller;
  pthread_mutex_lock(&e->lock);
  unsigned b = bucket_of(r->id);
  r->next = e->runs[b];
  e->runs[b] = r;
  pthread_mutex_unlock(&e->lock);
  call->task_id = r->id;
  call->task_input = task_input;
  call->handoff = start_run;
  call->handoff_ctx = r;
  *result = res;
  *handled = true;
  return MCP_OK;
}

/* ---- tasks/get, tasks/list, tasks/cancel
 * ------------------------------------- */
mcp_status mcp__handle_tasks_get(mcp_call_t *call, json_t **result) {
  mcp__task_engine *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = load_param_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  *result = mcp__task_json(&rec);
  mcp_task_record_clear(&rec);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp__handle_tasks_list(mcp_call_t *call, json_t **result) {
  mcp__task_engine *e = call->server->tasks;
  if (e == NULL || !e->opts.list)
    return no_tasks(call);
  json_t *cursor = json_object_get(call->params, "cursor");
  if (cursor != NULL && !json_is_null(cursor) && !json_is_string(cursor))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: cursor must be a string");
  mcp_task_filter f = {0};
  const char *subject = mcp_call_subject(call);
  if (subject)
    f.owner = subject;
  else if ((f.session = session_key(call->session)) == NULL)
    return MCP_ERR_INTERNAL;
  mcp_status st = mcp__tasks_page(&e->tasks, &f, json_string_value(cursor),
                                  call->server->page_size, result);
  if (st == MCP_ERR_INVALID_ARG)
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: unknown or malformed cursor");
  return st;
}

static mcp_status terminal_error(mcp_call_t *call, mcp_task_status s) {
  char msg[128];
  snprintf(msg, sizeof msg,
           "Cannot cancel task: already in terminal status '%s'",
           mcp_task_status_name(s));
  return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
}

mcp_status mcp__handle_tasks_cancel(mcp_call_t *call, json_t **result) {
  mcp__task_engine *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = load_param_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  mcp_task_status s = rec.status;
  mcp_task_record_clear(&rec);
  if (mcp_task_status_is_terminal(s))
    return terminal_error(call, s);
  if (e->opts.cancel_fn)
    e->opts.cancel_fn(&e->tasks, id, e->opts.cancel_ud);
  /* cancelled is stored before the reply is sent (spec 8.9). */
  st = mcp__tasks_transition(&e->tasks, id, MCP_TASK_CANCELLED,
                             "Cancelled by the client", NULL, NULL, &s);
  if (st == MCP_ERR_STATE) /* lost the race against completion */
    return terminal_error(call, s);
  if (st == MCP_ERR_NOT_FOUND)
    return not_found(call, id);
  if (st != MCP_OK)
    return st;
  mcp__engine_cancel_run(e, id);
  if ((st = mcp__tasks_load(&e->tasks, id, &rec)) != MCP_OK)
    return st == MCP_ERR_NOT_FOUND ? not_found(call, id) : st;
  *result = mcp__task_json(&rec);
  mcp_task_record_clear(&rec);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

/* ---- tasks/result
 * -------------------------------------------------------------- */
/* Registers w and hands it the task's queued messages. e->lock held. */
static void link_waiter(mcp__task_engine *e, waiter *w) {
  w->next = e->waiters;
  e->waiters = w;
  task_run *r = find_run(e, w->id);
  if (r)
    flush_pending(e, r);
}

static void unlink_waiter(mcp__task_engine *e, waiter *w) {
  for (waiter **pp = &e->waiters; *pp; pp = &(*pp)->next)
    if (*pp == w) {
      *pp = w->next;
      break;
    }
}

static void add_waiter(mcp__task_engine *e, waiter *w) {
  pthread_mutex_lock(&e->lock);
  link_waiter(e, w);
  pthread_mutex_unlock(&e->lock);
}

static void remove_waiter(mcp__task_engine *e, waiter *w) {
  pthread_mutex_lock(&e->lock);
  unlink_waiter(e, w);
  pthread_mutex_unlock(&e->lock);
}

static bool session_closed(mcp_session_t *se) {
  pthread_mutex_lock(&se->lock);
  bool closed = se->state == MCP__SESSION_CLOSED;
  pthread_mutex_unlock(&se->lock);
  return closed;
}

/* The stored outcome, replayed exactly (plus the related-task _meta). */
static mcp_status replay(mcp_call_t *call, const mcp_task_record *rec,
                         json_t **result) {
  if (rec->status == MCP_TASK_CANCELLED) {
    /* SERVER-REQUIREMENTS 20.2: a cancelled task has no result; we answer
     * -32602 with data saying so, always the same way. */
    char msg[160];
    snprintf(msg, sizeof msg,
             "Invalid params: task %.64s was cancelled and has no result",
             rec->task_id);
    mcp_call_set_error(
        call, MCP_RPC_INVALID_PARAMS, msg,
        json_pack("{s:s,s:s}", "taskId", rec->task_id, "status", "cancelled"));
    return MCP_ERR_INVALID_PARAMS;
  }
  if (rec->error) {
    json_t *err = json_loads(rec->error, 0, NULL);
    const char *message = json_string_value(json_object_get(err, "message"));
    json_t *code = json_object_get(err, "code");
    mcp_call_set_error(call,
                       json_is_integer(code) ? (int)json_integer_value(code)
                                             : MCP_RPC_INTERNAL_ERROR,
                       message ? message : "Internal error",
                       json_incref(json_object_get(err, "data")));
    json_decref(err);
    return MCP_ERR_INTERNAL;
  }
  json_t *res = NULL;
  if (rec->result)
    res = json_loads(rec->result, 0, NULL);
  else if (rec->status == MCP_TASK_FAILED)
    res = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text",
                    rec->status_message ? rec->status_message : "failed",
                    "isError", 1);
  else
    res = json_pack("{s:[]}", "content");
  if (!json_is_object(res)) {
    json_decref(res);
    return MCP_ERR_INTERNAL;
  }
  json_t *meta = json_object_get(res, "_meta");
  if (!json_is_object(meta)) {
    meta = json_object();
    json_object_set_new(res, "_meta", meta);
  }
  json_object_set_new(meta, MCP__RELATED_TASK,
                      json_pack("{s:s}", "taskId", rec->task_id));
  *result = res;
  return MCP_OK;
}

/* The suspended call's handler has returned: the watcher may answer it. */
static void arm_waiter(mcp_call_t *call, void *ctx) {
  waiter *w = ctx;
  mcp__task_engine *e = call->server->tasks;
  pthread_mutex_lock(&e->lock);
  w->armed = true;
  e->change_seq++; /* the task may have ended meanwhile: look now */
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
}

/* Whether a suspended tasks/result is over, and its answer. */
static bool waiter_outcome(mcp__task_engine *e, waiter *w, bool stopping,
                           mcp_status *st, json_t **result) {
  mcp_call_t *call = w->call;
  *result = NULL;
  if (stopping) {
    *st = mcp__call_fail(call, MCP_RPC_INTERNAL_ERROR,
                         "Internal error: the server is shutting down");
    return true;
  }
  if (atomic_load(&call->cancelled) ||
      (call->session && session_closed(call->session))) {
    *st = MCP_ERR_CANCELLED; /* no answer at all */
    return true;
  }
  mcp_task_record rec;
  mcp_status s = load_visible(e, call, w->id, &rec);
  if (s == MCP_ERR_NOT_FOUND) {
    *st = not_found(call, w->id);
    return true;
  }
  if (s != MCP_OK) {
    *st = s;
    return true;
  }
  bool over = mcp_task_status_is_terminal(rec.status);
  if (over)
    *st = replay(call, &rec, result);
  mcp_task_record_clear(&rec);
  return over;
}

static void *watcher_main(void *arg) {
  mcp__task_engine *e = arg;
  pthread_mutex_lock(&e->lock);
  for (;;) {
    size_t n = 0, armed = 0;
    for (waiter *w = e->waiters; w; w = w->next)
      if (w->async) {
        n++;
        armed += w->armed;
      }
    if (n == 0 && e->stopping)
      break;
    if (n == 0) {
      pthread_cond_wait(&e->changed, &e->lock);
      continue;
    }
    uint64_t seq = e->change_seq;
    bool stopping = e->stopping;
    waiter **list = armed ? malloc(armed * sizeof *list) : NULL;
    size_t k = 0;
    for (waiter *w = e->waiters; list && w; w = w->next)
      if (w->async && w->armed)
        list[k++] = w;
    pthread_mutex_unlock(&e->lock);
    /* Only this thread unlinks armed waiters: they stay valid here. */
    mcp_status *sts = k ? calloc(k, sizeof *sts) : NULL;
    json_t **results = k ? calloc(k, sizeof *results) : NULL;
    bool *over = k ? calloc(k, sizeof *over) : NULL;
    for (size_t i = 0; sts && results && over && i < k; i++)
      over[i] = waiter_outcome(e, list[i], stopping, &sts[i], &results[i]);
    pthread_mutex_lock(&e->lock);
    for (size_t i = 0; over && i < k; i++)
      if (over[i])
        unlink_waiter(e, list[i]);
    pthread_mutex_unlock(&e->lock);
    for (size_t i = 0; over && i < k; i++)
      if (over[i]) {
        mcp__call_complete(list[i]->call, sts[i], results[i]);
        free(list[i]);
      }
    free(list);
    free(sts);
    free(results);
    free(over);
    pthread_mutex_lock(&e->lock);
    if (e->change_seq == seq && !(e->stopping && !stopping))
      wait_ms(&e->changed, &e->lock, RESULT_POLL_MS);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

void mcp__tasks_session_event(mcp_server_t *s, mcp_session_t *se, bool opened) {
  mcp__task_engine *e = s ? s->tasks : NULL;
  if (e == NULL)
    return;
  pthread_mutex_lock(&e->lock);
  if (opened) {
    for (unsigned b = 0; b < RUN_BUCKETS; b++)
      for (task_run *r = e->runs[b]; r; r = r->next)
        if (r->phead && r->call && r->call->session == se)
          flush_pending(e, r);
  } else {
    /* Suspended calls of the session end now. Only wake the watcher when
     * the session has one: stateless HTTP closes a session per request. */
    for (waiter *w = e->waiters; w; w = w->next)
      if (w->async && w->call && w->call->session == se) {
        e->change_seq++;
        pthread_cond_broadcast(&e->changed);
        break;
      }
  }
  pthread_mutex_unlock(&e->lock);
}

mcp_status mcp__handle_tasks_result(mcp_call_t *call, json_t **result) {
  mcp__task_engine *e;
  const char *id;
  mcp_task_record rec;
  mcp_status st = load_param_task(call, &e, &id, &rec);
  if (st != MCP_OK)
    return st;
  /* While it waits, the task's requests (elicitation, sampling) and
   * notifications travel on this request's stream. */
  if (!mcp_task_status_is_terminal(rec.status) && call->can_suspend &&
      e->has_watcher) {
    waiter *aw = calloc(1, sizeof *aw);
    if (aw != NULL) {
      mcp_task_record_clear(&rec);
      aw->call = call;
      aw->async = true;
      snprintf(aw->id, sizeof aw->id, "%s", id);
      call->pending = true;
      call->suspend = arm_waiter;
      call->suspend_ctx = aw;
      pthread_mutex_lock(&e->lock);
      bool stopping = e->stopping;
      if (!stopping)
        link_waiter(e, aw);
      pthread_mutex_unlock(&e->lock);
      if (!stopping)
        return MCP_OK; /* answered by the watcher */
      call->pending = false;
      free(aw);
      return mcp__call_fail(call, MCP_RPC_INTERNAL_ERROR,
                            "Internal error: the server is shutting down");
    }
  }
  waiter w = {0};
  w.call = call;
  snprintf(w.id, sizeof w.id, "%s", id);
  bool registered = false;
  while (!mcp_task_status_is_terminal(rec.status)) {
    if (!registered) {
      add_waiter(e, &w);
      registered = true;
    }
    mcp_task_record_clear(&rec);
    pthread_mutex_lock(&e->lock);
    uint64_t seq = e->change_seq;
    bool stopping = e->stopping;
    pthread_mutex_unlock(&e->lock);
    if (stopping) {
      st = mcp__call_fail(call, MCP_RPC_INTERNAL_ERROR,
                          "Internal error: the server is shutting down");
      break;
    }
    if (atomic_load(&call->cancelled) ||
        (call->session && session_closed(call->session))) {
      st = MCP_ERR_CANCELLED;
      break;
    }
    st = load_visible(e, call, id, &rec);
    if (st != MCP_OK)
      break;
    if (mcp_task_status_is_terminal(rec.status))
      break;
    pthread_mutex_lock(&e->lock);
    if (e->change_seq == seq && !e->stopping)
      wait_ms(&e->changed, &e->lock, RESULT_POLL_MS);
    pthread_mutex_unlock(&e->lock);
  }
  if (registered)
    remove_waiter(e, &w);
  if (st == MCP_ERR_NOT_FOUND)
    return not_found(call, id);
  if (st != MCP_OK)
    return st;
  st = replay(call, &rec, result);
  mcp_task_record_clear(&rec);
  return st;
}

/* ---- capabilities, accessors
 * ------------------------------------------------- */
json_t *mcp__tasks_capabilities_json(const mcp_server_t *s) {
  json_t *caps =
      json_pack("{s:{},s:{s:{s:{}}}}", "cancel", "requests", "tools", "call");
  if (caps && s->tasks->opts.list)
    json_object_set_new(caps, "list", json_object());
  return caps;
}

mcp_tasks_t *mcp_server_tasks(mcp_server_t *s) {
  return s && s->tasks ? &s->tasks->tasks : NULL;
}

const char *mcp_call_task_id(const mcp_call_t *call) {
  return call ? call->task_id : NULL;
}

mcp_status mcp_call_task_defer(mcp_call_t *call) {
  if (call == NULL || call->task_id == NULL)
    return MCP_ERR_STATE;
  task_run *r = call->handoff_ctx;
  pthread_mutex_lock(&r->e->lock);
  r->deferred = true;
  pthread_mutex_unlock(&r->e->lock);
  return MCP_OK;
}

/* ---- enable, recovery, sweeper, shutdown
 * --------------------------------------- */
static bool collect_task(const mcp_task_record *rec, void *ud) {
  json_array_append_new((json_t *)ud, mcp__task_json(rec));
  return true;
}

/* Tasks left working by a previous process: resumed by the application's
 * hook, or failed so that clients stop waiting for them. */
static void recover(mcp__task_engine *e) {
  json_t *list = json_array();
  mcp_task_filter f = {0};
  f.active_only = true;
  if (list == NULL || mcp_store_task_list(e->tasks.store, e->tasks.scope, &f, 0,
                                          collect_task, list, NULL) != MCP_OK) {
    json_decref(list);
    return;
  }
  size_t i;
  json_t *task;
  json_array_foreach(list, i, task) {
    const char *id = json_string_value(json_object_get(task, "taskId"));
    if (id == NULL)
      continue;
    if (e->opts.resume_fn &&
        e->opts.resume_fn(&e->tasks, task, e->opts.resume_ud))
      continue;
    mcp_task_fail(&e->tasks, id, INTERRUPTED);
  }
  json_decref(list);
}

static void *sweeper_main(void *arg) {
  mcp__task_engine *e = arg;
  pthread_mutex_lock(&e->lock);
  while (!e->stopping) {
    wait_ms(&e->sweep_wake, &e->lock, e->opts.sweep_interval_ms);
    if (e->stopping)
      break;
    pthread_mutex_unlock(&e->lock);
    mcp_task_delete_outdated(&e->tasks, &e->opts, NULL, NULL, NULL);
    pthread_mutex_lock(&e->lock);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

static void engine_free(mcp__task_engine *e) {
  mcp__tasks_clear(&e->tasks);
  mcp__task_options_clear(&e->opts);
  pthread_mutex_destroy(&e->lock);
  pthread_cond_destroy(&e->changed);
  pthread_cond_destroy(&e->work);
  pthread_cond_destroy(&e->sweep_wake);
  free(e->threads);
  free(e);
}

static void stop_threads(mcp__task_engine *e) {
  mcp_session_t *sessions[64];
  size_t ns = 0;
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  for (unsigned b = 0; b < RUN_BUCKETS; b++)
    for (task_run *r = e->runs[b]; r; r = r->next)
      if (r->call) {
        atomic_store(&r->call->cancelled, true);
        if (r->call->session && ns < 64) {
          mcp__session_retain(r->call->session);
          sessions[ns++] = r->call->session;
        }
      }
  pthread_cond_broadcast(&e->work);
  pthread_cond_broadcast(&e->changed);
  pthread_cond_broadcast(&e->sweep_wake);
  pthread_mutex_unlock(&e->lock);
  for (size_t i = 0; i < ns; i++) {
    wake_session(sessions[i]);
    mcp__session_release(sessions[i]);
  }
  for (unsigned i = 0; i < e->nthreads; i++)
    pthread_join(e->threads[i], NULL);
  if (e->has_sweeper)
    pthread_join(e->sweeper, NULL);
  if (e->has_watcher) /* answers the suspended tasks/result calls first */
    pthread_join(e->watcher, NULL);
}

mcp_status mcp_server_enable_tasks(mcp_server_t *s, mcp_store_t *store,
                                   const mcp_task_options_t *options,
                                   mcp_error_t *err) {
  if (s == NULL || store == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "server and store required");
  if (s->tasks)
    return mcp_error_set(err, MCP_ERR_EXISTS, "tasks are already enabled");
  mcp__task_engine *e = calloc(1, sizeof *e);
  if (e == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  mcp_task_options_t defaults;
  mcp__task_options_defaults(&defaults);
  if (!mcp__task_options_copy(&e->opts, options ? options : &defaults) ||
      mcp__tasks_init(&e->tasks, store, s->name) != MCP_OK) {
    mcp__task_options_clear(&e->opts);
    mcp__tasks_clear(&e->tasks);
    free(e);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  e->server = s;
  e->tasks.engine = e;
  pthread_mutex_init(&e->lock, NULL);
  cond_init_monotonic(&e->changed);
  cond_init_monotonic(&e->sweep_wake);
  pthread_cond_init(&e->work, NULL);
  recover(e);
  e->threads = calloc(e->opts.threads, sizeof *e->threads);
  for (; e->threads && e->nthreads < e->opts.threads; e->nthreads++)
    if (pthread_create(&e->threads[e->nthreads], NULL, executor_main, e) != 0)
      break;
  if (e->nthreads == 0) {
    engine_free(e);
    return mcp_error_set(err, MCP_ERR_NOMEM, "cannot start task threads");
  }
  if (e->opts.sweep_interval_ms > 0)
    e->has_sweeper = pthread_create(&e->sweeper, NULL, sweeper_main, e) == 0;
  e->has_watcher = pthread_create(&e->watcher, NULL, watcher_main, e) == 0;
  s->tasks = e;
  return MCP_OK;
}

void mcp__tasks_shutdown(mcp_server_t *s) {
  mcp__task_engine *e = s->tasks;
  if (e == NULL)
    return;
  stop_threads(e);
  s->tasks = NULL;
  engine_free(e);
}
