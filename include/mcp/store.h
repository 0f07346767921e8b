/* SPDX-License-Identifier: MIT */
/* store.h - where tasks are kept (sessions and SSE events of many replicas:
 * session_store.h; notifications between replicas: relay.h).
 *
 * A store is a plug-in: a const mcp_store_ops table plus an impl pointer,
 * wrapped in an opaque mcp_store_t. libmcp ships three backends: in-memory
 * (lost at exit), SQLite (durable: WAL, BEGIN IMMEDIATE writes, schema
 * created and migrated on open) and PostgreSQL (durable, shared by many
 * replicas: leases, LISTEN/NOTIFY; docs/deploy.md). Records are scoped by server name, so
 * several servers can share one database.
 *
 * Thread safety: every backend must be thread-safe; every ops member may be
 * called concurrently with any other except close, which runs last.
 */
#ifndef MCP_STORE_H
#define MCP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/export.h"
#include "mcp/status.h"
#include "mcp/task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One stored task. A frozen value type: members are never reordered. Strings
 * are NUL-terminated; the ones marked "or NULL" may be NULL. Records a store
 * returns own their strings: release with mcp_task_record_clear. */
typedef struct mcp_task_record {
  char *scope;   /* server name */
  char *task_id; /* unique within the scope */
  char *owner;   /* authenticated subject, or NULL */
  char *session; /* key of the creating session, or NULL */
  char *tool;    /* tool name, or NULL */
  mcp_task_status status;
  char *status_message;     /* or NULL */
  int64_t created_ms;       /* Unix epoch milliseconds */
  int64_t updated_ms;       /* lastUpdatedAt */
  int64_t ttl_ms;           /* < 0: unlimited; counted from created_ms */
  int64_t poll_interval_ms; /* < 0: none */
  char *result;             /* CallToolResult JSON text, or NULL */
  char *error;              /* JSON-RPC error object JSON text, or NULL */
} mcp_task_record;

/* Frees the strings of a record filled by a store and zeroes it. */
MCP_API void mcp_task_record_clear(mcp_task_record *rec);

/* Which tasks task_list visits. Zeroed = every task of the scope. */
typedef struct mcp_task_filter {
  const char *owner;         /* only tasks of this owner (exact match) */
  const char *session;       /* only tasks created by this session */
  bool active_only;          /* only working / input_required */
  int64_t created_before_ms; /* > 0: only tasks created before this */
  /* keyset cursor: tasks after (after_created_ms, after_id) in
   * (created_ms, task_id) order; after_id NULL starts at the beginning */
  int64_t after_created_ms;
  const char *after_id;
} mcp_task_filter;

/* Visitor of task_list; the record is borrowed for the call. Return false
 * to stop early. */
typedef bool (*mcp_task_visit_fn)(const mcp_task_record *rec, void *ud);
/* Called by task_sweep once per removed task; borrowed arguments. */
typedef void (*mcp_task_removed_fn)(const char *task_id, const char *reason,
                                    void *ud);

typedef struct mcp_store_ops {
  int version;      /* 1; members are only appended */
  const char *name; /* "memory", "sqlite", ... */
  /* Inserts a new task (rec borrowed). MCP_ERR_EXISTS for a taken id. */
  mcp_status (*task_put)(void *impl, const mcp_task_record *rec,
                         mcp_error_t *err);
  /* Fills *out (new strings) or MCP_ERR_NOT_FOUND. Expiry is the caller's
   * business: a store returns what it holds. */
  mcp_status (*task_get)(void *impl, const char *scope, const char *task_id,
                         mcp_task_record *out, mcp_error_t *err);
  /* Atomically, only when the stored task is not terminal: sets status,
   * status_message, updated_ms and, when non-NULL, result and error (rec
   * borrowed). MCP_ERR_STATE when it is terminal (nothing changes; *current
   * is set when non-NULL), MCP_ERR_NOT_FOUND when absent. This
   * compare-and-set is what keeps terminal states final across threads and
   * processes. */
  mcp_status (*task_update)(void *impl, const mcp_task_record *rec,
                            mcp_task_status *current, mcp_error_t *err);
  /* Visits at most limit tasks of scope matching filter, in (created_ms,
   * task_id) order. limit 0 means no limit. */
  mcp_status (*task_list)(void *impl, const char *scope,
                          const mcp_task_filter *filter, size_t limit,
                          mcp_task_visit_fn fn, void *ud, mcp_error_t *err);
  /* MCP_ERR_NOT_FOUND when absent. */
  mcp_status (*task_delete)(void *impl, const char *scope, const char *task_id,
                            mcp_error_t *err);
  /* Removes tasks of scope whose ttl elapsed (created_ms + ttl_ms <= now_ms,
   * any status: reason "expired") and terminal tasks without ttl last updated
   * at or before now_ms - retention_ms (reason "retention"; retention_ms < 0
   * keeps them). fn (may be NULL) hears about each after the change. */
  mcp_status (*task_sweep)(void *impl, const char *scope, int64_t now_ms,
                           int64_t retention_ms, mcp_task_removed_fn fn,
                           void *ud, mcp_error_t *err);
  /* Releases impl. */
  void (*close)(void *impl);
} mcp_store_ops;

/* A store flag (mcp_store_set_flags): other processes run tasks in this
 * store at the same time (replicas sharing a database). The task engine
 * then leaves the active tasks it finds at start alone (they may be running
 * elsewhere); the store itself fails the tasks of a process that stopped
 * renewing their leases. */
#define MCP_STORE_SHARED 1u

/* Wraps a backend (returns new). ops is borrowed and must outlive the
 * store; impl is owned from now on (ops->close runs at mcp_store_free, and
 * also here on failure). */
MCP_API mcp_status mcp_store_new(const mcp_store_ops *ops, void *impl,
                                 mcp_store_t **out);
/* Closes the backend. NULL is a no-op. */
MCP_API void mcp_store_free(mcp_store_t *store);
MCP_API const char *mcp_store_name(const mcp_store_t *store);
MCP_API const mcp_store_ops *mcp_store_get_ops(const mcp_store_t *store);
MCP_API void *mcp_store_impl(const mcp_store_t *store);
/* MCP_STORE_* flags of the store (0 unless a backend set them; the
 * PostgreSQL store sets MCP_STORE_SHARED). Set before use. */
MCP_API mcp_status mcp_store_set_flags(mcp_store_t *store, unsigned flags);
MCP_API unsigned mcp_store_flags(const mcp_store_t *store);

/* The in-memory backend (returns new). */
MCP_API mcp_status mcp_store_memory_new(mcp_store_t **out);
/* The SQLite backend on the database file path (copied; created when
 * missing). Enables WAL, creates or migrates the schema (table
 * mcp_schema_version records the version). Returns new. */
MCP_API mcp_status mcp_store_sqlite_open(const char *path, mcp_store_t **out,
                                         mcp_error_t *err);
/* The PostgreSQL backend (libpq), for several replicas of a server sharing
 * one database. conninfo is a libpq connection string ("host=/run/pg
 * dbname=mcp") or URI ("postgres://user@host/db"); copied. pool_size
 * connections at most (0: 4), each used by one thread at a time, statements
 * prepared once per connection. Connects once and creates or migrates the
 * schema (table mcp_schema_version) before returning; MCP_ERR_IO when the
 * database cannot be reached then. Later, while the database is away, calls
 * fail at once with MCP_ERR_IO and a message saying so, and reconnection is
 * retried with backoff (100 ms doubling to 5 s). Returns new. */
MCP_API mcp_status mcp_store_postgres_open(const char *conninfo,
                                           unsigned pool_size,
                                           mcp_store_t **out, mcp_error_t *err);
/* The lease of the tasks this store's process creates (PostgreSQL store
 * only; default 10000 ms, at least 100): a background thread renews them
 * every lease_ms / 3 while they are active, and fails, with statusMessage
 * "Lost: ..." and an isError result, the active tasks of other processes
 * whose lease lapsed (only after its own renewals have worked for a whole
 * lease period, so a database outage does not fail the tasks of live
 * replicas). MCP_ERR_UNSUPPORTED for other stores. */
MCP_API mcp_status mcp_store_postgres_set_lease(mcp_store_t *store,
                                                int64_t lease_ms);
/* Fills out with len (16 to 64) bytes of the secret called name shared by
 * every process on this PostgreSQL database: the first caller draws it
 * from the CSPRNG and stores it (table mcp_secrets), everyone after reads
 * the same bytes. For mcp_server_set_request_state_key, so a multi-round
 * request started on one replica resumes on any other. The secret lives in
 * the database: protect it like the data. MCP_ERR_UNSUPPORTED for other
 * stores, MCP_ERR_IO when the database cannot be reached. */
MCP_API mcp_status mcp_store_postgres_shared_secret(mcp_store_t *store,
                                                    const char *name,
                                                    unsigned char *out,
                                                    size_t len,
                                                    mcp_error_t *err);
/* "memory", "sqlite:PATH", or a "postgres://..." / "postgresql://..." URI
 * (returns new). MCP_ERR_INVALID_ARG otherwise. */
MCP_API mcp_status mcp_store_open(const char *spec, mcp_store_t **out,
                                  mcp_error_t *err);

/* Thin wrappers over the ops, checking arguments and the ops version. */
MCP_API mcp_status mcp_store_task_put(mcp_store_t *s,
                                      const mcp_task_record *rec,
                                      mcp_error_t *err);
MCP_API mcp_status mcp_store_task_get(mcp_store_t *s, const char *scope,
                                      const char *task_id, mcp_task_record *out,
                                      mcp_error_t *err);
MCP_API mcp_status mcp_store_task_update(mcp_store_t *s,
                                         const mcp_task_record *rec,
                                         mcp_task_status *current,
                                         mcp_error_t *err);
MCP_API mcp_status mcp_store_task_list(mcp_store_t *s, const char *scope,
                                       const mcp_task_filter *filter,
                                       size_t limit, mcp_task_visit_fn fn,
                                       void *ud, mcp_error_t *err);
MCP_API mcp_status mcp_store_task_delete(mcp_store_t *s, const char *scope,
                                         const char *task_id, mcp_error_t *err);
MCP_API mcp_status mcp_store_task_sweep(mcp_store_t *s, const char *scope,
                                        int64_t now_ms, int64_t retention_ms,
                                        mcp_task_removed_fn fn, void *ud,
                                        mcp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
