/* SPDX-License-Identifier: MIT */
/* trace.c - what mcpc shows of the wire on stderr: -v (the era chosen, the
 * URL, each HTTP exchange with its status and time, each request with its
 * outcome and time) and --trace (every JSON-RPC message both ways with its
 * direction and a timestamp, pretty, or one JSON object per line with
 * --format json). The client calls these hooks on its reader thread
 * (stdio) or the thread making the request (HTTP); a mutex keeps the lines
 * of different threads apart. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "commands.h"

#define OPEN_REQUESTS 64

struct mcpc_trace {
  pthread_mutex_t lock;
  struct open_request {
    char *id;     /* the request id as compact JSON; NULL: free slot */
    char *method; /* owned */
    struct timespec sent;
  } open[OPEN_REQUESTS];
  size_t next; /* the slot the next request takes when none is free */
};

static double ms_since(const struct timespec *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t->tv_sec) * 1e3 +
         (double)(now.tv_nsec - t->tv_nsec) / 1e6;
}

/* "19:40:12.345" (local time) or, for JSON, "2026-12-04T19:40:12.345Z". */
static void timestamp(bool utc, char *out, size_t n) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct tm tm;
  char base[32];
  if (utc) {
    gmtime_r(&tv.tv_sec, &tm);
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, n, "%s.%03ldZ", base, (long)(tv.tv_usec / 1000));
  } else {
    localtime_r(&tv.tv_sec, &tm);
    strftime(base, sizeof base, "%H:%M:%S", &tm);
    snprintf(out, n, "%s.%03ld", base, (long)(tv.tv_usec / 1000));
  }
}

static void print_message(const mcpc_ctx *ctx, bool incoming,
                          const json_t *m) {
  char when[40];
  timestamp(ctx->json, when, sizeof when);
  if (ctx->json) {
    json_t *line = json_pack("{s:s,s:s,s:O}", "trace",
                             incoming ? "receive" : "send", "time", when,
                             "message", m);
    if (line != NULL && json_is_string(m))
      json_object_set_new(line, "json", json_false());
    char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    if (text != NULL)
      fprintf(stderr, "%s\n", text);
    free(text);
    json_decref(line);
    return;
  }
  const char *arrow = incoming ? "<--" : "-->";
  if (json_is_string(m)) { /* a stdio line that is not JSON */
    fprintf(stderr, "%s %s (not JSON) %s\n", arrow, when, json_string_value(m));
    return;
  }
  char *text = json_dumps(m, JSON_INDENT(2) | JSON_ENCODE_ANY);
  fprintf(stderr, "%s %s\n%s\n", arrow, when, text ? text : "?");
  free(text);
}

/* -v: a request leaves (remember when) or its answer arrives (say how it
 * went and how long it took). */
static void time_request(mcpc_trace *t, bool incoming, const json_t *m) {
  json_t *id = json_object_get(m, "id");
  const char *method = json_string_value(json_object_get(m, "method"));
  if (id == NULL || json_is_string(m))
    return;
  char *key = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
  if (key == NULL)
    return;
  if (!incoming && method != NULL) {
    size_t slot = t->next;
    for (size_t i = 0; i < OPEN_REQUESTS; i++)
      if (t->open[i].id == NULL) {
        slot = i;
        break;
      }
    t->next = (slot + 1) % OPEN_REQUESTS;
    free(t->open[slot].id);
    free(t->open[slot].method);
    t->open[slot].id = key;
    t->open[slot].method = strdup(method);
    clock_gettime(CLOCK_MONOTONIC, &t->open[slot].sent);
    return;
  }
  if (incoming && method == NULL) {
    for (size_t i = 0; i < OPEN_REQUESTS; i++) {
      struct open_request *r = &t->open[i];
      if (r->id == NULL || strcmp(r->id, key) != 0)
        continue;
      json_t *error = json_object_get(m, "error");
      json_t *result = json_object_get(m, "result");
      char outcome[64] = "result";
      if (error != NULL)
        snprintf(outcome, sizeof outcome, "error %lld",
                 (long long)json_integer_value(json_object_get(error, "code")));
      else if (json_is_true(json_object_get(result, "isError")))
        snprintf(outcome, sizeof outcome, "isError result");
      else if (json_is_string(json_object_get(result, "resultType")) &&
               strcmp(json_string_value(json_object_get(result, "resultType")),
                      "complete") != 0)
        snprintf(outcome, sizeof outcome, "%s",
                 json_string_value(json_object_get(result, "resultType")));
      fprintf(stderr, "mcpc: %s (id %s): %s in %.1f ms\n",
              r->method ? r->method : "?", key, outcome, ms_since(&r->sent));
      free(r->id);
      free(r->method);
      r->id = r->method = NULL;
      break;
    }
  }
  free(key);
}

static void observe(mcp_client_t *c, bool incoming, json_t *m, void *ud) {
  mcpc_ctx *ctx = ud;
  mcpc_trace *t = ctx->trace_state;
  pthread_mutex_lock(&t->lock);
  if (ctx->trace)
    print_message(ctx, incoming, m);
  if (ctx->verbose)
    time_request(t, incoming, m);
  pthread_mutex_unlock(&t->lock);
  if (ctx->observer != NULL) /* inspect's own */
    ctx->observer(c, incoming, m, ctx->observer_ud);
}

static void observe_http(mcp_client_t *c, const char *verb, const char *url,
                         long status, double ms, bool sse, void *ud) {
  (void)c;
  mcpc_ctx *ctx = ud;
  pthread_mutex_lock(&ctx->trace_state->lock);
  if (status == 0)
    fprintf(stderr, "mcpc: %s %s: no response after %.1f ms\n", verb, url, ms);
  else
    fprintf(stderr, "mcpc: %s %s -> HTTP %ld%s in %.1f ms\n", verb, url,
            status, sse ? " (SSE stream)" : "", ms);
  pthread_mutex_unlock(&ctx->trace_state->lock);
}

mcp_status mcpc_trace_setup(mcpc_ctx *ctx, mcp_client_options_t *o) {
  if (!ctx->verbose && !ctx->trace)
    return ctx->observer != NULL ? mcp_client_options_set_observer(
                                       o, ctx->observer, ctx->observer_ud)
                                 : MCP_OK;
  if (ctx->trace_state == NULL) {
    ctx->trace_state = calloc(1, sizeof *ctx->trace_state);
    if (ctx->trace_state == NULL)
      return MCP_ERR_NOMEM;
    pthread_mutex_init(&ctx->trace_state->lock, NULL);
  }
  mcp_status st = mcp_client_options_set_observer(o, observe, ctx);
  if (st == MCP_OK && ctx->verbose)
    st = mcp_client_options_set_http_observer(o, observe_http, ctx);
  return st;
}

void mcpc_trace_connecting(const mcpc_ctx *ctx, const char *url) {
  if (!ctx->verbose)
    return;
  const char *protocol = ctx->protocol ? ctx->protocol : "auto";
  if (url != NULL)
    fprintf(stderr, "mcpc: connecting to %s over Streamable HTTP", url);
  else
    fprintf(stderr, "mcpc: starting %s%s%s over stdio",
            ctx->command ? "'" : "", ctx->command ? ctx->command : "the "
                                                                  "profile's "
                                                                  "server",
            ctx->command ? "'" : "");
  fprintf(stderr, " (--protocol %s%s)\n", protocol,
          strcmp(protocol, "auto") == 0
              ? ": server/discover, else initialize"
              : "");
}

void mcpc_trace_connected(const mcpc_ctx *ctx, mcp_client_t *c) {
  if (!ctx->verbose)
    return;
  const char *v = mcp_client_protocol_version(c);
  bool modern = v != NULL && strcmp(v, "2026-07-28") >= 0;
  const char *sid = mcp_client_session_id(c);
  fprintf(stderr, "mcpc: era %s (%s)%s%s\n", v ? v : "?",
          modern ? "server/discover, stateless requests"
                 : "initialize, a session",
          sid ? ", session " : "", sid ? sid : "");
}

void mcpc_trace_free(mcpc_ctx *ctx) {
  mcpc_trace *t = ctx->trace_state;
  if (t == NULL)
    return;
  for (size_t i = 0; i < OPEN_REQUESTS; i++) {
    free(t->open[i].id);
    free(t->open[i].method);
  }
  pthread_mutex_destroy(&t->lock);
  free(t);
  ctx->trace_state = NULL;
}
