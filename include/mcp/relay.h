/* SPDX-License-Identifier: MIT */
/* relay.h - notification fan-out between processes (replicas) serving the
 * same MCP server behind a load balancer.
 *
 * What a replica causes that its clients must hear about (list changes
 * through mcp_server_broadcast, including the automatic
 * notifications/tools/list_changed of mcp_server_add_tool, and
 * mcp_server_notify_resource_updated) is delivered to this process's
 * sessions as always, and also published through the server's relay. Each
 * relay delivers what the other processes published into this process's
 * own delivery path (mcp_server_relay_deliver), which reaches its sessions
 * exactly as a local notification does; nothing is published twice.
 *
 * A relay is a plug-in: a const mcp_relay_ops table plus impl, like the
 * stores. libmcp ships one on PostgreSQL LISTEN/NOTIFY
 * (mcp_relay_postgres_new).
 *
 * Events are JSON objects: {"kind":"broadcast","method":M,"params":P},
 * {"kind":"resource_updated","uri":U}, or {"kind":"resync"} (a relay that
 * lost events: every list_changed the server announces is delivered); with
 * a version 2 relay also {"kind":"answer","session":S,"message":M} (a
 * client's answer to a request this process sent, which reached another
 * replica).
 */
#ifndef MCP_RELAY_H
#define MCP_RELAY_H

#include <stddef.h>
#include <stdint.h>

#include "mcp/export.h"
#include "mcp/status.h"
#include "mcp/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_server mcp_server_t;

/* Where a relay hands what other processes published: event (JSON text,
 * borrowed for the call) of length len; ctx as given to start. */
typedef mcp_status (*mcp_relay_deliver_fn)(void *ctx, const char *event,
                                           size_t len);

typedef struct mcp_relay_ops {
  int version;      /* 1; members are only appended */
  const char *name; /* "postgres", ... */
  /* Starts delivering the events that other processes of the same scope
   * (the server's name; borrowed until close) publish: deliver(ctx, ...)
   * from any thread. The server passes its mcp_server_relay_deliver. */
  mcp_status (*start)(void *impl, const char *scope,
                      mcp_relay_deliver_fn deliver, void *ctx);
  /* Publishes one event (JSON text, borrowed) to the other processes; it is
   * not delivered back to this one. May fail (MCP_ERR_IO) when the peers
   * cannot be reached: local delivery has happened regardless. */
  mcp_status (*publish)(void *impl, const char *event, size_t len);
  /* Stops delivering (no mcp_server_relay_deliver runs after it returns)
   * and frees impl. */
  void (*close)(void *impl);

  /* Version 2 (NULL members, or version 1: not supported): answers to the
   * server-to-client requests (elicitation, sampling, roots) of 2025-11-25
   * sessions shared by several replicas (mcp/session_store.h), whose
   * client may POST its answer to any replica. session is the session's
   * id (Mcp-Session-Id), id the request's id: request ids of a shared
   * session never repeat across replicas. */
  /* This process sent request id in session and waits for the answer.
   * Called before the request is sent. */
  mcp_status (*await_answer)(void *impl, const char *session, int64_t id);
  /* It no longer waits (answered, timed out, cancelled, closed). */
  void (*answer_done)(void *impl, const char *session, int64_t id);
  /* The client's answer (a JSON-RPC response, text, borrowed) to request
   * id of session, for which no call of this process waits: hands it to
   * the process that waits, whose relay then delivers the event
   * {"kind":"answer","session":S,"message":M}. MCP_OK: handed over;
   * MCP_ERR_NOT_FOUND: no process waits for it (answered already, timed
   * out, or never asked); MCP_ERR_CLOSED: the process that asked is gone;
   * MCP_ERR_IO: the peers cannot be reached. */
  mcp_status (*forward_answer)(void *impl, const char *session, int64_t id,
                               const char *message, size_t len);
} mcp_relay_ops;

typedef struct mcp_relay {
  const mcp_relay_ops *ops;
  void *impl;
} mcp_relay;

/* Gives s its relay (owned from now on, even on failure: closed at
 * mcp_server_free) and starts it. Call before serving, once.
 * MCP_ERR_EXISTS when s has one. */
MCP_API mcp_status mcp_server_set_relay(mcp_server_t *s, mcp_relay relay);

/* Delivers an event received from another process to s's sessions, as if
 * it had been caused here, without publishing it again. MCP_ERR_PARSE /
 * MCP_ERR_INVALID_ARG for what is not an event. */
MCP_API mcp_status mcp_server_relay_deliver(mcp_server_t *s, const char *event,
                                            size_t len);

/* The relay on PostgreSQL LISTEN/NOTIFY, on the database of store (a store
 * from mcp_store_postgres_open; it must outlive the relay). Events of one
 * server name only reach servers of the same name. One connection of its
 * own listens; when it drops it is reopened with backoff, and on its
 * return every list_changed the server declares is delivered locally (what
 * was published meanwhile is lost; clients re-list). Events bigger than
 * a PostgreSQL notification (8000 bytes) travel through the table
 * mcp_relay_events, the notification naming their row. */
MCP_API mcp_status mcp_relay_postgres_new(mcp_store_t *store, mcp_relay *out,
                                          mcp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
