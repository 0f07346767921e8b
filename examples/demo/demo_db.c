/* SPDX-License-Identifier: MIT */
/* demo_db.c - schema and seed data of the demo database.
 *
 * The flight table mirrors the seeds' SFLIGHT example (carrier, connection,
 * date, price, currency, plane type); customers and orders back the customer
 * and order tools. Seeding runs once, inside one transaction, only when the
 * tables are empty, so restarts keep whatever the tools changed.
 */
#include "demo_db.h"

#include <stdio.h>
#include <stdlib.h>

struct demo_db {
  sqlite3 *db;
};

static const char schema_sql[] =
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE IF NOT EXISTS flights("
    " carrid TEXT NOT NULL, connid INTEGER NOT NULL, fldate TEXT NOT NULL,"
    " price REAL NOT NULL, currency TEXT NOT NULL, planetype TEXT NOT NULL,"
    " PRIMARY KEY(carrid, connid, fldate));"
    "CREATE TABLE IF NOT EXISTS customers("
    " id TEXT PRIMARY KEY, name TEXT NOT NULL, city TEXT, email TEXT,"
    " balance REAL NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS orders("
    " id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL,"
    " amount REAL NOT NULL);";

static const char seed_sql[] =
    "BEGIN IMMEDIATE;"
    "INSERT INTO flights VALUES"
    " ('AA',17,'2026-12-01',422.94,'USD','747-400'),"
    " ('AA',17,'2026-12-08',422.94,'USD','747-400'),"
    " ('AA',64,'2026-12-03',389.00,'USD','A321'),"
    " ('LH',400,'2026-12-02',666.00,'EUR','A340-600'),"
    " ('LH',400,'2026-12-09',666.00,'EUR','A340-600'),"
    " ('LH',402,'2026-12-04',690.50,'EUR','A380-800'),"
    " ('LH',2402,'2026-12-05',154.00,'EUR','A320'),"
    " ('BA',117,'2026-12-06',512.10,'GBP','777-300ER'),"
    " ('BA',286,'2026-12-07',498.75,'GBP','787-9');"
    "INSERT INTO customers VALUES"
    " ('C001','Ada Lovelace','London','ada@example.com',1250.50),"
    " ('C002','Grace Hopper','Arlington','grace@example.com',980.00),"
    " ('C003','Konrad Zuse','Berlin','konrad@example.com',2310.75),"
    " ('C004','Edsger Dijkstra','Austin',NULL,0);"
    "INSERT INTO orders VALUES"
    " ('O1001','C001','open',199.99),"
    " ('O1002','C002','open',45.00),"
    " ('O1003','C003','shipped',1200.00);"
    "COMMIT;";

mcp_status demo_db_open(const char *path, demo_db **out, mcp_error_t *err) {
  *out = NULL;
  demo_db *d = calloc(1, sizeof *d);
  if (d == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  int rc = sqlite3_open_v2(
      path, &d->db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
  if (rc != SQLITE_OK)
    goto fail;
  sqlite3_busy_timeout(d->db, 5000);
  rc = sqlite3_exec(d->db, schema_sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    goto fail;
  sqlite3_stmt *st;
  rc = sqlite3_prepare_v2(d->db, "SELECT COUNT(*) FROM flights", -1, &st, NULL);
  if (rc != SQLITE_OK)
    goto fail;
  bool empty = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0;
  sqlite3_finalize(st);
  if (empty &&
      (rc = sqlite3_exec(d->db, seed_sql, NULL, NULL, NULL)) != SQLITE_OK) {
    sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
    goto fail;
  }
  *out = d;
  return MCP_OK;
fail:
  mcp_error_set(err, MCP_ERR_IO, "cannot open demo database %s: %s", path,
                d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc));
  sqlite3_close(d->db);
  free(d);
  return MCP_ERR_IO;
}

void demo_db_close(demo_db *d) {
  if (d == NULL)
    return;
  sqlite3_close(d->db);
  free(d);
}

sqlite3 *demo_db_handle(demo_db *d) {
  return d->db;
}
