/* SPDX-License-Identifier: MIT */
/* listen.c - subscriptions/listen (2026-07-28) and its 2025-11-25 twin.
 *
 * In 2026-07-28 notifications that are not about one request flow only on a
 * listen stream: a request the server keeps open (an SSE response over
 * HTTP, notifications on stdout over stdio) until either side ends it. In
 * 2025-11-25 they arrive on the standalone GET stream (HTTP) or the pipe
 * (stdio) anyway, and resources are watched with resources/subscribe; the
 * same call covers both so an application does not care about the era. */
#include <string.h>

#include "client/internal.h"

uint64_t mcp_client_listen_generation(mcp_client_t *c) {
  if (c == NULL)
    return 0;
  pthread_mutex_lock(&c->lock);
  uint64_t gen = c->listen_gen;
  pthread_mutex_unlock(&c->lock);
  return gen;
}

mcp_status mcp_client_listen(mcp_client_t *c, const json_t *filter,
                             mcp_error_t *err) {
  return mcp_client_listen_at(c, mcp_client_listen_generation(c), filter, err);
}

/* A listen belongs to the generation it was asked for: any other value
 * means a mcp_client_listen_stop came since, which ends it (also before it
 * registers its request: request_impl checks the same). */
mcp_status mcp_client_listen_at(mcp_client_t *c, uint64_t gen,
                                const json_t *filter, mcp_error_t *err) {
  if (c == NULL || (filter != NULL && !json_is_object(filter)))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  if (mcp_client_listen_generation(c) != gen)
    return MCP_OK; /* stopped before it began: nothing to send or undo */
  if (c->era == MCP__ERA_MODERN) {
    json_t *params =
        json_pack("{s:O}", "notifications", filter ? filter : json_object());
    if (filter == NULL)
      json_decref(json_object_get(params, "notifications"));
    json_t *r = NULL;
    mcp_status st = mcp__client_request_once(c, "subscriptions/listen", params,
                                             NULL, NULL, -1, &gen, &r, err);
    json_decref(r);
    return st;
  }
  /* 2025-11-25: resources/subscribe for the URIs asked for, then wait */
  json_t *uris = json_object_get(filter, "resourceSubscriptions");
  size_t i;
  json_t *u;
  json_array_foreach(uris, i, u) {
    if (!json_is_string(u))
      continue;
    mcp_status st = mcp_client_subscribe(c, json_string_value(u), true, err);
    if (st != MCP_OK)
      return st;
  }
  pthread_mutex_lock(&c->lock);
  while (c->listen_gen == gen && !c->closed)
    pthread_cond_wait(&c->cond, &c->lock);
  bool closed = c->closed && c->listen_gen == gen;
  pthread_mutex_unlock(&c->lock);
  json_array_foreach(uris, i, u) {
    if (json_is_string(u) && !closed)
      mcp_client_subscribe(c, json_string_value(u), false, NULL);
  }
  return closed ? mcp_error_set(err, MCP_ERR_CLOSED, "the connection closed")
                : MCP_OK;
}

void mcp_client_listen_stop(mcp_client_t *c) {
  if (c == NULL)
    return;
  int64_t ids[16];
  size_t n = 0;
  pthread_mutex_lock(&c->lock);
  c->listen_gen++;
  for (mcp__pending *p = c->pending; p != NULL; p = p->next)
    if (p->listen && !p->done) {
      p->done = true; /* no response: the waiter returns MCP_OK */
      if (n < sizeof ids / sizeof *ids)
        ids[n++] = p->id;
    }
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
  /* stdio: the client ends a listen with notifications/cancelled; HTTP:
   * the transport closes the stream once the request is no longer
   * pending */
  if (c->opts.argv != NULL)
    for (size_t i = 0; i < n; i++)
      mcp_client_notify(c, "notifications/cancelled",
                        json_pack("{s:I,s:s}", "requestId", (json_int_t)ids[i],
                                  "reason", "listen stopped"));
}
