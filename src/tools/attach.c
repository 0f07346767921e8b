/* SPDX-License-Identifier: MIT */
/* attach.c - adding tools to and removing them from a server.
 *
 * Schemas are checked against the meta-schema and compiled here, once, so a
 * broken schema fails at registration rather than at the first call, and
 * tools/call never compiles anything.
 */
#include <stdio.h>
#include <string.h>

#include "core/feature.h"
#include "mcp/schema.h"
#include "tools/header_params.h"
#include "tools/tool_internal.h"
#include "util/buf.h"

static mcp_status compile_one(json_t *schema, const char *which,
                              bool assert_formats, mcp_schema_t **out,
                              mcp_error_t *err) {
  mcp_validation_t *v = NULL;
  mcp_status st = mcp_schema_check_meta(schema, &v);
  if (st == MCP_ERR_INVALID) {
    mcp_error_set(err, MCP_ERR_SCHEMA, "%s is not a valid JSON Schema: %s: %s",
                  which, mcp_validation_instance_location(v, 0),
                  mcp_validation_message(v, 0));
    if (err)
      snprintf(err->pointer, sizeof err->pointer, "%s",
               mcp_validation_instance_location(v, 0));
    mcp_validation_free(v);
    return MCP_ERR_SCHEMA;
  }
  mcp_validation_free(v);
  if (st != MCP_OK)
    return mcp_error_set(err, st == MCP_ERR_NOMEM ? st : MCP_ERR_SCHEMA,
                         "%s: %s", which, mcp_strerror(st));
  mcp_error_t detail;
  memset(&detail, 0, sizeof detail);
  mcp_schema_options_t *options = NULL;
  if (assert_formats &&
      (mcp_schema_options_new(&options) != MCP_OK ||
       mcp_schema_options_set_format_assertion(options, true) != MCP_OK)) {
    mcp_schema_options_free(options);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  st = mcp_schema_compile(schema, options, out, &detail);
  mcp_schema_options_free(options);
  if (st != MCP_OK) {
    mcp_error_set(err, st, "%s: %s", which, detail.message);
    if (err)
      snprintf(err->pointer, sizeof err->pointer, "%s", detail.pointer);
  }
  return st;
}

mcp_status mcp_server_add_tool(mcp_server_t *s, mcp_tool_t *tool,
                               mcp_error_t *err) {
  mcp_status st;
  if (s == NULL || tool == NULL) {
    st = mcp_error_set(err, MCP_ERR_INVALID_ARG,
                       s == NULL ? "mcp_server_add_tool: the server is NULL"
                                 : "mcp_server_add_tool: the tool is NULL (did "
                                   "mcp_tool_new refuse its name? "
                                   "mcp_tool_check_name says why)");
    goto fail;
  }
  if (tool->fn == NULL) {
    st = mcp_error_set(err, MCP_ERR_STATE, "tool '%s' has no handler",
                       tool->entry.key);
    goto fail;
  }
  if (tool->definition_errors) { /* tool_decl.h: all of them, once */
    size_t n = 1;
    for (const char *c = tool->definition_errors; *c; c++)
      n += *c == '\n';
    mcp__log(s, MCP_LOG_ERROR,
             "tool '%s' not added: %zu definition error%s:\n%s",
             tool->entry.key, n, n == 1 ? "" : "s", tool->definition_errors);
    char head[200], tail[64], list[256];
    snprintf(head, sizeof head, "tool '%.128s': %zu definition error%s: ",
             tool->entry.key, n, n == 1 ? "" : "s");
    /* err->message holds 255 bytes: a longer list ends saying where the
     * whole of it is rather than stopping mid-sentence */
    size_t room = sizeof err->message - 1 - strlen(head), k = 0;
    snprintf(tail, sizeof tail, " \u2026 (all %zu in the server log)", n);
    if (strlen(tool->definition_errors) + (n - 1) <= room)
      tail[0] = '\0'; /* "; " for "\n": one byte more each */
    else
      room -= strlen(tail);
    const char *c = tool->definition_errors;
    for (; *c && k < room; c++) {
      if (*c == '\n') {
        if (k + 2 > room)
          break;
        list[k++] = ';', list[k++] = ' ';
      } else {
        list[k++] = *c;
      }
    }
    while (k > 0 && ((unsigned char)*c & 0xC0) == 0x80)
      k--, c--; /* stopped inside a character: drop its first bytes */
    list[k] = '\0';
    st = mcp_error_set(err, MCP_ERR_INVALID_ARG, "%s%s%s", head, list, tail);
    if (err)
      snprintf(err->pointer, sizeof err->pointer, "%s",
               tool->definition_pointer);
    goto fail;
  }
  for (int side = 0; side < 2; side++) /* a schema setter failed (tool.c) */
    if (tool->schema_fault[side][0] != '\0') {
      mcp__log(s, MCP_LOG_ERROR, "tool '%s' not added: %s", tool->entry.key,
               tool->schema_fault[side]);
      st = mcp_error_set(err, MCP_ERR_SCHEMA, "tool '%s': %s", tool->entry.key,
                         tool->schema_fault[side]);
      if (err)
        snprintf(err->pointer, sizeof err->pointer, "/%s",
                 side ? "outputSchema" : "inputSchema");
      goto fail;
    }
  if (tool->task_support != MCP_TASK_FORBIDDEN &&
      mcp__server_task_hooks(s) == NULL &&
      mcp__server_is_serving(s)) { /* tasks come before serving or never */
    mcp__log(s, MCP_LOG_ERROR,
             "tool '%s' not added: it needs tasks (taskSupport %s), which "
             "are not enabled on this server, and it is serving already "
             "(mcp_server_enable_tasks comes before serving)",
             tool->entry.key,
             tool->task_support == MCP_TASK_REQUIRED ? "required" : "optional");
    st = mcp_error_set(
        err, MCP_ERR_STATE,
        "tool '%s' needs tasks (taskSupport %s), which are not enabled on "
        "this server, and it is serving already",
        tool->entry.key,
        tool->task_support == MCP_TASK_REQUIRED ? "required" : "optional");
    goto fail;
  }
  bool assert_formats = tool->format_assertion
                            ? tool->format_assertion == 1
                            : mcp__tools_of(s)->assert_formats;
  st = compile_one(tool->input_schema, "inputSchema", assert_formats,
                   &tool->input_compiled, err);
  if (st == MCP_OK)
    st = mcp__header_params_check(tool, err);
  if (st != MCP_OK)
    goto fail;
  if (tool->output_schema) {
    st = compile_one(tool->output_schema, "outputSchema", assert_formats,
                     &tool->output_compiled, err);
    if (st != MCP_OK)
      goto fail;
  }
  tool->entry.listing = mcp_tool_to_json(tool);
  if (tool->entry.listing == NULL) {
    st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
    goto fail;
  }
  st = mcp__tool_ui_check(s, tool, err); /* apps.h: _meta.ui */
  if (st != MCP_OK) {
    mcp__log(s, MCP_LOG_ERROR, "tool '%s' not added: %s", tool->entry.key,
             err ? err->message : mcp_strerror(st));
    goto fail;
  }
  st = mcp__catalog_add(mcp__tools_catalog(s), &tool->entry);
  if (st != MCP_OK) {
    mcp_error_set(err, st,
                  st == MCP_ERR_EXISTS ? "tool '%s' already exists"
                                       : "cannot add tool '%s'",
                  tool->entry.key);
    goto fail;
  }
  if (mcp__tools_of(s)->list_changed)
    mcp_server_broadcast(s, "notifications/tools/list_changed", NULL);
  return MCP_OK;
fail:
  mcp_tool_free(tool);
  return st;
}

/* Appends the tools that need tasks to a list (never stops the walk). */
typedef struct task_tools {
  mcp__buf names;
  size_t count;
} task_tools;

static bool collect_task_tool(mcp__entry *e, void *ctx) {
  const mcp_tool_t *t = (const mcp_tool_t *)e;
  task_tools *tt = ctx;
  if (t->task_support == MCP_TASK_FORBIDDEN)
    return false;
  char item[200];
  snprintf(item, sizeof item, "%s'%.128s' (taskSupport %s)",
           tt->count ? ", " : "", e->key,
           t->task_support == MCP_TASK_REQUIRED ? "required" : "optional");
  mcp__buf_append_str(&tt->names, item);
  tt->count++;
  return false;
}

size_t mcp__tools_task_count(mcp_server_t *s) {
  task_tools tt = {.count = 0};
  mcp__buf_init(&tt.names);
  mcp__catalog_find_if(mcp__tools_catalog(s), collect_task_tool, &tt);
  mcp__buf_free(&tt.names);
  return tt.count;
}

mcp_status mcp__tools_check_task_support(mcp_server_t *s, mcp_error_t *err) {
  if (mcp__server_task_hooks(s) != NULL) /* tasks are enabled */
    return MCP_OK;
  task_tools tt = {.count = 0};
  mcp__buf_init(&tt.names);
  mcp__catalog_find_if(mcp__tools_catalog(s), collect_task_tool, &tt);
  if (tt.count == 0) {
    mcp__buf_free(&tt.names);
    return MCP_OK;
  }
  const char *names = tt.names.data ? tt.names.data : "(out of memory)";
  /* err->message holds 255 bytes: a longer list is logged whole and the
   * message says so (mcp_error_set marks where it is cut) */
  bool long_list = strlen(names) > 120;
  /* Served, such a tool would be listed with execution.taskSupport while
   * the server declares no tasks capability, and run inline. Logged when
   * the caller has no err to read. */
  if (err == NULL || long_list)
    mcp__log(s, MCP_LOG_ERROR,
             "not serving: %zu tool%s need%s tasks, which are not enabled "
             "(mcp_server_enable_tasks before serving, or "
             "mcp_tool_set_task_support(tool, MCP_TASK_FORBIDDEN)): %s",
             tt.count, tt.count == 1 ? "" : "s", tt.count == 1 ? "s" : "",
             names);
  mcp_error_set(err, MCP_ERR_STATE,
                "%zu tool%s need%s tasks, which are not enabled "
                "(mcp_server_enable_tasks)%s: %s",
                tt.count, tt.count == 1 ? "" : "s", tt.count == 1 ? "s" : "",
                long_list ? ", all in the server log" : "", names);
  mcp__buf_free(&tt.names);
  return MCP_ERR_STATE;
}

mcp_status mcp_server_remove_tool(mcp_server_t *s, const char *name) {
  if (s == NULL || name == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp_status st = mcp__catalog_remove(mcp__tools_catalog(s), name);
  if (st == MCP_OK && mcp__tools_of(s)->list_changed)
    mcp_server_broadcast(s, "notifications/tools/list_changed", NULL);
  return st;
}

size_t mcp_server_tool_count(const mcp_server_t *s) {
  return s ? mcp__catalog_count(mcp__tools_catalog(s)) : 0;
}

mcp_status mcp_server_set_format_assertion(mcp_server_t *s, bool on) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  size_t added = mcp_server_tool_count(s);
  if (on != mcp__tools_of(s)->assert_formats && added > 0) {
    /* their schemas were compiled already: they would silently keep the
     * old setting */
    mcp__log(s, MCP_LOG_ERROR,
             "mcp_server_set_format_assertion(%s) refused: %zu tool%s added "
             "before it keep format as %s; set it before adding tools, or "
             "per tool with mcp_tool_set_format_assertion",
             on ? "true" : "false", added, added == 1 ? " was" : "s were",
             on ? "an annotation" : "an assertion");
    return MCP_ERR_STATE;
  }
  mcp__tools_of(s)->assert_formats = on;
  return MCP_OK;
}

mcp_status mcp_server_set_tools_list_changed(mcp_server_t *s, bool declared) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp__tools_of(s)->list_changed = declared;
  return MCP_OK;
}
