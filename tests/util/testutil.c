/* SPDX-License-Identifier: MIT */
/* testutil.c - see testutil.h. */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf)
    return NULL;
  buf[n] = '\0';
  if (len)
    *len = n;
  return buf;
}

const char *tu_shared_dir(void) {
  const char *d = getenv("MCP_SHARED_DIR");
#ifdef MCP_SHARED_DIR
  if (!d)
    d = MCP_SHARED_DIR;
#endif
  struct stat st;
  if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode))
    return NULL;
  return d;
}

size_t tu_json_suite_each(const char *subdir, tu_json_suite_fn fn, void *ud) {
  const char *shared = tu_shared_dir();
  char root[4096], dir[4200];
  snprintf(root, sizeof root, "%s/testdata/JSONTestSuite",
           shared ? shared : "../shared");
  snprintf(dir, sizeof dir, "%s/%s", root, subdir);
  struct stat st;
  if (shared == NULL || stat(root, &st) != 0) {
    /* A developer without ../shared gets a skip; CI must have the suite,
     * or these tests would pass without testing anything. */
    if (getenv("CI") != NULL)
      fail_msg("JSONTestSuite not found at %s (CI provides ../shared)", root);
    return 0;
  }
  DIR *d = opendir(dir);
  if (d == NULL)
    return 0; /* a part this copy of the suite lacks (test_transform) */
  size_t files = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strstr(e->d_name, ".json") == NULL)
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    if (text == NULL)
      fail_msg("cannot read %s", path);
    fn(e->d_name, text, len, ud);
    free(text);
    files++;
  }
  closedir(d);
  return files;
}

int tu_proc_spawn(tu_proc *p, char *const argv[]) {
  int in[2], out[2];
  memset(p, 0, sizeof *p);
  if (pipe(in) != 0)
    return -1;
  if (pipe(out) != 0) {
    close(in[0]);
    close(in[1]);
    return -1;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    tu_child_dies_with(parent);
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  signal(SIGPIPE, SIG_IGN);
  p->pid = pid;
  p->in_fd = in[1];
  p->out_fd = out[0];
  return 0;
}

int tu_proc_write(tu_proc *p, const char *data, size_t len) {
  while (len > 0) {
    ssize_t w = write(p->in_fd, data, len);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    data += w;
    len -= (size_t)w;
  }
  return 0;
}

int tu_proc_send_line(tu_proc *p, const char *line) {
  if (tu_proc_write(p, line, strlen(line)) != 0)
    return -1;
  return tu_proc_write(p, "\n", 1);
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *tu_proc_read_line(tu_proc *p, int timeout_ms) {
  long long deadline = now_ms() + timeout_ms;
  for (;;) {
    char *nl = p->len ? memchr(p->buf, '\n', p->len) : NULL;
    if (nl) {
      size_t n = (size_t)(nl - p->buf);
      char *line = malloc(n + 1);
      memcpy(line, p->buf, n);
      line[n] = '\0';
      memmove(p->buf, nl + 1, p->len - n - 1);
      p->len -= n + 1;
      return line;
    }
    long long left = deadline - now_ms();
    if (left <= 0)
      return NULL;
    struct pollfd pfd = {.fd = p->out_fd, .events = POLLIN};
    int r = poll(&pfd, 1, (int)left);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return NULL;
    if (p->cap - p->len < 65536) {
      size_t ncap = p->cap ? p->cap * 2 : 131072;
      char *nb = realloc(p->buf, ncap);
      if (!nb)
        return NULL;
      p->buf = nb;
      p->cap = ncap;
    }
    ssize_t got = read(p->out_fd, p->buf + p->len, p->cap - p->len);
    if (got <= 0)
      return NULL;
    p->len += (size_t)got;
  }
}

int tu_proc_finish(tu_proc *p, int timeout_ms) {
  int status = -1;
  if (p->in_fd >= 0)
    close(p->in_fd);
  p->in_fd = -1;
  long long deadline = now_ms() + timeout_ms;
  for (;;) {
    pid_t r = waitpid(p->pid, &status, WNOHANG);
    if (r == p->pid)
      break;
    if (r < 0) {
      status = -1;
      break;
    }
    if (now_ms() > deadline) {
      kill(p->pid, SIGKILL);
      waitpid(p->pid, &status, 0);
      status = -1;
      break;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (p->out_fd >= 0)
    close(p->out_fd);
  p->out_fd = -1;
  free(p->buf);
  p->buf = NULL;
  return status;
}

void tu_proc_kill(tu_proc *p) {
  int status = 0;
  kill(p->pid, SIGKILL);
  assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
  p->pid = -1;
  close(p->in_fd);
  close(p->out_fd);
  p->in_fd = p->out_fd = -1;
  free(p->buf);
  p->buf = NULL;
  assert_true(WIFSIGNALED(status));
}

/* ---- in-process driving ----------------------------------------------- */

void tu_capture_init(tu_capture *c) {
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->cond, NULL);
  c->messages = json_array();
  c->finals = 0;
  c->done_calls = 0;
}

void tu_capture_destroy(tu_capture *c) {
  json_decref(c->messages);
  pthread_mutex_destroy(&c->lock);
  pthread_cond_destroy(&c->cond);
}

static mcp_status capture_send(void *ctx, const char *msg, size_t len,
                               unsigned flags) {
  tu_capture *c = ctx;
  json_error_t err;
  json_t *v = json_loadb(msg, len, 0, &err);
  if (v == NULL) {
    fprintf(stderr, "capture: server sent invalid JSON: %.*s\n", (int)len, msg);
    v = json_string("<invalid JSON>");
  }
  if (memchr(msg, '\n', len) != NULL)
    fprintf(stderr, "capture: message contains a newline\n");
  pthread_mutex_lock(&c->lock);
  json_array_append_new(c->messages, v);
  if (flags & MCP__SEND_FINAL)
    c->finals++;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
  return MCP_OK;
}

static void capture_done(void *ctx) {
  tu_capture *c = ctx;
  pthread_mutex_lock(&c->lock);
  c->done_calls++;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
}

mcp__channel tu_capture_channel(tu_capture *c) {
  mcp__channel ch = {capture_send, capture_done, c, NULL, false};
  return ch;
}

size_t tu_capture_wait(tu_capture *c, size_t n, int timeout_ms) {
  long long deadline = now_ms() + timeout_ms;
  pthread_mutex_lock(&c->lock);
  while (json_array_size(c->messages) < n && now_ms() < deadline) {
    pthread_mutex_unlock(&c->lock);
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&c->lock);
  }
  size_t got = json_array_size(c->messages);
  pthread_mutex_unlock(&c->lock);
  return got;
}

mcp_session_t *tu_session(mcp_server_t *server, tu_capture *notify) {
  mcp__channel ch = {NULL, NULL, NULL, NULL, false};
  if (notify)
    ch = tu_capture_channel(notify);
  mcp_session_t *s = NULL;
  if (mcp__session_new(server, ch, &s) != MCP_OK)
    return NULL;
  return s;
}

int tu_send(mcp_server_t *server, mcp_session_t *session, tu_capture *reply,
            const char *text) {
  mcp_call_t *call = NULL;
  mcp__accept a = mcp__server_accept(server, session, NULL, text, strlen(text),
                                     tu_capture_channel(reply), &call);
  if (a == MCP__ACCEPT_REQUEST)
    mcp__call_run(call);
  return (int)a;
}

json_t *tu_rpc(mcp_server_t *server, mcp_session_t *session, const char *text) {
  tu_capture c;
  tu_capture_init(&c);
  tu_send(server, session, &c, text);
  size_t n = json_array_size(c.messages);
  json_t *last = n ? json_incref(json_array_get(c.messages, n - 1)) : NULL;
  tu_capture_destroy(&c);
  return last;
}

json_t *tu_request(mcp_server_t *server, mcp_session_t *session,
                   const char *method, const char *params) {
  char buf[1024];
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":%s}",
           method, params ? params : "{}");
  return tu_rpc(server, session, buf);
}

json_t *tu_modern_request(mcp_server_t *server, const char *method,
                          const char *params, const char *caps) {
  json_error_t err;
  json_t *p = json_loads(params ? params : "{}", 0, &err);
  json_t *c = json_loads(caps ? caps : "{}", 0, &err);
  assert_non_null(p);
  assert_non_null(c);
  json_t *meta = json_object_get(p, "_meta");
  if (meta == NULL) {
    meta = json_object();
    json_object_set_new(p, "_meta", meta);
  }
  json_object_set_new(meta, "io.modelcontextprotocol/protocolVersion",
                      json_string("2026-07-28"));
  json_object_set_new(meta, "io.modelcontextprotocol/clientCapabilities", c);
  json_t *msg = json_pack("{s:s,s:i,s:s,s:o}", "jsonrpc", "2.0", "id", 1,
                          "method", method, "params", p);
  char *text = json_dumps(msg, JSON_COMPACT);
  json_decref(msg);
  json_t *r = tu_rpc(server, NULL, text);
  free(text);
  return r;
}

json_t *tu_proc_wait_id(tu_proc *p, int id, json_t *seen) {
  for (;;) {
    char *line = tu_proc_read_line(p, 20000);
    assert_non_null(line);
    json_t *m = json_loads(line, 0, NULL);
    free(line);
    assert_non_null(m);
    json_t *mid = json_object_get(m, "id");
    if (json_object_get(m, "method") == NULL && json_is_integer(mid) &&
        json_integer_value(mid) == id)
      return m;
    if (seen)
      json_array_append(seen, m);
    json_decref(m);
  }
}

int tu_error_code(const json_t *msg) {
  return (int)json_integer_value(
      json_object_get(json_object_get(msg, "error"), "code"));
}

int tu_free_server(void **state) {
  mcp_server_free(*state);
  return 0;
}

void tu_initialize(mcp_server_t *server, mcp_session_t *session,
                   const char *caps) {
  char buf[2048];
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\","
           "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":%s,"
           "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}",
           caps ? caps : "{}");
  json_t *r = tu_rpc(server, session, buf);
  json_decref(r);
  json_t *n = tu_rpc(server, session,
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                     "initialized\"}");
  json_decref(n);
}

static uint64_t xorshift(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

void tu_mutate(char *b, size_t *n, size_t cap, const char *alphabet,
               uint64_t *seed) {
  size_t alen = strlen(alphabet);
  int edits = 1 + (int)(xorshift(seed) % 3);
  for (int e = 0; e < edits; e++) {
    size_t at = (size_t)(xorshift(seed) % (*n + 1));
    char ch = alphabet[xorshift(seed) % alen];
    switch (xorshift(seed) % 3) {
    case 0: /* replace */
      if (at < *n)
        b[at] = ch;
      break;
    case 1: /* insert */
      if (*n < cap - 1) {
        memmove(b + at + 1, b + at, *n - at);
        b[at] = ch;
        (*n)++;
      }
      break;
    default: /* delete */
      if (at < *n) {
        memmove(b + at, b + at + 1, *n - at - 1);
        (*n)--;
      }
    }
  }
}

/* True when the integer literal s[0..n) (optional '-', digits) lies outside
 * int64. */
static bool beyond_int64(const char *s, size_t n) {
  bool neg = n && s[0] == '-';
  const char *d = s + neg;
  size_t dn = n - neg;
  const char *lim = neg ? "9223372036854775808" : "9223372036854775807";
  if (dn != 19)
    return dn > 19;
  return memcmp(d, lim, 19) > 0;
}

char *tu_bigints_as_reals(const char *b, size_t n, size_t *out_n) {
  char *out = malloc(2 * n + 1);
  size_t o = 0;
  bool changed = false, in_str = false;
  for (size_t i = 0; i < n;) {
    char c = b[i];
    if (in_str) {
      out[o++] = c;
      if (c == '\\' && i + 1 < n)
        out[o++] = b[++i];
      else if (c == '"')
        in_str = false;
      i++;
      continue;
    }
    bool starts = (c == '-' || (c >= '0' && c <= '9')) &&
                  (i == 0 || strchr("0123456789.eE+-", b[i - 1]) == NULL);
    if (c == '"')
      in_str = true;
    if (!starts) {
      out[o++] = c;
      i++;
      continue;
    }
    size_t j = i + (c == '-');
    while (j < n && b[j] >= '0' && b[j] <= '9')
      j++;
    bool is_int = j > i + (c == '-') &&
                  (j == n || (b[j] != '.' && b[j] != 'e' && b[j] != 'E'));
    memcpy(out + o, b + i, j - i);
    o += j - i;
    if (is_int && beyond_int64(b + i, j - i)) {
      memcpy(out + o, ".0", 2);
      o += 2;
      changed = true;
    }
    i = j;
  }
  if (!changed) {
    free(out);
    return NULL;
  }
  out[o] = '\0';
  *out_n = o;
  return out;
}

json_t *tu_loadb_rules(const char *b, size_t n, json_error_t *e) {
  json_error_t local;
  if (e == NULL)
    e = &local;
  json_t *v = json_loadb(b, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, e);
  if (v != NULL && n && memchr(b, '\0', n) != NULL) {
    json_decref(v);
    return NULL;
  }
  if (v == NULL && json_error_code(e) == json_error_numeric_overflow) {
    size_t rn;
    char *r = tu_bigints_as_reals(b, n, &rn);
    if (r != NULL) {
      v = json_loadb(r, rn, JSON_DECODE_ANY | JSON_ALLOW_NUL, e);
      free(r);
    }
  }
  return v;
}
