/* SPDX-License-Identifier: MIT */
/* demo_db.h - the demo server's embedded SQLite database: customers, flights
 * and orders, created and seeded on first run. One connection, serialized by
 * SQLite's own mutex (SQLITE_OPEN_FULLMUTEX), shared by all worker threads. */
#ifndef DEMO_DB_H
#define DEMO_DB_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include <mcp/mcp.h>

typedef struct demo_db demo_db;

/* Opens (creating and seeding if needed) the database at path. */
mcp_status demo_db_open(const char *path, demo_db **out, mcp_error_t *err);
void demo_db_close(demo_db *db);
sqlite3 *demo_db_handle(demo_db *db);

#endif
