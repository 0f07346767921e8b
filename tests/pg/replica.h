/* SPDX-License-Identifier: MIT */
/* replica.h - demo servers on 127.0.0.1 sharing one PostgreSQL store, for
 * the tests that play several replicas of one deployment (replicas_test,
 * outcome_outage_test). Include after mcpc_run.h and pg_test.h. */
#ifndef MCP_TEST_REPLICA_H
#define MCP_TEST_REPLICA_H

#include <jansson.h>

typedef struct replica {
  mr_demo_http d;
  char lease[16];
  pid_t pid;
  int port;
} replica;

/* Runs the PostgreSQL fixture's cmd ("down", "up", ...) on the server
 * whose environment file is envfile. */
static inline void replica_fixture(const char *envfile, const char *cmd) {
  char line[1024];
  /* MCP_PG_OWNER: the server dies with this program (the fixture's
   * watchdog), even when CTest kills it at its timeout */
  snprintf(line, sizeof line, "MCP_PG_OWNER=%d %s %s %s", (int)getpid(),
           getenv("MCP_PG_FIXTURE"), cmd, envfile);
  assert_int_equal(system(line), 0);
}

/* Starts the demo server "name" on the shared store store_uri; lease_ms:
 * its --task-lease, or NULL for the default. */
static inline void replica_start(replica *r, const char *name,
                                 const char *store_uri, const char *lease_ms) {
  char db[64];
  snprintf(db, sizeof db, "%s.db", name);
  mr_demo_http_init(&r->d, db);
  r->port = atoi(strrchr(r->d.hp, ':') + 1);
  snprintf(r->lease, sizeof r->lease, "%s", lease_ms ? lease_ms : "");
  char *argv[] = {r->d.bin, "--http", r->d.hp,        "--db",   r->d.db,
                  "--store", (char *)store_uri, "--task-lease", r->lease,
                  NULL};
  if (lease_ms == NULL)
    argv[7] = NULL;
  r->pid = mr_start_http(argv, r->d.url);
  assert_true(r->pid > 0);
}

/* The task id as replica r shows it (mcpc tasks get), or NULL while r
 * cannot read the store. */
static inline json_t *replica_task(replica *r, const char *id) {
  char *out = NULL;
  const char *a[] = {"-u",    r->d.url, "--format", "json",
                     "tasks", "get",    id,         NULL};
  int rc = mr_run(a, &out, NULL);
  json_t *j = rc == 0 && out ? json_loads(out, 0, NULL) : NULL;
  free(out);
  return j;
}

#endif
