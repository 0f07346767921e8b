/* SPDX-License-Identifier: MIT */
/* testutil.h - helpers shared by libmcp tests: reading files, spawning a
 * program with pipes, line I/O with timeouts. */
#ifndef MCP_TESTUTIL_H
#define MCP_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

/* cmocka needs the headers above first */
#include <cmocka.h>

/* Reads a whole file; returns malloc'd NUL-terminated bytes (or NULL), *len
 * set to the byte count when non-NULL. */
char *tu_read_file(const char *path, size_t *len);

/* The ../shared directory (MCP_SHARED_DIR env or compile-time), or NULL when
 * it does not exist. */
const char *tu_shared_dir(void);

/* Calls fn on every file of the official JSON parser suite
 * (<shared>/testdata/JSONTestSuite/<subdir>, files whose name holds
 * ".json"), each read whole (text NUL-terminated, len its bytes; freed
 * after fn). Returns how many files fn saw: 0 when the suite is absent. */
typedef void (*tu_json_suite_fn)(const char *name, const char *text, size_t len,
                                 void *ud);
size_t tu_json_suite_each(const char *subdir, tu_json_suite_fn fn, void *ud);

/* Called first in a child the test just forked (parent: the test's getpid()
 * read before fork): the kernel sends the child SIGKILL when the test's
 * forking thread ends, so a server, client or peer never outlives its test,
 * even when CTest kills the test at its timeout (no cleanup code runs then).
 * The check after prctl covers a parent that died before it took effect. */
static inline void tu_child_dies_with(pid_t parent) {
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(126);
}

/* A child process connected by pipes to its stdin and stdout. */
typedef struct tu_proc {
  pid_t pid;
  int in_fd;  /* write end: child's stdin */
  int out_fd; /* read end: child's stdout */
  char *buf;  /* pending bytes read from out_fd */
  size_t len, cap;
} tu_proc;

/* Spawns argv[0] with argv; stderr is inherited. Returns 0 on success. */
int tu_proc_spawn(tu_proc *p, char *const argv[]);
/* Writes len bytes (loops over short writes). Returns 0 on success. */
int tu_proc_write(tu_proc *p, const char *data, size_t len);
/* Writes line and "\n". */
int tu_proc_send_line(tu_proc *p, const char *line);
/* Reads one line (without the newline) waiting at most timeout_ms; returns a
 * malloc'd string or NULL on EOF/timeout. */
char *tu_proc_read_line(tu_proc *p, int timeout_ms);
/* Closes stdin, waits for exit (killing after timeout_ms); returns the exit
 * status as from waitpid, or -1. */
int tu_proc_finish(tu_proc *p, int timeout_ms);
/* Kills p with SIGKILL, reaps it and asserts that the signal ended it;
 * closes its pipes and frees its buffer (a crash test's "power cut"). */
void tu_proc_kill(tu_proc *p);

/* ---- in-process server driving (white-box: uses src/server/dispatch.h) --- */
#include <jansson.h>
#include <pthread.h>

#include "mcp/mcp.h"
#include "server/dispatch.h"

/* Collects every message a channel receives, parsed, in order. */
typedef struct tu_capture {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  json_t *messages; /* array */
  int finals;       /* MCP__SEND_FINAL count */
  int done_calls;   /* channel done() count */
} tu_capture;

void tu_capture_init(tu_capture *c);
void tu_capture_destroy(tu_capture *c);
mcp__channel tu_capture_channel(tu_capture *c);
/* Waits until at least n messages arrived (timeout_ms); returns count. */
size_t tu_capture_wait(tu_capture *c, size_t n, int timeout_ms);

/* A session on server whose notify channel is notify (may be NULL). */
mcp_session_t *tu_session(mcp_server_t *server, tu_capture *notify);
/* Sends text through mcp__server_accept and runs the call inline.
 * Returns the accept outcome. */
int tu_send(mcp_server_t *server, mcp_session_t *session, tu_capture *reply,
            const char *text);
/* Sends text and returns the last message captured for it (new reference),
 * or NULL when nothing was sent back. */
json_t *tu_rpc(mcp_server_t *server, mcp_session_t *session, const char *text);
/* tu_rpc for {"jsonrpc":"2.0","id":1,"method":method,"params":params} (params
 * is JSON text; NULL sends {}). */
json_t *tu_request(mcp_server_t *server, mcp_session_t *session,
                   const char *method, const char *params);
/* tu_request as a 2026-07-28 request: params (JSON object text, NULL: {})
 * gets the era's _meta (protocolVersion, clientCapabilities caps or {}). */
json_t *tu_modern_request(mcp_server_t *server, const char *method,
                          const char *params, const char *caps);
/* Reads JSON-RPC messages from p until the response (no method) with the
 * integer id arrives and returns it (new reference); the other messages
 * (requests, notifications, other responses) are appended to seen when it
 * is not NULL. Fails the test on end of output or 20 s without a line. */
json_t *tu_proc_wait_id(tu_proc *p, int id, json_t *seen);
/* The error.code of a JSON-RPC response, 0 when it has none. */
int tu_error_code(const json_t *msg);
/* A cmocka teardown freeing the mcp_server_t held in *state. */
int tu_free_server(void **state);
/* initialize (version 2025-11-25, given capabilities JSON or NULL) +
 * notifications/initialized. */
void tu_initialize(mcp_server_t *server, mcp_session_t *session,
                   const char *capabilities_json);

/* Deterministic mutation testing: 1 to 3 random edits (replace, insert or
 * delete one byte drawn from alphabet) of the n bytes in b (capacity cap),
 * driven by the xorshift state *seed, so a failure reproduces. */
void tu_mutate(char *b, size_t *n, size_t cap, const char *alphabet,
               uint64_t *seed);

/* The n bytes of b with ".0" after every integer literal beyond int64
 * (malloc'd, length in *out_n), or NULL when there is none: an oracle for
 * the library's rule that such integers are reals, written independently of
 * the tape. */
char *tu_bigints_as_reals(const char *b, size_t n, size_t *out_n);
/* json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL) with the library's documented
 * departures (json/load.h) applied on top: a raw NUL byte refuses the text,
 * and a text refused for an integer beyond int64 is read again with that
 * integer as a real (tu_bigints_as_reals). On failure e holds jansson's
 * error (of the rewritten text when there was one). */
json_t *tu_loadb_rules(const char *b, size_t n, json_error_t *e);

/* Structural identity, stricter than json_equal: types (1 vs 1.0), real
 * bits, string bytes including NULs, key order (json_agree.c). */
bool tu_json_same(const json_t *a, const json_t *b);
/* The differential check of the tape loader: mcp__json_load and
 * json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL) agree on the len bytes of buf
 * under the documented rules of json/load.h (same verdict and values; on
 * failure jansson's own error text, line, column and position; a raw NUL
 * is a syntax error at that byte; an integer beyond int64 is the real of
 * the literal). Prints the difference, with label, to stderr and returns
 * false when they do not. */
bool tu_json_load_agrees(const char *buf, size_t len, const char *label);

#endif
