/* SPDX-License-Identifier: MIT */
/* pg_deadline_test.c - the pool's per-call deadline (mcp__pg_exec_within,
 * src/store/pg_pool.c) on a real PostgreSQL:
 *   - the server process of the pool's connection paused (SIGSTOP): the
 *     statement returns MCP_ERR_TIMEOUT naming the deadline, in about that
 *     time; the next one runs on a new connection with its own answer (the
 *     timed-out connection, its answer never read, is not reused);
 *   - every connection of the pool in use: the wait for one ends at the
 *     deadline;
 *   - a server that accepts the connection and never answers (the first
 *     host of the conninfo): connecting ends at the deadline.
 * Without a deadline (mcp__pg_exec) statements run as before.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pg_test.h"
/* the test calls libpq itself (linked), not through the library's table */
#define MCP__PQ_NO_REDIRECT
#include "store/pg_pool.h"

static char conninfo[600];
static int paused; /* resumed by teardown too */

static const mcp__pg_stmt pid_stmt = {"t_pid", "SELECT pg_backend_pid()", 0};
static const mcp__pg_stmt add_stmt = {"t_add", "SELECT $1::int + 1", 1};

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The server process of the connection a statement within timeout_ms
 * gets. */
static int backend_pid(mcp__pg_pool *p) {
  PGresult *r = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp__pg_exec_within(p, &pid_stmt, NULL, false, 2000, &r,
                                       &err),
                   MCP_OK);
  int pid = atoi(PQgetvalue(r, 0, 0));
  PQclear(r);
  return pid;
}

/* "41" + 1 within timeout_ms (0: mcp__pg_exec): the status, the answer in
 * *answer (0 when none). */
static mcp_status add_one(mcp__pg_pool *p, int64_t timeout_ms, int *answer,
                          mcp_error_t *err) {
  const char *v[1] = {"41"};
  PGresult *r = NULL;
  mcp_status st =
      timeout_ms ? mcp__pg_exec_within(p, &add_stmt, v, false, timeout_ms, &r,
                                       err)
                 : mcp__pg_exec(p, &add_stmt, v, false, &r, err);
  *answer = st == MCP_OK ? atoi(PQgetvalue(r, 0, 0)) : 0;
  if (st == MCP_OK)
    PQclear(r);
  else
    assert_null(r);
  return st;
}

static void test_paused_server_process(void **state) {
  (void)state;
  mcp__pg_pool *p = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp__pg_pool_open(conninfo, 1, &p, &err), MCP_OK);
  int answer = 0;
  assert_int_equal(add_one(p, 2000, &answer, &err), MCP_OK); /* prepared */
  assert_int_equal(answer, 42);
  int pid = backend_pid(p);

  paused = pid;
  kill(pid, SIGSTOP);
  int64_t t0 = mono_ms();
  mcp_status st = add_one(p, 300, &answer, &err);
  int64_t ms = mono_ms() - t0;
  print_message("paused server process: %s in %lld ms\n", err.message,
                (long long)ms);
  assert_int_equal(st, MCP_ERR_TIMEOUT);
  assert_non_null(strstr(err.message, "t_add: no answer within 300 ms"));
  assert_true(ms >= 290 && ms < 1500);
  /* still paused: the next statements get a new connection (a new server
   * process) and their own answers */
  int pid2 = backend_pid(p);
  assert_int_not_equal(pid2, pid);
  assert_int_equal(add_one(p, 2000, &answer, &err), MCP_OK);
  assert_int_equal(answer, 42);
  kill(pid, SIGCONT);
  paused = 0;

  assert_int_equal(add_one(p, 0, &answer, &err), MCP_OK);
  assert_int_equal(answer, 42);
  mcp__pg_pool_free(p);
}

static void test_no_free_connection(void **state) {
  (void)state;
  mcp__pg_pool *p = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp__pg_pool_open(conninfo, 1, &p, &err), MCP_OK);
  mcp__pg_conn *held = NULL;
  assert_int_equal(mcp__pg_acquire(p, &held, &err), MCP_OK);
  int answer = 0;
  int64_t t0 = mono_ms();
  assert_int_equal(add_one(p, 200, &answer, &err), MCP_ERR_TIMEOUT);
  int64_t ms = mono_ms() - t0;
  assert_non_null(strstr(err.message, "no free connection within 200 ms"));
  assert_true(ms >= 190 && ms < 1500);
  mcp__pg_release(p, held);
  assert_int_equal(add_one(p, 2000, &answer, &err), MCP_OK);
  assert_int_equal(answer, 42);
  mcp__pg_pool_free(p);
}

static void test_server_never_answers(void **state) {
  (void)state;
  /* a listening socket never accepted: connections complete (the kernel's
   * backlog) and the startup packet gets no answer */
  int quiet = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t alen = sizeof a;
  assert_int_equal(bind(quiet, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(quiet, 16), 0);
  assert_int_equal(getsockname(quiet, (struct sockaddr *)&a, &alen), 0);

  /* that host first, the real server second: opening the pool spends
   * connect_timeout (2 s) on the first */
  PGconn *c = PQconnectdb(conninfo);
  assert_int_equal(PQstatus(c), CONNECTION_OK);
  char two[1024];
  snprintf(two, sizeof two,
           "host=127.0.0.1,%s port=%u,%s user=%s dbname=%s connect_timeout=2",
           PQhost(c), (unsigned)ntohs(a.sin_port), PQport(c), PQuser(c),
           PQdb(c));
  PQfinish(c);
  mcp__pg_pool *p = NULL;
  mcp_error_t err = {0};
  assert_int_equal(mcp__pg_pool_open(two, 1, &p, &err), MCP_OK);
  int pid = backend_pid(p);
  char sql[64];
  snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%d)", pid);
  assert_true(pg_test_sql(conninfo, sql));
  usleep(300 * 1000); /* the termination reaches the pool's connection */

  int answer = 0;
  int64_t t0 = mono_ms();
  mcp_status st = add_one(p, 300, &answer, &err);
  int64_t ms = mono_ms() - t0;
  print_message("server never answers: %s in %lld ms\n", err.message,
                (long long)ms);
  assert_int_equal(st, MCP_ERR_TIMEOUT);
  assert_non_null(strstr(err.message, "cannot connect: no answer within 300"));
  assert_true(ms >= 290 && ms < 1500);
  mcp__pg_pool_free(p);
  close(quiet);
}

static int setup(void **state) {
  (void)state;
  pg_test_fresh_db("mcp_deadline", conninfo, sizeof conninfo);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  if (paused)
    kill(paused, SIGCONT);
  pg_test_drop_db("mcp_deadline");
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_paused_server_process),
      cmocka_unit_test(test_no_free_connection),
      cmocka_unit_test(test_server_never_answers),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
