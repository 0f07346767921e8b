/* SPDX-License-Identifier: MIT */
/* roots.h - asking the client for its roots (roots/list) and hearing that
 * they changed (notifications/roots/list_changed).
 *
 * Roots are file:// URIs the client allows the server to work within. Only a
 * client that declared the roots capability may be asked; without it
 * mcp_call_list_roots fails with MCP_ERR_CAPABILITY and sends nothing.
 *
 * Thread safety: mcp_call_list_roots is called from a handler; the change
 * callback runs on the transport's reader thread.
 */
#ifndef MCP_ROOTS_H
#define MCP_ROOTS_H

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called when a client sends notifications/roots/list_changed. session is
 * borrowed for the duration of the callback. It runs on the thread reading
 * the client's messages, so it must return quickly and must not wait for
 * the client: record that the roots are stale and list them again on the
 * next request of that session. */
typedef void (*mcp_roots_changed_fn)(mcp_server_t *server,
                                     mcp_session_t *session, void *user_data);

/* Sets (fn non-NULL) or clears the callback; user_data is borrowed.
 * Configure before serving. */
MCP_API void mcp_server_set_roots_changed_handler(mcp_server_t *s,
                                                  mcp_roots_changed_fn fn,
                                                  void *user_data);

/* Sends roots/list to the client of call and waits (timeout_ms <= 0: the
 * server default). On MCP_OK *roots is a new array of Root objects
 * ({uri, name?, _meta?}), checked to carry a string uri each.
 * MCP_ERR_CAPABILITY when the client did not declare roots; MCP_ERR_PEER
 * when it answered with an error or a malformed result; otherwise as
 * mcp_call_request. */
MCP_API mcp_status mcp_call_list_roots(mcp_call_t *call, int timeout_ms,
                                       json_t **roots, mcp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
