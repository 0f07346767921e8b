/* SPDX-License-Identifier: MIT */
/* pg_batch.h - group commit for the PostgreSQL task store.
 *
 * Writes submitted by many threads at the same time share one transaction
 * and so one WAL flush: a committer thread takes every write queued while
 * the previous transaction was committing, sends them in one pipeline
 * (BEGIN, the statements, COMMIT: one round trip) and wakes each writer
 * when that transaction is durable. A writer is answered only after its
 * change committed, exactly as with one transaction per change.
 *
 * Failures: a connection lost or a COMMIT refused fails every write of the
 * batch with MCP_ERR_IO and the reason (nothing of it is committed: one
 * transaction). A statement refused by the database (a constraint, bad
 * text) aborts the shared transaction; the writes of that batch are then
 * run again one transaction each, so only the faulty one fails.
 */
#ifndef MCP_STORE_PG_BATCH_H
#define MCP_STORE_PG_BATCH_H

#include "store/pg_pool.h"

typedef struct mcp__pg_batch mcp__pg_batch;

/* Starts committers threads (0: 2), each with its own connection to
 * conninfo (copied). Returns new. */
mcp_status mcp__pg_batch_open(const char *conninfo, unsigned committers,
                              mcp__pg_batch **out, mcp_error_t *err);
/* Commits what is queued, stops the committers, closes the connections.
 * NULL is a no-op. */
void mcp__pg_batch_free(mcp__pg_batch *b);

/* Runs the write s with values (s->nparams >= 2 text values, NULL = SQL
 * NULL; borrowed until return; values[0] and values[1] name the row it
 * changes: a batch locks rows in that order, which every multi-row
 * statement on the same table must follow too) in the next group
 * transaction and returns once
 * that transaction committed: MCP_OK with *out the statement's result
 * (PQclear it), or the error. */
mcp_status mcp__pg_batch_exec(mcp__pg_batch *b, const mcp__pg_stmt *s,
                              const char *const *values, PGresult **out,
                              mcp_error_t *err);

/* Counters since open (for benchmarks and tests): group transactions
 * committed and the writes they carried; and what is under way now. */
typedef struct mcp__pg_batch_counts {
  unsigned long long transactions, writes;
  unsigned long long alone; /* writes run again one by one after a refusal */
  unsigned queued;          /* writes waiting for a committer */
  unsigned inflight;        /* writes a committer is running now */
  unsigned batches;         /* batches being run now */
} mcp__pg_batch_counts;
void mcp__pg_batch_stats(mcp__pg_batch *b, mcp__pg_batch_counts *out);
/* The counters of the task writes of a store opened by
 * mcp_store_postgres_open; false for other stores. */
bool mcp__store_postgres_batch_stats(mcp_store_t *store,
                                     mcp__pg_batch_counts *out);

#endif
