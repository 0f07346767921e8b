/* SPDX-License-Identifier: MIT */
/* cmd_resources.c - resources list | read URI | templates | subscribe URI,
 * prompts list | get NAME [key=value ...]. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "util/clock.h"

/* A resource or template: where it is (field), its name and the first line
 * of its description. */
static void print_located(const json_t *it, const char *field) {
  const char *id = json_string_value(json_object_get(it, field));
  const char *name = json_string_value(json_object_get(it, "name"));
  const char *d = json_string_value(json_object_get(it, "description"));
  printf("%-36s %-20s %.*s\n", id ? id : "?", name ? name : "",
         d ? (int)strcspn(d, "\n") : 0, d ? d : "");
}

static void print_resource(const json_t *it) {
  print_located(it, "uri");
}

static void print_template(const json_t *it) {
  print_located(it, "uriTemplate");
}

int mcpc_cmd_resources_list(mcpc_ctx *ctx, int argc, char **argv) {
  return mcpc_list(ctx, argc, "resources list", "resources/list", "resources",
                   print_resource);
}

int mcpc_cmd_resources_templates(mcpc_ctx *ctx, int argc, char **argv) {
  return mcpc_list(ctx, argc, "resources templates", "resources/templates/list",
                   "resourceTemplates", print_template);
}

int mcpc_cmd_prompts_list(mcpc_ctx *ctx, int argc, char **argv) {
  return mcpc_list(ctx, argc, "prompts list", "prompts/list", "prompts",
                   mcpc_print_named);
}

int mcpc_cmd_resources_read(mcpc_ctx *ctx, int argc, char **argv) {
  if (argc != 1)
    return mcpc_usage("resources read URI");
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st = mcp_client_read_resource(c, argv[0], &result, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("resources/read", st, &err);
  } else if (ctx->json) {
    mcpc_print_json(result);
  } else {
    size_t i;
    json_t *ct;
    json_array_foreach(json_object_get(result, "contents"), i, ct) {
      const char *text = json_string_value(json_object_get(ct, "text"));
      const char *blob = json_string_value(json_object_get(ct, "blob"));
      if (text != NULL)
        printf("%s\n", text);
      else
        printf("[blob %s, %zu bytes of base64]\n",
               json_string_value(json_object_get(ct, "uri")),
               blob ? strlen(blob) : 0);
    }
  }
  json_decref(result);
  mcp_client_close(c);
  return rc;
}

int mcpc_cmd_prompts_get(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "prompts get NAME [key=value ...]";
  if (argc < 1)
    return mcpc_usage(syn);
  json_t *args = mcpc_parse_kv(argc - 1, argv + 1, true);
  if (args == NULL)
    return mcpc_usage(syn);
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL) {
    json_decref(args);
    return rc;
  }
  json_t *result = NULL;
  mcp_error_t err;
  mcp_status st = mcp_client_get_prompt(c, argv[0], args, &result, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("prompts/get", st, &err);
  } else if (ctx->json) {
    mcpc_print_json(result);
  } else {
    const char *d = json_string_value(json_object_get(result, "description"));
    if (d != NULL)
      printf("# %s\n", d);
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(result, "messages"), i, m) {
      printf("%s: ", json_string_value(json_object_get(m, "role")));
      mcpc_print_content(json_object_get(m, "content"));
    }
  }
  json_decref(result);
  json_decref(args);
  mcp_client_close(c);
  return rc;
}

/* What resources subscribe collects; the notification callback runs on the
 * client's reader or HTTP thread. */
typedef struct subscription {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  const mcpc_ctx *ctx;
  json_t *updates; /* params of each notifications/resources/updated */
  long limit;      /* --count: updates after it are not shown (0: none) */
  /* 2026-07-28: the listen stream runs on its own thread */
  mcp_client_t *client;
  json_t *filter;
  uint64_t gen; /* read before the thread starts (mcpc_listen_end) */
  bool acked, ended;
  mcp_status listen_st;
  mcp_error_t listen_err;
} subscription;

static void *listen_main(void *arg) {
  subscription *sub = arg;
  mcp_error_t err = {0};
  mcp_status st =
      mcp_client_listen_at(sub->client, sub->gen, sub->filter, &err);
  pthread_mutex_lock(&sub->lock);
  sub->listen_st = st;
  sub->listen_err = err;
  sub->ended = true;
  pthread_cond_broadcast(&sub->cond);
  pthread_mutex_unlock(&sub->lock);
  return NULL;
}

static void on_updated(mcp_client_t *client, const char *method, json_t *params,
                       void *user_data) {
  subscription *sub = user_data;
  if (strcmp(method, "notifications/subscriptions/acknowledged") == 0) {
    pthread_mutex_lock(&sub->lock);
    sub->acked = true;
    pthread_cond_broadcast(&sub->cond);
    pthread_mutex_unlock(&sub->lock);
    return;
  }
  if (strcmp(method, "notifications/resources/updated") != 0)
    return;
  pthread_mutex_lock(&sub->lock);
  /* Updates keep coming until the unsubscription is through: --count N
   * shows exactly N. */
  if (sub->limit > 0 && (long)json_array_size(sub->updates) >= sub->limit) {
    pthread_mutex_unlock(&sub->lock);
    return;
  }
  json_array_append(sub->updates, params ? params : json_null());
  if (!sub->ctx->json) {
    const char *uri = json_string_value(json_object_get(params, "uri"));
    printf("updated %s\n", uri ? uri : "?");
    fflush(stdout);
  }
  pthread_cond_broadcast(&sub->cond);
  pthread_mutex_unlock(&sub->lock);
}

int mcpc_cmd_resources_subscribe(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "resources subscribe URI [--wait-ms MS] [--count N]";
  long wait_ms = 0, count = 0;
  const char *uri = NULL;
  for (int i = 0; i < argc; i++) {
    long *slot = strcmp(argv[i], "--wait-ms") == 0 ? &wait_ms
                 : strcmp(argv[i], "--count") == 0 ? &count
                                                   : NULL;
    if (slot != NULL && i + 1 < argc) {
      char *end;
      *slot = strtol(argv[++i], &end, 10);
      if (*end != '\0' || *slot < 0)
        return mcpc_usage(syn);
    } else if (slot == NULL && argv[i][0] != '-' && uri == NULL) {
      uri = argv[i];
    } else {
      return mcpc_usage(syn);
    }
  }
  if (uri == NULL)
    return mcpc_usage(syn);
  subscription sub = {.ctx = ctx, .updates = json_array(), .limit = count};
  pthread_mutex_init(&sub.lock, NULL);
  pthread_cond_init(&sub.cond, NULL);
  ctx->on_notification = on_updated;
  ctx->notification_ud = &sub;
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  mcp_error_t err;
  mcp_status st = MCP_OK;
  bool listening = false;
  pthread_t listener;
  if (c != NULL && mcpc_can_fall_back(ctx, c) &&
      !mcp_client_server_has(c, "resources"))
    c = mcpc_reconnect_legacy(ctx, c, &rc);
  if (c != NULL && strcmp(mcp_client_protocol_version(c), "2026-07-28") >= 0) {
    /* 2026-07-28: a subscriptions/listen stream asking for the URI */
    sub.client = c;
    sub.filter = json_pack("{s:[s]}", "resourceSubscriptions", uri);
    sub.gen = mcp_client_listen_generation(c);
    listening = pthread_create(&listener, NULL, listen_main, &sub) == 0;
    pthread_mutex_lock(&sub.lock);
    while (listening && !sub.acked && !sub.ended)
      pthread_cond_wait(&sub.cond, &sub.lock);
    bool refused = sub.ended;
    st = sub.listen_st;
    err = sub.listen_err;
    pthread_mutex_unlock(&sub.lock);
    if (listening && refused) {
      pthread_join(listener, NULL);
      listening = false;
      if (st == MCP_OK)
        st = mcp_error_set(&err, MCP_ERR_CLOSED,
                           "the listen stream ended at once");
      if (mcpc_can_fall_back(ctx, c)) {
        /* a server that serves subscriptions only in 2025-11-25 */
        c = mcpc_reconnect_legacy(ctx, c, &rc);
        st = c ? mcp_client_subscribe(c, uri, true, &err) : MCP_OK;
      }
    }
  } else if (c != NULL) {
    st = mcp_client_subscribe(c, uri, true, &err);
  }
  if (c != NULL && st != MCP_OK) {
    rc = mcpc_fail(listening ? "subscriptions/listen" : "resources/subscribe",
                   st, &err);
  } else if (c != NULL) {
    if (!ctx->json) {
      printf("subscribed to %s\n", uri);
      fflush(stdout);
    }
    /* wait_ms 0: until count updates (or forever, until interrupted) */
    struct timespec deadline;
    mcp__deadline_in(CLOCK_REALTIME, wait_ms, &deadline);
    pthread_mutex_lock(&sub.lock);
    while (count == 0 || (long)json_array_size(sub.updates) < count) {
      int w = wait_ms > 0
                  ? pthread_cond_timedwait(&sub.cond, &sub.lock, &deadline)
                  : pthread_cond_wait(&sub.cond, &sub.lock);
      if (w != 0 || (listening && sub.ended))
        break;
    }
    pthread_mutex_unlock(&sub.lock);
    if (listening) {
      mcpc_listen_end(c, listener);
      listening = false;
    } else {
      st = mcp_client_subscribe(c, uri, false, &err);
      if (st != MCP_OK)
        rc = mcpc_fail("resources/unsubscribe", st, &err);
    }
  }
  if (listening) {
    mcpc_listen_end(c, listener);
  }
  json_decref(sub.filter);
  mcp_client_close(c); /* no callback runs after this */
  ctx->on_notification = NULL;
  if (rc == MCPC_OK && ctx->json) {
    json_t *o = json_pack("{s:s,s:O}", "uri", uri, "updates", sub.updates);
    mcpc_print_json(o);
    json_decref(o);
  }
  json_decref(sub.updates);
  pthread_cond_destroy(&sub.cond);
  pthread_mutex_destroy(&sub.lock);
  return rc;
}
