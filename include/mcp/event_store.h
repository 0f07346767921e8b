/* SPDX-License-Identifier: MIT */
/* event_store.h - where SSE events are kept so that a client can resume a
 * Streamable HTTP stream (GET + Last-Event-ID) and receive exactly the events
 * it missed on that stream.
 *
 * A store is a plug-in: a const mcp_event_store_ops table plus an opaque impl
 * pointer (the SQLite VFS shape). The HTTP transport calls append for every
 * event of a resumable stream and replay_after when a client resumes; the
 * store picks the event ids. An id must be unique within its session and
 * must encode the stream it belongs to, so that replay_after can return the
 * events of that one stream only.
 *
 * Thread safety: every member may be called concurrently from any thread
 * (different or equal sessions); implementations lock internally.
 */
#ifndef MCP_EVENT_STORE_H
#define MCP_EVENT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest event id a store may produce, including the terminating NUL. */
#define MCP_EVENT_ID_MAX 64

/* Receives one replayed event. event_id and data are borrowed for the call.
 * Return MCP_OK to continue; anything else stops the replay and is returned
 * by replay_after. */
typedef mcp_status (*mcp_event_replay_fn)(void *ctx, const char *event_id,
                                          const char *data, size_t len);

typedef struct mcp_event_store_ops {
  int version;      /* 1; members are only appended */
  const char *name; /* "memory", ... */
  /* Stores data (copies len bytes) as the next event of stream_id in
   * session_id and writes its id (NUL-terminated, visible ASCII, at most
   * MCP_EVENT_ID_MAX bytes with the NUL) into event_id. Events of one stream
   * are appended by one thread at a time. */
  mcp_status (*append)(void *impl, const char *session_id,
                       const char *stream_id, const char *data, size_t len,
                       char event_id[MCP_EVENT_ID_MAX]);
  /* Calls fn for every stored event of the stream that last_event_id belongs
   * to, that came after it, in order. MCP_ERR_NOT_FOUND when the id is
   * unknown (never issued, or evicted by the store's bounds). On success
   * *stream_id_out (when non-NULL) receives the stream's id (copied into a
   * MCP_EVENT_ID_MAX buffer). */
  mcp_status (*replay_after)(void *impl, const char *session_id,
                             const char *last_event_id, mcp_event_replay_fn fn,
                             void *ctx, char stream_id_out[MCP_EVENT_ID_MAX]);
  /* Forgets every event of a session (session ended). */
  void (*drop_session)(void *impl, const char *session_id);
  /* Frees the store. No other member is called afterwards. */
  void (*close)(void *impl);
} mcp_event_store_ops;

/* A store instance: ops + impl, passed around by value. */
typedef struct mcp_event_store {
  const mcp_event_store_ops *ops;
  void *impl;
} mcp_event_store;

/* Limits of the in-memory store, per session; 0 means "no limit" for that
 * dimension. The oldest events are evicted first. */
typedef struct mcp_event_store_memory_limits {
  size_t max_events;  /* default 1024 */
  size_t max_bytes;   /* default 1 MiB */
  int64_t max_age_ms; /* default 300000 (5 minutes) */
} mcp_event_store_memory_limits;

/* Creates an in-memory store (returns new; release with
 * out->ops->close(out->impl)). limits may be NULL for the defaults. Event
 * ids have the form "<stream_id>-<n>", n increasing per session. */
MCP_API mcp_status mcp_event_store_memory_new(
    const mcp_event_store_memory_limits *limits, mcp_event_store *out);

#ifdef __cplusplus
}
#endif
#endif
