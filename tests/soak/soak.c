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
 * sessions are flat: the second half's samples stay within bounds of the
 * first half's (after warm-up). */
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
#include "mcp/http.h"
#include "mcp/mcp.h"
#include "testutil.h"
#include "transport/http_internal.h"
#include "util/clock.h"

#define CLIENTS   4
#define RESTART_S 20
#define SAMPLE_S  10
#define MAX_ACKED 200000
#define TTL_MS    120000 /* of every task */

static atomic_bool stop;
static atomic_long served, acked_total, lost;
static pthread_mutex_t port_lock = PTHREAD_MUTEX_INITIALIZER;
/* clients hold it shared; a restart takes it exclusively (writers first,
 * else the clients, always reading, would starve the restart) */
static pthread_rwlock_t server_lock;
static int http_port;
static mcp_http_server_t *http;

/* ---- the tools ----------------------------------------------------------- */
static mcp_status square(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)call, (void)ud;
  int64_t n = 0;
  mcp_arg_integer(args, "n", &n);
  mcp_result_add_textf(r, "%lld", (long long)(n * n));
  return MCP_OK;
}

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
  mcp_tool_set_handler(t, square, NULL, NULL);
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
typedef struct acked {
  char id[40];
  long long n;
  int64_t at_ms; /* when it was acknowledged (monotonic) */
} acked;

/* The last MAX_ACKED acknowledged results (a ring). */
typedef struct ledger {
  pthread_mutex_t lock;
  acked *a;
  size_t n;       /* acknowledged so far */
  size_t checked; /* every result before this was checked after a restart */
} ledger;

#define AT(l, i) (&(l)->a[(i) % MAX_ACKED])
/* Results are checked while their ttl (TTL_MS) has not ended: older ones
 * are gone by design. */
#define CHECK_MS 90000

/* The first index still in the ring and younger than CHECK_MS. */
static size_t oldest_checkable(ledger *l, size_t upto) {
  size_t lo = upto > MAX_ACKED ? upto - MAX_ACKED : 0, hi = upto;
  int64_t limit = mcp__monotonic_ms() - CHECK_MS;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (AT(l, mid)->at_ms < limit)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The indexes a check after a restart looks at: everything acknowledged
 * since the previous check, and 500 older ones at random (the ledger grows
 * with the run; checking it all each time would slow the traffic down). */
static size_t pick(ledger *l, size_t k, size_t n, unsigned *seed) {
  size_t first = n > MAX_ACKED ? n - MAX_ACKED : 0;
  size_t from = l->checked > first ? l->checked : first;
  if (k < n - from)
    return from + k;
  size_t lo = oldest_checkable(l, from);
  return from > lo ? lo + (size_t)rand_r(seed) % (from - lo) : from;
}

static size_t to_check(ledger *l, size_t n) {
  size_t first = n > MAX_ACKED ? n - MAX_ACKED : 0;
  size_t from = l->checked > first ? l->checked : first;
  return n - from + (from > oldest_checkable(l, from) ? 500 : 0);
}

static void ack(ledger *l, const char *id, long long n) {
  pthread_mutex_lock(&l->lock);
  acked *e = AT(l, l->n);
  snprintf(e->id, sizeof e->id, "%s", id);
  e->n = n;
  e->at_ms = mcp__monotonic_ms();
  l->n++;
  pthread_mutex_unlock(&l->lock);
  atomic_fetch_add(&acked_total, 1);
}

static const char *text_of(const json_t *res) {
  return json_string_value(json_object_get(
      json_array_get(json_object_get(json_object_get(res, "result"), "content"),
                     0),
      "text"));
}

/* ---- HTTP clients -------------------------------------------------------- */
#define ACCEPT_HDR "Accept: application/json, text/event-stream\r\n"
static ledger http_ledger;

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
          if (text_of(r))
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
static ledger stdio_ledger;

static json_t *response(tu_proc *p, const char *id, int timeout_ms) {
  for (;;) {
    char *l = tu_proc_read_line(p, timeout_ms);
    if (l == NULL)
      return NULL;
    json_t *m = json_loads(l, 0, NULL);
    free(l);
    const char *got = json_string_value(json_object_get(m, "id"));
    if (got && strcmp(got, id) == 0)
      return m;
    json_decref(m);
  }
}

static void stdio_start(tu_proc *p) {
  char *argv[] = {self, "--serve-stdio", stdio_db, NULL};
  tu_proc_spawn(p, argv);
  tu_proc_send_line(
      p, "{\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\","
         "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
         "\"clientInfo\":{\"name\":\"k\",\"version\":\"1\"}}}");
  json_decref(response(p, "i", 30000));
  tu_proc_send_line(
      p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* Every acknowledged result still answers the same. */
static void verify(tu_proc *p, ledger *l) {
  pthread_mutex_lock(&l->lock);
  size_t n = l->n;
  pthread_mutex_unlock(&l->lock);
  unsigned seed = (unsigned)n;
  for (size_t k = 0, todo = to_check(l, n); k < todo && n > 0; k++) {
    size_t i = pick(l, k, n, &seed);
    char req[256];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":\"v%zu\",\"method\":\"tasks/result\","
             "\"params\":{\"taskId\":\"%s\"}}",
             k, AT(l, i)->id);
    tu_proc_send_line(p, req);
    char vid[32];
    snprintf(vid, sizeof vid, "v%zu", k);
    json_t *m = response(p, vid, 30000);
    char want[32];
    snprintf(want, sizeof want, "%lld", AT(l, i)->n * AT(l, i)->n);
    if (m == NULL || text_of(m) == NULL || strcmp(text_of(m), want) != 0) {
      char *got = m ? json_dumps(m, JSON_COMPACT) : NULL;
      fprintf(stderr,
              "soak: LOST acknowledged stdio result %s (want %s, got %.160s)\n",
              AT(l, i)->id, want, got ? got : "(no answer)");
      free(got);
      atomic_fetch_add(&lost, 1);
    }
    json_decref(m);
  }
  l->checked = n;
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
      verify(&p, &stdio_ledger);
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
    json_t *m = response(&p, rid, 30000);
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
      json_t *r = response(&p, rid, 30000);
      if (text_of(r))
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
      json_t *s = response(&p, rid, 30000);
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
        json_decref(response(&p, rid, 30000));
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

static size_t sessions(void) {
  pthread_mutex_lock(&http->sess_lock);
  size_t n = http->nsessions;
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
  http_ledger.a = calloc(MAX_ACKED, sizeof(acked));
  stdio_ledger.a = calloc(MAX_ACKED, sizeof(acked));
  pthread_mutex_init(&http_ledger.lock, NULL);
  pthread_mutex_init(&stdio_ledger.lock, NULL);
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
  static long rss[MAXS];
  static int fds[MAXS];
  static size_t sess[MAXS];
  int ns = 0;
  time_t t0 = time(NULL), next_restart = t0 + RESTART_S;
  printf("%6s %10s %6s %9s %10s %10s\n", "t(s)", "rss(kB)", "fds", "sessions",
         "served", "acked");
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
      pthread_mutex_lock(&http_ledger.lock);
      size_t n = http_ledger.n;
      pthread_mutex_unlock(&http_ledger.lock);
      unsigned seed = (unsigned)n;
      for (size_t k = 0, m = to_check(&http_ledger, n); k < m && n > 0; k++) {
        size_t i = pick(&http_ledger, k, n, &seed);
        mcp_task_record rec = {0};
        char want[32];
        snprintf(want, sizeof want, "%lld",
                 AT(&http_ledger, i)->n * AT(&http_ledger, i)->n);
        mcp_status gs = mcp_store_task_get(store, "soak",
                                           AT(&http_ledger, i)->id, &rec, NULL);
        if (gs != MCP_OK || rec.result == NULL ||
            strstr(rec.result, want) == NULL) {
          fprintf(stderr,
                  "soak: LOST acknowledged HTTP result %s (%s, status %s, "
                  "want %s, result %.80s)\n",
                  AT(&http_ledger, i)->id, mcp_status_name(gs),
                  gs == MCP_OK ? mcp_task_status_name(rec.status) : "-", want,
                  gs == MCP_OK && rec.result ? rec.result : "(none)");
          atomic_fetch_add(&lost, 1);
        }
        mcp_task_record_clear(&rec);
      }
      http_ledger.checked = n;
      next_restart = now + RESTART_S;
    }
    if ((now - t0) % SAMPLE_S == 0 && ns < MAXS) {
      rss[ns] = rss_kb();
      fds[ns] = fd_count();
      pthread_rwlock_rdlock(&server_lock);
      sess[ns] = sessions();
      pthread_rwlock_unlock(&server_lock);
      printf("%6ld %10ld %6d %9zu %10ld %10ld\n", (long)(now - t0), rss[ns],
             fds[ns], sess[ns], atomic_load(&served),
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

  /* flat: after warm-up (the first quarter), the second half against the
   * first: RSS at most 20 % + 8 MiB above (ASan's quarantine fills up for
   * a while), the medians of descriptors and sessions at most 16 above
   * (single samples swing with the traffic of the moment) */
  int ok = atomic_load(&lost) == 0;
  if (ns >= 8) {
    int w = ns / 4, mid = w + (ns - w) / 2;
    long rss1 = 0, rss2 = 0;
    for (int i = w; i < mid; i++)
      rss1 = rss[i] > rss1 ? rss[i] : rss1;
    for (int i = mid; i < ns; i++)
      rss2 = rss[i] > rss2 ? rss[i] : rss2;
    long fd1 = median_int(fds + w, mid - w),
         fd2 = median_int(fds + mid, ns - mid);
    long s1 = median_size(sess + w, mid - w),
         s2 = median_size(sess + mid, ns - mid);
    bool flat =
        rss2 <= rss1 + rss1 / 5 + 8192 && fd2 <= fd1 + 16 && s2 <= s1 + 16;
    printf("soak: after warm-up, max rss %ld kB -> %ld kB, median fds %ld -> "
           "%ld, median sessions %ld -> %ld: %s\n",
           rss1, rss2, fd1, fd2, s1, s2, flat ? "flat" : "GROWING");
    ok = ok && flat;
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
