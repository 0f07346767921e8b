/* SPDX-License-Identifier: MIT */
/* result.h - building a CallToolResult.
 *
 * A handler receives an empty mcp_result_t and adds content blocks (text,
 * image, audio, resource_link, embedded resource), optionally a
 * structuredContent object, and may mark the result as a tool error
 * (isError: true, what the model should see and can correct).
 *
 * Each add function returns a borrowed handle to the new content block, valid
 * while the result lives, for optional refinements (annotations, title, ...).
 * On allocation failure it returns NULL; refiners ignore NULL; the server then
 * answers with an internal error, so handlers need not check every call.
 *
 * If structuredContent is set and the handler added no text block, the
 * server appends its JSON serialization as a text block (backwards
 * compatibility, as the spec recommends).
 *
 * Thread safety: one thread at a time; a result belongs to one call.
 */
#ifndef MCP_RESULT_H
#define MCP_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_result mcp_result_t;
typedef struct mcp_content mcp_content_t;

/* Audience flags for content annotations. */
#define MCP_AUDIENCE_USER      1u
#define MCP_AUDIENCE_ASSISTANT 2u

/* A standalone result (handlers get one from the server; use these to build
 * one elsewhere, e.g. to complete a task from another thread). */
MCP_API mcp_status mcp_result_new(mcp_result_t **out);
MCP_API void mcp_result_free(mcp_result_t *result);

/* Text block; text is copied. */
MCP_API mcp_content_t *mcp_result_add_text(mcp_result_t *r, const char *text);
MCP_API mcp_content_t *mcp_result_add_textf(mcp_result_t *r, const char *fmt,
                                            ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Image block from base64 text (copied, checked to be valid base64) or from
 * raw bytes (encoded here). mime_type is required ("image/png"). */
MCP_API mcp_content_t *mcp_result_add_image(mcp_result_t *r, const char *base64,
                                            const char *mime_type);
MCP_API mcp_content_t *mcp_result_add_image_bytes(mcp_result_t *r,
                                                  const void *data, size_t len,
                                                  const char *mime_type);
/* Audio block, as for images ("audio/wav"). */
MCP_API mcp_content_t *mcp_result_add_audio(mcp_result_t *r, const char *base64,
                                            const char *mime_type);
MCP_API mcp_content_t *mcp_result_add_audio_bytes(mcp_result_t *r,
                                                  const void *data, size_t len,
                                                  const char *mime_type);
/* resource_link block: uri and name required; refine with
 * mcp_content_set_title/description/mime_type/size/icon. */
MCP_API mcp_content_t *mcp_result_add_resource_link(mcp_result_t *r,
                                                    const char *uri,
                                                    const char *name);
/* Embedded resource with text contents; mime_type may be NULL. */
MCP_API mcp_content_t *mcp_result_add_text_resource(mcp_result_t *r,
                                                    const char *uri,
                                                    const char *text,
                                                    const char *mime_type);
/* Embedded resource with binary contents (base64-encoded here). */
MCP_API mcp_content_t *
mcp_result_add_blob_resource(mcp_result_t *r, const char *uri, const void *data,
                             size_t len, const char *mime_type);
/* Appends an arbitrary content block (steals, even on failure). Use for
 * blocks this API does not model yet; it must carry a "type". */
MCP_API mcp_content_t *mcp_result_add_content_json(mcp_result_t *r,
                                                   json_t *block);

/* structuredContent: must be a JSON object. Steals, even on failure.
 * NULL (its constructor failed, e.g. json_pack with an Infinity or NaN,
 * which JSON and jansson cannot represent) returns MCP_ERR_INVALID_ARG and
 * makes the call's answer an isError result saying the structuredContent
 * could not be built, whatever the handler returns (but MCP_ERR_NOMEM);
 * mcp_result_add_content_json and mcp_result_set_meta do the same for
 * "content" and "_meta". */
MCP_API mcp_status mcp_result_set_structured(mcp_result_t *r, json_t *object);
/* Marks the result as a tool error (isError: true) and appends a text block
 * with the printf-formatted explanation. */
MCP_API mcp_status mcp_result_set_error(mcp_result_t *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
MCP_API void mcp_result_set_is_error(mcp_result_t *r, bool is_error);
MCP_API bool mcp_result_is_error(const mcp_result_t *r);
/* _meta of the result; steals, even on failure. */
MCP_API mcp_status mcp_result_set_meta(mcp_result_t *r, json_t *meta);
/* The CallToolResult as built (returns new). The text mirror of
 * structuredContent is added when the result is sent, not here. */
MCP_API json_t *mcp_result_to_json(const mcp_result_t *r);

/* ---- content refinements (all copy strings; all ignore NULL content) ----- */
MCP_API mcp_status mcp_content_set_audience(mcp_content_t *c,
                                            unsigned audience);
/* priority in [0, 1]. */
MCP_API mcp_status mcp_content_set_priority(mcp_content_t *c, double priority);
/* ISO 8601 timestamp, e.g. "2025-01-12T15:00:58Z". */
MCP_API mcp_status mcp_content_set_last_modified(mcp_content_t *c,
                                                 const char *iso8601);
/* resource_link fields. */
MCP_API mcp_status mcp_content_set_title(mcp_content_t *c, const char *title);
MCP_API mcp_status mcp_content_set_description(mcp_content_t *c,
                                               const char *description);
MCP_API mcp_status mcp_content_set_mime_type(mcp_content_t *c,
                                             const char *mime_type);
MCP_API mcp_status mcp_content_set_size(mcp_content_t *c, uint64_t bytes);
/* Icon on a resource_link: src must be https: or data:. sizes is a
 * space-separated list ("48x48 96x96" or "any") or NULL; theme is NULL,
 * "light" or "dark". */
MCP_API mcp_status mcp_content_add_icon(mcp_content_t *c, const char *src,
                                        const char *mime_type,
                                        const char *sizes, const char *theme);
/* _meta of the block; steals, even on failure. */
MCP_API mcp_status mcp_content_set_meta(mcp_content_t *c, json_t *meta);

#ifdef __cplusplus
}
#endif
#endif
