/* SPDX-License-Identifier: MIT */
/* tool_internal.h - the tool object behind mcp_tool_t.
 *
 * Once added to a server a tool is immutable and reference-counted: a call
 * that looked it up keeps it alive even if it is removed meanwhile. A tool
 * is a catalog entry (catalog/catalog.h): the server keeps its tools in the
 * same ordered, hashed, paginated collection as resources and prompts.
 */
#ifndef MCP_TOOL_INTERNAL_H
#define MCP_TOOL_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "mcp/schema.h"
#include "mcp/tool.h"

struct mcp__tnode;
/* A handler that reads its arguments (an object node, never NULL) from the
 * request's tape (json/tape.h) rather than from jansson values: a call to
 * a tool with one never builds the request's params. */
typedef mcp_status (*mcp__tool_tape_fn)(mcp_call_t *call,
                                        const struct mcp__tnode *args,
                                        mcp_result_t *result, void *user_data);

struct mcp_tool {
  mcp__entry entry; /* first: key is the name; refs, seq, listing */
  char *title, *description, *annotation_title;
  signed char hints[4]; /* -1 unset, else 0/1; indexed by mcp_tool_hint */
  json_t *input_schema, *output_schema, *icons, *meta;
  mcp_task_support task_support;
  /* mcp_tool_set_format_assertion: 0 the server's setting, 1 format is an
   * assertion, 2 an annotation */
  unsigned char format_assertion;
  bool task_start_in_handler; /* mcp_tool_set_task_start_in_handler */
  mcp_tool_fn fn;
  /* The same handler reading its arguments from the request's tape: set by
   * mcp_tool_new_decl for tables it can fill from one, cleared when
   * mcp_tool_set_handler replaces the handler. */
  mcp__tool_tape_fn fn_tape;
  void *user_data;
  void (*free_user_data)(void *);
  /* output_schema is the one mcp_tool_new_decl made from an output table
   * whose text is valid by construction when complete (decl.c
   * plain_output); any later mcp_tool_set_output_schema clears it */
  bool output_declared;
  /* filled when added to a server */
  mcp_schema_t *input_compiled, *output_compiled;
  size_t header_params; /* properties marked x-mcp-header (SEP-2243) */
  /* tool_decl.h: definition errors found by mcp_tool_new_decl, reported by
   * mcp_server_add_tool (NULL: none), and the first one's JSON Pointer */
  char *definition_errors;
  char definition_pointer[200];
  /* What the last schema setter of each side (0 input, 1 output) refused,
   * or "": kept for mcp_server_add_tool, which refuses the tool with it
   * (the setters' status alone went unchecked, and the tool was served
   * with the schema it had before). A later successful set clears it. */
  char schema_fault[2][320];
  /* apps.h (tool_ui.c): mcp_tool_set_ui's link, merged into _meta.ui by
   * mcp_tool_to_json; what it refused ("" none); and, once added, the
   * visibility in force (MCP_APP_VISIBLE_* bits of the listed _meta.ui,
   * both when unset) and the linked URI (in the listing, borrowed) */
  char *ui_resource_uri;
  unsigned ui_visibility;
  char ui_fault[320];
  unsigned ui_visible;
  const char *ui_linked;
};

static inline void mcp__tool_retain(mcp_tool_t *tool) {
  mcp__entry_retain(&tool->entry);
}
/* The last reference frees the tool (and calls free_user_data). */
static inline void mcp__tool_release(mcp_tool_t *tool) {
  mcp__entry_release(&tool->entry);
}

/* Argument faults: a getter asked for a value the schema let through but C
 * cannot hold as asked (a string with U+0000 as a C string, an integer
 * beyond int64). The getter records one on its thread while a handler runs
 * (mcp__tool_execute brackets the call), and the call's result becomes an
 * isError result naming the argument, whatever the handler made of the
 * getter's status or fallback. Outside a handler, getters only return. */
typedef struct mcp__arg_fault {
  bool set;
  char message[240];
} mcp__arg_fault;
/* Starts recording into f (cleared) on this thread; returns the previous
 * recorder, to hand back to mcp__arg_fault_end (handlers may nest). */
mcp__arg_fault *mcp__arg_fault_begin(mcp__arg_fault *f);
void mcp__arg_fault_end(mcp__arg_fault *previous);
/* Records that argument name holds a string with U+0000; MCP_ERR_ARG_TYPE. */
mcp_status mcp__arg_fault_nul(const char *name);
/* An integral real as int64 (*out): MCP_ERR_ARG_TYPE when d has a fraction,
 * a recorded fault when it is beyond int64 (mcp_arg_integer's rules). */
mcp_status mcp__arg_integer_of_real(const char *name, double d, int64_t *out);

/* ---- invoke.c ---------------------------------------------------------- */
struct mcp_server;
mcp_status mcp__handle_tools_list(mcp_call_t *call, json_t **result);
mcp_status mcp__handle_tools_call(mcp_call_t *call, json_t **result);
/* Validates args (borrowed; NULL means {}) against the tool's input schema,
 * runs the handler and checks its output. On MCP_OK out holds the
 * CallToolResult JSON text (an isError one for invalid arguments) and
 * *is_error tells whether it is a tool error. */
struct mcp__buf;
mcp_status mcp__tool_execute(mcp_call_t *call, mcp_tool_t *tool, json_t *args,
                             struct mcp__buf *out, bool *is_error);
/* attach.c: MCP_ERR_STATE (err filled; logged when err is NULL) when tasks
 * are not enabled on s and a tool needs them (taskSupport required or
 * optional), naming every such tool. */
mcp_status mcp__tools_check_task_support(struct mcp_server *s,
                                         mcp_error_t *err);
/* How many tools run as tasks (taskSupport optional or required). */
size_t mcp__tools_task_count(struct mcp_server *s);
/* ---- tool_ui.c (apps.h) -------------------------------------------------- */
/* _meta with the mcp_tool_set_ui link merged in (returns new; NULL when
 * the tool has neither, or out of memory: *failed tells). */
json_t *mcp__tool_ui_meta(const mcp_tool_t *tool, bool *failed);
/* At mcp_server_add_tool, the listing built: checks its _meta.ui (a kept
 * setter fault, resourceUri ui://, visibility of model/app) and, while s
 * serves, that the URI names a registered UI resource; fills ui_visible
 * and ui_linked. MCP_ERR_INVALID_ARG / MCP_ERR_NOT_FOUND with err. */
mcp_status mcp__tool_ui_check(struct mcp_server *s, mcp_tool_t *tool,
                              mcp_error_t *err);
/* At serving start: every linked resourceUri names a registered UI
 * resource, else MCP_ERR_NOT_FOUND naming each tool and URI (logged when
 * err is NULL). */
mcp_status mcp__tools_check_ui_links(struct mcp_server *s, mcp_error_t *err);
/* Whether call may see tool: an app-only tool is hidden from a client
 * without the extension. */
bool mcp__tool_visible_to(const mcp_tool_t *tool, const mcp_call_t *call);
/* True when a resource listing (catalog entry JSON) is a UI resource. */
bool mcp__listing_is_ui(const json_t *listing);

/* The tools module's state on a server (its feature slot, core/feature.h). */
typedef struct mcp__tools_state {
  mcp__catalog catalog; /* of mcp_tool_t (entry first) */
  bool list_changed;    /* mcp_server_set_tools_list_changed */
  /* "format" asserts in the schemas of tools added from now on
   * (mcp_server_set_format_assertion; a tool's own setting wins) */
  bool assert_formats;
  /* Whether a UI resource (apps.h) has uri, and (*exists) whether any
   * resource has: installed by the resources module, which sits above
   * tools (mcp__tools_set_ui_lookup); NULL: no resource exists. */
  bool (*ui_resource)(mcp_server_t *s, const char *uri, bool *exists);
} mcp__tools_state;
/* The state of s (set by mcp__tools_register, so never NULL after
 * mcp_server_new). */
mcp__tools_state *mcp__tools_of(const mcp_server_t *s);
static inline mcp__catalog *mcp__tools_catalog(const mcp_server_t *s) {
  return &mcp__tools_of(s)->catalog;
}
void mcp__tools_set_ui_lookup(mcp_server_t *s,
                              bool (*ui_resource)(mcp_server_t *s,
                                                  const char *uri,
                                                  bool *exists));

/* tools/list and tools/call, the tools capability, the tools state
 * (registered by mcp_server_new). */
mcp_status mcp__tools_register(struct mcp_server *s);

#endif
