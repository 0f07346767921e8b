/* SPDX-License-Identifier: MIT */
/* invoke.c - tools/list and tools/call.
 *
 * tools/call order (SEP-1303): unknown tool is a protocol error (-32602);
 * arguments failing the input schema become an isError result naming every
 * violation and the handler is not called; an argument the handler's
 * getters could not hand over faithfully (args.c) makes an isError result
 * naming it; a handler failure status is otherwise a protocol error; a
 * structuredContent failing the output schema is reported as an isError result
 * and logged as a server bug.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/call_life.h"
#include "core/feature.h"
#include "core/notify.h"
#include "json/tape.h"
#include "mcp/apps.h"
#include "mcp/schema.h"
#include "schema/validate_tape.h"
#include "tools/header_params.h"
#include "tools/result_internal.h"
#include "tools/tool_internal.h"
#include "util/buf.h"
#include "util/similar.h"

/* Caps the detail text so a hostile payload cannot produce a huge answer. */
#define MAX_LISTED_VIOLATIONS 25

/* apps.h: a client without the MCP Apps extension has no view that could
 * call an app-only tool (_meta.ui.visibility without "model"), and would
 * show it to its model: such tools are left out of its pages. */
static mcp_status hide_app_only_tools(mcp_call_t *call, json_t *result) {
  (void)call;
  json_t *tools = json_object_get(result, "tools");
  for (size_t i = json_array_size(tools); i-- > 0;) {
    json_t *vis = json_object_get(
        json_object_get(json_object_get(json_array_get(tools, i), "_meta"),
                        "ui"),
        "visibility");
    if (vis == NULL)
      continue;
    bool model = false;
    size_t k;
    json_t *v;
    json_array_foreach(vis, k, v) model |=
        json_is_string(v) && strcmp(json_string_value(v), "model") == 0;
    if (!model && json_array_remove(tools, i) != 0)
      return MCP_ERR_NOMEM;
  }
  return MCP_OK;
}

mcp_status mcp__handle_tools_list(mcp_call_t *call, json_t **result) {
  mcp_status st =
      mcp__list_catalog(call, mcp__tools_catalog(mcp_call_server(call)),
                        "tools", "tools", MCP_CACHE_TOOLS_LIST, result);
  if (st != MCP_OK)
    return st;
  if (!mcp_call_supports_apps(call)) {
    st = hide_app_only_tools(call, *result);
    if (st != MCP_OK) {
      json_decref(*result);
      *result = NULL;
      return st;
    }
  }
  if (!mcp_call_is_stateless(call))
    return st;
  /* 2026-07-28 has no Tool.execution: the server decides per request
   * (tasks extension). The listings are shared: replace, never edit. */
  json_t *tools = json_object_get(*result, "tools");
  size_t i;
  json_t *t;
  json_array_foreach(tools, i, t) {
    if (json_object_get(t, "execution") == NULL)
      continue;
    json_t *copy = json_copy(t);
    if (copy == NULL || json_object_del(copy, "execution") != 0 ||
        json_array_set_new(tools, i, copy) != 0) {
      json_decref(*result);
      *result = NULL;
      return MCP_ERR_NOMEM;
    }
  }
  return MCP_OK;
}

/* Appends "- <pointer>: <message> (<keyword location>)" lines. */
static void describe_violations(mcp__buf *text, const mcp_validation_t *v) {
  size_t n = mcp_validation_count(v);
  for (size_t i = 0; i < n && i < MAX_LISTED_VIOLATIONS; i++) {
    const char *where = mcp_validation_instance_location(v, i);
    mcp__buf_append_str(text, "\n- ");
    mcp__buf_append_str(text, where && *where ? where : "(root)");
    mcp__buf_append_str(text, ": ");
    mcp__buf_append_str(text, mcp_validation_message(v, i));
    mcp__buf_append_str(text, " (");
    mcp__buf_append_str(text, mcp_validation_keyword_location(v, i));
    mcp__buf_append_str(text, ")");
  }
  if (n > MAX_LISTED_VIOLATIONS) {
    char more[64];
    snprintf(more, sizeof more, "\n- ... and %zu more",
             n - MAX_LISTED_VIOLATIONS);
    mcp__buf_append_str(text, more);
  }
}

/* SEP-1303: a schema violation is an isError result the model can read. */
static mcp_status input_error_result(mcp_tool_t *tool, const json_t *args,
                                     json_t **result) {
  mcp_validation_t *v = NULL;
  mcp_status st = mcp_schema_validate(tool->input_compiled, args, &v);
  if (st == MCP_ERR_NOMEM)
    return st;
  mcp__buf text;
  mcp__buf_init(&text);
  mcp__buf_append_str(&text, "Invalid arguments for tool '");
  mcp__buf_append_str(&text, tool->entry.key);
  mcp__buf_append_str(&text, "':");
  if (v)
    describe_violations(&text, v);
  mcp_validation_free(v);
  if (text.data == NULL)
    return MCP_ERR_NOMEM;
  *result = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text",
                      text.data, "isError", 1);
  mcp__buf_free(&text);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

/* Checks structuredContent against the output schema; on violation the
 * result becomes an isError result (the tool broke its own contract). */
/* Whether the text form of structuredContent (a declared tool's) is valid
 * against the output schema, read from a tape; false also when it cannot
 * be read, so that the jansson path below decides and explains. */
static bool text_output_valid(const mcp_tool_t *tool, const mcp__buf *text) {
  mcp__tape t;
  bool valid = mcp__tape_parse(&t, text->data, text->len) == MCP_OK &&
               mcp__validate_tape(tool->output_compiled, t.nodes) == MCP_OK;
  mcp__tape_release(&t);
  return valid;
}

static void check_output(mcp_call_t *call, mcp_tool_t *tool, mcp_result_t *r) {
  if (tool->output_compiled == NULL || r->is_error)
    return;
  if (r->structured == NULL && r->structured_text.len > 0) {
    /* A declared tool's complete output, against the schema made from the
     * same table, is valid by construction (decl.c plain_output). */
    if ((r->structured_declared && tool->output_declared) ||
        text_output_valid(tool, &r->structured_text))
      return;
    if (!mcp__result_structured_as_json(r)) { /* no memory to say why */
      mcp__result_reset_to_error(r, "output schema violation");
      return;
    }
  }
  mcp__buf text;
  mcp__buf_init(&text);
  if (r->structured == NULL) {
    mcp__buf_append_str(&text, "Tool '");
    mcp__buf_append_str(&text, tool->entry.key);
    mcp__buf_append_str(&text, "' declares an outputSchema but returned no "
                               "structuredContent (server error)");
  } else if (!mcp_schema_is_valid(tool->output_compiled, r->structured)) {
    mcp_validation_t *v = NULL;
    mcp_schema_validate(tool->output_compiled, r->structured, &v);
    mcp__buf_append_str(&text, "Tool '");
    mcp__buf_append_str(&text, tool->entry.key);
    mcp__buf_append_str(&text, "' returned structuredContent that does not "
                               "match its outputSchema (server error):");
    if (v)
      describe_violations(&text, v);
    mcp_validation_free(v);
  } else
    return;
  mcp__log(mcp_call_server(call), MCP_LOG_ERROR, "%s",
           text.data ? text.data : "output schema violation");
  mcp__result_reset_to_error(r, text.data ? text.data
                                          : "output schema "
                                            "violation");
  mcp__buf_free(&text);
}

/* Runs the tool's handler on valid arguments (args, or targs from the
 * request's tape with the tool's fn_tape) and encodes what it made into
 * out. */
static mcp_status run_handler(mcp_call_t *call, mcp_tool_t *tool, json_t *args,
                              const mcp__tnode *targs, mcp__buf *out,
                              bool *is_error) {
  mcp_result_t r;
  if (!mcp__result_init(&r))
    return MCP_ERR_NOMEM;
  char text_small[256]; /* a declared tool's output text, when it fits */
  mcp__buf_init_on(&r.structured_text, text_small, sizeof text_small);
  mcp__arg_fault fault;
  mcp__arg_fault *outer = mcp__arg_fault_begin(&fault);
  mcp_status st = targs ? tool->fn_tape(call, targs, &r, tool->user_data)
                        : tool->fn(call, args, &r, tool->user_data);
  mcp__arg_fault_end(outer);
  if (r.lost != NULL && st != MCP_ERR_NOMEM && !fault.set) {
    /* JSON has no Infinity or NaN: a defined tool error, not -32603 */
    char msg[400];
    snprintf(msg, sizeof msg,
             "Tool '%s' could not produce its result: its %s value could not "
             "be built. JSON cannot represent a non-finite number (Infinity, "
             "NaN) or a string that is not UTF-8 (server error)",
             tool->entry.key, r.lost);
    mcp__log(mcp_call_server(call), MCP_LOG_ERROR, "%s", msg);
    st = MCP_OK;
    mcp__result_reset_to_error(&r, msg);
  }
  if (fault.set && st != MCP_ERR_NOMEM) {
    /* The handler was given less than the schema checked (or nothing):
     * tell the model which argument, as for a schema violation (SEP-1303),
     * instead of a result built on a cut string or a protocol error. */
    st = MCP_OK;
    mcp__result_reset_to_error(&r, fault.message);
  }
  if (st == MCP_OK && r.failed)
    st = MCP_ERR_NOMEM;
  if (st == MCP_OK) {
    check_output(call, tool, &r);
    *is_error = r.is_error;
    if (!mcp__result_encode(&r, out))
      st = MCP_ERR_NOMEM;
  }
  mcp__result_clear(&r);
  return st;
}

mcp_status mcp__tool_execute(mcp_call_t *call, mcp_tool_t *tool, json_t *args,
                             mcp__buf *out, bool *is_error) {
  *is_error = false;
  json_t *empty = NULL;
  if (!json_is_object(args)) {
    if ((empty = json_object()) == NULL)
      return MCP_ERR_NOMEM;
    args = empty;
  }
  mcp_status st;
  if (!mcp_schema_is_valid(tool->input_compiled, args)) {
    json_t *res = NULL;
    st = input_error_result(tool, args, &res);
    if (st == MCP_OK && !mcp__buf_append_json(out, res, 0))
      st = MCP_ERR_NOMEM;
    *is_error = true;
    json_decref(res);
  } else
    st = run_handler(call, tool, args, NULL, out, is_error);
  json_decref(empty);
  return st;
}

/* mcp__tool_execute for a tool with a tape handler, its arguments (an
 * object node, or NULL for {}) read from the request's tape: valid ones
 * never become jansson values. Invalid ones take the general path, which
 * names every violation. */
static mcp_status execute_from_tape(mcp_call_t *call, mcp_tool_t *tool,
                                    const mcp__tnode *targs, mcp__buf *out,
                                    bool *is_error) {
  static const mcp__tnode no_arguments = {.type = MCP__J_OBJECT, .skip = 1};
  *is_error = false;
  if (targs == NULL || targs->type != MCP__J_OBJECT)
    targs = &no_arguments;
  if (mcp__validate_tape(tool->input_compiled, targs) != MCP_OK)
    return mcp__tool_execute(call, tool, mcp__call_param(call, "arguments"),
                             out, is_error);
  return run_handler(call, tool, NULL, targs, out, is_error);
}

/* The tool named name_len bytes at name (not NUL-terminated), retained, or
 * NULL. */
static mcp_tool_t *find_tool(mcp_call_t *call, const char *name,
                             size_t name_len) {
  char small[128];
  char *key = name_len < sizeof small ? small : malloc(name_len + 1);
  if (key == NULL)
    return NULL;
  memcpy(key, name, name_len);
  key[name_len] = '\0';
  /* tools are catalog entries with the entry first (tool_internal.h) */
  mcp_tool_t *tool = (mcp_tool_t *)mcp__catalog_find(
      mcp__tools_catalog(mcp_call_server(call)), key);
  if (key != small)
    free(key);
  return tool;
}

/* A catalog visitor offering each tool's name to a mcp__similar. */
static bool offer_name(mcp__entry *e, void *near) {
  return mcp__similar_offer(near, e->key);
}

mcp_status mcp__handle_tools_call(mcp_call_t *call, json_t **result) {
  const char *name;
  size_t name_len;
  if (!mcp__call_param_string(call, "name", &name, &name_len))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: name must be a string");
  /* Arguments stay on the request's tape as long as nothing needs them as
   * jansson values (a tool with a tape handler never does). */
  const mcp__tnode *tape = mcp__call_params_tape(call);
  const mcp__tnode *targs =
      tape ? mcp__tnode_member(tape, "arguments", 9) : NULL;
  json_t *args = tape ? NULL : mcp__call_param(call, "arguments");
  if (tape ? targs != NULL && targs->type != MCP__J_OBJECT &&
                 targs->type != MCP__J_NULL
           : args != NULL && !json_is_object(args) && !json_is_null(args))
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: arguments must be an object");
  mcp_tool_t *tool = find_tool(call, name, name_len);
  if (tool != NULL && !mcp__tool_visible_to(tool, call)) {
    mcp__tool_release(tool); /* app-only, and no app (hide_app_only_tools) */
    tool = NULL;
  }
  if (tool == NULL) {
    char msg[700], hint[500];
    mcp__similar near;
    mcp__similar_init(&near, name, name_len);
    mcp__catalog_find_if(mcp__tools_catalog(mcp_call_server(call)),
                         offer_name, &near);
    mcp__similar_text(&near, hint, sizeof hint);
    snprintf(msg, sizeof msg, "Unknown tool: %.*s%s",
             (int)(name_len < 150 ? name_len : 150), name, hint);
    return mcp__call_fail(call, MCP_RPC_INVALID_PARAMS, msg);
  }
  bool from_tape = tape != NULL && tool->fn_tape != NULL;
  if (tape != NULL && (!from_tape || tool->header_params))
    args = mcp__call_param(call, "arguments");
  mcp_status st = tool->header_params
                      ? mcp__header_params_verify(call, tool, args)
                      : MCP_OK;
  if (st != MCP_OK) {
    mcp__tool_release(tool);
    return st;
  }
  /* Without the tasks capability params.task is ignored (spec 8.2). */
  const mcp__task_hooks *hooks = mcp__server_task_hooks(mcp_call_server(call));
  if (hooks != NULL) { /* tasks are enabled */
    bool handled = false;
    st = hooks->tool_call(call, tool, result, &handled);
    if (st != MCP_OK || handled) {
      mcp__tool_release(tool);
      return st;
    }
  }
  bool is_error;
  st = from_tape ? execute_from_tape(call, tool, targs,
                                     mcp__call_raw_result(call), &is_error)
                 : mcp__tool_execute(call, tool, args,
                                     mcp__call_raw_result(call), &is_error);
  if (st == MCP_OK && is_error)
    mcp__call_note_tool_error(call);
  if (mcp__call_is_handed_off(call) &&
      hooks != NULL) /* mcp_call_continue_as_task */
    st = hooks->call_started(call, result);
  mcp__tool_release(tool);
  return st;
}

static const mcp__method tool_methods[] = {
    {"tools/list", mcp__handle_tools_list, MCP__ERA_LEGACY | MCP__ERA_MODERN},
    {"tools/call", mcp__handle_tools_call, MCP__ERA_LEGACY | MCP__ERA_MODERN},
};

static void tools_state_free(void *state) {
  mcp__tools_state *ts = state;
  mcp__catalog_destroy(&ts->catalog);
  free(ts);
}
static const mcp__slot_key tools_slot = {"tools", tools_state_free};

mcp__tools_state *mcp__tools_of(const mcp_server_t *s) {
  return mcp__server_slot(s, &tools_slot);
}

void mcp__tools_set_ui_lookup(mcp_server_t *s,
                              bool (*ui_resource)(mcp_server_t *s,
                                                  const char *uri,
                                                  bool *exists)) {
  mcp__tools_of(s)->ui_resource = ui_resource;
}

/* tools is declared even when none are registered yet: tools may be added
 * while serving, and list_changed tells the client about them. */
static void tools_capability(const mcp_server_t *s, json_t *caps,
                             unsigned era) {
  (void)era;
  json_t *tools = json_object();
  if (tools && mcp__tools_of(s)->list_changed)
    json_object_set_new(tools, "listChanged", json_true());
  json_object_set_new(caps, "tools", tools);
}

static void tools_resync(mcp_server_t *s) {
  if (mcp__tools_of(s)->list_changed)
    mcp__server_broadcast_local(s, "notifications/tools/list_changed", NULL);
}

mcp_status mcp__tools_register(mcp_server_t *s) {
  mcp__tools_state *ts = calloc(1, sizeof *ts);
  if (ts == NULL)
    return MCP_ERR_NOMEM;
  mcp__catalog_init(&ts->catalog);
  ts->list_changed = true;
  mcp_status st = mcp__server_set_slot(s, &tools_slot, ts);
  if (st != MCP_OK) {
    tools_state_free(ts);
    return st;
  }
  st = mcp__server_add_methods(s, tool_methods,
                               sizeof tool_methods / sizeof tool_methods[0]);
  if (st == MCP_OK)
    st = mcp__server_add_capability(s, tools_capability);
  if (st == MCP_OK)
    st = mcp__server_on_resync(s, tools_resync);
  return st;
}
