/* SPDX-License-Identifier: MIT */
/* pg_test.h - the tests' side of tests/pg/pg-fixture.sh: where the private
 * PostgreSQL of this build listens, and a fresh database per test program
 * (tests run in parallel on the same server). */
#ifndef MCP_TEST_PG_H
#define MCP_TEST_PG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

/* Reads NAME='value' from the fixture's env file (env MCP_PG_ENV). */
static inline bool pg_test_env(const char *name, char *out, size_t cap) {
  const char *path = getenv("MCP_PG_ENV");
  FILE *f = path ? fopen(path, "r") : NULL;
  if (f == NULL)
    return false;
  char line[1024];
  size_t n = strlen(name);
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    if (strncmp(line, name, n) != 0 || line[n] != '=' || line[n + 1] != '\'')
      continue;
    char *v = line + n + 2, *end = strrchr(v, '\'');
    if (end == NULL)
      continue;
    *end = '\0';
    snprintf(out, cap, "%s", v);
    found = true;
  }
  fclose(f);
  return found;
}

/* The fixture's base conninfo; exits 77 with the fixture's reason when
 * PostgreSQL is not available (the fixture itself fails when CI=true). */
static inline void pg_test_base(char *out, size_t cap) {
  char why[512];
  if (pg_test_env("MCP_PG_SKIP", why, sizeof why)) {
    fprintf(stderr, "SKIP: %s\n", why);
    exit(77);
  }
  if (!pg_test_env("MCP_PG_CONNINFO", out, cap)) {
    fprintf(stderr, "no PostgreSQL fixture: run through ctest (MCP_PG_ENV "
                    "names the env file of tests/pg/pg-fixture.sh)\n");
    exit(1);
  }
}

/* Runs sql on conninfo; false (message on stderr) on failure. */
static inline bool pg_test_sql(const char *conninfo, const char *sql) {
  PGconn *c = PQconnectdb(conninfo);
  bool ok = PQstatus(c) == CONNECTION_OK;
  if (ok) {
    PQclear(PQexec(c, "SET client_min_messages = warning"));
    PGresult *r = PQexec(c, sql);
    ExecStatusType s = PQresultStatus(r);
    ok = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
    if (!ok)
      fprintf(stderr, "pg_test_sql %s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
  } else {
    fprintf(stderr, "pg_test_sql: %s", PQerrorMessage(c));
  }
  PQfinish(c);
  return ok;
}

/* A new empty database named prefix_PID on the fixture's server; its
 * conninfo in out. */
static inline void pg_test_fresh_db(const char *prefix, char *out, size_t cap) {
  char base[512], sql[256];
  pg_test_base(base, sizeof base);
  snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s_%d", prefix,
           (int)getpid());
  pg_test_sql(base, sql);
  snprintf(sql, sizeof sql, "CREATE DATABASE %s_%d", prefix, (int)getpid());
  if (!pg_test_sql(base, sql))
    exit(1);
  snprintf(out, cap, "%s dbname=%s_%d", base, prefix, (int)getpid());
}

/* Drops the database made by pg_test_fresh_db. */
static inline void pg_test_drop_db(const char *prefix) {
  char base[512], sql[256];
  if (!pg_test_env("MCP_PG_CONNINFO", base, sizeof base))
    return;
  snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s_%d WITH (FORCE)",
           prefix, (int)getpid());
  pg_test_sql(base, sql);
}

#endif
