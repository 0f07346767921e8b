/* SPDX-License-Identifier: MIT */
/* stdio.h - serving MCP over standard input and output.
 *
 * Newline-delimited JSON-RPC: one message per line on stdin, one per line on
 * stdout. Only MCP messages are written to stdout; diagnostics go to the
 * server's log handler (stderr by default). A reader thread parses lines and
 * answers client responses and notifications at once; requests run on the
 * server's worker pool, so slow tools do not block fast ones, and responses
 * may complete out of order, each written whole on one line. End of input is
 * an orderly shutdown: running requests finish and are answered first.
 */
#ifndef MCP_STDIO_H
#define MCP_STDIO_H

#include "mcp/export.h"
#include "mcp/server.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Serves one client on fds 0 and 1 until end of input. Blocks.
 *
 * Guarded stdout (the default): while serving, the protocol is written to
 * a private duplicate of fd 1 (close-on-exec), and fd 1 itself, so also
 * the stdout stream (made line-buffered) and the stdout of child
 * processes, points at stderr: a handler's printf or write(1, ...) lands
 * on stderr instead of corrupting the protocol. fd 1 is restored when
 * serving ends. Opt out with mcp_server_set_stdout_guard(server, false)
 * (or mcp_server_run's --no-stdout-guard). */
MCP_API mcp_status mcp_server_serve_stdio(mcp_server_t *server);
/* Whether mcp_server_serve_stdio guards stdout (see above; default true).
 * MCP_ERR_INVALID_ARG when server is NULL. */
MCP_API mcp_status mcp_server_set_stdout_guard(mcp_server_t *server, bool on);
/* Same on any pair of file descriptors (pipes, sockets); neither is closed. */
MCP_API mcp_status mcp_server_serve_fds(mcp_server_t *server, int in_fd,
                                        int out_fd);

#ifdef __cplusplus
}
#endif
#endif
