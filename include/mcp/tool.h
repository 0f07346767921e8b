/* SPDX-License-Identifier: MIT */
/* tool.h - defining tools.
 *
 * A tool is a name, an input JSON Schema, optional output schema, metadata
 * (title, description, annotations, icons, execution.taskSupport, _meta) and
 * a handler. Build it on one thread with mcp_tool_new and the setters, then
 * hand it to mcp_server_add_tool, which takes ownership. Setters validate at
 * once: a bad name fails in mcp_tool_new, not at the first call.
 *
 * Arguments that fail the input schema never reach the handler: the client
 * gets an isError result naming every violation (SEP-1303). A
 * structuredContent that fails the output schema is reported to the client as
 * an isError result and logged as a server bug.
 *
 * Thread safety: a tool under construction belongs to one thread; once added
 * to a server it is immutable and its handler may run on many threads at once.
 */
#ifndef MCP_TOOL_H
#define MCP_TOOL_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/result.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_tool mcp_tool_t;

/* execution.taskSupport */
typedef enum mcp_task_support {
  MCP_TASK_FORBIDDEN = 0, /* the default; not emitted */
  MCP_TASK_OPTIONAL,
  MCP_TASK_REQUIRED
} mcp_task_support;

/* Behaviour hints (ToolAnnotations). Each is tri-state: unset hints are not
 * emitted; a set hint is emitted even when false, which matters because
 * destructiveHint and openWorldHint default to true. */
typedef enum mcp_tool_hint {
  MCP_HINT_READ_ONLY = 0,
  MCP_HINT_DESTRUCTIVE,
  MCP_HINT_IDEMPOTENT,
  MCP_HINT_OPEN_WORLD
} mcp_tool_hint;

/* The handler. args: borrowed, read-only object (never NULL; {} when the
 * client sent none), already valid against the input schema. Add content to
 * result; return MCP_OK (also for tool errors set with mcp_result_set_error),
 * or a failure status for a JSON-RPC error (see mcp_call_set_error). */
typedef mcp_status (*mcp_tool_fn)(mcp_call_t *call, json_t *args,
                                  mcp_result_t *result, void *user_data);

/* True when name follows the spec's tool naming rules: 1-128 characters of
 * A-Z a-z 0-9 _ - . */
MCP_API bool mcp_tool_name_is_valid(const char *name);

/* MCP_OK when name follows the naming rules, else MCP_ERR_INVALID_ARG with
 * err (may be NULL) saying what breaks them ("tool name \"get flight\": ' '
 * at byte 3 is not allowed (1-128 of A-Z a-z 0-9 _ - .)"). */
MCP_API mcp_status mcp_tool_check_name(const char *name, mcp_error_t *err);

/* Returns new (free with mcp_tool_free unless given to a server). name is
 * copied; MCP_ERR_INVALID_ARG when it breaks the naming rules
 * (mcp_tool_check_name says how). The input schema defaults to
 * {"type":"object"}.
 *
 * A setter below that refuses its argument (an icon that is not https: or
 * data:, a hint or task support out of range, _meta not an object, a NULL
 * handler) returns MCP_ERR_INVALID_ARG and keeps the reason in the tool:
 * mcp_server_add_tool then refuses the tool with it in err and the log
 * (readable before with mcp_tool_definition_errors, tool_decl.h), so a
 * mistake is reported even where the setter's status was not checked. The
 * same setter called again with an accepted value takes its refusal back
 * (mcp_tool_add_icon adds, so its refusals stay). A NULL tool is only
 * MCP_ERR_INVALID_ARG: there is nowhere to keep a reason. */
MCP_API mcp_status mcp_tool_new(const char *name, mcp_tool_t **out);
MCP_API void mcp_tool_free(mcp_tool_t *tool);

MCP_API const char *mcp_tool_name(const mcp_tool_t *tool);
MCP_API mcp_status mcp_tool_set_title(mcp_tool_t *tool, const char *title);
MCP_API mcp_status mcp_tool_set_description(mcp_tool_t *tool,
                                            const char *description);
/* Schemas: steal, even on failure. The root must be an object schema with
 * "type":"object". They are emitted unchanged in tools/list and compiled when
 * the tool is added to a server. A failure (MCP_ERR_SCHEMA, MCP_ERR_PARSE,
 * MCP_ERR_NOMEM for a NULL schema) is also kept in the tool, with its reason
 * (line and column for text that is not JSON): mcp_server_add_tool refuses
 * the tool with it, unless a later call of the same setter succeeded. */
MCP_API mcp_status mcp_tool_set_input_schema(mcp_tool_t *tool, json_t *schema);
MCP_API mcp_status mcp_tool_set_output_schema(mcp_tool_t *tool, json_t *schema);
/* Same from JSON text; MCP_ERR_PARSE when the text is not JSON. */
MCP_API mcp_status mcp_tool_set_input_schema_text(mcp_tool_t *tool,
                                                  const char *json_text);
MCP_API mcp_status mcp_tool_set_output_schema_text(mcp_tool_t *tool,
                                                   const char *json_text);
/* annotations.title */
MCP_API mcp_status mcp_tool_set_annotation_title(mcp_tool_t *tool,
                                                 const char *title);
MCP_API mcp_status mcp_tool_set_hint(mcp_tool_t *tool, mcp_tool_hint hint,
                                     bool value);
/* Icon (SEP-973): src must be an https: or data: URI; mime_type may be NULL;
 * sizes is a space-separated list ("48x48 96x96", "any") or NULL; theme is
 * NULL, "light" or "dark". */
MCP_API mcp_status mcp_tool_add_icon(mcp_tool_t *tool, const char *src,
                                     const char *mime_type, const char *sizes,
                                     const char *theme);
/* A tool that needs tasks (optional or required) is served only by a
 * server with tasks enabled (mcp_server_add_tool). */
MCP_API mcp_status mcp_tool_set_task_support(mcp_tool_t *tool,
                                             mcp_task_support support);
MCP_API mcp_task_support mcp_tool_task_support(const mcp_tool_t *tool);
/* 2026-07-28 (tasks extension): by default a task-supporting tool's call
 * becomes a task before its handler runs. With on, the handler first runs
 * as an ordinary (multi-round) request, so it can ask its questions with
 * input_required before any task exists, and calls
 * mcp_call_continue_as_task (task.h) where the rest should run as a task.
 * No effect in 2025-11-25, where the client asks for the task. */
MCP_API mcp_status mcp_tool_set_task_start_in_handler(mcp_tool_t *tool,
                                                      bool on);
/* "format" in this tool's schemas: on, an assertion (an argument that
 * fails it is an invalid argument); off, an annotation (emitted, never
 * checked). Unset, the server's mcp_server_set_format_assertion decides
 * (default: annotation). */
MCP_API mcp_status mcp_tool_set_format_assertion(mcp_tool_t *tool, bool on);
/* _meta; steals, even on failure. */
MCP_API mcp_status mcp_tool_set_meta(mcp_tool_t *tool, json_t *meta);
/* user_data is passed to fn; free_user_data (may be NULL) is called exactly
 * once when the tool is freed. If this call fails, nothing is ever called. */
MCP_API mcp_status mcp_tool_set_handler(mcp_tool_t *tool, mcp_tool_fn fn,
                                        void *user_data,
                                        void (*free_user_data)(void *));
/* The Tool object as listed by tools/list (returns new). */
MCP_API json_t *mcp_tool_to_json(const mcp_tool_t *tool);

/* ---- typed access to arguments ------------------------------------------- */
/* Each getter looks up name in the object args and returns MCP_OK,
 * MCP_ERR_ARG_MISSING (no such member), MCP_ERR_ARG_NULL (member is null) or
 * MCP_ERR_ARG_TYPE (another type). Strings and JSON values are borrowed from
 * args. An integer accepts a real with an integral value (JSON Schema counts
 * 1.0 as an integer); a number accepts integers too. An integral value outside
 * int64 (an integer literal beyond it arrives as a real) gives MCP_ERR_ARG_TYPE
 * and, inside a tool handler, makes the call's result an isError result naming
 * the argument. */
MCP_API mcp_status mcp_arg_string(const json_t *args, const char *name,
                                  const char **out);
/* The string with its length in bytes: JSON strings may contain U+0000
 * ("\u0000"), which a C string cannot carry. mcp_arg_string, and so
 * mcp_arg_string_or, refuse such a string with MCP_ERR_ARG_TYPE (the _or
 * form gives fallback), and when that happens inside a tool handler the
 * call's result becomes an isError result naming the argument, whatever
 * the handler returns: it was about to act on less than the schema checked.
 * Use this getter where a NUL is acceptable. */
MCP_API mcp_status mcp_arg_string_len(const json_t *args, const char *name,
                                      const char **out, size_t *len);
MCP_API mcp_status mcp_arg_integer(const json_t *args, const char *name,
                                   int64_t *out);
MCP_API mcp_status mcp_arg_number(const json_t *args, const char *name,
                                  double *out);
MCP_API mcp_status mcp_arg_boolean(const json_t *args, const char *name,
                                   bool *out);
MCP_API mcp_status mcp_arg_object(const json_t *args, const char *name,
                                  json_t **out);
MCP_API mcp_status mcp_arg_array(const json_t *args, const char *name,
                                 json_t **out);
/* Convenience: the string or fallback when missing, null or not a string. */
MCP_API const char *mcp_arg_string_or(const json_t *args, const char *name,
                                      const char *fallback);

#ifdef __cplusplus
}
#endif
#endif
