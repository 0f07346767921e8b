/* SPDX-License-Identifier: MIT */
/* demo_proc.h - the demo server (build/bin/mcp-demo-server) as a child
 * process over pipes, on a SQLite file of the test's own: db_path, which the
 * test sets before the first spawn. Header-only (one executable per
 * *_test.c). */
#ifndef MCP_TEST_DEMO_PROC_H
#define MCP_TEST_DEMO_PROC_H

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

static char db_path[256];

/* Spawns the demo server on db_path (data and task store): serving over
 * stdio, or, with cleanup, running --cleanup-tasks on the task store. */
static void spawn_demo(tu_proc *p, bool cleanup) {
  char bin[512], store[300];
  snprintf(bin, sizeof bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  snprintf(store, sizeof store, "sqlite:%s", db_path);
  char *serve[] = {bin, "--stdio", "--db", db_path, "--store", store, NULL};
  char *clean[] = {bin, "--store", store, "--cleanup-tasks", NULL};
  assert_int_equal(tu_proc_spawn(p, cleanup ? clean : serve), 0);
}

/* Removes db_path with its -wal and -shm files. */
static void remove_db(void) {
  char side[300];
  unlink(db_path);
  snprintf(side, sizeof side, "%s-wal", db_path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", db_path);
  unlink(side);
}

#endif
