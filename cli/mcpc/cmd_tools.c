/* SPDX-License-Identifier: MIT */
/* cmd_tools.c - tools list, tools call (plain, with progress, or as a task
 * with --task [--ttl MS] [--wait]; a plain call of a tool that requires a
 * task runs as one and is waited for), and waiting for a task. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"

/* name and description, "[ui] " before the description of a tool that
 * links to an MCP Apps view (_meta.ui.resourceUri; mcpc apps show). */
static void print_tool_line(const json_t *tool) {
  if (!json_is_string(json_object_get(
          json_object_get(json_object_get(tool, "_meta"), "ui"),
          "resourceUri"))) {
    mcpc_print_named(tool);
    return;
  }
  const char *name = json_string_value(json_object_get(tool, "name"));
  const char *d = json_string_value(json_object_get(tool, "description"));
  printf("%-28s [ui] %.*s\n", name ? name : "?",
         d ? (int)strcspn(d, "\n") : 0, d ? d : "");
}

int mcpc_cmd_tools_list(mcpc_ctx *ctx, int argc, char **argv) {
  return mcpc_list(ctx, argc, "tools list", "tools/list", "tools",
                   print_tool_line);
}

/* What the task display needs between polls. Progress notifications for
 * the task (sent on the original call's progressToken) arrive on the
 * client's threads while the main thread polls, hence the lock. mcpc has
 * one call in flight, so any progress notification is the task's. */
typedef struct task_view {
  pthread_mutex_t lock;
  bool active; /* false: late notifications are ignored */
  mcpc_progress bar;
  int polls;
  char status[200];       /* "working: statusMessage" from the last poll */
  double progress, total; /* from notifications/progress; total < 0: none */
  char message[120];
} task_view;

static void draw_task(task_view *v) {
  char line[340];
  snprintf(line, sizeof line, "%s%s%s", v->status, v->message[0] ? " - " : "",
           v->message);
  if (v->total > 0)
    mcpc_progress_update(&v->bar, v->progress, v->total, line);
  else /* no fraction (2026-07-28 tasks carry none): the status alone, an
          indeterminate bar moving per poll on a terminal */
    mcpc_progress_status(&v->bar, v->polls, line);
}

static void on_task_status(json_t *task, void *user_data) {
  task_view *v = user_data;
  const char *status = json_string_value(json_object_get(task, "status"));
  const char *msg = json_string_value(json_object_get(task, "statusMessage"));
  pthread_mutex_lock(&v->lock);
  snprintf(v->status, sizeof v->status, "%s%s%s", status ? status : "?",
           msg ? ": " : "", msg ? msg : "");
  v->polls++;
  draw_task(v);
  pthread_mutex_unlock(&v->lock);
}

static void on_task_progress(mcp_client_t *client, const char *method,
                             json_t *params, void *user_data) {
  task_view *v = user_data;
  json_t *progress = json_object_get(params, "progress");
  if (strcmp(method, "notifications/progress") != 0 ||
      !json_is_number(progress))
    return;
  json_t *total = json_object_get(params, "total");
  const char *msg = json_string_value(json_object_get(params, "message"));
  pthread_mutex_lock(&v->lock);
  if (!v->active) {
    pthread_mutex_unlock(&v->lock);
    return;
  }
  v->progress = json_number_value(progress);
  v->total = json_is_number(total) ? json_number_value(total) : -1;
  snprintf(v->message, sizeof v->message, "%s", msg ? msg : "");
  if (v->status[0] != '\0')
    draw_task(v);
  pthread_mutex_unlock(&v->lock);
}

/* One display per process (mcpc waits for one task): static because a
 * notification callback may still run on the client's thread after
 * mcpc_wait_task returned, until the client is closed. */
static task_view task_display = {.lock = PTHREAD_MUTEX_INITIALIZER};

void mcpc_task_display_install(mcpc_ctx *ctx) {
  ctx->notification_ud = &task_display;
  ctx->on_notification = on_task_progress;
}

typedef struct task_listen {
  mcp_client_t *c;
  json_t *filter;
  uint64_t gen; /* read before the thread starts (mcpc_listen_end) */
  pthread_t thread;
} task_listen;

static void *task_listen_main(void *arg) {
  task_listen *tl = arg;
  mcp_client_listen_at(tl->c, tl->gen, tl->filter, NULL);
  return NULL;
}

/* 2025-11-25: the display's polls run beside the blocked tasks/result. */
typedef struct status_poller {
  mcp_client_t *c;
  const char *task_id;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  bool done; /* tasks/result answered: stop polling */
  pthread_t thread;
} status_poller;

static bool ended(const json_t *task) {
  const char *s = json_string_value(json_object_get(task, "status"));
  return s == NULL || strcmp(s, "completed") == 0 ||
         strcmp(s, "failed") == 0 || strcmp(s, "cancelled") == 0;
}

static void *status_poller_main(void *arg) {
  status_poller *sp = arg;
  for (;;) {
    json_t *t = NULL;
    json_int_t ms = 500; /* a snappy display when the server suggests none */
    if (mcp_client_task_get(sp->c, sp->task_id, &t, NULL) == MCP_OK) {
      on_task_status(t, &task_display);
      json_t *pi = json_object_get(t, "pollInterval");
      if (json_is_integer(pi) && json_integer_value(pi) > 0)
        ms = json_integer_value(pi) < 5000 ? json_integer_value(pi) : 5000;
    }
    bool over = t != NULL && ended(t);
    json_decref(t);
    pthread_mutex_lock(&sp->lock);
    if (!over && !sp->done) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_sec += ms / 1000;
      ts.tv_nsec += (long)(ms % 1000) * 1000000L;
      if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
      }
      pthread_cond_timedwait(&sp->wake, &sp->lock, &ts);
    }
    over = over || sp->done;
    pthread_mutex_unlock(&sp->lock);
    if (over)
      return NULL;
  }
}

/* 2025-11-25: tasks/result blocks until the task ends, so the outcome
 * arrives as soon as the server sees it (also when another process ended
 * the task), and the task's questions and messages travel on its stream.
 * A long task outlasts the request timeout: the request is then made
 * again. */
static int wait_legacy(mcpc_ctx *ctx, mcp_client_t *c, const char *task_id) {
  status_poller sp = {.c = c, .task_id = task_id};
  pthread_mutex_init(&sp.lock, NULL);
  pthread_cond_init(&sp.wake, NULL);
  bool polling = pthread_create(&sp.thread, NULL, status_poller_main, &sp) == 0;
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st;
  do {
    st = mcp_client_task_result(c, task_id, &result, &err);
  } while (st == MCP_ERR_TIMEOUT);
  pthread_mutex_lock(&sp.lock);
  sp.done = true;
  pthread_cond_signal(&sp.wake);
  pthread_mutex_unlock(&sp.lock);
  if (polling)
    pthread_join(sp.thread, NULL);
  pthread_mutex_destroy(&sp.lock);
  pthread_cond_destroy(&sp.wake);
  task_view *v = &task_display;
  pthread_mutex_lock(&v->lock);
  v->active = false;
  mcpc_progress_done(&v->bar);
  pthread_mutex_unlock(&v->lock);
  int rc;
  if (st == MCP_OK) {
    rc = mcpc_print_tool_result(ctx, result);
  } else {
    /* a cancelled task has no result (-32602): say so as before */
    json_t *t = NULL;
    const char *status = NULL;
    if (st == MCP_ERR_PEER &&
        mcp_client_task_get(c, task_id, &t, NULL) == MCP_OK)
      status = json_string_value(json_object_get(t, "status"));
    if (status != NULL && strcmp(status, "cancelled") == 0)
      rc = mcpc_error(MCPC_FAIL, NULL, "task %s was cancelled", task_id);
    else
      rc = mcpc_fail("tasks/result", st, &err);
    json_decref(t);
  }
  fflush(stdout);
  json_decref(result);
  return rc;
}

int mcpc_wait_task(mcpc_ctx *ctx, mcp_client_t *c, const char *task_id) {
  task_view *v = &task_display;
  pthread_mutex_lock(&v->lock);
  v->active = true;
  v->polls = 0;
  v->total = -1;
  v->status[0] = v->message[0] = '\0';
  mcpc_progress_init(&v->bar, ctx);
  pthread_mutex_unlock(&v->lock);
  if (strcmp(mcp_client_protocol_version(c), "2026-07-28") < 0)
    return wait_legacy(ctx, c, task_id);
  json_t *task = NULL;
  mcp_error_t err;
  /* 2026-07-28: status notifications come on a listen stream asking for the
   * task (a server without one leaves polling as the fallback) */
  task_listen tl = {.c = c, .gen = mcp_client_listen_generation(c)};
  bool listening =
      strcmp(mcp_client_protocol_version(c), "2026-07-28") >= 0 &&
      (tl.filter = json_pack("{s:[s]}", "taskIds", task_id)) != NULL &&
      pthread_create(&tl.thread, NULL, task_listen_main, &tl) == 0;
  /* 500 ms when the server suggests no pollInterval: a snappy display */
  mcp_status st =
      mcp_client_task_wait(c, task_id, 500, on_task_status, v, &task, &err);

  pthread_mutex_lock(&v->lock);
  v->active = false;
  mcpc_progress_done(&v->bar);
  pthread_mutex_unlock(&v->lock);
  if (st != MCP_OK) {
    if (listening) {
      mcpc_listen_end(c, tl.thread);
    }
    json_decref(tl.filter);
    return mcpc_fail("tasks/get", st, &err);
  }
  const char *status = json_string_value(json_object_get(task, "status"));
  int rc;
  if (status != NULL && strcmp(status, "cancelled") == 0) {
    rc = mcpc_error(MCPC_FAIL, NULL, "task %s was cancelled", task_id);
  } else {
    /* completed, failed or input_required: tasks/result gives the outcome
     * (blocking for input_required until the server is done) */
    json_t *result = NULL;
    st = mcp_client_task_result(c, task_id, &result, &err);
    rc = st == MCP_OK ? mcpc_print_tool_result(ctx, result)
                      : mcpc_fail("tasks/result", st, &err);
    json_decref(result);
  }
  fflush(stdout);
  /* the stream ends after the result is shown: closing it waits for the
   * transfer's next progress tick */
  if (listening) {
    mcpc_listen_end(c, tl.thread);
  }
  json_decref(tl.filter);
  json_decref(task);
  return rc;
}

/* The tool's execution.taskSupport as tools/list shows it in 2025-11-25
 * ("forbidden" when absent), or NULL when the list cannot be read or does
 * not name the tool. 2026-07-28 lists carry none (the server decides per
 * call): NULL. */
static const char *task_support_of(mcp_client_t *c, const char *name) {
  if (strcmp(mcp_client_protocol_version(c), "2026-07-28") >= 0)
    return NULL;
  json_t *tools = NULL;
  if (mcp_client_list_tools(c, &tools, NULL) != MCP_OK)
    return NULL;
  const char *support = NULL;
  size_t i;
  json_t *tool;
  json_array_foreach(tools, i, tool) {
    const char *n = json_string_value(json_object_get(tool, "name"));
    if (n == NULL || strcmp(n, name) != 0)
      continue;
    const char *ts = json_string_value(json_object_get(
        json_object_get(tool, "execution"), "taskSupport"));
    support = ts == NULL                        ? "forbidden"
              : strcmp(ts, "required") == 0     ? "required"
              : strcmp(ts, "optional") == 0     ? "optional"
                                                : "forbidden";
    break;
  }
  json_decref(tools);
  return support;
}

static int refuse_task(const char *name, const char *support) {
  return mcpc_error(MCPC_USAGE, NULL,
                    "tools call: \"%s\" cannot run as a task: its taskSupport "
                    "is \"%s\" (call it without --task)",
                    name, support);
}

int mcpc_cmd_tools_call(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "tools call NAME [--args JSON | key=value ...] [--task "
                    "[--ttl MS]] [--wait]";
  if (argc < 1 || argv[0][0] == '-')
    return mcpc_usage(syn);
  const char *name = argv[0];
  json_t *args = NULL;
  bool task = false, wait = false;
  long long ttl = 0;
  int nkv = 0;
  char **kv = calloc((size_t)argc, sizeof *kv);
  for (int i = 1; kv != NULL && i < argc; i++) {
    if (strcmp(argv[i], "--args") == 0 && i + 1 < argc && args == NULL) {
      json_error_t je;
      args = json_loads(argv[++i], 0, &je);
      if (!json_is_object(args)) {
        mcpc_error(MCPC_USAGE, NULL, "--args needs a JSON object: %s",
                   args ? "not an object" : je.text);
        json_decref(args);
        free(kv);
        return MCPC_USAGE;
      }
    } else if (strcmp(argv[i], "--task") == 0) {
      task = true;
    } else if (strcmp(argv[i], "--wait") == 0) {
      wait = true;
    } else if (strcmp(argv[i], "--ttl") == 0 && i + 1 < argc) {
      char *end;
      ttl = strtoll(argv[++i], &end, 10);
      if (*end != '\0' || ttl <= 0) {
        free(kv);
        json_decref(args);
        return mcpc_usage(syn);
      }
    } else if (argv[i][0] != '-' && strchr(argv[i], '=') != NULL) {
      kv[nkv++] = argv[i];
    } else {
      free(kv);
      json_decref(args);
      return mcpc_usage(syn);
    }
  }
  if (kv == NULL || (args != NULL && nkv > 0) || (ttl > 0 && !task)) {
    free(kv);
    json_decref(args);
    return mcpc_usage(syn);
  }
  if (args == NULL)
    args = mcpc_parse_kv(nkv, kv, false);
  free(kv);
  if (args == NULL)
    return mcpc_usage(syn);

  int rc;
  /* before connecting: the client's threads read it. Also for a plain
   * call, which becomes a waited-for task when the tool requires one. */
  mcpc_task_display_install(ctx);
  mcp_client_t *c =
      task ? mcpc_connect_tasks(ctx, &rc) : mcpc_connect(ctx, &rc);
  if (c == NULL) {
    json_decref(args);
    return rc;
  }
  bool modern = strcmp(mcp_client_protocol_version(c), "2026-07-28") >= 0;
  /* 2025-11-25 lists each tool's taskSupport: --task on a tool that
   * forbids tasks is refused before anything runs */
  const char *support = task ? task_support_of(c, name) : NULL;
  if (support != NULL && strcmp(support, "forbidden") == 0) {
    json_decref(args);
    mcp_client_close(c);
    return refuse_task(name, support);
  }
  mcpc_progress p;
  mcpc_progress_init(&p, ctx);
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st =
      task ? mcp_client_call_tool_task(c, name, args, ttl, mcpc_progress_cb, &p,
                                       &result, &err)
           : mcp_client_call_tool(c, name, args, mcpc_progress_cb, &p, &result,
                                  &err);
  /* 2025-11-25: a plain call of a tool that requires a task is -32601;
   * like 2026-07-28 (where the client library does it), mcpc then runs it
   * as the task it must be and waits for it */
  if (!task && !modern && st == MCP_ERR_PEER && err.rpc_code == -32601 &&
      (support = task_support_of(c, name)) != NULL &&
      strcmp(support, "required") == 0) {
    task = wait = true;
    st = mcp_client_call_tool_task(c, name, args, 0, mcpc_progress_cb, &p,
                                   &result, &err);
  }
  mcpc_progress_done(&p);
  /* 2025-11-25: {"task": Task}; 2026-07-28: the Task itself, flat, with
   * resultType "task" */
  json_t *t = json_object_get(result, "task");
  const char *rt = json_string_value(json_object_get(result, "resultType"));
  if (t == NULL && rt != NULL && strcmp(rt, "task") == 0)
    t = result;
  const char *task_id = json_string_value(json_object_get(t, "taskId"));
  if (st != MCP_OK) {
    rc = mcpc_fail("tools/call", st, &err);
  } else if (task_id != NULL && wait) {
    if (!ctx->json)
      fprintf(stderr, "mcpc: task %s created\n", task_id);
    rc = mcpc_wait_task(ctx, c, task_id);
  } else if (task_id != NULL) {
    if (ctx->command != NULL)
      fprintf(stderr,
              "mcpc: note: over stdio the server stops when mcpc exits, so "
              "the task is interrupted; use --wait to see it finish\n");
    if (ctx->json)
      mcpc_print_json(result);
    else
      printf("task %s %s\n", task_id,
             json_string_value(json_object_get(t, "status")));
  } else if (task) {
    /* the server answered at once: in 2026-07-28 it decides per call and
     * has run the tool without a task, which is what taskSupport
     * "forbidden" means. The result is shown (it happened), the request
     * refused all the same. */
    if (!ctx->json)
      mcpc_print_tool_result(ctx, result);
    rc = mcpc_error(
        MCPC_USAGE, json_pack("{s:O}", "result", result),
        "tools call: \"%s\" ran without a task: the server treats its "
        "taskSupport as \"forbidden\"%s (call it without --task)",
        name, modern ? " (2026-07-28: the server decides per call)" : "");
  } else {
    rc = mcpc_print_tool_result(ctx, result);
  }
  json_decref(result);
  json_decref(args);
  mcp_client_close(c);
  return rc;
}
