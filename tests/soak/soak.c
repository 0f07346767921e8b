/* SPDX-License-Identifier: MIT */
/* soak.c - issue #16: mixed HTTP and stdio traffic for a given time (make
 * soak, tests/soak/run; not part of check). In this process: a Streamable
 * HTTP server with tasks on SQLite, restarted every RESTART_S; client
 * threads that initialize, call tools, run tasks and read their results,
 * cancel slow tasks, open GET streams and drop them, end sessions or
 * abandon them (idle expiry). A stdio server child (this program with
 * --serve-stdio) on the same kind of store, killed (SIGKILL) and restarted
 * every RESTART_S too. Every acknowledged task result (a tasks/result
 * that arrived) is checked again after each restart. Every SAMPLE_S the
 * process's RSS, open descriptors and live HTTP sessions are printed. Exit
 * status 0 when nothing acknowledged was lost and RSS, descriptors and
 * sessions are flat: their medians over the last WINDOW_S stay within
 * bounds of their medians over the WINDOW_S after warm-up (see window());
 * for sessions, those the server should have expired (see sessions()). */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../e2e/http_client.h"
#include "acked.h"
#include "mcp/http.h"
#include "mcp/mcp.h"
#include "testutil.h"
#include "transport/http_internal.h"
#include "transport/http_options.h"
#include "util/clock.h"

#define CLIENTS      4
#define RESTART_S    20
#define SAMPLE_S     10
#define WINDOW_S     300 /* the verdict compares medians of windows this long */
#define WARM_S       600 /* after a warm-up this long at most (see window()) */
#define RSS_SLACK_KB 8192
#define MAX_ACKED    200000
#define TTL_MS       120000 /* of every task */

static atomic_bool stop;
static atomic_long served, acked_total, lost;
static pthread_mutex_t port_lock = PTHREAD_MUTEX_INITIALIZER;
/* clients hold it shared; a restart takes it exclusively (writers first,
 * else the clients, always reading, would starve the restart) */
static pthread_rwlock_t server_lock;
static int http_port;
static mcp_http_server_t *http;

/* ---- the tools ----------------------------------------------------------- */

static mcp_status slow(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)args, (void)ud;
  for (int i = 0; i < 500 && !mcp_call_is_cancelled(call); i++) {
    if (i % 50 == 0)
      mcp_call_progress(call, i, 500, "slow");
    usleep(2000);
  }
  mcp_result_add_text(r, "slow done");
  return MCP_OK;
}

static mcp_server_t *make_server(mcp_store_t *store) {
  mcp_server_t *s;
  mcp_server_new("soak", "1", &s);
  mcp_server_set_log_level(s, MCP_LOG_EMERGENCY);
  mcp_tool_t *t;
  mcp_tool_new("square", &t);
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  mcp_tool_set_handler(t, tu_square_tool, NULL, NULL);
  mcp_server_add_tool(s, t, NULL);
  mcp_tool_new("slow", &t);
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  mcp_tool_set_handler(t, slow, NULL, NULL);
  mcp_server_add_tool(s, t, NULL);
  mcp_task_options_t *o;
  mcp_task_options_new(&o);
  mcp_task_options_set_max_stored(o, 1000000, 1000000);
  mcp_task_options_set_ttl(o, TTL_MS, TTL_MS);
  mcp_task_options_set_cleanup(o, 60000, 600000, 5000);
  mcp_server_enable_tasks(s, store, o, NULL);
  mcp_task_options_free(o);
  return s;
}

static int serve_stdio(const char *db) {
  mcp_store_t *store;
  if (mcp_store_sqlite_open(db, &store, NULL) != MCP_OK)
    return 2;
  mcp_server_t *s = make_server(store);
  mcp_status st = mcp_server_serve_stdio(s);
  mcp_server_free(s);
  mcp_store_free(store);
  return st == MCP_OK ? 0 : 1;
}

/* ---- acknowledged results ------------------------------------------------ */
/* Results are checked while their ttl (TTL_MS) has not ended: older ones
 * are gone by design. Each check after a restart looks at everything
 * acknowledged since the previous one and OLD_CHECKS older ones at random
 * (the ledger grows with the run; checking it all would slow traffic). */
#define CHECK_MS   90000
#define OLD_CHECKS 500

static void ack(tu_ledger *l, const char *id, long long n) {
  tu_ledger_add(l, id, n);
  atomic_fetch_add(&acked_total, 1);
}

/* ---- HTTP clients -------------------------------------------------------- */
#define ACCEPT_HDR "Accept: application/json, text/event-stream\r\n"
static tu_ledger http_ledger;

static int port_now(void) {
  pthread_mutex_lock(&port_lock);
  int p = http_port;
  pthread_mutex_unlock(&port_lock);
  return p;
}

static json_t *post(int port, const char *sid, const char *body, int *status) {
  char hdr[256], *out = NULL;
  snprintf(hdr, sizeof hdr,
           ACCEPT_HDR
           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n",
           sid);
  *status = tc_do(port, "POST", hdr, body, &out, NULL);
  json_t *m = NULL;
  if (out) {
    const char *data = strstr(out, "data: ");
    /* SSE: the last data line is the response */
    const char *last = NULL;
    for (const char *d = data; d; d = strstr(d + 1, "data: "))
      last = d;
    m = json_loads(last ? last + 6 : out, JSON_DISABLE_EOF_CHECK, NULL);
  }
  free(out);
  atomic_fetch_add(&served, 1);
  return m;
}

static void *http_client(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  long long n = (long long)(uintptr_t)arg * 100000000LL;
  while (!atomic_load(&stop)) {
    pthread_rwlock_rdlock(&server_lock);
    int port = port_now();
    char sid[64] = "", *body = NULL;
    int st = tc_do(port, "POST", ACCEPT_HDR,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                   "\"params\":{\"protocolVersion\":\"2025-11-25\","
                   "\"capabilities\":{},\"clientInfo\":{\"name\":\"s\","
                   "\"version\":\"1\"}}}",
                   &body, sid);
    free(body);
    if (st != 200 || sid[0] == '\0') {
      pthread_rwlock_unlock(&server_lock);
      usleep(10000);
      continue;
    }
    json_decref(post(port, sid,
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                     "initialized\"}",
                     &st));
    for (int k = 0; k < 20 && !atomic_load(&stop); k++) {
      char req[512];
      int what = (int)(rand_r(&seed) % 10);
      if (what < 4) { /* plain call */
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                 "\"params\":{\"name\":\"square\",\"arguments\":{\"n\":%d}}}",
                 k);
        json_decref(post(port, sid, req, &st));
      } else if (what < 8) { /* a task and its result */
        long long v = ++n;
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                 "\"params\":{\"name\":\"square\",\"arguments\":{\"n\":%lld},"
                 "\"task\":{}}}",
                 v % 1000000);
        json_t *m = post(port, sid, req, &st);
        const char *id = json_string_value(json_object_get(
            json_object_get(json_object_get(m, "result"), "task"), "taskId"));
        if (id) {
          char tid[40];
          snprintf(tid, sizeof tid, "%s", id);
          snprintf(req, sizeof req,
                   "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/result\","
                   "\"params\":{\"taskId\":\"%s\"}}",
                   tid);
          json_t *r = post(port, sid, req, &st);
          if (tu_result_text(r))
            ack(&http_ledger, tid, v % 1000000);
          json_decref(r);
        }
        json_decref(m);
      } else if (what == 8) { /* a slow task, cancelled */
        json_t *m = post(port, sid,
                         "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/"
                         "call\",\"params\":{\"name\":\"slow\",\"arguments\":"
                         "{},\"task\":{}}}",
                         &st);
        const char *id = json_string_value(json_object_get(
            json_object_get(json_object_get(m, "result"), "task"), "taskId"));
        if (id) {
          snprintf(req, sizeof req,
                   "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tasks/cancel\","
                   "\"params\":{\"taskId\":\"%s\"}}",
                   id);
          json_decref(post(port, sid, req, &st));
        }
        json_decref(m);
      } else { /* a GET stream, dropped */
        tc_conn c;
        char hdr[256];
        snprintf(hdr, sizeof hdr,
                 "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n", sid);
        if (tc_open(&c, port, "GET", "/mcp", hdr, NULL, 2000))
          free(tc_next_event(&c, 200));
        tc_close(&c);
      }
    }
    if (rand_r(&seed) % 3 != 0) { /* end it; else abandon it (idle expiry) */
      char hdr[128];
      snprintf(hdr, sizeof hdr, "Mcp-Session-Id: %s\r\n", sid);
      tc_do(port, "DELETE", hdr, NULL, NULL, NULL);
    }
    pthread_rwlock_unlock(&server_lock);
  }
  return NULL;
}

/* ---- stdio child -----------------------------------------------------------
 */
static char self[4096], stdio_db[256];
static tu_ledger stdio_ledger;

static void stdio_start(tu_proc *p) {
  char *argv[] = {self, "--serve-stdio", stdio_db, NULL};
  tu_proc_spawn(p, argv);
  tu_proc_send_line(
      p, "{\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\","
         "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
         "\"clientInfo\":{\"name\":\"k\",\"version\":\"1\"}}}");
  json_decref(tu_proc_response(p, "i", 30000));
  tu_proc_send_line(
      p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static void *stdio_client(void *arg) {
  (void)arg;
  tu_proc p;
  stdio_start(&p);
  time_t restart = time(NULL) + RESTART_S;
  long long n = 0;
  while (!atomic_load(&stop)) {
    if (time(NULL) >= restart) {
      kill(p.pid, SIGKILL);
      tu_proc_finish(&p, 5000);
      stdio_start(&p);
      /* every acknowledged result still answers the same */
      atomic_fetch_add(
          &lost, (long)tu_ledger_verify(&stdio_ledger, OLD_CHECKS, CHECK_MS,
                                        tu_ledger_check_stdio, &p));
      restart = time(NULL) + RESTART_S;
    }
    char req[256];
    long long v = ++n % 1000000;
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":\"c%lld\",\"method\":\"tools/call\","
             "\"params\":{\"name\":\"square\",\"arguments\":{\"n\":%lld},"
             "\"task\":{}}}",
             n, v);
    tu_proc_send_line(&p, req);
    /* ids are unique: a late answer can never pass for another's */
    char rid[40];
    snprintf(rid, sizeof rid, "c%lld", n);
    json_t *m = tu_proc_response(&p, rid, 30000);
    const char *id = json_string_value(json_object_get(
        json_object_get(json_object_get(m, "result"), "task"), "taskId"));
    if (id) {
      char tid[40];
      snprintf(tid, sizeof tid, "%s", id);
      snprintf(
          req, sizeof req,
          "{\"jsonrpc\":\"2.0\",\"id\":\"r%lld\",\"method\":\"tasks/result\","
          "\"params\":{\"taskId\":\"%s\"}}",
          n, tid);
      tu_proc_send_line(&p, req);
      snprintf(rid, sizeof rid, "r%lld", n);
      json_t *r = tu_proc_response(&p, rid, 30000);
      if (tu_result_text(r))
        ack(&stdio_ledger, tid, v);
      json_decref(r);
    }
    json_decref(m);
    atomic_fetch_add(&served, 1);
    if (n % 7 == 0) { /* a slow task, cancelled */
      snprintf(req, sizeof req,
               "{\"jsonrpc\":\"2.0\",\"id\":\"s%lld\",\"method\":"
               "\"tools/call\",\"params\":{\"name\":\"slow\","
               "\"arguments\":{},\"task\":{}}}",
               n);
      tu_proc_send_line(&p, req);
      snprintf(rid, sizeof rid, "s%lld", n);
      json_t *s = tu_proc_response(&p, rid, 30000);
      const char *sid = json_string_value(json_object_get(
          json_object_get(json_object_get(s, "result"), "task"), "taskId"));
      if (sid) {
        snprintf(
            req, sizeof req,
            "{\"jsonrpc\":\"2.0\",\"id\":\"x%lld\",\"method\":\"tasks/cancel\","
            "\"params\":{\"taskId\":\"%s\"}}",
            n, sid);
        tu_proc_send_line(&p, req);
        snprintf(rid, sizeof rid, "x%lld", n);
        json_decref(tu_proc_response(&p, rid, 30000));
      }
      json_decref(s);
    }
  }
  tu_proc_finish(&p, 10000);
  return NULL;
}

/* ---- sampling --------------------------------------------------------------
 */
static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0)
      kb = atol(line + 6);
  if (f)
    fclose(f);
  return kb;
}

static int fd_count(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  while (d && readdir(d))
    n++;
  if (d)
    closedir(d);
  return n - 3; /* ., .., the DIR's own */
}

/* Live HTTP sessions; *stale gets those the server should have expired:
 * no request in progress and idle for more than the idle timeout plus
 * STALE_SLACK_MS (the housekeeper's round). The live count follows the
 * traffic of the moment and starts from 0 at every restart of the HTTP
 * server (every RESTART_S); a session the server fails to end is stale. */
#define STALE_SLACK_MS 2000
static size_t sessions(size_t *stale) {
  int64_t now = mcp__monotonic_ms();
  *stale = 0;
  pthread_mutex_lock(&http->sess_lock);
  size_t n = http->nsessions;
  for (size_t b = 0; b < http->nbuckets; b++)
    for (hs_session *hs = http->buckets[b]; hs; hs = hs->next) {
      pthread_mutex_lock(&hs->lock);
      *stale += hs->active == 0 &&
                now - hs->last_active_ms > http->o->idle_ms + STALE_SLACK_MS;
      pthread_mutex_unlock(&hs->lock);
    }
  pthread_mutex_unlock(&http->sess_lock);
  return n;
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static long median_of(long *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_long);
  return n ? v[n / 2] : 0;
}

/* The median of n samples (copied: the samples keep their order). */
static long median_of_longs(const long *v, int n) {
  long tmp[4096];
  for (int i = 0; i < n && i < 4096; i++)
    tmp[i] = v[i];
  return median_of(tmp, n < 4096 ? n : 4096);
}

/* The windows compared, in seconds of the run: warm-up first (ASan's
 * quarantine, its allocator's size classes and SQLite's cache and files
 * fill; the first soaks rose for about 15 minutes, then stayed within 5 %:
 * a third of the run, at most WARM_S), then a window of WINDOW_S (or a
 * quarter of a short run) right after it, against the last window. */
static void window(int seconds, int *warm, int *win) {
  *warm = WARM_S < seconds / 3 ? WARM_S : seconds / 3;
  *win = WINDOW_S < seconds / 4 ? WINDOW_S : seconds / 4;
}

/* The samples [*from, *to) taken in [t_from, t_to) seconds. */
static void samples_in(const long *ts, int ns, long t_from, long t_to,
                       int *from, int *to) {
  *from = 0;
  while (*from < ns && ts[*from] < t_from)
    ++*from;
  *to = *from;
  while (*to < ns && ts[*to] < t_to)
    ++*to;
}

static long median_int(const int *v, int n) {
  long tmp[4096];
  for (int i = 0; i < n && i < 4096; i++)
    tmp[i] = v[i];
  return median_of(tmp, n < 4096 ? n : 4096);
}

static long median_size(const size_t *v, int n) {
  long tmp[4096];
  for (int i = 0; i < n && i < 4096; i++)
    tmp[i] = (long)v[i];
  return median_of(tmp, n < 4096 ? n : 4096);
}

/* A tu_ledger_check_fn reading the HTTP server's store (ctx) directly. */
static bool check_store(void *ctx, const tu_acked *e, size_t k) {
  (void)k;
  mcp_task_record rec = {0};
  char want[32];
  snprintf(want, sizeof want, "%lld", e->n * e->n);
  mcp_status gs = mcp_store_task_get(ctx, "soak", e->id, &rec, NULL);
  bool ok = gs == MCP_OK && rec.result != NULL && strstr(rec.result, want);
  if (!ok)
    fprintf(stderr,
            "soak: LOST acknowledged HTTP result %s (%s, status %s, want %s, "
            "result %.80s)\n",
            e->id, mcp_status_name(gs),
            gs == MCP_OK ? mcp_task_status_name(rec.status) : "-", want,
            gs == MCP_OK && rec.result ? rec.result : "(none)");
  mcp_task_record_clear(&rec);
  return ok;
}

static mcp_http_server_t *start_http(mcp_server_t *s) {
  mcp_http_options_t *o;
  mcp_http_options_new(&o);
  mcp_http_options_set_bind(o, "127.0.0.1", 0);
  mcp_http_options_set_session_idle_timeout_ms(o, 3000);
  mcp_http_options_set_heartbeat_ms(o, 500);
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  if (mcp_http_server_start(s, o, &h, &err) != MCP_OK) {
    fprintf(stderr, "soak: %s\n", err.message);
    exit(2);
  }
  mcp_http_options_free(o);
  pthread_mutex_lock(&port_lock);
  http_port = mcp_http_server_port(h);
  pthread_mutex_unlock(&port_lock);
  return h;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--serve-stdio") == 0)
    return serve_stdio(argv[2]);
  int seconds = argc > 1 ? atoi(argv[1]) : 60;
  snprintf(self, sizeof self, "%s", argv[0]);
  char dir[] = "/tmp/mcp-soak-XXXXXX";
  if (mkdtemp(dir) == NULL)
    return 2;
  char http_db[256];
  snprintf(http_db, sizeof http_db, "%s/http.db", dir);
  snprintf(stdio_db, sizeof stdio_db, "%s/stdio.db", dir);
  pthread_rwlockattr_t ra;
  pthread_rwlockattr_init(&ra);
  pthread_rwlockattr_setkind_np(&ra,
                                PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&server_lock, &ra);
  if (tu_ledger_init(&http_ledger, MAX_ACKED) != 0 ||
      tu_ledger_init(&stdio_ledger, MAX_ACKED) != 0)
    return 2;
  mcp_store_t *store;
  if (mcp_store_sqlite_open(http_db, &store, NULL) != MCP_OK)
    return 2;
  mcp_server_t *server = make_server(store);
  http = start_http(server);
  pthread_t th[CLIENTS + 1];
  for (uintptr_t i = 0; i < CLIENTS; i++)
    pthread_create(&th[i], NULL, http_client, (void *)(i + 1));
  pthread_create(&th[CLIENTS], NULL, stdio_client, NULL);

  enum { MAXS = 4096 };
  static long rss[MAXS], ts[MAXS], served_at[MAXS];
  static int fds[MAXS];
  static size_t sess[MAXS], stale[MAXS];
  int ns = 0;
  time_t t0 = time(NULL), next_restart = t0 + RESTART_S;
  time_t next_sample = t0 + SAMPLE_S;
  const char *asan = getenv("ASAN_OPTIONS");
  printf("soak: %d s, ASAN_OPTIONS=%s\n", seconds, asan ? asan : "(unset)");
  printf("%6s %10s %6s %9s %6s %10s %10s\n", "t(s)", "rss(kB)", "fds",
         "sessions", "stale", "served", "acked");
  while (time(NULL) - t0 < seconds) {
    sleep(1);
    time_t now = time(NULL);
    if (now >= next_restart) { /* restart the HTTP server, then verify */
      pthread_rwlock_wrlock(&server_lock);
      mcp_http_server_stop(http);
      mcp_server_free(server);
      server = make_server(store);
      http = start_http(server);
      pthread_rwlock_unlock(&server_lock);
      /* acknowledged HTTP results are still in the store, the same */
      atomic_fetch_add(&lost,
                       (long)tu_ledger_verify(&http_ledger, OLD_CHECKS,
                                              CHECK_MS, check_store, store));
      next_restart = now + RESTART_S;
    }
    if (now >= next_sample && ns < MAXS) { /* late after a long restart */
      next_sample += SAMPLE_S;
      ts[ns] = (long)(now - t0);
      served_at[ns] = atomic_load(&served);
      rss[ns] = rss_kb();
      fds[ns] = fd_count();
      pthread_rwlock_rdlock(&server_lock);
      sess[ns] = sessions(&stale[ns]);
      pthread_rwlock_unlock(&server_lock);
      printf("%6ld %10ld %6d %9zu %6zu %10ld %10ld\n", (long)(now - t0),
             rss[ns], fds[ns], sess[ns], stale[ns], atomic_load(&served),
             atomic_load(&acked_total));
      fflush(stdout);
      ns++;
    }
  }
  atomic_store(&stop, true);
  for (int i = 0; i <= CLIENTS; i++)
    pthread_join(th[i], NULL);
  mcp_http_server_stop(http);
  mcp_server_free(server);
  mcp_store_free(store);
  tu_ledger_destroy(&http_ledger);
  tu_ledger_destroy(&stdio_ledger);

  /* flat: medians of a window after warm-up against the last window (single
   * samples swing with the traffic of the moment, and RSS rises while ASan's
   * quarantine fills: tests/soak/run bounds it, see window()) */
  int ok = atomic_load(&lost) == 0;
  int warm, win, a0, a1, b0, b1;
  window(seconds, &warm, &win);
  samples_in(ts, ns, warm, warm + win, &a0, &a1);
  samples_in(ts, ns, seconds - win, seconds + 1, &b0, &b1);
  if (a1 - a0 >= 2 && b1 - b0 >= 2) {
    long rss1 = median_of_longs(rss + a0, a1 - a0),
         rss2 = median_of_longs(rss + b0, b1 - b0);
    long fd1 = median_int(fds + a0, a1 - a0),
         fd2 = median_int(fds + b0, b1 - b0);
    long s1 = median_size(sess + a0, a1 - a0),
         s2 = median_size(sess + b0, b1 - b0);
    long z1 = median_size(stale + a0, a1 - a0),
         z2 = median_size(stale + b0, b1 - b0);
    /* the traffic of each window: sessions and RSS follow it */
    double r1 = (double)(served_at[a1 - 1] - served_at[a0]) /
                (double)(ts[a1 - 1] - ts[a0] > 0 ? ts[a1 - 1] - ts[a0] : 1),
           r2 = (double)(served_at[b1 - 1] - served_at[b0]) /
                (double)(ts[b1 - 1] - ts[b0] > 0 ? ts[b1 - 1] - ts[b0] : 1);
    /* sessions: those the server failed to end (stale); the live count is
     * shown, not judged (see sessions()) */
    bool flat = rss2 <= rss1 + rss1 / 10 + RSS_SLACK_KB && fd2 <= fd1 + 16 &&
                z2 <= z1 + 16;
    printf("soak: medians of the windows %ld-%ld s (%d samples) and %ld-%ld s "
           "(%d samples):\n"
           "  %-16s %10s %10s\n  %-16s %10ld %10ld\n  %-16s %10ld %10ld\n"
           "  %-16s %10ld %10ld\n  %-16s %10ld %10ld\n"
           "  %-16s %10.0f %10.0f\n",
           ts[a0], ts[a1 - 1], a1 - a0, ts[b0], ts[b1 - 1], b1 - b0, "",
           "first", "last", "rss (kB)", rss1, rss2, "descriptors", fd1, fd2,
           "sessions", s1, s2, "stale sessions", z1, z2, "requests/s", r1, r2);
    printf("soak: first sample (%ld s) rss %ld kB, fds %d, sessions %zu; last "
           "sample (%ld s) rss %ld kB, fds %d, sessions %zu\n",
           ts[0], rss[0], fds[0], sess[0], ts[ns - 1], rss[ns - 1], fds[ns - 1],
           sess[ns - 1]);
    printf("soak: verdict %s (limits: rss +10%% + %d kB, descriptors and "
           "stale sessions +16)\n",
           flat ? "flat" : "GROWING", RSS_SLACK_KB);
    ok = ok && flat;
  } else {
    printf("soak: too short for a verdict on growth (%d samples)\n", ns);
  }
  printf("soak: %d s, %ld requests served, %ld results acknowledged, %ld "
         "lost\n",
         seconds, atomic_load(&served), atomic_load(&acked_total),
         atomic_load(&lost));
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    ok = 0;
  return ok ? 0 : 1;
}
