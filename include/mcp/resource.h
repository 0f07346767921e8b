/* SPDX-License-Identifier: MIT */
/* resource.h - resources, resource templates and their subscriptions.
 *
 * A resource is a URI plus metadata (name, title, description, mimeType,
 * size, annotations, icons, _meta) and a read handler. A resource template
 * is an RFC 6570 URI template (levels 1-4) with the same metadata; a
 * resources/read whose URI is not a registered resource is matched against
 * the templates in registration order, and the first match's handler gets
 * the extracted variables. A read handler adds one or more contents entries
 * (text or binary) to an mcp_read_result_t.
 *
 * Build resources and templates on one thread, then hand them to
 * mcp_server_add_resource / mcp_server_add_resource_template, which take
 * ownership. Once added they are immutable and their handlers may run on
 * many threads at once.
 *
 * The server declares the resources capability only while at least one
 * resource or template is registered; listChanged is declared by default
 * (mcp_server_set_resources_list_changed) and subscribe only when enabled
 * with mcp_server_set_resources_subscribe.
 */
#ifndef MCP_RESOURCE_H
#define MCP_RESOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/cache.h"
#include "mcp/call.h"
#include "mcp/completion.h"
#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_resource mcp_resource_t;
typedef struct mcp_resource_template mcp_resource_template_t;
typedef struct mcp_read_result mcp_read_result_t;

/* The read handler. uri is the requested URI (borrowed). vars is a borrowed
 * object: {} for a static resource; for a template, each variable the URI
 * defined, as a string (an array of strings for an exploded {var*}). Add
 * contents to out and return MCP_OK. Return MCP_ERR_RESOURCE_NOT_FOUND when
 * the URI names nothing (the client gets -32002 with data {uri}); any other
 * failure status gives a JSON-RPC error (see call.h). */
typedef mcp_status (*mcp_resource_read_fn)(mcp_call_t *call, const char *uri,
                                           json_t *vars, mcp_read_result_t *out,
                                           void *user_data);

/* ---- the read result -------------------------------------------------------
 * uri may be NULL for the requested URI; mime_type may be NULL. Strings are
 * copied. */
MCP_API mcp_status mcp_read_result_add_text(mcp_read_result_t *r,
                                            const char *uri, const char *text,
                                            const char *mime_type);
/* Binary contents from raw bytes (base64-encoded here). */
MCP_API mcp_status mcp_read_result_add_blob(mcp_read_result_t *r,
                                            const char *uri, const void *data,
                                            size_t len, const char *mime_type);
/* _meta of the last added entry; steals, even on failure. */
MCP_API mcp_status mcp_read_result_set_entry_meta(mcp_read_result_t *r,
                                                  json_t *meta);
/* Caching hint of this answer (2026-07-28 clients; see server.h,
 * mcp_server_set_cache_hint): overrides the resource's and the server's. */
MCP_API mcp_status mcp_read_result_set_cache_hint(mcp_read_result_t *r,
                                                  int64_t ttl_ms,
                                                  mcp_cache_scope scope);

/* ---- static resources ---------------------------------------------------- */
/* Returns new (free with mcp_resource_free unless given to a server). uri
 * and name are copied; uri must be an absolute URI (scheme ":" ...) without
 * spaces, else MCP_ERR_INVALID_ARG. */
MCP_API mcp_status mcp_resource_new(const char *uri, const char *name,
                                    mcp_resource_t **out);
/* NULL is a no-op. */
MCP_API void mcp_resource_free(mcp_resource_t *r);
MCP_API const char *mcp_resource_uri(const mcp_resource_t *r);
/* Setters copy strings; NULL clears. */
MCP_API mcp_status mcp_resource_set_title(mcp_resource_t *r, const char *title);
MCP_API mcp_status mcp_resource_set_description(mcp_resource_t *r,
                                                const char *description);
MCP_API mcp_status mcp_resource_set_mime_type(mcp_resource_t *r,
                                              const char *mime_type);
/* Size in bytes of the raw contents (before base64). */
MCP_API mcp_status mcp_resource_set_size(mcp_resource_t *r, uint64_t bytes);
/* Caching hint of this resource's reads; overrides the server's
 * MCP_CACHE_RESOURCES_READ setting (server.h). */
MCP_API mcp_status mcp_resource_set_cache_hint(mcp_resource_t *r,
                                               int64_t ttl_ms,
                                               mcp_cache_scope scope);
/* annotations: audience is MCP_AUDIENCE_USER | MCP_AUDIENCE_ASSISTANT (0:
 * not emitted), priority in [0, 1] (< 0: not emitted), last_modified an ISO
 * 8601 timestamp or NULL. */
MCP_API mcp_status mcp_resource_set_annotations(mcp_resource_t *r,
                                                unsigned audience,
                                                double priority,
                                                const char *last_modified);
/* Icon (SEP-973): src must be an https: or data: URI; see mcp_tool_add_icon. */
MCP_API mcp_status mcp_resource_add_icon(mcp_resource_t *r, const char *src,
                                         const char *mime_type,
                                         const char *sizes, const char *theme);
/* _meta; steals, even on failure. */
MCP_API mcp_status mcp_resource_set_meta(mcp_resource_t *r, json_t *meta);
/* user_data is passed to fn; free_user_data (may be NULL) is called exactly
 * once when the resource is freed. If this call fails, nothing is called. */
MCP_API mcp_status mcp_resource_set_handler(mcp_resource_t *r,
                                            mcp_resource_read_fn fn,
                                            void *user_data,
                                            void (*free_user_data)(void *));
/* The Resource object as listed by resources/list (returns new). */
MCP_API json_t *mcp_resource_to_json(const mcp_resource_t *r);

/* ---- resource templates -------------------------------------------------- */
/* Returns new. uri_template (RFC 6570, levels 1-4) and name are copied; a
 * malformed template gives MCP_ERR_INVALID_ARG. */
MCP_API mcp_status mcp_resource_template_new(const char *uri_template,
                                             const char *name,
                                             mcp_resource_template_t **out);
MCP_API void mcp_resource_template_free(mcp_resource_template_t *t);
MCP_API const char *
mcp_resource_template_uri_template(const mcp_resource_template_t *t);
MCP_API mcp_status mcp_resource_template_set_title(mcp_resource_template_t *t,
                                                   const char *title);
MCP_API mcp_status mcp_resource_template_set_description(
    mcp_resource_template_t *t, const char *description);
MCP_API mcp_status mcp_resource_template_set_mime_type(
    mcp_resource_template_t *t, const char *mime_type);
MCP_API mcp_status mcp_resource_template_set_annotations(
    mcp_resource_template_t *t, unsigned audience, double priority,
    const char *last_modified);
MCP_API mcp_status mcp_resource_template_add_icon(mcp_resource_template_t *t,
                                                  const char *src,
                                                  const char *mime_type,
                                                  const char *sizes,
                                                  const char *theme);
MCP_API mcp_status mcp_resource_template_set_meta(mcp_resource_template_t *t,
                                                  json_t *meta);
/* Caching hint of reads served by this template (see
 * mcp_resource_set_cache_hint). */
MCP_API mcp_status mcp_resource_template_set_cache_hint(
    mcp_resource_template_t *t, int64_t ttl_ms, mcp_cache_scope scope);
MCP_API mcp_status mcp_resource_template_set_handler(
    mcp_resource_template_t *t, mcp_resource_read_fn fn, void *user_data,
    void (*free_user_data)(void *));
/* Completion handler for the template variable named variable (copied;
 * MCP_ERR_NOT_FOUND when the template has no such variable, MCP_ERR_EXISTS
 * when one is set). Same user_data rules as the read handler. */
MCP_API mcp_status mcp_resource_template_set_completion(
    mcp_resource_template_t *t, const char *variable, mcp_complete_fn fn,
    void *user_data, void (*free_user_data)(void *));
/* True when uri matches the template; *vars (returns new, may be NULL to
 * skip) then holds the extracted variables as given to read handlers. */
MCP_API bool mcp_resource_template_match(const mcp_resource_template_t *t,
                                         const char *uri, json_t **vars);
/* The ResourceTemplate object as listed (returns new). */
MCP_API json_t *mcp_resource_template_to_json(const mcp_resource_template_t *t);

/* ---- on the server ------------------------------------------------------- */
/* Adding steals, even on failure: MCP_ERR_EXISTS when the URI (template text)
 * is taken, MCP_ERR_STATE without a handler. Adding and removing announce
 * notifications/resources/list_changed when declared. Removal lets reads
 * already running finish; MCP_ERR_NOT_FOUND when absent. */
MCP_API mcp_status mcp_server_add_resource(mcp_server_t *s, mcp_resource_t *r);
MCP_API mcp_status mcp_server_remove_resource(mcp_server_t *s, const char *uri);
MCP_API mcp_status mcp_server_add_resource_template(mcp_server_t *s,
                                                    mcp_resource_template_t *t);
MCP_API mcp_status
mcp_server_remove_resource_template(mcp_server_t *s, const char *uri_template);
MCP_API size_t mcp_server_resource_count(const mcp_server_t *s);
MCP_API size_t mcp_server_resource_template_count(const mcp_server_t *s);
/* Declare resources.subscribe (default false) and accept
 * resources/subscribe and resources/unsubscribe; without it they answer
 * -32601. Configure before serving. */
MCP_API mcp_status mcp_server_set_resources_subscribe(mcp_server_t *s,
                                                      bool enabled);
/* Declare resources.listChanged (default true). */
MCP_API mcp_status mcp_server_set_resources_list_changed(mcp_server_t *s,
                                                         bool declared);
/* Sends notifications/resources/updated {uri} to every session subscribed
 * to uri or to a resource it lies under (a subscription to "file:///a"
 * covers "file:///a/b"). Others get nothing. Safe from any thread. */
MCP_API mcp_status mcp_server_notify_resource_updated(mcp_server_t *s,
                                                      const char *uri);

#ifdef __cplusplus
}
#endif
#endif
