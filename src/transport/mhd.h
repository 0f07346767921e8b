/* SPDX-License-Identifier: MIT */
/* mhd.h - libmicrohttpd, loaded when the first HTTP server starts.
 *
 * The HTTP transport calls libmicrohttpd through a table filled by dlopen on
 * first use instead of linking it: libmicrohttpd pulls in GnuTLS, p11-kit,
 * nettle and more (about 2.3 MB of resident memory at start-up), which a
 * server that only speaks stdio should not pay for. Include this header after
 * <microhttpd.h>; from then on every MHD_* call below goes through the table.
 * The table is process-wide, written once (pthread_once) and read-only
 * afterwards: the one-time-initialization exception to "no global state".
 */
#ifndef MCP_TRANSPORT_MHD_H
#define MCP_TRANSPORT_MHD_H

#include <microhttpd.h>
#include <stdbool.h>

#include "mcp/status.h"

/* Every libmicrohttpd function the transport uses. */
#define MCP__MHD_FUNCTIONS(X)                                                  \
  X(MHD_start_daemon)                                                          \
  X(MHD_stop_daemon)                                                           \
  X(MHD_quiesce_daemon)                                                        \
  X(MHD_lookup_connection_value)                                               \
  X(MHD_get_connection_values)                                                 \
  X(MHD_get_connection_info)                                                   \
  X(MHD_queue_response)                                                        \
  X(MHD_suspend_connection)                                                    \
  X(MHD_resume_connection)                                                     \
  X(MHD_create_response_from_buffer)                                           \
  X(MHD_create_response_from_callback)                                         \
  X(MHD_set_response_options)                                                  \
  X(MHD_add_response_header)                                                   \
  X(MHD_destroy_response)                                                      \
  X(MHD_get_daemon_info)

typedef struct mcp__mhd_api {
#define MCP__MHD_MEMBER(name) __typeof__(&name) name;
  MCP__MHD_FUNCTIONS(MCP__MHD_MEMBER)
#undef MCP__MHD_MEMBER
} mcp__mhd_api;

/* The table of the process's engine (libmicrohttpd's functions, or the
 * own engine's of http_engine.h), or NULL before an HTTP server started. */
const mcp__mhd_api *mcp__mhd(void);
/* True when the process's engine is the own one, which decides framing in
 * its parser (http_parse.c); libmicrohttpd leaves some of it to the
 * request layer. */
bool mcp__mhd_is_own_engine(void);
/* Picks the engine (an mcp_http_engine) on the first call; MCP_OK when the
 * process serves with it, else err says why (libmicrohttpd unavailable, or
 * the process already uses the other engine). */
mcp_status mcp__mhd_require(int engine, mcp_error_t *err);

#ifndef MCP__MHD_NO_REDIRECT
#define MHD_start_daemon            (mcp__mhd()->MHD_start_daemon)
#define MHD_stop_daemon             (mcp__mhd()->MHD_stop_daemon)
#define MHD_quiesce_daemon          (mcp__mhd()->MHD_quiesce_daemon)
#define MHD_lookup_connection_value (mcp__mhd()->MHD_lookup_connection_value)
#define MHD_get_connection_values   (mcp__mhd()->MHD_get_connection_values)
#define MHD_get_connection_info     (mcp__mhd()->MHD_get_connection_info)
#define MHD_queue_response          (mcp__mhd()->MHD_queue_response)
#define MHD_suspend_connection      (mcp__mhd()->MHD_suspend_connection)
#define MHD_resume_connection       (mcp__mhd()->MHD_resume_connection)
#define MHD_create_response_from_buffer                                        \
  (mcp__mhd()->MHD_create_response_from_buffer)
#define MHD_create_response_from_callback                                      \
  (mcp__mhd()->MHD_create_response_from_callback)
#define MHD_set_response_options (mcp__mhd()->MHD_set_response_options)
#define MHD_add_response_header  (mcp__mhd()->MHD_add_response_header)
#define MHD_destroy_response     (mcp__mhd()->MHD_destroy_response)
#define MHD_get_daemon_info      (mcp__mhd()->MHD_get_daemon_info)
#endif

#endif
