/* SPDX-License-Identifier: MIT */
/* store_contract_test.c - one list of cases run over every store backend
 * (memory, SQLite; PostgreSQL when run as `store_contract_test postgres`
 * by the CTest test store_contract_pg, which starts a private server):
 * round trips with NULL fields, duplicate ids, the
 * compare-and-set that keeps terminal states final (also under threads),
 * listing order, filters and keyset paging, delete, sweep, scope isolation.
 * SQLite also gets persistence across reopen and its schema version. */
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/store.h"

#include <sqlite3.h>

#include "pg_test.h"

typedef struct backend {
  const char *name;
  mcp_store_t *(*open)(void);
} backend;

static char db_path[256];

static mcp_store_t *open_memory(void) {
  mcp_store_t *s = NULL;
  assert_int_equal(mcp_store_memory_new(&s), MCP_OK);
  return s;
}

static mcp_store_t *open_sqlite(void) {
  mcp_store_t *s = NULL;
  mcp_error_t err;
  unlink(db_path);
  char wal[300];
  snprintf(wal, sizeof wal, "%s-wal", db_path);
  unlink(wal);
  snprintf(wal, sizeof wal, "%s-shm", db_path);
  unlink(wal);
  assert_int_equal(mcp_store_sqlite_open(db_path, &s, &err), MCP_OK);
  return s;
}

static char pg_conninfo[768];

/* A fresh schema for every case: everything is dropped, the store's
 * migrations create it again. */
static mcp_store_t *open_postgres(void) {
  assert_true(pg_test_sql(pg_conninfo, "DROP SCHEMA public CASCADE;"
                                       "CREATE SCHEMA public"));
  mcp_store_t *s = NULL;
  mcp_error_t err;
  mcp_status st = mcp_store_postgres_open(pg_conninfo, 3, &s, &err);
  if (st != MCP_OK)
    fprintf(stderr, "open: %s\n", err.message);
  assert_int_equal(st, MCP_OK);
  return s;
}

static mcp_task_record rec_of(const char *scope, const char *id,
                              int64_t created, mcp_task_status st) {
  mcp_task_record r = {0};
  r.scope = (char *)scope;
  r.task_id = (char *)id;
  r.status = st;
  r.created_ms = r.updated_ms = created;
  r.ttl_ms = -1;
  r.poll_interval_ms = -1;
  return r;
}

static void case_round_trip(mcp_store_t *s) {
  mcp_task_record r = rec_of("srv", "t1", 1000, MCP_TASK_WORKING);
  r.owner = "alice";
  r.session = "sess";
  r.tool = "export";
  r.status_message = "started";
  r.ttl_ms = 5000;
  r.poll_interval_ms = 250;
  assert_int_equal(mcp_store_task_put(s, &r, NULL), MCP_OK);
  mcp_task_record g;
  assert_int_equal(mcp_store_task_get(s, "srv", "t1", &g, NULL), MCP_OK);
  assert_string_equal(g.owner, "alice");
  assert_string_equal(g.session, "sess");
  assert_string_equal(g.tool, "export");
  assert_string_equal(g.status_message, "started");
  assert_int_equal(g.status, MCP_TASK_WORKING);
  assert_int_equal(g.created_ms, 1000);
  assert_int_equal(g.ttl_ms, 5000);
  assert_int_equal(g.poll_interval_ms, 250);
  assert_null(g.result);
  assert_null(g.error);
  mcp_task_record_clear(&g);
  /* NULLs and "unlimited" survive */
  mcp_task_record n = rec_of("srv", "t2", 1001, MCP_TASK_WORKING);
  assert_int_equal(mcp_store_task_put(s, &n, NULL), MCP_OK);
  assert_int_equal(mcp_store_task_get(s, "srv", "t2", &g, NULL), MCP_OK);
  assert_null(g.owner);
  assert_null(g.session);
  assert_null(g.status_message);
  assert_int_equal(g.ttl_ms, -1);
  assert_int_equal(g.poll_interval_ms, -1);
  mcp_task_record_clear(&g);
  mcp_error_t err;
  assert_int_equal(mcp_store_task_put(s, &n, &err), MCP_ERR_EXISTS);
  assert_int_equal(mcp_store_task_get(s, "srv", "nope", &g, NULL),
                   MCP_ERR_NOT_FOUND);
  /* scopes are separate */
  assert_int_equal(mcp_store_task_get(s, "other", "t1", &g, NULL),
                   MCP_ERR_NOT_FOUND);
  mcp_task_record o = rec_of("other", "t1", 5, MCP_TASK_WORKING);
  assert_int_equal(mcp_store_task_put(s, &o, NULL), MCP_OK);
}

static void case_cas(mcp_store_t *s) {
  mcp_task_record r = rec_of("srv", "c1", 10, MCP_TASK_WORKING);
  assert_int_equal(mcp_store_task_put(s, &r, NULL), MCP_OK);
  mcp_task_record u = rec_of("srv", "c1", 10, MCP_TASK_INPUT_REQUIRED);
  u.updated_ms = 20;
  u.status_message = "need input";
  mcp_task_status cur;
  assert_int_equal(mcp_store_task_update(s, &u, &cur, NULL), MCP_OK);
  assert_int_equal(cur, MCP_TASK_INPUT_REQUIRED);
  u.status = MCP_TASK_COMPLETED;
  u.status_message = NULL;
  u.updated_ms = 30;
  u.result = "{\"content\":[]}";
  assert_int_equal(mcp_store_task_update(s, &u, NULL, NULL), MCP_OK);
  mcp_task_record g;
  assert_int_equal(mcp_store_task_get(s, "srv", "c1", &g, NULL), MCP_OK);
  assert_int_equal(g.status, MCP_TASK_COMPLETED);
  assert_int_equal(g.updated_ms, 30);
  assert_null(g.status_message);
  assert_string_equal(g.result, "{\"content\":[]}");
  mcp_task_record_clear(&g);
  /* terminal is final */
  u.status = MCP_TASK_CANCELLED;
  u.result = NULL;
  assert_int_equal(mcp_store_task_update(s, &u, &cur, NULL), MCP_ERR_STATE);
  assert_int_equal(cur, MCP_TASK_COMPLETED);
  u.task_id = "missing";
  assert_int_equal(mcp_store_task_update(s, &u, NULL, NULL), MCP_ERR_NOT_FOUND);
}

static bool collect(const mcp_task_record *r, void *ud) {
  json_array_append_new(ud, json_string(r->task_id));
  return true;
}

static void case_list(mcp_store_t *s) {
  const char *ids[] = {"b", "a", "c", "d", "e"};
  int64_t created[] = {100, 100, 50, 200, 300};
  for (int i = 0; i < 5; i++) {
    mcp_task_record r = rec_of("L", ids[i], created[i], MCP_TASK_WORKING);
    r.owner = i < 3 ? "alice" : "bob";
    r.session = i % 2 ? "s1" : "s2";
    assert_int_equal(mcp_store_task_put(s, &r, NULL), MCP_OK);
  }
  mcp_task_record done = rec_of("L", "e", 300, MCP_TASK_FAILED);
  assert_int_equal(mcp_store_task_update(s, &done, NULL, NULL), MCP_OK);
  json_t *got = json_array();
  assert_int_equal(mcp_store_task_list(s, "L", NULL, 0, collect, got, NULL),
                   MCP_OK);
  char *text = json_dumps(got, JSON_COMPACT);
  assert_string_equal(text, "[\"c\",\"a\",\"b\",\"d\",\"e\"]");
  free(text);
  json_array_clear(got);
  mcp_task_filter f = {0};
  f.owner = "alice";
  f.after_created_ms = 100;
  f.after_id = "a";
  assert_int_equal(mcp_store_task_list(s, "L", &f, 0, collect, got, NULL),
                   MCP_OK);
  text = json_dumps(got, JSON_COMPACT);
  assert_string_equal(text, "[\"b\"]");
  free(text);
  json_array_clear(got);
  mcp_task_filter g = {0};
  g.session = "s2";
  g.active_only = true;
  assert_int_equal(mcp_store_task_list(s, "L", &g, 1, collect, got, NULL),
                   MCP_OK);
  text = json_dumps(got, JSON_COMPACT);
  assert_string_equal(text, "[\"c\"]");
  free(text);
  json_array_clear(got);
  mcp_task_filter h = {0};
  h.created_before_ms = 101;
  assert_int_equal(mcp_store_task_list(s, "L", &h, 0, collect, got, NULL),
                   MCP_OK);
  assert_int_equal(json_array_size(got), 3);
  json_decref(got);
}

static void case_delete_and_sweep(mcp_store_t *s) {
  mcp_task_record a = rec_of("S", "exp", 1000, MCP_TASK_WORKING);
  a.ttl_ms = 500; /* expires at 1500 */
  mcp_task_record b = rec_of("S", "old", 1000, MCP_TASK_WORKING);
  mcp_task_record c = rec_of("S", "live", 1000, MCP_TASK_WORKING);
  c.ttl_ms = 100000;
  mcp_task_record d = rec_of("S", "young", 1000, MCP_TASK_WORKING);
  assert_int_equal(mcp_store_task_put(s, &a, NULL), MCP_OK);
  assert_int_equal(mcp_store_task_put(s, &b, NULL), MCP_OK);
  assert_int_equal(mcp_store_task_put(s, &c, NULL), MCP_OK);
  assert_int_equal(mcp_store_task_put(s, &d, NULL), MCP_OK);
  mcp_task_record bt = rec_of("S", "old", 1000, MCP_TASK_COMPLETED);
  bt.updated_ms = 1100;
  assert_int_equal(mcp_store_task_update(s, &bt, NULL, NULL), MCP_OK);
  mcp_task_record dt = rec_of("S", "young", 1000, MCP_TASK_COMPLETED);
  dt.updated_ms = 1900;
  assert_int_equal(mcp_store_task_update(s, &dt, NULL, NULL), MCP_OK);
  json_t *got = json_array();
  /* now 2000, retention 500: old (updated 1100) goes, young (1900) stays */
  assert_int_equal(mcp_store_task_sweep(s, "S", 2000, 500, NULL, NULL, NULL),
                   MCP_OK);
  assert_int_equal(mcp_store_task_list(s, "S", NULL, 0, collect, got, NULL),
                   MCP_OK);
  char *text = json_dumps(got, JSON_COMPACT);
  assert_string_equal(text, "[\"live\",\"young\"]");
  free(text);
  json_decref(got);
  assert_int_equal(mcp_store_task_delete(s, "S", "live", NULL), MCP_OK);
  assert_int_equal(mcp_store_task_delete(s, "S", "live", NULL),
                   MCP_ERR_NOT_FOUND);
  /* retention < 0 keeps terminal tasks without ttl */
  assert_int_equal(
      mcp_store_task_sweep(s, "S", 999999999, -1, NULL, NULL, NULL), MCP_OK);
  mcp_task_record g;
  assert_int_equal(mcp_store_task_get(s, "S", "young", &g, NULL), MCP_OK);
  mcp_task_record_clear(&g);
}

typedef struct race {
  mcp_store_t *s;
  mcp_task_status to;
  int wins;
} race;

static void *racer(void *arg) {
  race *r = arg;
  char id[16];
  for (int i = 0; i < 100; i++) {
    snprintf(id, sizeof id, "r%d", i);
    mcp_task_record u = rec_of("R", id, 1, r->to);
    if (mcp_store_task_update(r->s, &u, NULL, NULL) == MCP_OK)
      r->wins++;
  }
  return NULL;
}

static void case_concurrent_cas(mcp_store_t *s) {
  char id[16];
  for (int i = 0; i < 100; i++) {
    snprintf(id, sizeof id, "r%d", i);
    mcp_task_record r = rec_of("R", id, 1, MCP_TASK_WORKING);
    assert_int_equal(mcp_store_task_put(s, &r, NULL), MCP_OK);
  }
  race rs[4] = {{s, MCP_TASK_COMPLETED, 0},
                {s, MCP_TASK_CANCELLED, 0},
                {s, MCP_TASK_FAILED, 0},
                {s, MCP_TASK_COMPLETED, 0}};
  pthread_t th[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, racer, &rs[i]);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  /* exactly one terminal write wins per task */
  assert_int_equal(rs[0].wins + rs[1].wins + rs[2].wins + rs[3].wins, 100);
}

static void (*const cases[])(mcp_store_t *) = {case_round_trip, case_cas,
                                               case_list, case_delete_and_sweep,
                                               case_concurrent_cas};

static void run_all(mcp_store_t *(*open)(void)) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mcp_store_t *s = open();
    cases[i](s);
    mcp_store_free(s);
  }
}

static void test_memory_store_contract(void **state) {
  (void)state;
  run_all(open_memory);
  mcp_store_t *s = NULL;
  assert_int_equal(mcp_store_open("memory", &s, NULL), MCP_OK);
  assert_string_equal(mcp_store_name(s), "memory");
  mcp_store_free(s);
}

static void test_sqlite_store_contract(void **state) {
  (void)state;
  run_all(open_sqlite);
}

static void test_sqlite_store_persists_and_versions_schema(void **state) {
  (void)state;
  mcp_store_t *s = open_sqlite();
  assert_string_equal(mcp_store_name(s), "sqlite");
  mcp_task_record r = rec_of("P", "keep", 42, MCP_TASK_WORKING);
  r.result = "{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}";
  assert_int_equal(mcp_store_task_put(s, &r, NULL), MCP_OK);
  mcp_store_free(s);
  char spec[300];
  snprintf(spec, sizeof spec, "sqlite:%s", db_path);
  mcp_error_t err;
  assert_int_equal(mcp_store_open(spec, &s, &err), MCP_OK);
  mcp_task_record g;
  assert_int_equal(mcp_store_task_get(s, "P", "keep", &g, NULL), MCP_OK);
  assert_string_equal(g.result, r.result);
  mcp_task_record_clear(&g);
  mcp_store_free(s);
  /* the schema version is recorded, and a newer one is refused */
  sqlite3 *db;
  assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "SELECT version FROM mcp_schema_version", -1, &st,
                     NULL);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(st, 0), 2);
  sqlite3_finalize(st);
  sqlite3_exec(db, "UPDATE mcp_schema_version SET version = 99", NULL, NULL,
               NULL);
  sqlite3_close(db);
  assert_int_equal(mcp_store_open(spec, &s, &err), MCP_ERR_UNSUPPORTED);
  assert_int_equal(mcp_store_open("bogus", &s, &err), MCP_ERR_INVALID_ARG);
}

static void test_postgres_store_contract(void **state) {
  (void)state;
  run_all(open_postgres);
}

/* Reopening keeps the data; the schema version is recorded and a newer one
 * is refused; the URI form goes through mcp_store_open; an unreachable
 * database is a clear MCP_ERR_IO, not a hang. */
static void test_postgres_store_persists_and_versions_schema(void **state) {
  (void)state;
  mcp_store_t *s = open_postgres();
  assert_string_equal(mcp_store_name(s), "postgres");
  mcp_task_record r = rec_of("P", "keep", 42, MCP_TASK_WORKING);
  r.result = "{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}";
  assert_int_equal(mcp_store_task_put(s, &r, NULL), MCP_OK);
  mcp_store_free(s);
  mcp_error_t err;
  assert_int_equal(mcp_store_postgres_open(pg_conninfo, 0, &s, &err), MCP_OK);
  mcp_task_record g;
  assert_int_equal(mcp_store_task_get(s, "P", "keep", &g, NULL), MCP_OK);
  assert_string_equal(g.result, r.result);
  mcp_task_record_clear(&g);
  mcp_store_free(s);
  assert_true(
      pg_test_sql(pg_conninfo, "UPDATE mcp_schema_version SET version = 99"));
  assert_int_equal(mcp_store_postgres_open(pg_conninfo, 0, &s, &err),
                   MCP_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "newer"));
  assert_int_equal(
      mcp_store_open("postgres://nobody@/nodb?host=/nonexistent", &s, &err),
      MCP_ERR_IO);
  assert_null(s);
  assert_non_null(strstr(err.message, "postgres"));
}

/* Two stores on one database stand for two replicas: the tasks of one that
 * stops renewing its leases (closed here without finishing them; killed in
 * tests/pg/replicas_test.c) are failed by the other, with a "Lost" message
 * and an isError result, while the other's own tasks stay working. */
static void test_postgres_lease_expiry(void **state) {
  (void)state;
  mcp_store_t *a = open_postgres(), *b = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_store_postgres_set_lease(a, 300), MCP_OK);
  mcp_task_record ra = rec_of("lease", "on-a", 1, MCP_TASK_WORKING);
  assert_int_equal(mcp_store_task_put(a, &ra, NULL), MCP_OK);
  assert_int_equal(mcp_store_postgres_open(pg_conninfo, 2, &b, &err), MCP_OK);
  assert_int_equal(mcp_store_postgres_set_lease(b, 300), MCP_OK);
  mcp_task_record rb = rec_of("lease", "on-b", 1, MCP_TASK_WORKING);
  assert_int_equal(mcp_store_task_put(b, &rb, NULL), MCP_OK);
  mcp_store_free(a); /* "replica A" stops renewing */
  mcp_task_record g = {0};
  bool lost = false;
  for (int i = 0; i < 300 && !lost; i++) { /* up to 30 s */
    usleep(100 * 1000);
    assert_int_equal(mcp_store_task_get(b, "lease", "on-a", &g, NULL), MCP_OK);
    lost = g.status == MCP_TASK_FAILED;
    if (!lost)
      mcp_task_record_clear(&g);
  }
  assert_true(lost);
  assert_non_null(strstr(g.status_message, "Lost"));
  json_t *res = json_loads(g.result, 0, NULL);
  assert_true(json_is_true(json_object_get(res, "isError")));
  assert_string_equal(
      json_string_value(json_object_get(
          json_array_get(json_object_get(res, "content"), 0), "text")),
      g.status_message);
  json_decref(res);
  mcp_task_record_clear(&g);
  /* B renews its own task */
  assert_int_equal(mcp_store_task_get(b, "lease", "on-b", &g, NULL), MCP_OK);
  assert_int_equal(g.status, MCP_TASK_WORKING);
  mcp_task_record_clear(&g);
  assert_int_equal(mcp_store_postgres_set_lease(b, 50), MCP_ERR_INVALID_ARG);
  mcp_store_free(b);
  mcp_store_t *m = open_memory();
  assert_int_equal(mcp_store_postgres_set_lease(m, 1000), MCP_ERR_UNSUPPORTED);
  mcp_store_free(m);
}

/* Every store on the database reads the same secret; names differ. */
static void test_postgres_shared_secret(void **state) {
  (void)state;
  mcp_store_t *a = open_postgres(), *b = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_store_postgres_open(pg_conninfo, 1, &b, &err), MCP_OK);
  unsigned char ka[32], kb[32], other[32];
  assert_int_equal(mcp_store_postgres_shared_secret(a, "k", ka, 32, &err),
                   MCP_OK);
  assert_int_equal(mcp_store_postgres_shared_secret(b, "k", kb, 32, &err),
                   MCP_OK);
  assert_memory_equal(ka, kb, 32);
  assert_int_equal(mcp_store_postgres_shared_secret(b, "j", other, 32, &err),
                   MCP_OK);
  assert_memory_not_equal(ka, other, 32);
  assert_int_equal(mcp_store_postgres_shared_secret(b, "k", kb, 16, &err),
                   MCP_ERR_STATE); /* stored with another length */
  assert_int_equal(mcp_store_postgres_shared_secret(b, "k", kb, 8, &err),
                   MCP_ERR_INVALID_ARG);
  mcp_store_free(a);
  mcp_store_free(b);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "postgres") == 0) {
    pg_test_fresh_db("mcp_contract", pg_conninfo, sizeof pg_conninfo);
    const struct CMUnitTest pg_tests[] = {
        cmocka_unit_test(test_postgres_store_contract),
        cmocka_unit_test(test_postgres_store_persists_and_versions_schema),
        cmocka_unit_test(test_postgres_lease_expiry),
        cmocka_unit_test(test_postgres_shared_secret),
    };
    int rc = cmocka_run_group_tests(pg_tests, NULL, NULL);
    pg_test_drop_db("mcp_contract");
    return rc;
  }
  snprintf(db_path, sizeof db_path, "/tmp/mcp-store-contract-%d.db",
           (int)getpid());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memory_store_contract),
      cmocka_unit_test(test_sqlite_store_contract),
      cmocka_unit_test(test_sqlite_store_persists_and_versions_schema),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  unlink(db_path);
  char side[300];
  snprintf(side, sizeof side, "%s-wal", db_path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", db_path);
  unlink(side);
  return rc;
}
