/* SPDX-License-Identifier: MIT */
/* apps.h - MCP Apps (SEP-1865, extension io.modelcontextprotocol/ui,
 * 2026-01-26): interactive HTML views that a host renders in a sandboxed
 * iframe beside a tool's result.
 *
 * A UI resource is a ui:// resource whose contents are one HTML document
 * of MIME type text/html;profile=mcp-app, served by resources/read (as text
 * or as a base64 blob) with its _meta.ui: the CSP domains it needs
 * (connectDomains, resourceDomains, frameDomains, baseUriDomains), the
 * browser permissions it asks for (camera, microphone, geolocation,
 * clipboardWrite), a dedicated sandbox domain and prefersBorder. It is
 * listed by resources/list with the same mimeType and _meta.ui, so a host
 * can review it before any tool runs.
 *
 * A tool links to a UI resource with _meta.ui.resourceUri and says who may
 * call it with _meta.ui.visibility ("model": the agent, "app": the view;
 * both when unset).
 *
 * Negotiation: while a UI resource is registered the server declares
 * capabilities.extensions["io.modelcontextprotocol/ui"] = {"mimeTypes":
 * ["text/html;profile=mcp-app"]} in both eras (initialize and
 * server/discover). A client supports the extension when its capabilities
 * (initialize, or the request's _meta in 2026-07-28) name the extension
 * with that MIME type (mcp_call_supports_apps). For a client that does not,
 * the server does what the spec asks of it (a text-only variant of each
 * tool): tools whose visibility lacks "model" (app-only tools) are left out
 * of tools/list and tools/call answers them as unknown tools, since no view
 * can exist to call them; other tools are listed and called as usual (their
 * _meta.ui is ignored by such clients). A tool with a view must still return
 * meaningful content (its text fallback): the view only adds to it.
 *
 * Refused at registration, with a message naming the culprit: a UI
 * resource URI that is not ui://, a ui:// resource with another MIME type,
 * a CSP domain that is not an origin, a visibility outside model/app, a
 * resourceUri that is not ui://; and when serving starts (or a tool is
 * added while serving) a resourceUri that names no registered UI resource.
 *
 * Thread safety: as resource.h and tool.h (build on one thread; immutable
 * once added).
 */
#ifndef MCP_APPS_H
#define MCP_APPS_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/resource.h"
#include "mcp/server.h"
#include "mcp/status.h"
#include "mcp/tool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The extension's identifier and the MIME type of its HTML views. */
#define MCP_APPS_EXTENSION "io.modelcontextprotocol/ui"
#define MCP_APP_MIME_TYPE  "text/html;profile=mcp-app"

/* ---- UI resources --------------------------------------------------------
 * Returns new: a resource (resource.h: free with mcp_resource_free unless
 * added) of MIME type text/html;profile=mcp-app. uri must start with ui://
 * and name must be non-empty, else MCP_ERR_INVALID_ARG with err (may be
 * NULL) naming the URI. Give it its HTML with mcp_ui_resource_set_html or
 * _set_html_file, or a read handler of your own (mcp_resource_set_handler:
 * whatever it returns for this URI gets the MIME type and _meta.ui when it
 * has none). The resource.h setters (title, description, icons, ...) apply
 * as to any resource. */
MCP_API mcp_status mcp_ui_resource_new(const char *uri, const char *name,
                                       mcp_resource_t **out,
                                       mcp_error_t *err);
/* The HTML document: len bytes at html (copied). */
MCP_API mcp_status mcp_ui_resource_set_html(mcp_resource_t *r,
                                            const char *html, size_t len);
/* The HTML document from the file at path, read now (at most 16 MiB):
 * MCP_ERR_IO (err naming the file and the reason) when it cannot be read. */
MCP_API mcp_status mcp_ui_resource_set_html_file(mcp_resource_t *r,
                                                 const char *path,
                                                 mcp_error_t *err);
/* Serve the document as a base64 "blob" instead of "text" (default off). */
MCP_API mcp_status mcp_ui_resource_set_blob(mcp_resource_t *r, bool on);

/* _meta.ui.csp: which list an origin goes to. */
typedef enum mcp_ui_csp_list {
  MCP_UI_CSP_CONNECT = 0, /* connectDomains: fetch, XHR, WebSocket */
  MCP_UI_CSP_RESOURCE,    /* resourceDomains: scripts, styles, images, fonts,
                             media */
  MCP_UI_CSP_FRAME,       /* frameDomains: nested iframes */
  MCP_UI_CSP_BASE_URI     /* baseUriDomains: <base href> */
} mcp_ui_csp_list;
/* Adds origin ("https://api.example.com", "wss://rt.example.com:8443"; a
 * host may begin with the wildcard label "*." for any subdomain) to a CSP
 * list. Refused (MCP_ERR_INVALID_ARG, and
 * kept: mcp_server_add_resource then refuses the resource with a message
 * naming the origin) when it is not scheme://host[:port] with an optional
 * leading "*." label, or holds a character that would change the policy
 * (space, ';', ',', quotes). */
MCP_API mcp_status mcp_ui_resource_add_csp(mcp_resource_t *r,
                                           mcp_ui_csp_list list,
                                           const char *origin);
/* _meta.ui.permissions: a combination of these. */
enum {
  MCP_UI_PERMISSION_CAMERA = 1u << 0,
  MCP_UI_PERMISSION_MICROPHONE = 1u << 1,
  MCP_UI_PERMISSION_GEOLOCATION = 1u << 2,
  MCP_UI_PERMISSION_CLIPBOARD_WRITE = 1u << 3 /* clipboardWrite */
};
/* Replaces the permissions asked for (0: none, not emitted); an unknown bit
 * is refused and kept as the CSP setter's faults are. */
MCP_API mcp_status mcp_ui_resource_set_permissions(mcp_resource_t *r,
                                                   unsigned permissions);
/* _meta.ui.domain: the dedicated sandbox origin (host-specific format); a
 * value with spaces, quotes or control characters is refused and kept. NULL
 * clears. */
MCP_API mcp_status mcp_ui_resource_set_domain(mcp_resource_t *r,
                                              const char *domain);
/* _meta.ui.prefersBorder (not emitted until set). */
MCP_API mcp_status mcp_ui_resource_set_prefers_border(mcp_resource_t *r,
                                                      bool prefers);
/* mcp_server_add_resource with err: the reason a UI resource is refused
 * (a kept fault above, no HTML and no handler, ...). Steals r. */
MCP_API mcp_status mcp_server_add_ui_resource(mcp_server_t *s,
                                              mcp_resource_t *r,
                                              mcp_error_t *err);

/* ---- tools linked to a view ---------------------------------------------- */
/* _meta.ui.visibility: a combination of these; 0 leaves it out (the spec's
 * default, ["model","app"]). */
enum {
  MCP_APP_VISIBLE_MODEL = 1u << 0, /* "model": listed to and called by the
                                      agent */
  MCP_APP_VISIBLE_APP = 1u << 1    /* "app": called by the view */
};
/* Sets _meta.ui.resourceUri (copied; NULL removes the link) and
 * _meta.ui.visibility. They are merged into the tool's _meta (whatever
 * mcp_tool_set_meta set, before or after). Refused (MCP_ERR_INVALID_ARG, and
 * kept: mcp_server_add_tool then refuses the tool naming the value) for a URI
 * that is not ui:// or a visibility with other bits. A _meta.ui given through
 * mcp_tool_set_meta is checked the same way when the tool is added. */
MCP_API mcp_status mcp_tool_set_ui(mcp_tool_t *tool, const char *resource_uri,
                                   unsigned visibility);

/* The declarative form (tool_decl.h): mcp_tool_decl.reserved[0] is NULL or
 * points to one of these (read by mcp_tool_new_decl, which copies it):
 *   mcp_server_add_tool_decl(s, &(mcp_tool_decl){.name = "show_orders",
 *       ..., MCP_TOOL_DECL_UI(&(mcp_tool_ui){.resource_uri = "ui://x/y"})},
 *       &err);
 * The struct mcp_tool_decl itself is unchanged (docs/abi.md): a library
 * older than this header refuses such a declaration ("reserved members must
 * be zero") rather than drop the link. */
typedef struct mcp_tool_ui {
  const char *resource_uri; /* ui://...; NULL: no link */
  unsigned visibility;      /* MCP_APP_VISIBLE_*; 0: not emitted */
  const void *reserved[2];  /* zero */
} mcp_tool_ui;
/* (the conditional makes a pointer to another type a compile error) */
#define MCP_TOOL_DECL_UI(...)                                                  \
  .reserved = {(1 ? (__VA_ARGS__) : (const mcp_tool_ui *)0)}

/* ---- negotiation ----------------------------------------------------------
 * True when the client of call declared the extension with the MIME type
 * text/html;profile=mcp-app (initialize in 2025-11-25 and earlier, the
 * request's clientCapabilities in 2026-07-28). Handlers use it to return a
 * text-only result, or to choose what to put in structuredContent. */
MCP_API bool mcp_call_supports_apps(const mcp_call_t *call);

#ifdef __cplusplus
}
#endif
#endif
