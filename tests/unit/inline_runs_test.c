/* SPDX-License-Identifier: MIT */
/* inline_runs_test.c - which tools may run on a transport's network thread
 * (core/inline_runs.c): the rules that learn a tool as cheap and send it
 * back, and the timer that judges a run by its CPU time when the thread
 * only waited for a core. */
#include "testutil.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/channel.h"
#include "core/inline_runs.h"
#include "mcp/server.h"
#include "util/clock.h"

enum { FAST = 1000, SLOW = 50 * 1000 * 1000 }; /* nanoseconds */

static mcp_server_t *new_server(void) {
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("inline", "1", &s), MCP_OK);
  return s;
}

/* 32 fast runs on the workers make a tool cheap; one slow worker run
 * before that starts the count again. */
static void test_fast_runs_make_a_tool_cheap(void **state) {
  (void)state;
  mcp_server_t *s = new_server();
  int slot = mcp__inline_slot_of_name("add", 3);
  assert_int_equal(slot, mcp__inline_slot_of_name("add", 3));
  assert_false(mcp__server_inline_ok(s, -1));
  for (int i = 0; i < 31; i++)
    mcp__server_inline_record(s, slot, false, FAST, false);
  assert_false(mcp__server_inline_ok(s, slot));
  mcp__server_inline_record(s, slot, false, SLOW, false);
  mcp__server_inline_record(s, slot, false, FAST, false);
  assert_false(mcp__server_inline_ok(s, slot));
  for (int i = 0; i < 31; i++)
    mcp__server_inline_record(s, slot, false, FAST, false);
  assert_true(mcp__server_inline_ok(s, slot));
  /* once cheap, one slow worker run is forgiven, two in a row are not */
  mcp__server_inline_record(s, slot, false, SLOW, false);
  assert_true(mcp__server_inline_ok(s, slot));
  mcp__server_inline_record(s, slot, false, FAST, false);
  mcp__server_inline_record(s, slot, false, SLOW, false);
  assert_true(mcp__server_inline_ok(s, slot));
  mcp__server_inline_record(s, slot, false, SLOW, false);
  assert_false(mcp__server_inline_ok(s, slot));
  for (int i = 0; i < 32; i++) /* learning again, no penalty */
    mcp__server_inline_record(s, slot, false, FAST, false);
  assert_true(mcp__server_inline_ok(s, slot));
  /* emitting on a worker is no accident of scheduling */
  mcp__server_inline_record(s, slot, false, FAST, true);
  assert_false(mcp__server_inline_ok(s, slot));
  mcp_server_free(s);
}

/* On the network thread one slow run is forgiven, two in a row send the
 * tool back to the workers for a long while; emitting anything before the
 * response sends it back at once. */
static void test_slow_inline_runs_send_a_tool_back(void **state) {
  (void)state;
  mcp_server_t *s = new_server();
  int slot = mcp__inline_slot_of_name("lookup", 6);
  for (int i = 0; i < 32; i++)
    mcp__server_inline_record(s, slot, false, FAST, false);
  assert_true(mcp__server_inline_ok(s, slot));
  mcp__server_inline_record(s, slot, true, SLOW, false);
  assert_true(mcp__server_inline_ok(s, slot));
  mcp__server_inline_record(s, slot, true, FAST, false);
  mcp__server_inline_record(s, slot, true, SLOW, false);
  assert_true(mcp__server_inline_ok(s, slot)); /* the strikes were apart */
  mcp__server_inline_record(s, slot, true, SLOW, false);
  assert_false(mcp__server_inline_ok(s, slot));
  for (int i = 0; i < 1000; i++) /* the penalty outlasts a streak */
    mcp__server_inline_record(s, slot, false, FAST, false);
  mcp__server_inline_record(s, slot, false, SLOW, false); /* not shortened */
  for (int i = 0; i < 32; i++)
    mcp__server_inline_record(s, slot, false, FAST, false);
  assert_false(mcp__server_inline_ok(s, slot));
  for (int i = 0; i < 1024; i++)
    mcp__server_inline_record(s, slot, false, FAST, false);
  assert_true(mcp__server_inline_ok(s, slot));
  mcp__server_inline_record(s, slot, true, FAST, true); /* it emitted */
  assert_false(mcp__server_inline_ok(s, slot));
  mcp_server_free(s);
}

/* ---- the triage of a scanned message (core/schedule.c) ------------------ */

static mcp__triage triage_of(mcp_server_t *s, const char *text) {
  mcp__prescan p;
  mcp__jsonrpc_prescan(text, strlen(text), &p);
  return mcp__server_triage(s, &p);
}

/* Responses, notifications and lifecycle requests are accepted at once on
 * the receiving thread; initialize may open a session; a listen request
 * has a long-lived answer; a tools/call is cheap once its tool has proven
 * so; anything else goes to a worker. */
static void test_triage(void **state) {
  (void)state;
  mcp_server_t *s = new_server();
  const char *add =
      "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}}";
  mcp__triage t = triage_of(s, add);
  assert_false(t.at_once);
  assert_false(t.cheap);
  t = triage_of(s, "{\"id\":1,\"method\":\"initialize\"}");
  assert_true(t.at_once);
  assert_true(t.opens_session);
  t = triage_of(s, "{\"id\":1,\"method\":\"ping\"}");
  assert_true(t.at_once);
  assert_false(t.opens_session);
  t = triage_of(s, "{\"method\":\"notifications/cancelled\"}");
  assert_true(t.at_once);
  t = triage_of(s, "{\"id\":1,\"result\":{}}");
  assert_true(t.at_once);
  t = triage_of(s, "not json");
  assert_true(t.at_once); /* the parser answers it at once */
  t = triage_of(s, "{\"id\":1,\"method\":\"subscriptions/listen\"}");
  assert_false(t.at_once);
  assert_true(t.long_lived);
  t = triage_of(s, "{\"id\":1,\"method\":\"resources/read\"}");
  assert_false(t.at_once || t.cheap || t.long_lived || t.opens_session);
  int slot = mcp__inline_slot_of_name("add", 3);
  for (int i = 0; i < 32; i++)
    mcp__server_inline_record(s, slot, false, FAST, false);
  assert_true(triage_of(s, add).cheap);
  /* the same name in another method is not a call of the tool */
  assert_false(triage_of(s, "{\"id\":1,\"method\":\"prompts/get\","
                            "\"params\":{\"name\":\"add\"}}")
                   .cheap);
  mcp_server_free(s);
}

/* ---- the timer ----------------------------------------------------------- */

static atomic_bool hog_stop;

static void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof set, &set), 0);
}

static void *hog(void *arg) {
  pin_to(*(int *)arg);
  while (!atomic_load(&hog_stop))
    ;
  return NULL;
}

/* Spins on the CPU until ns of wall time have passed. */
static void spin_for(int64_t ns) {
  int64_t end = mcp__monotonic_ns() + ns;
  while (mcp__monotonic_ns() < end)
    ;
}

/* A run that shares its core with another busy thread takes longer by the
 * clock than on the CPU. Probed, and since it never blocked, it costs its
 * CPU time; unprobed, its wall time. */
static void test_preempted_run_costs_its_cpu_time(void **state) {
  (void)state;
  cpu_set_t old;
  assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof old, &old), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &old))
    cpu++;
  pin_to(cpu);
  atomic_store(&hog_stop, false);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, hog, &cpu), 0);
  spin_for(5000000); /* the hog is running beside us */

  mcp__inline_timer probed, plain;
  mcp__inline_timer_start(&plain, false);
  mcp__inline_timer_start(&probed, true);
  int64_t start = mcp__monotonic_ns();
  spin_for(60000000); /* 60 ms by the clock, about half of it on the CPU */
  int64_t cpu_cost = mcp__inline_timer_cost(&probed);
  int64_t wall_cost = mcp__inline_timer_cost(&plain);
  int64_t wall = mcp__monotonic_ns() - start;

  atomic_store(&hog_stop, true);
  pthread_join(th, NULL);
  assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof old, &old), 0);
  assert_true(wall_cost >= wall);
  assert_true(cpu_cost > 0);
  /* the scheduler shares one core fairly: the run had far less than the
   * whole 60 ms */
  assert_true(cpu_cost < wall - wall / 5);
}

/* A run that blocks (a sleep, a lock, I/O) costs its wall time even when
 * probed: that is what a tool on a network thread would make others wait. */
static void test_blocking_run_costs_its_wall_time(void **state) {
  (void)state;
  mcp__inline_timer probed;
  mcp__inline_timer_start(&probed, true);
  struct timespec pause = {0, 2000000};
  nanosleep(&pause, NULL);
  assert_true(mcp__inline_timer_cost(&probed) >= 2000000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fast_runs_make_a_tool_cheap),
      cmocka_unit_test(test_slow_inline_runs_send_a_tool_back),
      cmocka_unit_test(test_triage),
      cmocka_unit_test(test_preempted_run_costs_its_cpu_time),
      cmocka_unit_test(test_blocking_run_costs_its_wall_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
