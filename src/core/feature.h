/* SPDX-License-Identifier: MIT */
/* feature.h - what a method handler and a feature module (tools,
 * resources, prompts, completion, outbound, tasks, skills, the dispatcher's
 * own methods) use from the core: answering and failing a call, reading its
 * params without building them, listing a catalog, icons. Method rows and
 * the task hooks are in core/methods.h (included); sessions, notifications,
 * the relay and the life of a call (made, bound, handed over, finished)
 * have headers of their own (core/sessions.h, core/notify.h, core/relay.h,
 * core/call_life.h), so a file includes only the audience it belongs to.
 *
 * The server (struct mcp_server) is opaque outside src/core: its layout is
 * in core/server_internal.h, which docs/layers.txt marks private.
 */
#ifndef MCP_CORE_FEATURE_H
#define MCP_CORE_FEATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <jansson.h>

#include "catalog/catalog.h"
#include "core/cache_hint.h"
#include "core/channel.h"
#include "core/methods.h"
#include "jsonrpc/jsonrpc.h"
#include "mcp/call.h"
#include "mcp/server.h"

/* ---- call.c -------------------------------------------------------------- */
/* Sends a message related to this call on its stream (progress, logs,
 * server-to-client requests). */
mcp_status mcp__call_send(mcp_call_t *call, const mcp__buf *msg);
/* The JSON-RPC error a failed handler produces. */
void mcp__call_error_for_status(mcp_call_t *call, mcp_status st, int *code,
                                const char **message, json_t **data);
int mcp__rpc_code_for_status(mcp_status st);
/* Sets the call's protocol error and returns the matching status, so a
 * handler can `return mcp__call_fail(call, -32602, "...")`. */
mcp_status mcp__call_fail(mcp_call_t *call, int code, const char *message);

/* Records that the call needs a client capability the request did not
 * declare: name, and member inside it (e.g. "elicitation", "url") or NULL.
 * Returns MCP_ERR_CAPABILITY; in 2026-07-28 the answer is -32021 with
 * data.requiredCapabilities. */
mcp_status mcp__call_missing_capability(mcp_call_t *call, const char *name,
                                        const char *member);

/* ---- readers beyond mcp/call.h (call_access.c) -------------------------- */
/* The session the call belongs to, or NULL (stateless). */
mcp_session_t *mcp__call_session(const mcp_call_t *call);
/* What the transport said about the caller (valid until the handler
 * returns; a task's call keeps only the subject). */
const mcp__peer *mcp__call_peer(const mcp_call_t *call);
/* A result the method encoded itself (see mcp__call_finish). */
mcp__buf *mcp__call_raw_result(mcp_call_t *call);
/* Whether the handler chose a protocol error (mcp_call_set_error). */
bool mcp__call_has_error(const mcp_call_t *call);

/* The request's params. A request decoded by mcp__jsonrpc_decode_server
 * keeps them as a tape until somebody needs them as jansson values:
 * mcp_call_params builds them then (once, thread-safe). These readers do
 * not build them unless they must. */
/* Member name of params (borrowed), or NULL when absent; builds the params
 * only when the member is there. */
json_t *mcp__call_paramn(const mcp_call_t *call, const char *name,
                         size_t name_len);
static inline json_t *mcp__call_param(const mcp_call_t *call,
                                      const char *name) {
  return mcp__call_paramn(call, name, strlen(name)); /* folded for literals */
}

/* The params as a tape (root: an object), or NULL when the request did not
 * come that way (then use mcp_call_params). Valid for the call's life. */
const mcp__tnode *mcp__call_params_tape(const mcp_call_t *call);
/* Member name of params as a string without a NUL byte: true with *s (not
 * NUL-terminated when read from the tape) and *len; false when absent or
 * not such a string. Never builds the params. */
bool mcp__call_param_stringn(const mcp_call_t *call, const char *name,
                             size_t name_len, const char **s, size_t *len);
static inline bool mcp__call_param_string(const mcp_call_t *call,
                                          const char *name, const char **s,
                                          size_t *len) {
  return mcp__call_param_stringn(call, name, strlen(name), s, len);
}
/* params._meta as jansson values (borrowed, valid for the call's life), or
 * NULL when absent: while the params are not built, only _meta is built
 * (once, thread-safe), so a 2026-07-28 request's era facts cost no more
 * than its _meta. */
json_t *mcp__call_meta_object(const mcp_call_t *call);
/* params._meta on the params tape (any JSON type), or NULL when absent or
 * when the params are not (or no longer only) a tape: then use
 * mcp__call_meta_object. Valid for the call's life; found once. */
const mcp__tnode *mcp__call_meta_tape(const mcp_call_t *call);
/* Whether params._meta has member name; builds nothing. */
bool mcp__call_meta_hasn(const mcp_call_t *call, const char *name,
                         size_t name_len);
static inline bool mcp__call_meta_has(const mcp_call_t *call,
                                      const char *name) {
  return mcp__call_meta_hasn(call, name, strlen(name));
}
/* Whether the params exist as jansson values yet (tests, diagnostics). */
bool mcp__call_params_built(const mcp_call_t *call);

/* ---- list.c -------------------------------------------------------------- */
/* A paginated list result {field: [...], nextCursor?} of catalog c; list
 * names the cursor's namespace; caching hints of target (cache_hint.h). */
mcp_status mcp__list_catalog(mcp_call_t *call, mcp__catalog *c,
                             const char *list, const char *field,
                             mcp_cache_target target, json_t **result);

/* ---- icons (server_state.c): server, tool, resource and prompt icons ---- */
/* Appends an icon object to *icons (made when NULL); false when out of
 * memory. */
bool mcp__icon_append(json_t **icons, const char *src, const char *mime_type,
                      const char *sizes, const char *theme);
/* Why mcp__icon_append would refuse src and theme (a static sentence for
 * the setters to report), or NULL when they are acceptable. */
const char *mcp__icon_problem(const char *src, const char *theme);

/* ---- the server, from outside core (server_object.c) ------------------- */
/* A feature module's state on a server: the module defines a static key
 * (its address identifies the slot; name for messages; destroy, may be
 * NULL, frees the state at mcp_server_free, after the task hooks'
 * shutdown, the last registered first) and sets its state once, usually
 * when it registers, so the core names no feature and a new feature edits
 * nothing here. Setting a key again replaces the state (NULL: gone).
 * MCP_ERR_LIMIT (logged) when MCP__SLOTS keys are in use. Thread-safe. */
typedef struct mcp__slot_key {
  const char *name;
  void (*destroy)(void *state);
} mcp__slot_key;
#define MCP__SLOTS 16
mcp_status mcp__server_set_slot(mcp_server_t *s, const mcp__slot_key *key,
                                void *state);
/* The state set for key, or NULL (a few pointer compares). */
void *mcp__server_slot(const mcp_server_t *s, const mcp__slot_key *key);

/* The dispatcher's side of mcp_server_new and mcp_server_free: the core's
 * part of the server (identity, limits, log, sessions, listen streams), and
 * its end (tracing stopped, listen streams ended, every slot destroyed). */
mcp_status mcp__server_create(const char *name, const char *version,
                              mcp_server_t **out);
void mcp__server_destroy(mcp_server_t *s);

/* What mcp_server_new was given and the setters of mcp/server.h set. */
const char *mcp__server_name(const mcp_server_t *s);
const char *mcp__server_version(const mcp_server_t *s);
const char *mcp__server_title(const mcp_server_t *s); /* or NULL */
size_t mcp__server_page_size(const mcp_server_t *s);
size_t mcp__server_max_json_depth(const mcp_server_t *s);
/* serverInfo (returns new). */
json_t *mcp__server_info_json(const mcp_server_t *s);
/* Sets result["instructions"] when the server has instructions. */
void mcp__server_add_instructions(mcp_server_t *s, json_t *result);
/* A transport started serving (mcp__server_start_serving): some settings
 * are refused from then on (tasks, tools that need them). */
bool mcp__server_is_serving(const mcp_server_t *s);
void mcp__server_set_serving(mcp_server_t *s, bool serving);

#endif
