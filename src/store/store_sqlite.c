/* SPDX-License-Identifier: MIT */
/* store_sqlite.c - the durable task store on SQLite.
 *
 * One connection guarded by one mutex, prepared statements reused for every
 * call. WAL journal with synchronous=NORMAL: a commit is durable against a
 * crash of the process (what the restart guarantees need); only a power
 * loss can undo the last commits. Every write is a BEGIN IMMEDIATE
 * transaction, so another process writing the same file waits on
 * busy_timeout instead of failing half-way. The schema is versioned in
 * mcp_schema_version and migrated forward on open. ttl is stored in ms
 * (NULL = unlimited).
 *
 * Schema 2 keeps a task's request (the tools/call it came from) when the
 * engine may run it again at the next start, and counts its runs
 * (store/task_rerun.h): a restart, graceful or not, resumes such a task.
 */
#include "store/store_internal.h"
#include "store/task_changes.h"
#include "store/task_rerun.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#define SCHEMA_VERSION 2

/* Migration i brings the schema from version i to i + 1. */
static const char *const migrations[] = {
    "CREATE TABLE IF NOT EXISTS mcp_tasks ("
    " scope TEXT NOT NULL, task_id TEXT NOT NULL, owner TEXT, session TEXT,"
    " tool TEXT, status TEXT NOT NULL, status_message TEXT,"
    " created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL,"
    " ttl_ms INTEGER, poll_interval_ms INTEGER, result TEXT, error TEXT,"
    " PRIMARY KEY (scope, task_id)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS mcp_tasks_by_created"
    " ON mcp_tasks(scope, created_ms, task_id);",
    /* 2: the request of a task that may run again at the next start, and
     * how many times it ran (task_rerun.h) */
    "ALTER TABLE mcp_tasks ADD COLUMN request TEXT;"
    "ALTER TABLE mcp_tasks ADD COLUMN runs INTEGER NOT NULL DEFAULT 1;",
};

enum {
  S_PUT,
  S_GET,
  S_UPDATE,
  S_STATUS,
  S_DELETE,
  S_BEGIN,
  S_COMMIT,
  S_ROLLBACK,
  S_DATA_VERSION,
  S_RERUN,
  S_REQUEST,
  S_COUNT
};

static const char *const sql[S_COUNT] = {
    [S_PUT] = "INSERT INTO mcp_tasks (scope, task_id, owner, session, tool,"
              " status, status_message, created_ms, updated_ms, ttl_ms,"
              " poll_interval_ms, result, error, request)"
              " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
    [S_GET] = "SELECT scope, task_id, owner, session, tool, status,"
              " status_message, created_ms, updated_ms, ttl_ms,"
              " poll_interval_ms, result, error FROM mcp_tasks"
              " WHERE scope = ?1 AND task_id = ?2",
    [S_UPDATE] = "UPDATE mcp_tasks SET status = ?3, status_message = ?4,"
                 " updated_ms = ?5, result = COALESCE(?6, result),"
                 " error = COALESCE(?7, error)"
                 " WHERE scope = ?1 AND task_id = ?2"
                 " AND status IN ('working', 'input_required')",
    [S_STATUS] =
        "SELECT status FROM mcp_tasks WHERE scope = ?1 AND task_id = ?2",
    [S_DELETE] = "DELETE FROM mcp_tasks WHERE scope = ?1 AND task_id = ?2",
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    /* changes whenever another connection committed (task_changes.h) */
    [S_DATA_VERSION] = "PRAGMA data_version",
    /* A task taken at start to run again: counted, "working" again, while
     * it is active, has its request and has runs left (?5). */
    [S_RERUN] = "UPDATE mcp_tasks SET runs = runs + 1, status = 'working',"
                " status_message = ?3 || ' (run ' || (runs + 1) || ' of '"
                " || ?5 || ')', updated_ms = ?4"
                " WHERE scope = ?1 AND task_id = ?2 AND request IS NOT NULL"
                " AND runs < ?5 AND status IN ('working', 'input_required')"
                " RETURNING request, runs",
    [S_REQUEST] = ("SELECT request FROM mcp_tasks"
                   " WHERE scope = ?1 AND task_id = ?2"),
};

typedef struct sqlstore {
  pthread_mutex_t lock;
  sqlite3 *db;
  sqlite3_stmt *stmt[S_COUNT];
} sqlstore;

static mcp_status db_error(sqlstore *q, mcp_error_t *err, const char *what) {
  return mcp_error_set(err, MCP_ERR_IO, "sqlite store: %s: %s", what,
                       sqlite3_errmsg(q->db));
}

/* Runs a cached statement that returns no rows. */
static bool step_done(sqlstore *q, int which) {
  sqlite3_stmt *s = q->stmt[which];
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  return rc == SQLITE_DONE;
}

static void bind_opt_text(sqlite3_stmt *s, int i, const char *v) {
  if (v)
    sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(s, i);
}

static void bind_opt_ms(sqlite3_stmt *s, int i, int64_t v) {
  if (v >= 0)
    sqlite3_bind_int64(s, i, v);
  else
    sqlite3_bind_null(s, i);
}

static char *col_text(sqlite3_stmt *s, int i, bool *ok) {
  const unsigned char *t = sqlite3_column_text(s, i);
  if (t == NULL)
    return NULL;
  char *copy = strdup((const char *)t);
  if (copy == NULL)
    *ok = false;
  return copy;
}

static int64_t col_opt_ms(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? -1
                                                  : sqlite3_column_int64(s, i);
}

/* Reads the 13 columns of a task row starting at column 0. */
static bool read_row(sqlite3_stmt *s, mcp_task_record *r) {
  bool ok = true;
  memset(r, 0, sizeof *r);
  r->scope = col_text(s, 0, &ok);
  r->task_id = col_text(s, 1, &ok);
  r->owner = col_text(s, 2, &ok);
  r->session = col_text(s, 3, &ok);
  r->tool = col_text(s, 4, &ok);
  const char *status = (const char *)sqlite3_column_text(s, 5);
  if (status == NULL || mcp_task_status_parse(status, &r->status) != MCP_OK)
    r->status = MCP_TASK_FAILED; /* a foreign value: never resurrect it */
  r->status_message = col_text(s, 6, &ok);
  r->created_ms = sqlite3_column_int64(s, 7);
  r->updated_ms = sqlite3_column_int64(s, 8);
  r->ttl_ms = col_opt_ms(s, 9);
  r->poll_interval_ms = col_opt_ms(s, 10);
  r->result = col_text(s, 11, &ok);
  r->error = col_text(s, 12, &ok);
  if (!ok || r->scope == NULL || r->task_id == NULL) {
    mcp_task_record_clear(r);
    return false;
  }
  return true;
}

static mcp_status put_task(sqlstore *q, const mcp_task_record *r,
                          const char *request, mcp_error_t *err) {
  pthread_mutex_lock(&q->lock);
  sqlite3_stmt *s = q->stmt[S_PUT];
  sqlite3_bind_text(s, 1, r->scope, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, r->task_id, -1, SQLITE_STATIC);
  bind_opt_text(s, 3, r->owner);
  bind_opt_text(s, 4, r->session);
  bind_opt_text(s, 5, r->tool);
  sqlite3_bind_text(s, 6, mcp_task_status_name(r->status), -1, SQLITE_STATIC);
  bind_opt_text(s, 7, r->status_message);
  sqlite3_bind_int64(s, 8, r->created_ms);
  sqlite3_bind_int64(s, 9, r->updated_ms);
  bind_opt_ms(s, 10, r->ttl_ms);
  bind_opt_ms(s, 11, r->poll_interval_ms);
  bind_opt_text(s, 12, r->result);
  bind_opt_text(s, 13, r->error);
  bind_opt_text(s, 14, request);
  /* A single INSERT is its own transaction; SQLite takes the write lock
   * before changing anything, which is what BEGIN IMMEDIATE buys for the
   * multi-statement writes below. */
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  mcp_status st = MCP_OK;
  if (rc == SQLITE_CONSTRAINT)
    st = mcp_error_set(err, MCP_ERR_EXISTS, "task id already exists");
  else if (rc != SQLITE_DONE)
    st = db_error(q, err, "insert");
  pthread_mutex_unlock(&q->lock);
  return st;
}

static mcp_status sq_put(void *impl, const mcp_task_record *r,
                         mcp_error_t *err) {
  return put_task(impl, r, NULL, err);
}

static mcp_status sq_get(void *impl, const char *scope, const char *id,
                         mcp_task_record *out, mcp_error_t *err) {
  sqlstore *q = impl;
  pthread_mutex_lock(&q->lock);
  sqlite3_stmt *s = q->stmt[S_GET];
  sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, id, -1, SQLITE_STATIC);
  int rc = sqlite3_step(s);
  mcp_status st = MCP_OK;
  if (rc == SQLITE_ROW)
    st = read_row(s, out) ? MCP_OK
                          : mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  else if (rc == SQLITE_DONE)
    st = mcp_error_set(err, MCP_ERR_NOT_FOUND, "task not found");
  else
    st = db_error(q, err, "select");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  pthread_mutex_unlock(&q->lock);
  return st;
}

static mcp_status sq_update(void *impl, const mcp_task_record *r,
                            mcp_task_status *current, mcp_error_t *err) {
  sqlstore *q = impl;
  pthread_mutex_lock(&q->lock);
  mcp_status st = MCP_OK;
  if (!step_done(q, S_BEGIN)) {
    st = db_error(q, err, "begin");
    pthread_mutex_unlock(&q->lock);
    return st;
  }
  sqlite3_stmt *s = q->stmt[S_UPDATE];
  sqlite3_bind_text(s, 1, r->scope, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, r->task_id, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 3, mcp_task_status_name(r->status), -1, SQLITE_STATIC);
  bind_opt_text(s, 4, r->status_message);
  sqlite3_bind_int64(s, 5, r->updated_ms);
  bind_opt_text(s, 6, r->result);
  bind_opt_text(s, 7, r->error);
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (rc != SQLITE_DONE) {
    st = db_error(q, err, "update");
  } else if (sqlite3_changes(q->db) == 0) {
    /* Tell "absent" from "terminal" inside the same transaction. */
    sqlite3_stmt *g = q->stmt[S_STATUS];
    sqlite3_bind_text(g, 1, r->scope, -1, SQLITE_STATIC);
    sqlite3_bind_text(g, 2, r->task_id, -1, SQLITE_STATIC);
    if (sqlite3_step(g) == SQLITE_ROW) {
      mcp_task_status cur = MCP_TASK_FAILED;
      mcp_task_status_parse((const char *)sqlite3_column_text(g, 0), &cur);
      if (current)
        *current = cur;
      st = mcp_error_set(err, MCP_ERR_STATE,
                         "task is already in a terminal status");
    } else {
      st = mcp_error_set(err, MCP_ERR_NOT_FOUND, "task not found");
    }
    sqlite3_reset(g);
    sqlite3_clear_bindings(g);
  } else if (current) {
    *current = r->status;
  }
  if (st == MCP_OK || st == MCP_ERR_STATE || st == MCP_ERR_NOT_FOUND) {
    if (!step_done(q, S_COMMIT)) {
      st = db_error(q, err, "commit");
      step_done(q, S_ROLLBACK);
    }
  } else {
    step_done(q, S_ROLLBACK);
  }
  pthread_mutex_unlock(&q->lock);
  return st;
}

static mcp_status sq_list(void *impl, const char *scope,
                          const mcp_task_filter *f, size_t limit,
                          mcp_task_visit_fn fn, void *ud, mcp_error_t *err) {
  sqlstore *q = impl;
  char text[768];
  snprintf(text, sizeof text,
           "SELECT scope, task_id, owner, session, tool, status,"
           " status_message, created_ms, updated_ms, ttl_ms, poll_interval_ms,"
           " result, error FROM mcp_tasks WHERE scope = ?1%s%s%s%s%s"
           " ORDER BY created_ms, task_id%s",
           f->owner ? " AND owner = ?2" : "",
           f->session ? " AND session = ?3" : "",
           f->active_only ? " AND status IN ('working','input_required')" : "",
           f->created_before_ms > 0 ? " AND created_ms < ?4" : "",
           f->after_id ? " AND (created_ms > ?5 OR (created_ms = ?5 AND"
                         " task_id > ?6))"
                       : "",
           limit > 0 ? " LIMIT ?7" : "");
  /* Rows are copied out first, then visited without the lock, so a visitor
   * may call back into the store (update each row, for instance). */
  mcp_task_record *rows = NULL;
  size_t n = 0, cap = 0;
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&q->lock);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(q->db, text, -1, &s, NULL) != SQLITE_OK) {
    st = db_error(q, err, "list");
    pthread_mutex_unlock(&q->lock);
    return st;
  }
  sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
  if (f->owner)
    sqlite3_bind_text(s, 2, f->owner, -1, SQLITE_STATIC);
  if (f->session)
    sqlite3_bind_text(s, 3, f->session, -1, SQLITE_STATIC);
  if (f->created_before_ms > 0)
    sqlite3_bind_int64(s, 4, f->created_before_ms);
  if (f->after_id) {
    sqlite3_bind_int64(s, 5, f->after_created_ms);
    sqlite3_bind_text(s, 6, f->after_id, -1, SQLITE_STATIC);
  }
  if (limit > 0)
    sqlite3_bind_int64(s, 7, (sqlite3_int64)limit);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (n == cap) {
      size_t ncap = cap ? cap * 2 : 16;
      mcp_task_record *grown = realloc(rows, ncap * sizeof *rows);
      if (grown == NULL) {
        st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
        break;
      }
      rows = grown;
      cap = ncap;
    }
    if (!read_row(s, &rows[n])) {
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
      break;
    }
    n++;
  }
  if (st == MCP_OK && rc != SQLITE_DONE)
    st = db_error(q, err, "list");
  sqlite3_finalize(s);
  pthread_mutex_unlock(&q->lock);
  bool go = st == MCP_OK;
  for (size_t i = 0; i < n; i++) {
    if (go)
      go = fn(&rows[i], ud);
    mcp_task_record_clear(&rows[i]);
  }
  free(rows);
  return st;
}

static mcp_status sq_delete(void *impl, const char *scope, const char *id,
                            mcp_error_t *err) {
  sqlstore *q = impl;
  pthread_mutex_lock(&q->lock);
  sqlite3_stmt *s = q->stmt[S_DELETE];
  sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, id, -1, SQLITE_STATIC);
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  mcp_status st = MCP_OK;
  if (rc != SQLITE_DONE)
    st = db_error(q, err, "delete");
  else if (sqlite3_changes(q->db) == 0)
    st = mcp_error_set(err, MCP_ERR_NOT_FOUND, "task not found");
  pthread_mutex_unlock(&q->lock);
  return st;
}

typedef struct removed {
  char **ids;
  const char **reasons;
  size_t n, cap;
} removed;

static bool remember(removed *r, const char *id, const char *reason) {
  if (r->n == r->cap) {
    size_t ncap = r->cap ? r->cap * 2 : 16;
    char **ids = realloc(r->ids, ncap * sizeof *ids);
    if (ids == NULL)
      return false;
    r->ids = ids;
    const char **reasons = realloc(r->reasons, ncap * sizeof *reasons);
    if (reasons == NULL)
      return false;
    r->reasons = reasons;
    r->cap = ncap;
  }
  if ((r->ids[r->n] = strdup(id)) == NULL)
    return false;
  r->reasons[r->n++] = reason;
  return true;
}

static mcp_status sq_sweep(void *impl, const char *scope, int64_t now_ms,
                           int64_t retention_ms, mcp_task_removed_fn fn,
                           void *ud, mcp_error_t *err) {
  sqlstore *q = impl;
  static const char *select_sql =
      "SELECT task_id, CASE WHEN ttl_ms IS NOT NULL THEN 1 ELSE 0 END"
      " FROM mcp_tasks WHERE scope = ?1 AND ("
      " (ttl_ms IS NOT NULL AND created_ms + ttl_ms <= ?2) OR"
      " (ttl_ms IS NULL AND ?3 >= 0 AND updated_ms <= ?2 - ?3 AND"
      "  status IN ('completed','failed','cancelled')))";
  removed gone = {0};
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&q->lock);
  sqlite3_stmt *s = NULL;
  if (!step_done(q, S_BEGIN)) {
    st = db_error(q, err, "begin");
    goto out;
  }
  if (sqlite3_prepare_v2(q->db, select_sql, -1, &s, NULL) != SQLITE_OK) {
    st = db_error(q, err, "sweep");
    step_done(q, S_ROLLBACK);
    goto out;
  }
  sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 2, now_ms);
  sqlite3_bind_int64(s, 3, retention_ms);
  while (st == MCP_OK && sqlite3_step(s) == SQLITE_ROW)
    if (!remember(&gone, (const char *)sqlite3_column_text(s, 0),
                  sqlite3_column_int(s, 1) ? "expired" : "retention"))
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  sqlite3_finalize(s);
  sqlite3_stmt *d = q->stmt[S_DELETE];
  for (size_t i = 0; st == MCP_OK && i < gone.n; i++) {
    sqlite3_bind_text(d, 1, scope, -1, SQLITE_STATIC);
    sqlite3_bind_text(d, 2, gone.ids[i], -1, SQLITE_STATIC);
    if (!step_done(q, S_DELETE))
      st = db_error(q, err, "delete");
    sqlite3_clear_bindings(d);
  }
  if (st == MCP_OK && !step_done(q, S_COMMIT))
    st = db_error(q, err, "commit");
  if (st != MCP_OK)
    step_done(q, S_ROLLBACK);
out:
  pthread_mutex_unlock(&q->lock);
  for (size_t i = 0; i < gone.n; i++) {
    if (st == MCP_OK && fn)
      fn(gone.ids[i], gone.reasons[i], ud);
    free(gone.ids[i]);
  }
  free(gone.ids);
  free(gone.reasons);
  return st;
}

static void sq_close(void *impl) {
  sqlstore *q = impl;
  for (int i = 0; i < S_COUNT; i++)
    sqlite3_finalize(q->stmt[i]);
  sqlite3_close(q->db);
  pthread_mutex_destroy(&q->lock);
  free(q);
}

static const mcp_store_ops sqlite_ops = {
    .version = 1,
    .name = "sqlite",
    .task_put = sq_put,
    .task_get = sq_get,
    .task_update = sq_update,
    .task_list = sq_list,
    .task_delete = sq_delete,
    .task_sweep = sq_sweep,
    .close = sq_close,
};

bool mcp__store_sqlite_task_changes(mcp_store_t *s, uint64_t *token) {
  if (mcp_store_get_ops(s) != &sqlite_ops)
    return false;
  sqlstore *q = mcp_store_impl(s);
  pthread_mutex_lock(&q->lock);
  sqlite3_stmt *st = q->stmt[S_DATA_VERSION];
  bool ok = sqlite3_step(st) == SQLITE_ROW;
  if (ok)
    *token = (uint64_t)sqlite3_column_int64(st, 0);
  sqlite3_reset(st);
  pthread_mutex_unlock(&q->lock);
  return ok;
}

/* Creates or migrates the schema in one IMMEDIATE transaction, so two
 * processes opening a fresh file at once cannot both migrate. */
static mcp_status migrate(sqlstore *q, mcp_error_t *err) {
  if (sqlite3_exec(q->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
    return db_error(q, err, "begin migration");
  int version = 0;
  sqlite3_stmt *s = NULL;
  mcp_status st = MCP_OK;
  if (sqlite3_exec(q->db,
                   "CREATE TABLE IF NOT EXISTS mcp_schema_version"
                   " (version INTEGER NOT NULL)",
                   NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(q->db, "SELECT max(version) FROM mcp_schema_version",
                         -1, &s, NULL) != SQLITE_OK) {
    st = db_error(q, err, "schema version");
    goto done;
  }
  if (sqlite3_step(s) == SQLITE_ROW)
    version = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  if (version > SCHEMA_VERSION) {
    st = mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                       "sqlite store: schema version %d is newer than this "
                       "libmcp supports (%d)",
                       version, SCHEMA_VERSION);
    goto done;
  }
  for (int v = version; v < SCHEMA_VERSION; v++)
    if (sqlite3_exec(q->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK) {
      st = db_error(q, err, "migration");
      goto done;
    }
  if (version < SCHEMA_VERSION) {
    char text[96];
    snprintf(text, sizeof text,
             "DELETE FROM mcp_schema_version;"
             "INSERT INTO mcp_schema_version VALUES (%d)",
             SCHEMA_VERSION);
    if (sqlite3_exec(q->db, text, NULL, NULL, NULL) != SQLITE_OK)
      st = db_error(q, err, "schema version");
  }
done:
  sqlite3_exec(q->db, st == MCP_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
  return st;
}

mcp_status mcp_store_sqlite_open(const char *path, mcp_store_t **out,
                                 mcp_error_t *err) {
  if (out)
    *out = NULL;
  if (path == NULL || *path == '\0' || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no database path given");
  sqlstore *q = calloc(1, sizeof *q);
  if (q == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  pthread_mutex_init(&q->lock, NULL);
  /* NOMUTEX: our own lock serializes use of the connection. */
  int rc = sqlite3_open_v2(
      path, &q->db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  mcp_status st = MCP_OK;
  if (rc != SQLITE_OK) {
    st = mcp_error_set(err, MCP_ERR_IO, "cannot open %s: %s", path,
                       q->db ? sqlite3_errmsg(q->db) : "out of memory");
    goto fail;
  }
  sqlite3_busy_timeout(q->db, 5000);
  if (sqlite3_exec(q->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                   NULL, NULL, NULL) != SQLITE_OK) {
    st = db_error(q, err, "pragmas");
    goto fail;
  }
  if ((st = migrate(q, err)) != MCP_OK)
    goto fail;
  for (int i = 0; i < S_COUNT; i++)
    if (sqlite3_prepare_v3(q->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                           &q->stmt[i], NULL) != SQLITE_OK) {
      st = db_error(q, err, "prepare");
      goto fail;
    }
  return mcp_store_new(&sqlite_ops, q, out);
fail:
  sq_close(q);
  return st;
}

/* ---- task_rerun.h: tasks that run again at the next start ---------------- */
static sqlstore *sqlite_of(mcp_store_t *s) {
  return s && mcp_store_get_ops(s) == &sqlite_ops ? mcp_store_impl(s) : NULL;
}

mcp_status mcp__store_sqlite_put_rerunnable(mcp_store_t *s,
                                            const mcp_task_record *rec,
                                            const char *request,
                                            mcp_error_t *err) {
  sqlstore *q = sqlite_of(s);
  if (q == NULL)
    return MCP_ERR_UNSUPPORTED;
  if (rec == NULL || rec->scope == NULL || rec->task_id == NULL ||
      mcp_task_status_name(rec->status) == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid task record");
  return put_task(q, rec, request, err);
}

mcp_status mcp__store_task_request(mcp_store_t *s, const char *scope,
                                   const char *task_id, char **request,
                                   mcp_error_t *err) {
  *request = NULL;
  sqlstore *q = sqlite_of(s);
  if (q == NULL)
    return MCP_ERR_UNSUPPORTED;
  pthread_mutex_lock(&q->lock);
  sqlite3_stmt *g = q->stmt[S_REQUEST];
  sqlite3_bind_text(g, 1, scope, -1, SQLITE_STATIC);
  sqlite3_bind_text(g, 2, task_id, -1, SQLITE_STATIC);
  int rc = sqlite3_step(g);
  bool ok = true;
  mcp_status st = MCP_OK;
  if (rc == SQLITE_ROW) {
    *request = col_text(g, 0, &ok);
    if (!ok)
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  } else if (rc == SQLITE_DONE) {
    st = mcp_error_set(err, MCP_ERR_NOT_FOUND, "task not found");
  } else {
    st = db_error(q, err, "select request");
  }
  sqlite3_reset(g);
  sqlite3_clear_bindings(g);
  pthread_mutex_unlock(&q->lock);
  return st;
}

mcp_status mcp__store_task_rerun_at_start(mcp_store_t *s, const char *scope,
                                          const char *task_id,
                                          const char *message, int64_t now_ms,
                                          char **request, int *run,
                                          mcp_error_t *err) {
  *request = NULL;
  *run = 0;
  sqlstore *q = sqlite_of(s);
  if (q == NULL)
    return MCP_ERR_UNSUPPORTED;
  pthread_mutex_lock(&q->lock);
  sqlite3_stmt *u = q->stmt[S_RERUN];
  sqlite3_bind_text(u, 1, scope, -1, SQLITE_STATIC);
  sqlite3_bind_text(u, 2, task_id, -1, SQLITE_STATIC);
  sqlite3_bind_text(u, 3, message, -1, SQLITE_STATIC);
  sqlite3_bind_int64(u, 4, now_ms);
  sqlite3_bind_int(u, 5, MCP__TASK_RUNS_MAX);
  /* One statement, its own transaction: the row is read and changed under
   * SQLite's write lock. */
  int rc = sqlite3_step(u);
  bool ok = true;
  mcp_status st = MCP_OK;
  if (rc == SQLITE_ROW) {
    *request = col_text(u, 0, &ok);
    *run = sqlite3_column_int(u, 1);
    if (!ok || *request == NULL)
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  } else if (rc == SQLITE_DONE) {
    st = mcp_error_set(err, MCP_ERR_NOT_FOUND,
                       "task %s cannot run again (no request stored, out of "
                       "runs, or ended)",
                       task_id);
  } else {
    st = db_error(q, err, "rerun");
  }
  /* drain: RETURNING rows are produced before the change is final */
  while (rc == SQLITE_ROW)
    rc = sqlite3_step(u);
  sqlite3_reset(u);
  sqlite3_clear_bindings(u);
  pthread_mutex_unlock(&q->lock);
  if (st != MCP_OK) {
    free(*request);
    *request = NULL;
  }
  return st;
}
