/* SPDX-License-Identifier: MIT */
/* listen_memory_test.c - clients that open subscriptions/listen streams and
 * never read them cannot make the server buffer without bound (issue 25,
 * N4). A server in a child process; 300 listen streams (tools list changes
 * and a resource subscription) that never read, while two clients change
 * the tool list and update the resource as fast as they are answered: the
 * server's RSS (/proc) grows by less than 91 MB (under 100 MB for a
 * release build). A listener that stops reading
 * while the tool list changes 10,000 times is not cut for it (the pending
 * list_changed notifications coalesce) and still gets the next change.
 * LISTEN_MEMORY_SECONDS sets the duration (default 15). */
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#pragma GCC diagnostic pop

#define STREAMS 300
/* Acceptance (issue 25): under 100 MB for a server whose idle RSS is 9 MB
 * (release build). Sanitizer builds start several times higher (shadow
 * memory, allocator caches): the bound is on the growth, 91 MB. Without
 * the stream limits the server grew by 240 MB in 15 s here. */
#define GROWTH_LIMIT_KB (91L * 1024)
#define META                                                                   \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* Under AddressSanitizer freed blocks wait in a quarantine (256 MB by
 * default) before reuse: the server's RSS would measure the quarantine,
 * not what the server holds. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=8"; }

/* A resource URI of 3 KiB: each update is a large event, as a hostile
 * mix of notifications would be. */
static char big_uri[3200];

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the server (child process) ------------------------------------------ */

static mcp_status noop(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "ok");
  return MCP_OK;
}

/* Adds or removes the tool "dynamic": notifications/tools/list_changed. */
static mcp_status toggle(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)args, (void)ud;
  mcp_server_t *s = mcp_call_server(call);
  if (mcp_server_remove_tool(s, "dynamic") != MCP_OK) {
    mcp_tool_t *t = NULL;
    if (mcp_tool_new("dynamic", &t) != MCP_OK ||
        mcp_tool_set_handler(t, noop, NULL, NULL) != MCP_OK) {
      mcp_tool_free(t);
      return MCP_ERR_NOMEM;
    }
    mcp_server_add_tool(s, t, NULL);
  }
  mcp_result_add_text(r, "toggled");
  return MCP_OK;
}

/* 100 tool list changes in one call. */
static mcp_status toggle100(mcp_call_t *call, json_t *args, mcp_result_t *r,
                            void *ud) {
  for (int i = 0; i < 100; i++) {
    mcp_result_t *scratch = NULL;
    if (mcp_result_new(&scratch) != MCP_OK)
      return MCP_ERR_NOMEM;
    toggle(call, args, scratch, ud);
    mcp_result_free(scratch);
  }
  mcp_result_add_text(r, "toggle100");
  return MCP_OK;
}

static mcp_status say(mcp_call_t *call, json_t *args, mcp_prompt_result_t *r,
                      void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_prompt_add_text(r, MCP_ROLE_USER, "hello");
  return MCP_OK;
}

/* Adds or removes the prompt "dynamic": notifications/prompts/list_changed,
 * the marker that ends a burst of tool list changes. */
static mcp_status toggle_prompt(mcp_call_t *call, json_t *args,
                                mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  mcp_server_t *s = mcp_call_server(call);
  if (mcp_server_remove_prompt(s, "dynamic") != MCP_OK) {
    mcp_prompt_t *p = NULL;
    if (mcp_prompt_new("dynamic", &p) != MCP_OK ||
        mcp_prompt_set_handler(p, say, NULL, NULL) != MCP_OK) {
      mcp_prompt_free(p);
      return MCP_ERR_NOMEM;
    }
    mcp_server_add_prompt(s, p);
  }
  mcp_result_add_text(r, "toggle_prompt");
  return MCP_OK;
}

/* notifications/resources/updated of the big resource. */
static mcp_status touch(mcp_call_t *call, json_t *args, mcp_result_t *r,
                        void *ud) {
  (void)args, (void)ud;
  mcp_server_notify_resource_updated(mcp_call_server(call), big_uri);
  mcp_result_add_text(r, "touched");
  return MCP_OK;
}

static mcp_status read_big(mcp_call_t *call, const char *uri, json_t *vars,
                           mcp_read_result_t *out, void *ud) {
  (void)call, (void)vars, (void)ud;
  return mcp_read_result_add_text(out, uri, "x", "text/plain");
}

static void add_plain_tool(mcp_server_t *s, const char *name, mcp_tool_fn fn) {
  mcp_tool_t *t = NULL;
  if (mcp_tool_new(name, &t) != MCP_OK ||
      mcp_tool_set_handler(t, fn, NULL, NULL) != MCP_OK ||
      mcp_server_add_tool(s, t, NULL) != MCP_OK)
    _exit(2);
}

static void serve(int port_pipe) {
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* dies with the test */
  mcp_server_t *s = NULL;
  if (mcp_server_new("listen-memory", "1.0", &s) != MCP_OK)
    _exit(2);
  mcp_server_set_log_handler(s, quiet_log, NULL);
  add_plain_tool(s, "toggle", toggle);
  add_plain_tool(s, "touch", touch);
  add_plain_tool(s, "toggle100", toggle100);
  add_plain_tool(s, "toggle_prompt", toggle_prompt);
  mcp_prompt_t *p = NULL;
  if (mcp_prompt_new("static", &p) != MCP_OK ||
      mcp_prompt_set_handler(p, say, NULL, NULL) != MCP_OK ||
      mcp_server_add_prompt(s, p) != MCP_OK)
    _exit(2);
  mcp_resource_t *res = NULL;
  if (mcp_resource_new(big_uri, "big", &res) != MCP_OK ||
      mcp_resource_set_handler(res, read_big, NULL, NULL) != MCP_OK ||
      mcp_server_add_resource(s, res) != MCP_OK ||
      mcp_server_set_resources_subscribe(s, true) != MCP_OK)
    _exit(2);
  mcp_http_options_t *o = NULL;
  mcp_http_options_new(&o);
  mcp_http_options_set_bind(o, "127.0.0.1", 0);
  /* every stream comes from 127.0.0.1 (docs/security.md) */
  mcp_http_options_set_max_connections_per_address(o, STREAMS + 64);
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  if (mcp_http_server_start(s, o, &h, &err) != MCP_OK) {
    fprintf(stderr, "listen_memory_test: %s\n", err.message);
    _exit(2);
  }
  mcp_http_options_free(o);
  uint16_t port = mcp_http_server_port(h);
  if (write(port_pipe, &port, sizeof port) != sizeof port)
    _exit(2);
  close(port_pipe);
  for (;;)
    pause(); /* until killed */
}

static pid_t server_pid;
static int server_port;

static int group_setup(void **state) {
  (void)state;
  memset(big_uri, 'a', sizeof big_uri - 1);
  memcpy(big_uri, "test://big/", 11);
  int pp[2];
  if (pipe(pp) != 0)
    return -1;
  server_pid = fork();
  if (server_pid == 0) {
    close(pp[0]);
    serve(pp[1]);
  }
  close(pp[1]);
  uint16_t port = 0;
  if (read(pp[0], &port, sizeof port) != sizeof port)
    return -1;
  close(pp[0]);
  server_port = port;
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  kill(server_pid, SIGKILL);
  waitpid(server_pid, NULL, 0);
  return 0;
}

static long rss_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld", &kb) == 1)
      break;
  if (f)
    fclose(f);
  return kb;
}

/* ---- clients ----------------------------------------------------------------
 */

/* A connection whose receive buffer is small, so that what it does not
 * read stays on the server's side. */
static int connect_small(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int small = 4096;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)server_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
    fail_msg("connect: %s", strerror(errno));
  return fd;
}

static void post(int fd, const char *method, const char *name,
                 const char *body) {
  char *req = NULL;
  int n = asprintf(&req,
                   "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                   "Content-Type: application/json\r\n" ACCEPT
                   "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: %s\r\n"
                   "%s%s%sContent-Length: %zu\r\n\r\n%s",
                   server_port, method, name ? "Mcp-Name: " : "",
                   name ? name : "", name ? "\r\n" : "", strlen(body), body);
  assert_true(n > 0);
  assert_int_equal(write(fd, req, (size_t)n), n);
  free(req);
}

/* Opens a listen stream for tool list changes and the big resource. */
static int open_listener(void) {
  int fd = connect_small();
  char *body = NULL;
  assert_true(asprintf(&body,
                       "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                       "\"subscriptions/listen\",\"params\":{" META
                       ",\"notifications\":{\"toolsListChanged\":true,"
                       "\"resourceSubscriptions\":[\"%s\"]}}}",
                       big_uri) > 0);
  post(fd, "subscriptions/listen", NULL, body);
  free(body);
  return fd;
}

/* A tools/call of name on a new connection, answer read. */
static bool call_tool(const char *name) {
  char body[512];
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
           "\"params\":{" META ",\"name\":\"%s\",\"arguments\":{}}}",
           name);
  char extra[256];
  snprintf(extra, sizeof extra,
           "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
           "Mcp-Name: %s\r\n" ACCEPT,
           name);
  char *out = NULL;
  tc_conn c;
  bool ok = false;
  if (tc_open(&c, server_port, "POST", "/mcp", extra, body, 10000) &&
      tc_read_body(&c, 10000))
    ok = c.status == 200 && c.body && strstr(c.body, name) != NULL;
  tc_close(&c);
  free(out);
  return ok;
}

typedef struct driver {
  pthread_t thread;
  const char *tool;
  atomic_bool *stop;
  int calls, failed;
} driver;

static void *drive(void *arg) {
  driver *d = arg;
  while (!atomic_load(d->stop)) {
    if (call_tool(d->tool))
      d->calls++;
    else
      d->failed++;
  }
  return NULL;
}

static void test_non_reading_listeners(void **state) {
  (void)state;
  int seconds = getenv("LISTEN_MEMORY_SECONDS")
                    ? atoi(getenv("LISTEN_MEMORY_SECONDS"))
                    : 15;
  long base = rss_kb(server_pid);
  int fds[STREAMS];
  for (int i = 0; i < STREAMS; i++)
    fds[i] = open_listener();
  sleep_ms(300);
  long opened = rss_kb(server_pid);
  atomic_bool stop = false;
  driver d[2] = {{0, "toggle", &stop, 0, 0}, {0, "touch", &stop, 0, 0}};
  for (int i = 0; i < 2; i++)
    pthread_create(&d[i].thread, NULL, drive, &d[i]);
  long peak = opened;
  int64_t end = now_ms() + (int64_t)seconds * 1000;
  while (now_ms() < end) {
    sleep_ms(250);
    long kb = rss_kb(server_pid);
    assert_true(kb > 0);
    peak = kb > peak ? kb : peak;
    if (kb - base > 4 * GROWTH_LIMIT_KB) /* the verdict is in */
      break;
  }
  atomic_store(&stop, true);
  for (int i = 0; i < 2; i++)
    pthread_join(d[i].thread, NULL);
  long after = rss_kb(server_pid);
  print_message("server RSS: %ld kB at start, %ld kB with %d listeners, peak "
                "%ld kB in %d s (%d toggles, %d updates, %d failed), %ld kB "
                "after\n",
                base, opened, STREAMS, peak, seconds, d[0].calls, d[1].calls,
                d[0].failed + d[1].failed, after);
  for (int i = 0; i < STREAMS; i++)
    close(fds[i]);
  assert_true(peak - base < GROWTH_LIMIT_KB);
  assert_true(d[0].calls > 100 && d[1].calls > 100);
  assert_int_equal(d[0].failed + d[1].failed, 0);
}

/* The next event of c that is not a heartbeat, or NULL after timeout_ms. */
static char *next_event(tc_conn *c, int timeout_ms) {
  char *ev;
  while ((ev = tc_next_event(c, timeout_ms)) != NULL && ev[0] == ':')
    free(ev);
  return ev;
}

#define TOOLS_CHANGED   "notifications/tools/list_changed"
#define PROMPTS_CHANGED "notifications/prompts/list_changed"
/* What the loopback connection may stall for: with a receive buffer this
 * small, the kernel drops segments when the reader lags, and the sender
 * then waits on its persist timer, which backs off to several seconds
 * (ss showed "persist ... backoff:5" and 1 MB unsent for 6.6 s under the
 * CI's load). The server is not what waits. */
#define TCP_STALL_MS 60000

/* A listener that stops reading while the tool list changes 10,000 times
 * (1.5 MB of notifications: more than the kernel's socket buffers take)
 * holds one pending list_changed, not thousands: it is not cut, and it
 * gets the changes that follow. A prompt list change after the burst
 * marks its end: every tool list change sent before it has been read
 * when the marker arrives. */
static void test_list_changes_coalesce(void **state) {
  (void)state;
  tc_conn c;
  memset(&c, 0, sizeof c);
  c.fd = connect_small();
  post(c.fd, "subscriptions/listen", NULL,
       "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\","
       "\"params\":{" META ",\"notifications\":{\"toolsListChanged\":true,"
       "\"promptsListChanged\":true}}}");
  assert_true(tc_read_head(&c, 5000));
  assert_int_equal(c.status, 200);
  assert_true(c.chunked);
  char *ev = next_event(&c, 5000);
  assert_non_null(ev);
  assert_non_null(strstr(ev, "notifications/subscriptions/acknowledged"));
  assert_non_null(strstr(ev, "promptsListChanged"));
  free(ev);
  for (int i = 0; i < 100; i++)
    assert_true(call_tool("toggle100"));
  assert_true(call_tool("toggle_prompt"));
  int seen = 0;
  bool marker = false;
  while (!marker && (ev = next_event(&c, TCP_STALL_MS)) != NULL) {
    seen += strstr(ev, TOOLS_CHANGED) != NULL;
    marker = strstr(ev, PROMPTS_CHANGED) != NULL;
    free(ev);
  }
  print_message("a listener that did not read during 10000 list changes got "
                "%d of them%s\n",
                seen, c.ended || c.eof ? ", then its stream ended" : "");
  assert_true(marker);
  assert_true(seen >= 1 && seen < 10000);
  /* still live: the next change arrives */
  assert_true(call_tool("toggle"));
  ev = next_event(&c, TCP_STALL_MS);
  if (ev == NULL)
    print_message("no event after the change (%s)\n",
                  c.ended ? "the stream ended"
                  : c.eof ? "the connection closed"
                          : "the stream is silent");
  assert_non_null(ev);
  assert_non_null(strstr(ev, TOOLS_CHANGED));
  free(ev);
  tc_close(&c);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_list_changes_coalesce),
      cmocka_unit_test(test_non_reading_listeners),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
