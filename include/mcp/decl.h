/* SPDX-License-Identifier: MIT */
/* decl.h - declaring a resource or a prompt from a static description.
 *
 * The declarative form of resource.h and prompt.h, as tool_decl.h is for
 * tools: one struct per resource or prompt, registered with one call, and a
 * handler that only says what the text is.
 *
 *   static mcp_status order_help(mcp_text_request_t *req) {
 *     return mcp_text_printf(req, "Help me order %s.",
 *                            mcp_text_arg(req, "item"));
 *   }
 *   static const mcp_prompt_arg_decl order_args[] = {
 *       {.name = "item", .description = "What to order", .required = true},
 *       {.name = NULL}};
 *   ...
 *   mcp_server_add_resource_decl(server, &(mcp_resource_decl){
 *       .uri = "shop://terms", .name = "terms",
 *       .text = "Delivery in 3 working days."}, &err);
 *   mcp_server_add_prompt_decl(server, &(mcp_prompt_decl){
 *       .name = "order_help", .arguments = order_args, .fn = order_help},
 *       &err);
 *
 * The handler (mcp_text_fn) gets a request: the URI and template variables
 * of a read, or the arguments of a prompts/get, and builds its answer with
 * mcp_text_printf (printf-style, appends, no buffer to size) and, for a
 * prompt of several messages, mcp_text_message. The library turns the text
 * into the contents of the read (one entry per message, the declared MIME
 * type) or the messages of the prompt. It returns MCP_OK, or a failure
 * status for a JSON-RPC error (call.h): MCP_ERR_RESOURCE_NOT_FOUND when a
 * template's URI names nothing.
 *
 * Mistakes in a declaration (no name, both or neither of uri and
 * uri_template, both or neither of text and fn, a URI or template that is
 * not one, an argument declared twice, a taken URI or name, ...) are
 * refused by the registration call with MCP_ERR_INVALID_ARG (MCP_ERR_EXISTS
 * for a taken one), err naming the entry and the server log saying the
 * same, so a NULL err does not make them silent.
 *
 * A declaration is read when it is registered (a compound literal will
 * do): names, descriptions, URIs and argument tables are copied. A
 * resource's .text is kept, not copied: point it at static text (or text
 * that outlives the server), as tool_decl.h's tables.
 *
 * Thread safety: register on one thread before serving, or any time as
 * mcp_server_add_resource allows; handlers may run on many threads at once,
 * each request belonging to its call alone.
 */
#ifndef MCP_DECL_H
#define MCP_DECL_H

#include <stdarg.h>
#include <stdbool.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/result.h"
#include "mcp/sampling.h"
#include "mcp/server.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a declared handler answers: valid while the handler runs. */
typedef struct mcp_text_request mcp_text_request_t;

typedef mcp_status (*mcp_text_fn)(mcp_text_request_t *req);

/* Appends printf-style text to the answer: to the current message, which
 * the first call starts (a user message for a prompt). MCP_ERR_NOMEM,
 * MCP_ERR_INVALID_ARG for a NULL or a format error; return it as is. */
MCP_API mcp_status mcp_text_printf(mcp_text_request_t *req, const char *fmt,
                                   ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
MCP_API mcp_status mcp_text_vprintf(mcp_text_request_t *req, const char *fmt,
                                    va_list ap);
/* Starts a new message with role and printf-style text: for a prompt, a
 * message of that role; for a resource, another contents entry (role
 * ignored). */
MCP_API mcp_status mcp_text_message(mcp_text_request_t *req, mcp_role role,
                                    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The prompt argument or template variable name (borrowed, valid while the
 * handler runs), or NULL when absent (an optional argument not given) or
 * not a string (an exploded {var*}: see mcp_text_args). */
MCP_API const char *mcp_text_arg(const mcp_text_request_t *req,
                                 const char *name);
/* All of them as an object (borrowed): {} for a static resource. */
MCP_API const json_t *mcp_text_args(const mcp_text_request_t *req);
/* The URI read; NULL for a prompt. */
MCP_API const char *mcp_text_uri(const mcp_text_request_t *req);
/* The call (progress, cancellation, logging; call.h). */
MCP_API mcp_call_t *mcp_text_call(const mcp_text_request_t *req);
/* The declaration's user_data. */
MCP_API void *mcp_text_user_data(const mcp_text_request_t *req);

/* ---- resources and resource templates ---------------------------------- */
typedef struct mcp_resource_decl {
  /* exactly one of: an absolute URI (a resource), or an RFC 6570 template
   * (levels 1-4; a resource template matched by resources/read) */
  const char *uri, *uri_template;
  const char *name; /* required */
  const char *title, *description;
  const char *mime_type; /* NULL: "text/plain" */
  /* exactly one of: the contents, fixed; or a handler that writes them */
  const char *text;
  mcp_text_fn fn;
  void *user_data; /* for fn (mcp_text_user_data); kept, never freed */
  const void *reserved[4]; /* zero */
} mcp_resource_decl;

/* Registers the resource or template decl describes (read now, .text
 * kept).
 * MCP_ERR_INVALID_ARG for a declaration mistake, MCP_ERR_EXISTS for a
 * taken URI or template, MCP_ERR_NOMEM; err (may be NULL) names the entry.
 */
MCP_API mcp_status mcp_server_add_resource_decl(mcp_server_t *server,
                                                const mcp_resource_decl *decl,
                                                mcp_error_t *err);

/* ---- prompts ------------------------------------------------------------ */
typedef struct mcp_prompt_arg_decl {
  const char *name; /* NULL ends the table */
  const char *description;
  bool required;
  const char *title;
  const void *reserved[2]; /* zero */
} mcp_prompt_arg_decl;

typedef struct mcp_prompt_decl {
  const char *name; /* required; prompt naming rules (prompt.h) */
  const char *title, *description;
  const mcp_prompt_arg_decl *arguments; /* {NULL}-terminated; NULL: none */
  mcp_text_fn fn;                       /* required */
  void *user_data;                      /* for fn; kept, never freed */
  const void *reserved[4];              /* zero */
} mcp_prompt_decl;

/* Registers the prompt decl describes (read now). Errors as
 * mcp_server_add_resource_decl (MCP_ERR_EXISTS for a taken name). */
MCP_API mcp_status mcp_server_add_prompt_decl(mcp_server_t *server,
                                              const mcp_prompt_decl *decl,
                                              mcp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
