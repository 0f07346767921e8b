/* testutil.h - helpers shared by libmcp tests: reading files, spawning a
 * program with pipes, line I/O with timeouts. */
#ifndef MCP_TESTUTIL_H
#define MCP_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/types.h>

/* Reads a whole file; returns malloc'd NUL-terminated bytes (or NULL), *len
 * set to the byte count when non-NULL. */
char *tu_read_file(const char *path, size_t *len);

/* The ../shared directory (MCP_SHARED_DIR env or compile-time), or NULL when
 * it does not exist. */
const char *tu_shared_dir(void);

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

#endif
