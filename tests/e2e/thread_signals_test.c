/* SPDX-License-Identifier: MIT */
/* thread_signals_test.c - the library's own threads (task executors and
 * sweeper, HTTP engine loops, workers and housekeeper) block the stop
 * signals, so that SIGTERM reaches the application's thread (its handler,
 * or mcp_http_serve_until_signal's sigwait) and never one of ours, where
 * its default action would end the process without a graceful stop. Read
 * from /proc/self/task/<tid>/status (SigBlk) of every thread while they
 * run; the test's own thread blocks nothing. */
#include "testutil.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mcp/http.h"
#include "mcp/mcp.h"

static void quiet_log(mcp_log_level l, const char *m, void *ud) {
  (void)l, (void)m, (void)ud;
}

/* The blocked-signal mask of thread tid; false when the thread ended
 * meanwhile. */
static bool blocked_of(const char *tid, unsigned long long *out) {
  char path[300];
  snprintf(path, sizeof path, "/proc/self/task/%s/status", tid);
  char *text = tu_read_file(path, NULL);
  if (text == NULL)
    return false;
  const char *line = strstr(text, "\nSigBlk:");
  assert_non_null(line);
  *out = strtoull(line + 8, NULL, 16);
  free(text);
  return true;
}

static bool blocks(unsigned long long mask, int sig) {
  return (mask >> (sig - 1)) & 1u;
}

static void test_library_threads_block_stop_signals(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("signals", "1", &s), MCP_OK);
  mcp_server_set_log_handler(s, quiet_log, NULL);
  mcp_store_t *store = NULL;
  assert_int_equal(mcp_store_memory_new(&store), MCP_OK);
  assert_int_equal(mcp_server_enable_tasks(s, store, NULL, NULL), MCP_OK);
  mcp_http_options_t *o;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  mcp_http_options_set_bind(o, "127.0.0.1", 0);
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_http_server_start(s, o, &h, &err), MCP_OK);
  mcp_http_options_free(o);

  char self[32];
  snprintf(self, sizeof self, "%ld", (long)syscall(SYS_gettid));
  DIR *d = opendir("/proc/self/task");
  assert_non_null(d);
  size_t others = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    unsigned long long mask;
    if (!blocked_of(e->d_name, &mask))
      continue; /* ended meanwhile */
    if (strcmp(e->d_name, self) == 0) {
      assert_false(blocks(mask, SIGTERM)); /* the caller's mask is kept */
      continue;
    }
    /* sanitizer runtimes may run a thread of their own: ours are the ones
     * named by the library's start, all of which block the four */
    char comm_path[300];
    snprintf(comm_path, sizeof comm_path, "/proc/self/task/%s/comm", e->d_name);
    char *comm = tu_read_file(comm_path, NULL);
    bool sanitizer = comm != NULL && (strstr(comm, "san") != NULL);
    free(comm);
    if (sanitizer)
      continue;
    others++;
    if (!blocks(mask, SIGTERM) || !blocks(mask, SIGINT) ||
        !blocks(mask, SIGHUP) || !blocks(mask, SIGQUIT))
      fail_msg("thread %s does not block the stop signals (SigBlk %llx)",
               e->d_name, mask);
  }
  closedir(d);
  /* task executors, sweeper, watcher, engine loops, workers, housekeeper */
  assert_true(others >= 6);
  mcp_http_server_stop(h);
  mcp_server_free(s);
  mcp_store_free(store);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_library_threads_block_stop_signals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
