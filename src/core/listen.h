/* SPDX-License-Identifier: MIT */
/* listen.h - subscriptions/listen (2026-07-28): the open notification
 * streams of a server and the fan-out of change notifications to them.
 *
 * A listen request is parked, not run: its call leaves the worker once the
 * acknowledgement is sent and lives in the registry until the client leaves
 * (HTTP: the connection closes; stdio: notifications/cancelled or the end of
 * input) or the server ends it (transport stop: the final
 * SubscriptionsListenResult). No thread is held per stream.
 */
#ifndef MCP_CORE_LISTEN_H
#define MCP_CORE_LISTEN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/server.h"

/* What a notification is about, for the filter of each stream. */
typedef enum mcp__listen_kind {
  MCP__LISTEN_TOOLS = 1u << 0,     /* notifications/tools/list_changed */
  MCP__LISTEN_PROMPTS = 1u << 1,   /* notifications/prompts/list_changed */
  MCP__LISTEN_RESOURCES = 1u << 2, /* notifications/resources/list_changed */
  MCP__LISTEN_RESOURCE = 1u << 3,  /* notifications/resources/updated (uri) */
  MCP__LISTEN_TASK = 1u << 4       /* task status (tasks extension; task id) */
} mcp__listen_kind;

struct mcp__listener;

/* The registry, embedded in the server. */
typedef struct mcp__listen_registry {
  pthread_mutex_t lock;
  struct mcp__listener *head;     /* every registered stream */
  struct mcp__listener **buckets; /* by reply channel context */
  size_t nbuckets;
  atomic_size_t count;
  /* Set by the tasks extension: filters may name taskIds. */
  atomic_bool task_ids;
  atomic_size_t task_streams; /* registered streams naming tasks */
  /* Called (lock not held) when a stream naming tasks registers: the task
   * engine starts watching the store for their changes. */
  void (*on_task_stream)(void *ud);
  void *on_task_stream_ud;
} mcp__listen_registry;

void mcp__listen_init(mcp__listen_registry *r);
/* Ends every stream (as mcp__listen_end_owner for all) and frees the
 * registry. */
void mcp__listen_destroy(mcp_server_t *s);

/* Opens the stream of a subscriptions/listen call (the handler checked the
 * filter): kinds (list changes, of mcp__listen_kind) and the resource URIs
 * (NULL: none) as the server honours them, task ids (taken only when
 * mcp__listen_enable_task_ids is on). Sends the acknowledgement, registers
 * the stream and parks the call (returns MCP_OK without a result). */
mcp_status mcp__listen_open(mcp_call_t *call, unsigned kinds,
                            const json_t *uris, const json_t *task_ids);

/* Sends method/params (borrowed; may be NULL) to every stream whose filter
 * takes kind (and, for MCP__LISTEN_RESOURCE and MCP__LISTEN_TASK, key: the
 * resource URI or the task id), each tagged with its subscription id.
 * Streams whose client is gone are dropped on the way. Only streams whose
 * caller may see it get it (core/viewer.h): a resource update needs the
 * scopes the resource server's rules ask for reading key. */
void mcp__listen_publish(mcp_server_t *s, unsigned kind, const char *key,
                         const char *method, const json_t *params);
/* The same for what belongs to a subject: MCP__LISTEN_TASK with owner the
 * task creator's subject (NULL: created without authentication) goes only
 * to streams of that very subject (or, for NULL, unauthenticated ones). */
void mcp__listen_publish_owned(mcp_server_t *s, unsigned kind, const char *key,
                               const char *owner, const char *method,
                               const json_t *params);

/* The client sent notifications/cancelled for request_id on the channel
 * whose context is ctx (stdio): that stream ends without a response. */
void mcp__listen_cancel(mcp_server_t *s, const void *ctx,
                        const json_t *request_id);

/* Lets filters carry taskIds (the tasks extension calls it). */
void mcp__listen_enable_task_ids(mcp_server_t *s, bool on);
/* Installs (fn non-NULL) or removes the on_task_stream hook; set before
 * task ids are enabled, removed after they are disabled. */
void mcp__listen_set_task_hook(mcp_server_t *s, void (*fn)(void *ud),
                               void *ud);
/* The distinct task ids the open streams name (new array, maybe empty;
 * NULL when memory runs out), and how many streams name any. */
json_t *mcp__listen_task_ids(mcp_server_t *s);
size_t mcp__listen_task_streams(mcp_server_t *s);

/* True when a subscription to sub covers uri: the same resource, or one
 * below it in the path hierarchy (listen filters and resources/subscribe
 * share this rule). */
bool mcp__uri_covers(const char *sub, const char *uri);

/* Open streams right now (tests, benchmarks). */
size_t mcp__listen_count(mcp_server_t *s);

/* The channel flags of a notification of kind with params (NULL: none):
 * a list change without params only says "ask again", which a transport
 * may coalesce (MCP__SEND_STATE_AS, keyed by the list); else
 * MCP__SEND_NOTIFICATION alone. */
unsigned mcp__listen_send_flags(unsigned kind, const json_t *params);

#endif
