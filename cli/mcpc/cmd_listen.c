/* SPDX-License-Identifier: MIT */
/* cmd_listen.c - mcpc listen: print the server's notifications as they
 * come. 2026-07-28: a subscriptions/listen stream with the filter from the
 * flags; 2025-11-25: the session's own stream (resources/subscribe for
 * --resource URIs). One line per notification: the method and its params
 * (with --format json, one JSON object per line). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "util/clock.h"

typedef struct listening {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  const mcpc_ctx *ctx;
  long seen; /* notifications printed (the acknowledgement included) */
  bool ended;
  mcp_status st;
  mcp_error_t err;
  mcp_client_t *client;
  uint64_t gen; /* read before the thread starts (mcpc_listen_end) */
  json_t *filter;
} listening;

static void on_any(mcp_client_t *client, const char *method, json_t *params,
                   void *user_data) {
  listening *l = user_data;
  pthread_mutex_lock(&l->lock);
  if (l->ctx->json) {
    json_t *o = json_pack("{s:s,s:O}", "method", method, "params",
                          params ? params : json_null());
    char *text = json_dumps(o, JSON_COMPACT);
    printf("%s\n", text ? text : "{}");
    free(text);
    json_decref(o);
  } else {
    char *text =
        params ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    printf("%s %s\n", method, text ? text : "");
    free(text);
  }
  fflush(stdout);
  if (strcmp(method, "notifications/subscriptions/acknowledged") != 0)
    l->seen++;
  pthread_cond_broadcast(&l->cond);
  pthread_mutex_unlock(&l->lock);
}

static void *listen_main(void *arg) {
  listening *l = arg;
  mcp_error_t err = {0};
  mcp_status st = mcp_client_listen_at(l->client, l->gen, l->filter, &err);
  pthread_mutex_lock(&l->lock);
  l->st = st;
  l->err = err;
  l->ended = true;
  pthread_cond_broadcast(&l->cond);
  pthread_mutex_unlock(&l->lock);
  return NULL;
}

int mcpc_cmd_listen(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "listen [--tools] [--prompts] [--resources] "
                    "[--resource URI]... [--task ID]... [--count N] "
                    "[--wait-ms MS]";
  json_t *filter = json_object();
  json_t *uris = json_array(), *tasks = json_array();
  long count = 0, wait_ms = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    long *num = strcmp(a, "--count") == 0     ? &count
                : strcmp(a, "--wait-ms") == 0 ? &wait_ms
                                              : NULL;
    if (strcmp(a, "--tools") == 0) {
      json_object_set_new(filter, "toolsListChanged", json_true());
    } else if (strcmp(a, "--prompts") == 0) {
      json_object_set_new(filter, "promptsListChanged", json_true());
    } else if (strcmp(a, "--resources") == 0) {
      json_object_set_new(filter, "resourcesListChanged", json_true());
    } else if (strcmp(a, "--resource") == 0 && i + 1 < argc) {
      json_array_append_new(uris, json_string(argv[++i]));
    } else if (strcmp(a, "--task") == 0 && i + 1 < argc) {
      json_array_append_new(tasks, json_string(argv[++i]));
    } else if (num != NULL && i + 1 < argc) {
      char *end;
      *num = strtol(argv[++i], &end, 10);
      if (*end != '\0' || *num < 0) {
        json_decref(filter), json_decref(uris), json_decref(tasks);
        return mcpc_usage(syn);
      }
    } else {
      json_decref(filter), json_decref(uris), json_decref(tasks);
      return mcpc_usage(syn);
    }
  }
  if (json_array_size(uris) > 0)
    json_object_set(filter, "resourceSubscriptions", uris);
  if (json_array_size(tasks) > 0)
    json_object_set(filter, "taskIds", tasks);
  json_decref(uris);
  json_decref(tasks);
  if (json_object_size(filter) == 0) {
    /* nothing named: every kind of list change */
    json_object_set_new(filter, "toolsListChanged", json_true());
    json_object_set_new(filter, "promptsListChanged", json_true());
    json_object_set_new(filter, "resourcesListChanged", json_true());
  }
  listening l = {.ctx = ctx, .filter = filter};
  pthread_mutex_init(&l.lock, NULL);
  pthread_cond_init(&l.cond, NULL);
  ctx->on_notification = on_any;
  ctx->notification_ud = &l;
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c != NULL) {
    l.client = c;
    l.gen = mcp_client_listen_generation(c);
    pthread_t t;
    if (pthread_create(&t, NULL, listen_main, &l) != 0) {
      rc = mcpc_error(MCPC_PROTOCOL, NULL, "cannot start the listener");
    } else {
      struct timespec deadline;
      mcp__deadline_in(CLOCK_REALTIME, wait_ms, &deadline);
      pthread_mutex_lock(&l.lock);
      while (!l.ended && (count == 0 || l.seen < count)) {
        int w = wait_ms > 0
                    ? pthread_cond_timedwait(&l.cond, &l.lock, &deadline)
                    : pthread_cond_wait(&l.cond, &l.lock);
        if (w != 0)
          break;
      }
      pthread_mutex_unlock(&l.lock);
      mcpc_listen_end(c, t);
      if (l.st != MCP_OK)
        rc = mcpc_fail("listen", l.st, &l.err);
    }
  }
  mcp_client_close(c);
  ctx->on_notification = NULL;
  json_decref(filter);
  pthread_cond_destroy(&l.cond);
  pthread_mutex_destroy(&l.lock);
  return rc;
}
