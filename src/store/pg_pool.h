/* SPDX-License-Identifier: MIT */
/* pg_pool.h - a pool of PostgreSQL connections shared by the PostgreSQL
 * backends (task store, sessions, event store, notification fan-out).
 *
 * The pool is reference-counted: the task store owns the first reference,
 * other backends of the same database take their own. A connection serves
 * one thread at a time. Statements are prepared on first use on each
 * connection. A connection found dead (the database restarted, the network
 * dropped it) is replaced before use; while the database cannot be reached
 * callers get MCP_ERR_IO at once with the reason, and new connection
 * attempts back off from 100 ms doubling to 5 s.
 *
 * Statements have no deadline unless the caller gives one
 * (mcp__pg_exec_within): the DPoP replay record does (2 s); the stores do
 * not, since their statements may rightly run long (migrations, a long
 * replay) and a timed-out write is of unknown outcome, which they would
 * have to be taught to handle.
 */
#ifndef MCP_STORE_PG_POOL_H
#define MCP_STORE_PG_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "store/pq.h" /* libpq by dlopen: every PQ* goes through its table */

#include "mcp/status.h"
#include "mcp/store.h"

typedef struct mcp__pg_pool mcp__pg_pool;
typedef struct mcp__pg_conn mcp__pg_conn;

/* A statement prepared under name; static storage (the pool keeps the
 * pointer). */
typedef struct mcp__pg_stmt {
  const char *name;
  const char *sql;
  int nparams;
} mcp__pg_stmt;

/* Opens a pool of size connections (0: 4) to conninfo (a libpq connection
 * string or postgres:// URI; copied), connects one and applies the schema
 * migrations. Returns new (one reference). */
mcp_status mcp__pg_pool_open(const char *conninfo, unsigned size,
                             mcp__pg_pool **out, mcp_error_t *err);
mcp__pg_pool *mcp__pg_pool_ref(mcp__pg_pool *p);
/* Drops a reference; the last one closes every connection. */
void mcp__pg_pool_free(mcp__pg_pool *p);
/* The connection string (borrowed). */
const char *mcp__pg_pool_conninfo(const mcp__pg_pool *p);

/* Runs s with values (s->nparams text values, NULL = SQL NULL) on a pooled
 * connection, in its own transaction. On MCP_OK *out is the result (PQclear
 * it); the connection is already back in the pool. retry: the statement
 * only reads, so it is run once more on a new connection when the one it
 * got turned out to be dead. */
mcp_status mcp__pg_exec(mcp__pg_pool *p, const mcp__pg_stmt *s,
                        const char *const *values, bool retry, PGresult **out,
                        mcp_error_t *err);
/* mcp__pg_exec ended by a deadline timeout_ms from now (0 or less: none,
 * as mcp__pg_exec): waiting for a free connection, connecting and the
 * statement all count. Past it: MCP_ERR_TIMEOUT naming the step, and the
 * connection the statement was on is closed (never reused with an answer
 * half read; no cancel is sent, so a write under way may still take
 * effect). Without a deadline a paused server or a network black hole
 * holds the caller until the server answers or the kernel gives up on
 * the connection. */
mcp_status mcp__pg_exec_within(mcp__pg_pool *p, const mcp__pg_stmt *s,
                               const char *const *values, bool retry,
                               int64_t timeout_ms, PGresult **out,
                               mcp_error_t *err);

/* For several statements in one transaction: take a connection, run
 * mcp__pg_conn_exec / mcp__pg_conn_simple on it, give it back. */
mcp_status mcp__pg_acquire(mcp__pg_pool *p, mcp__pg_conn **out,
                           mcp_error_t *err);
mcp_status mcp__pg_conn_exec(mcp__pg_conn *c, const mcp__pg_stmt *s,
                             const char *const *values, PGresult **out,
                             mcp_error_t *err);
/* Prepares s on c unless it already is (mcp__pg_conn_exec does it on
 * first use; a pipeline must do it before). */
mcp_status mcp__pg_conn_prepare(mcp__pg_conn *c, const mcp__pg_stmt *s,
                                mcp_error_t *err);
/* The libpq connection of c (borrowed), for a pipeline (pg_batch.c). */
PGconn *mcp__pg_conn_handle(mcp__pg_conn *c);
/* Marks c dead: it is closed when released. */
void mcp__pg_conn_set_broken(mcp__pg_conn *c);
/* A statement without parameters ("BEGIN", "COMMIT", ...). */
mcp_status mcp__pg_conn_simple(mcp__pg_conn *c, const char *sql,
                               mcp_error_t *err);
/* Gives c back; a connection left inside a transaction is rolled back,
 * a dead one is closed. */
void mcp__pg_release(mcp__pg_pool *p, mcp__pg_conn *c);

/* Applies the schema migrations on c (schema_pg.c). */
mcp_status mcp__pg_migrate(PGconn *c, mcp_error_t *err);

/* The pool of a store opened by mcp_store_postgres_open, else NULL
 * (borrowed). */
mcp__pg_pool *mcp__store_postgres_pool(mcp_store_t *store);

#endif
