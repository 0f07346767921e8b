/* SPDX-License-Identifier: MIT */
/* tool.c - tool definitions: validation at set time, JSON for tools/list.
 *
 * Schemas are kept as the caller gave them and emitted unchanged ($schema,
 * $defs, allOf, ... all preserved), as the spec requires.
 */
#include "tools/tool_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "util/str.h"
#include "json/load.h"

bool mcp_tool_name_is_valid(const char *name) {
  if (name == NULL)
    return false;
  size_t n = 0;
  for (const char *p = name; *p; p++, n++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok || n >= 128)
      return false;
  }
  return n > 0;
}

/* A setter refusing its argument says why where mcp_server_add_tool will
 * report it: a line of the tool's definition errors (the decl path's list),
 * so the tool is refused at registration with the reason even when the
 * setter's status was ignored. Returns MCP_ERR_INVALID_ARG (MCP_ERR_NOMEM
 * when the line cannot be kept). */
static mcp_status refuse(mcp_tool_t *tool, const char *pointer,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static mcp_status refuse(mcp_tool_t *tool, const char *pointer,
                         const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (mcp__str_add_line(&tool->definition_errors, "%s", line) != MCP_OK)
    return MCP_ERR_NOMEM;
  if (tool->definition_pointer[0] == '\0')
    snprintf(tool->definition_pointer, sizeof tool->definition_pointer, "%s",
             pointer);
  return MCP_ERR_INVALID_ARG;
}

mcp_status mcp_tool_check_name(const char *name, mcp_error_t *err) {
  if (name == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "the tool name is NULL");
  if (name[0] == '\0')
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "the tool name is empty");
  size_t n = 0;
  for (const char *p = name; *p; p++, n++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (ok)
      continue;
    char shown[8];
    if ((unsigned char)c >= 0x21 && (unsigned char)c < 0x7F)
      snprintf(shown, sizeof shown, "'%c'", c);
    else
      snprintf(shown, sizeof shown, "0x%02X", (unsigned char)c);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "tool name \"%.128s\": %s at byte %zu is not allowed "
                         "(1-128 of A-Z a-z 0-9 _ - .)",
                         name, shown, n);
  }
  if (n > 128)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "tool name \"%.40s...\" is %zu characters long, at "
                         "most 128",
                         name, n);
  return MCP_OK;
}

/* A setter that accepted its value takes back its earlier refusal (the
 * last call wins, as for the value). */
static void accepted(mcp_tool_t *tool, const char *setter) {
  mcp__str_drop_lines(&tool->definition_errors, setter);
  if (tool->definition_errors == NULL)
    tool->definition_pointer[0] = '\0';
}

static void tool_destroy(mcp__entry *e) {
  mcp_tool_t *t = (mcp_tool_t *)e;
  if (t->free_user_data)
    t->free_user_data(t->user_data);
  free(e->key);
  free(t->title);
  free(t->description);
  free(t->annotation_title);
  free(t->definition_errors);
  json_decref(t->input_schema);
  json_decref(t->output_schema);
  json_decref(t->icons);
  json_decref(t->meta);
  free(t->ui_resource_uri);
  json_decref(e->listing);
  mcp_schema_free(t->input_compiled);
  mcp_schema_free(t->output_compiled);
  free(t);
}

mcp_status mcp_tool_new(const char *name, mcp_tool_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (!mcp_tool_name_is_valid(name))
    return MCP_ERR_INVALID_ARG;
  mcp_tool_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return MCP_ERR_NOMEM;
  atomic_init(&t->entry.refs, 1);
  t->entry.destroy = tool_destroy;
  memset(t->hints, -1, sizeof t->hints);
  t->entry.key = strdup(name);
  t->input_schema = json_pack("{s:s}", "type", "object");
  if (t->entry.key == NULL || t->input_schema == NULL) {
    mcp_tool_free(t);
    return MCP_ERR_NOMEM;
  }
  *out = t;
  return MCP_OK;
}

void mcp_tool_free(mcp_tool_t *tool) {
  if (tool != NULL)
    mcp__tool_release(tool);
}

const char *mcp_tool_name(const mcp_tool_t *tool) {
  return tool ? tool->entry.key : NULL;
}

mcp_status mcp_tool_set_title(mcp_tool_t *tool, const char *title) {
  return tool ? mcp__str_replace(&tool->title, title) : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_tool_set_description(mcp_tool_t *tool, const char *description) {
  return tool ? mcp__str_replace(&tool->description, description)
              : MCP_ERR_INVALID_ARG;
}

mcp_status mcp_tool_set_annotation_title(mcp_tool_t *tool, const char *title) {
  return tool ? mcp__str_replace(&tool->annotation_title, title)
              : MCP_ERR_INVALID_ARG;
}

/* Records (or, with fmt NULL, clears) why a schema setter of side output
 * failed, for mcp_server_add_tool; returns st. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static mcp_status
schema_fault(mcp_tool_t *tool, bool output, mcp_status st, const char *fmt,
             ...) {
  char *slot = tool->schema_fault[output ? 1 : 0];
  slot[0] = '\0';
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(slot, sizeof tool->schema_fault[0], fmt, ap);
    va_end(ap);
  }
  return st;
}

static const char *json_kind(const json_t *j) {
  switch (json_typeof(j)) {
  case JSON_OBJECT:
    return "an object";
  case JSON_ARRAY:
    return "an array";
  case JSON_STRING:
    return "a string";
  case JSON_INTEGER:
  case JSON_REAL:
    return "a number";
  case JSON_TRUE:
  case JSON_FALSE:
    return "a boolean";
  default:
    return "null";
  }
}

/* Tool schemas must be objects whose root declares "type":"object". */
static mcp_status set_schema(mcp_tool_t *tool, bool output, json_t *schema) {
  if (tool == NULL) {
    json_decref(schema);
    return MCP_ERR_INVALID_ARG;
  }
  const char *side = output ? "outputSchema" : "inputSchema";
  if (schema == NULL)
    return schema_fault(tool, output, MCP_ERR_NOMEM,
                        "%s: no schema (NULL: building the json_t failed)",
                        side);
  json_t *type = json_object_get(schema, "type");
  if (!json_is_object(schema) || !json_is_string(type) ||
      strcmp(json_string_value(type), "object") != 0) {
    mcp_status st = schema_fault(
        tool, output, MCP_ERR_SCHEMA,
        "%s: the root must be an object schema with \"type\": \"object\" "
        "(it is %s%s)",
        side, json_kind(schema),
        !json_is_object(schema) ? ""
        : type == NULL          ? " without \"type\""
                                : " whose \"type\" is not \"object\"");
    json_decref(schema);
    return st;
  }
  json_t **slot = output ? &tool->output_schema : &tool->input_schema;
  json_decref(*slot);
  *slot = schema;
  return schema_fault(tool, output, MCP_OK, NULL);
}

mcp_status mcp_tool_set_input_schema(mcp_tool_t *tool, json_t *schema) {
  return set_schema(tool, false, schema);
}

mcp_status mcp_tool_set_output_schema(mcp_tool_t *tool, json_t *schema) {
  if (tool)
    tool->output_declared = false; /* whatever it was made from */
  return set_schema(tool, true, schema);
}

static mcp_status set_schema_text(mcp_tool_t *tool, bool output,
                                  const char *text) {
  if (tool == NULL)
    return MCP_ERR_INVALID_ARG;
  const char *side = output ? "outputSchema" : "inputSchema";
  if (text == NULL)
    return schema_fault(tool, output, MCP_ERR_INVALID_ARG,
                        "%s: no schema text (NULL)", side);
  /* the request loader's rules, so a schema may hold what requests may */
  json_error_t jerr;
  json_t *schema = mcp__json_load(text, strlen(text), &jerr);
  if (schema == NULL)
    return schema_fault(tool, output, MCP_ERR_PARSE,
                        "%s is not JSON: line %d, column %d: %s", side,
                        jerr.line, jerr.column, jerr.text);
  return output ? mcp_tool_set_output_schema(tool, schema)
                : mcp_tool_set_input_schema(tool, schema);
}

mcp_status mcp_tool_set_input_schema_text(mcp_tool_t *tool, const char *text) {
  return set_schema_text(tool, false, text);
}

mcp_status mcp_tool_set_output_schema_text(mcp_tool_t *tool, const char *text) {
  return set_schema_text(tool, true, text);
}

mcp_status mcp_tool_set_hint(mcp_tool_t *tool, mcp_tool_hint hint, bool value) {
  if (tool == NULL)
    return MCP_ERR_INVALID_ARG;
  if ((unsigned)hint > MCP_HINT_OPEN_WORLD)
    return refuse(tool, "/annotations",
                  "mcp_tool_set_hint: hint %d is not a mcp_tool_hint",
                  (int)hint);
  tool->hints[hint] = value ? 1 : 0;
  return MCP_OK;
}

mcp_status mcp_tool_add_icon(mcp_tool_t *tool, const char *src,
                             const char *mime_type, const char *sizes,
                             const char *theme) {
  if (tool == NULL)
    return MCP_ERR_INVALID_ARG;
  const char *problem = mcp__icon_problem(src, theme);
  if (problem != NULL)
    return refuse(tool, "/icons", "mcp_tool_add_icon(\"%.100s\"%s%.20s%s): %s",
                  src ? src : "(null)", theme ? ", theme \"" : "",
                  theme ? theme : "", theme ? "\"" : "", problem);
  if (!mcp__icon_append(&tool->icons, src, mime_type, sizes, theme))
    return MCP_ERR_NOMEM;
  return MCP_OK;
}

mcp_status mcp_tool_set_task_support(mcp_tool_t *tool,
                                     mcp_task_support support) {
  if (tool == NULL)
    return MCP_ERR_INVALID_ARG;
  if ((unsigned)support > MCP_TASK_REQUIRED)
    return refuse(tool, "/execution/taskSupport",
                  "mcp_tool_set_task_support: %d is not a mcp_task_support",
                  (int)support);
  tool->task_support = support;
  accepted(tool, "mcp_tool_set_task_support");
  return MCP_OK;
}

mcp_status mcp_tool_set_format_assertion(mcp_tool_t *tool, bool on) {
  if (tool == NULL)
    return MCP_ERR_INVALID_ARG;
  tool->format_assertion = on ? 1 : 2;
  return MCP_OK;
}

mcp_status mcp_tool_set_task_start_in_handler(mcp_tool_t *tool, bool on) {
  if (tool == NULL)
    return MCP_ERR_INVALID_ARG;
  tool->task_start_in_handler = on;
  return MCP_OK;
}

mcp_task_support mcp_tool_task_support(const mcp_tool_t *tool) {
  return tool ? tool->task_support : MCP_TASK_FORBIDDEN;
}

mcp_status mcp_tool_set_meta(mcp_tool_t *tool, json_t *meta) {
  if (meta == NULL)
    return MCP_ERR_NOMEM;
  if (tool == NULL || !json_is_object(meta)) {
    json_decref(meta);
    return tool == NULL ? MCP_ERR_INVALID_ARG
                        : refuse(tool, "/_meta",
                                 "mcp_tool_set_meta: _meta must be an object");
  }
  json_decref(tool->meta);
  tool->meta = meta;
  accepted(tool, "mcp_tool_set_meta");
  return MCP_OK;
}

mcp_status mcp_tool_set_handler(mcp_tool_t *tool, mcp_tool_fn fn,
                                void *user_data,
                                void (*free_user_data)(void *)) {
  if (tool == NULL)
    return MCP_ERR_INVALID_ARG;
  if (fn == NULL)
    return refuse(tool, "", "mcp_tool_set_handler: the handler is NULL");
  if (tool->free_user_data)
    tool->free_user_data(tool->user_data);
  tool->fn = fn;
  tool->fn_tape = NULL; /* mcp_tool_new_decl's, if any, went with the old */
  accepted(tool, "mcp_tool_set_handler");
  tool->user_data = user_data;
  tool->free_user_data = free_user_data;
  return MCP_OK;
}

static const char *const hint_names[] = {"readOnlyHint", "destructiveHint",
                                         "idempotentHint", "openWorldHint"};

json_t *mcp_tool_to_json(const mcp_tool_t *t) {
  if (t == NULL)
    return NULL;
  json_t *o = json_object();
  if (o == NULL)
    return NULL;
  int bad = json_object_set_new(o, "name", json_string(t->entry.key));
  if (t->title)
    bad |= json_object_set_new(o, "title", json_string(t->title));
  if (t->description)
    bad |= json_object_set_new(o, "description", json_string(t->description));
  bad |= json_object_set(o, "inputSchema", t->input_schema);
  if (t->output_schema)
    bad |= json_object_set(o, "outputSchema", t->output_schema);
  json_t *ann = json_object();
  if (ann == NULL)
    bad = -1;
  else {
    if (t->annotation_title)
      bad |=
          json_object_set_new(ann, "title", json_string(t->annotation_title));
    for (int i = 0; i < 4; i++)
      if (t->hints[i] >= 0)
        bad |=
            json_object_set_new(ann, hint_names[i], json_boolean(t->hints[i]));
    if (json_object_size(ann) > 0)
      bad |= json_object_set_new(o, "annotations", ann);
    else
      json_decref(ann);
  }
  if (t->task_support != MCP_TASK_FORBIDDEN)
    bad |= json_object_set_new(o, "execution",
                               json_pack("{s:s}", "taskSupport",
                                         t->task_support == MCP_TASK_REQUIRED
                                             ? "required"
                                             : "optional"));
  if (t->icons)
    bad |= json_object_set(o, "icons", t->icons);
  bool meta_failed;
  json_t *meta = mcp__tool_ui_meta(t, &meta_failed); /* apps.h link */
  if (meta)
    bad |= json_object_set_new(o, "_meta", meta);
  if (bad || meta_failed) {
    json_decref(o);
    return NULL;
  }
  return o;
}
