/* SPDX-License-Identifier: MIT */
/* pg_schema.c - the versioned schema of the PostgreSQL backends.
 *
 * Migration i brings the schema from version i to i + 1; they are applied
 * at open in one transaction that first takes an advisory lock, so replicas
 * starting together wait for each other instead of migrating twice. A
 * database whose version is newer than this libmcp knows is refused. */
#include "store/pg_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Any constant: the key of the advisory lock held while migrating. */
#define MIGRATION_LOCK "7140111802"

static const char *const migrations[] = {
    /* 1: tasks, as in the SQLite backend; "C" collation = byte order */
    "CREATE TABLE mcp_tasks ("
    " scope text COLLATE \"C\" NOT NULL, task_id text COLLATE \"C\" NOT NULL,"
    " owner text, session text, tool text, status text NOT NULL,"
    " status_message text, created_ms bigint NOT NULL,"
    " updated_ms bigint NOT NULL, ttl_ms bigint, poll_interval_ms bigint,"
    " result text, error text, PRIMARY KEY (scope, task_id));"
    "CREATE INDEX mcp_tasks_by_created"
    " ON mcp_tasks (scope, created_ms, task_id);",
    /* 2: task leases, on the database's clock (replicas' clocks may
     * differ): the replica running a task renews lease_until_ms; an
     * active task whose lease lapsed is failed by another replica */
    "CREATE OR REPLACE FUNCTION mcp_now_ms() RETURNS bigint LANGUAGE sql "
    "VOLATILE AS"
    " $$SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint$$;"
    "ALTER TABLE mcp_tasks ADD COLUMN lease_holder text,"
    " ADD COLUMN lease_until_ms bigint;"
    "CREATE INDEX mcp_tasks_active_leases ON mcp_tasks (lease_until_ms)"
    " WHERE status IN ('working', 'input_required');"
    "CREATE INDEX mcp_tasks_active_by_holder ON mcp_tasks (lease_holder)"
    " WHERE status IN ('working', 'input_required');",
    /* 3: secrets every replica must share (the requestState key) */
    "CREATE TABLE mcp_secrets (name text COLLATE \"C\" PRIMARY KEY,"
    " value text NOT NULL);",
    /* 4: 2025-11-25 HTTP sessions and SSE events shared by the replicas */
    "CREATE TABLE mcp_sessions (id text COLLATE \"C\" PRIMARY KEY,"
    " state text NOT NULL, loads bigint NOT NULL DEFAULT 0,"
    " touched_ms bigint NOT NULL);"
    "CREATE INDEX mcp_sessions_by_age ON mcp_sessions (touched_ms);"
    "CREATE SEQUENCE mcp_event_seq;"
    "CREATE TABLE mcp_events (session_id text COLLATE \"C\" NOT NULL,"
    " stream_id text COLLATE \"C\" NOT NULL, seq bigint NOT NULL,"
    " data text NOT NULL, created_ms bigint NOT NULL,"
    " PRIMARY KEY (session_id, stream_id, seq));"
    "CREATE INDEX mcp_events_by_age ON mcp_events (created_ms);",
    /* 5: server-to-client requests of shared sessions awaiting the
     * client's answer, which may reach another replica (relay_postgres.c):
     * who waits, and the answer on its way there */
    "CREATE TABLE mcp_pending_requests (session_id text COLLATE \"C\" NOT NULL,"
    " request_id bigint NOT NULL, replica text COLLATE \"C\" NOT NULL,"
    " created_ms bigint NOT NULL, answer text,"
    " PRIMARY KEY (session_id, request_id));"
    "CREATE INDEX mcp_pending_requests_by_age"
    " ON mcp_pending_requests (created_ms);",
    /* 6: tasks of idempotent tools keep their request, so another replica
     * can run them again when theirs died (task_rerun.h); runs counts
     * the runs started */
    "ALTER TABLE mcp_tasks ADD COLUMN request text,"
    " ADD COLUMN runs integer NOT NULL DEFAULT 1;",
    /* 7: relay events larger than a notification's 8000 bytes: the
     * notification names the row (relay_postgres.c) */
    "CREATE TABLE mcp_relay_events (id bigserial PRIMARY KEY,"
    " created_ms bigint NOT NULL, event text NOT NULL);"
    "CREATE INDEX mcp_relay_events_by_age ON mcp_relay_events (created_ms);",
    /* 8: every change of a task's status or statusMessage, by any process
     * (a replica, a program completing tasks with mcp_tasks_open), is
     * notified on channel mcp_tasks ("scope<TAB>task id"), so a waiting
     * tasks/result or listen stream hears of it at once
     * (task_watch_postgres.c) */
    "CREATE FUNCTION mcp_tasks_notify() RETURNS trigger LANGUAGE plpgsql AS"
    " $$BEGIN PERFORM pg_notify('mcp_tasks', NEW.scope || chr(9) ||"
    " NEW.task_id); RETURN NULL; END$$;"
    "CREATE TRIGGER mcp_tasks_changed AFTER UPDATE OF status, status_message"
    " ON mcp_tasks FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status"
    " OR OLD.status_message IS DISTINCT FROM NEW.status_message)"
    " EXECUTE FUNCTION mcp_tasks_notify();",
    /* 9: the DPoP proofs (hex SHA-256 of key thumbprint and jti) every
     * replica accepted, until their iat leaves the window
     * (dpop_jti_postgres.c): a proof replayed to another replica is a
     * conflict there */
    "CREATE TABLE mcp_dpop_jti (jti text PRIMARY KEY,"
    " expires_ms bigint NOT NULL);"
    "CREATE INDEX mcp_dpop_jti_by_expiry ON mcp_dpop_jti (expires_ms);",
};

#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

static mcp_status failed(PGconn *c, PGresult *r, const char *what,
                         mcp_error_t *err) {
  char m[200];
  snprintf(m, sizeof m, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(c));
  size_t n = strlen(m);
  while (n > 0 && m[n - 1] == '\n')
    m[--n] = '\0';
  PQclear(r);
  return mcp_error_set(err, MCP_ERR_IO, "postgres: %s: %s", what, m);
}

static bool ok(PGresult *r) {
  ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

mcp_status mcp__pg_migrate(PGconn *c, mcp_error_t *err) {
  PGresult *r = PQexec(c, "BEGIN;"
                          "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ");"
                          "CREATE TABLE IF NOT EXISTS mcp_schema_version"
                          " (version integer NOT NULL);");
  if (!ok(r))
    return failed(c, r, "begin migration", err);
  PQclear(r);
  mcp_status st = MCP_OK;
  r = PQexec(c, "SELECT coalesce(max(version), 0) FROM mcp_schema_version");
  if (!ok(r) || PQntuples(r) != 1) {
    st = failed(c, r, "schema version", err);
    goto done;
  }
  int version = atoi(PQgetvalue(r, 0, 0));
  PQclear(r);
  if (version > SCHEMA_VERSION) {
    st = mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                       "postgres: schema version %d is newer than this libmcp "
                       "supports (%d)",
                       version, SCHEMA_VERSION);
    goto done;
  }
  for (int v = version; v < SCHEMA_VERSION; v++) {
    r = PQexec(c, migrations[v]);
    if (!ok(r)) {
      st = failed(c, r, "migration", err);
      goto done;
    }
    PQclear(r);
  }
  if (version < SCHEMA_VERSION) {
    char text[96];
    snprintf(text, sizeof text,
             "DELETE FROM mcp_schema_version;"
             "INSERT INTO mcp_schema_version VALUES (%d)",
             SCHEMA_VERSION);
    r = PQexec(c, text);
    if (!ok(r)) {
      st = failed(c, r, "schema version", err);
      goto done;
    }
    PQclear(r);
  }
done:
  r = PQexec(c, st == MCP_OK ? "COMMIT" : "ROLLBACK");
  if (st == MCP_OK && !ok(r))
    return failed(c, r, "commit migration", err);
  PQclear(r);
  return st;
}
