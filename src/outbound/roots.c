/* SPDX-License-Identifier: MIT */
/* roots.c - roots/list from a handler and the roots-changed callback. */
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "mcp/roots.h"
#include "outbound/outbound.h"

/* The roots-changed callback, the outbound module's state on a server (its
 * feature slot, made by the first mcp_server_set_roots_changed_handler). */
typedef struct roots_state {
  mcp_roots_changed_fn fn;
  void *user_data;
} roots_state;
static const mcp__slot_key roots_slot = {"roots", free};

void mcp_server_set_roots_changed_handler(mcp_server_t *s,
                                          mcp_roots_changed_fn fn,
                                          void *user_data) {
  if (s == NULL)
    return;
  roots_state *rs = mcp__server_slot(s, &roots_slot);
  if (rs == NULL) {
    if (fn == NULL)
      return;
    if ((rs = calloc(1, sizeof *rs)) == NULL ||
        mcp__server_set_slot(s, &roots_slot, rs) != MCP_OK) {
      free(rs);
      mcp__log(s, MCP_LOG_ERROR,
               "mcp_server_set_roots_changed_handler: out of memory; the "
               "handler is not set");
      return;
    }
  }
  rs->fn = fn;
  rs->user_data = user_data;
}

void mcp__roots_list_changed(mcp_server_t *s, mcp_session_t *se) {
  roots_state *rs = mcp__server_slot(s, &roots_slot);
  if (rs && rs->fn && se)
    rs->fn(s, se, rs->user_data);
}

mcp_status mcp_call_list_roots(mcp_call_t *call, int timeout_ms, json_t **roots,
                               mcp_error_t *err) {
  if (roots)
    *roots = NULL;
  if (call == NULL || roots == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  json_t *result = NULL;
  mcp_status st =
      mcp_call_request(call, "roots/list", NULL, timeout_ms, &result, err);
  if (st != MCP_OK)
    return st;
  json_t *list = json_object_get(result, "roots");
  bool ok = json_is_array(list);
  size_t i;
  json_t *r;
  json_array_foreach(list, i, r) if (!json_is_string(json_object_get(r, "uri")))
      ok = false;
  if (ok)
    *roots = json_incref(list);
  json_decref(result);
  return ok ? MCP_OK
            : mcp_error_set(err, MCP_ERR_PEER,
                            "the client's ListRootsResult is malformed");
}
