/* SPDX-License-Identifier: MIT */
/* demo_tasks.c - tools meant to run as MCP tasks.
 *
 * start_long_export must be called as a task: it works for a few seconds,
 * reports progress on the caller's original progressToken, honours
 * tasks/cancel and returns structuredContent plus a resource_link.
 * export_orders is the same export, task optional (inline for clients
 * without tasks) and idempotent (run again elsewhere if its replica dies,
 * or at the next start after a restart). A start_long_export task a
 * restart interrupted is finished by the demo's resume hook
 * (demo_resume.c).
 * reindex_catalog may run either way (one handler serves both paths).
 * archive_orders asks the user to confirm through elicitation; as a task, the
 * question travels on the client's tasks/result stream and the task shows
 * input_required until it is answered. An archive adds the tool restore_orders
 * (a tools/list_changed), which removes itself when used.
 */
#include "demo_tasks.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* The default duration of export_orders (start_long_export: 3 s). */
static const double export_orders_seconds = 2;

static mcp_status long_export(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  const char *format = mcp_arg_string_or(args, "format", "csv");
  double seconds = ud ? *(const double *)ud : 3;
  mcp_arg_number(args, "seconds", &seconds);
  int steps = 20;
  long step_ms = (long)(seconds * 1000 / steps);
  long rows = 0;
  for (int i = 1; i <= steps; i++) {
    if (mcp_call_is_cancelled(call)) {
      mcp_result_set_error(r, "Export stopped after %ld rows: cancelled", rows);
      return MCP_OK;
    }
    sleep_ms(step_ms);
    rows += 500;
    mcp_call_progress(call, i, steps, "exporting rows");
  }
  demo_export_result(r, rows, format, mcp_call_task_id(call));
  return MCP_OK;
}

void demo_export_result(mcp_result_t *r, long rows, const char *format,
                        const char *task_id) {
  char uri[160];
  snprintf(uri, sizeof uri, "file:///exports/export-%s.%s",
           task_id ? task_id : "inline", format);
  mcp_result_add_textf(r, "Exported %ld rows as %s.", rows, format);
  mcp_content_t *link = mcp_result_add_resource_link(r, uri, "export");
  mcp_content_set_mime_type(
      link, strcmp(format, "json") == 0 ? "application/json" : "text/csv");
  mcp_result_set_structured(r,
                            json_pack("{s:I,s:s,s:s}", "rows", (json_int_t)rows,
                                      "format", format, "uri", uri));
}

static mcp_status reindex(mcp_call_t *call, json_t *args, mcp_result_t *r,
                          void *ud) {
  (void)ud;
  const char *section = mcp_arg_string_or(args, "section", "products");
  int documents = strcmp(section, "products") == 0   ? 1200
                  : strcmp(section, "articles") == 0 ? 340
                                                     : 85;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 1; i <= 5 && !mcp_call_is_cancelled(call); i++) {
    sleep_ms(60);
    mcp_call_progress(call, i, 5, NULL);
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  double secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
  return mcp_result_set_structured(r, json_pack("{s:s,s:i,s:f}", "section",
                                                section, "documents", documents,
                                                "seconds", secs));
}

static mcp_status restore_orders(mcp_call_t *call, json_t *args,
                                 mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  /* Gone again once used: tools/list_changed once more. */
  mcp_server_remove_tool(mcp_call_server(call), "restore_orders");
  mcp_result_add_text(r, "Restored the archived orders.");
  return MCP_OK;
}

/* Archiving makes restore_orders appear: the server announces
 * notifications/tools/list_changed (2025-11-25 sessions; 2026-07-28
 * subscriptions/listen streams that asked for toolsListChanged). */
static void offer_restore(mcp_server_t *s) {
  mcp_tool_t *t = NULL;
  if (mcp_tool_new("restore_orders", &t) != MCP_OK)
    return;
  mcp_tool_set_title(t, "Restore archived orders");
  mcp_tool_set_description(
      t, "Brings back the orders archive_orders archived; offered only "
         "after an archive");
  mcp_tool_set_input_schema_text(t, "{\"type\":\"object\"}");
  mcp_tool_set_handler(t, restore_orders, NULL, NULL);
  mcp_server_add_tool(s, t, NULL); /* MCP_ERR_EXISTS: already offered */
}

/* One handler for both eras: in a 2025-11-25 session mcp_call_elicit sends
 * elicitation/create and waits for the answer (as a task, on the client's
 * tasks/result stream); in 2026-07-28 it returns MCP_ERR_INPUT_REQUIRED the
 * first time, which goes back up so the client gets an input_required
 * result, and the client's retry runs the handler again with the answer. */
static mcp_status archive_orders(mcp_call_t *call, json_t *args,
                                 mcp_result_t *r, void *ud) {
  (void)ud;
  int64_t days = 365;
  mcp_arg_integer(args, "older_than_days", &days);
  mcp_error_t err;
  char question[160];
  snprintf(question, sizeof question,
           "Archive all orders older than %lld days? This cannot be undone.",
           (long long)days);
  mcp_elicit_action action = MCP_ELICIT_CANCEL;
  json_t *content = NULL;
  mcp_call_set_question_key(call, "confirm");
  mcp_status st = mcp_call_elicit(
      call, question,
      json_pack("{s:s,s:{s:{s:s,s:s}},s:[s]}", "type", "object", "properties",
                "confirm", "type", "boolean", "title", "Archive the orders",
                "required", "confirm"),
      0, &action, &content, &err);
  if (st == MCP_ERR_INPUT_REQUIRED)
    return st; /* 2026-07-28: the client asks the user and retries (as a
                  task: tasks/get shows the question, tasks/update answers) */
  if (st == MCP_ERR_CAPABILITY && mcp_call_is_stateless(call))
    return st; /* 2026-07-28: -32021, requiredCapabilities elicitation */
  if (st != MCP_OK) {
    mcp_result_set_error(r, "Could not ask for confirmation: %s", err.message);
    return MCP_OK;
  }
  bool confirm = json_is_true(json_object_get(content, "confirm"));
  json_decref(content);
  if (action == MCP_ELICIT_ACCEPT && confirm) {
    mcp_result_add_textf(r, "Archived 42 orders older than %lld days.",
                         (long long)days);
    offer_restore(mcp_call_server(call));
  } else
    mcp_result_add_text(r, "Nothing archived: the user did not confirm.");
  return MCP_OK;
}

mcp_status demo_register_task_tools(mcp_server_t *s, mcp_error_t *err) {
  mcp_tool_t *t = NULL;
  mcp_status st = mcp_tool_new("start_long_export", &t);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "start_long_export");
  mcp_tool_set_title(t, "Start a long export");
  mcp_tool_set_description(
      t, "Exports the order book in the background (a few seconds). Must be "
         "called as a task; poll tasks/get and fetch tasks/result.");
  mcp_tool_set_input_schema_text(
      t, "{\"type\":\"object\",\"properties\":{"
         "\"format\":{\"type\":\"string\",\"enum\":[\"csv\",\"json\"]},"
         "\"seconds\":{\"type\":\"number\",\"minimum\":0,\"maximum\":120}}}");
  mcp_tool_set_output_schema_text(
      t, "{\"type\":\"object\",\"properties\":{\"rows\":{\"type\":\"integer\"},"
         "\"format\":{\"type\":\"string\"},\"uri\":{\"type\":\"string\"}},"
         "\"required\":[\"rows\",\"format\",\"uri\"]}");
  mcp_tool_set_task_support(t, MCP_TASK_REQUIRED);
  mcp_tool_set_handler(t, long_export, NULL, NULL);
  if ((st = mcp_server_add_tool(s, t, err)) != MCP_OK)
    return st;

  /* The same export, task optional: clients without tasks (the MCP
   * Inspector's CLI, most desktop apps) call it inline and wait. */
  if ((st = mcp_tool_new("export_orders", &t)) != MCP_OK)
    return mcp_error_set(err, st, "export_orders");
  mcp_tool_set_title(t, "Export orders");
  mcp_tool_set_description(
      t, "Exports the order book (2 seconds by default), reporting progress. "
         "May run as a task or inline.");
  mcp_tool_set_input_schema_text(
      t, "{\"type\":\"object\",\"properties\":{"
         "\"format\":{\"type\":\"string\",\"enum\":[\"csv\",\"json\"],"
         "\"default\":\"csv\"},"
         "\"seconds\":{\"type\":\"number\",\"minimum\":0,\"maximum\":120,"
         "\"default\":2}}}");
  mcp_tool_set_output_schema_text(
      t, "{\"type\":\"object\",\"properties\":{\"rows\":{\"type\":\"integer\"},"
         "\"format\":{\"type\":\"string\"},\"uri\":{\"type\":\"string\"}},"
         "\"required\":[\"rows\",\"format\",\"uri\"]}");
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  /* Running it twice exports the same rows to the same file: on replicas
   * sharing PostgreSQL, another replica runs the task again when the one
   * running it dies (docs/deploy.md). */
  mcp_tool_set_hint(t, MCP_HINT_IDEMPOTENT, true);
  mcp_tool_set_handler(t, long_export, (void *)&export_orders_seconds, NULL);
  if ((st = mcp_server_add_tool(s, t, err)) != MCP_OK)
    return st;

  if ((st = mcp_tool_new("reindex_catalog", &t)) != MCP_OK)
    return mcp_error_set(err, st, "reindex_catalog");
  mcp_tool_set_title(t, "Reindex catalog");
  mcp_tool_set_description(t,
                           "Rebuilds the search index for one catalog section");
  mcp_tool_set_hint(t, MCP_HINT_DESTRUCTIVE, false);
  mcp_tool_set_hint(t, MCP_HINT_IDEMPOTENT, true);
  mcp_tool_set_hint(t, MCP_HINT_OPEN_WORLD, false);
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  mcp_tool_set_input_schema_text(
      t, "{\"type\":\"object\",\"properties\":{\"section\":{\"type\":"
         "\"string\",\"description\":\"Catalog section to reindex\","
         "\"enum\":[\"products\",\"articles\",\"media\"]}},"
         "\"required\":[\"section\"]}");
  mcp_tool_set_output_schema_text(t, "{\"type\":\"object\",\"properties\":{"
                                     "\"section\":{\"type\":\"string\"},"
                                     "\"documents\":{\"type\":\"integer\"},"
                                     "\"seconds\":{\"type\":\"number\"}}}");
  mcp_tool_set_handler(t, reindex, NULL, NULL);
  if ((st = mcp_server_add_tool(s, t, err)) != MCP_OK)
    return st;

  if ((st = mcp_tool_new("archive_orders", &t)) != MCP_OK)
    return mcp_error_set(err, st, "archive_orders");
  mcp_tool_set_title(t, "Archive old orders");
  mcp_tool_set_description(
      t, "Archives old orders after asking the user to confirm (elicitation). "
         "May run as a task.");
  mcp_tool_set_hint(t, MCP_HINT_DESTRUCTIVE, true);
  mcp_tool_set_task_support(t, MCP_TASK_OPTIONAL);
  mcp_tool_set_input_schema_text(
      t, "{\"type\":\"object\",\"properties\":{\"older_than_days\":{"
         "\"type\":\"integer\",\"minimum\":1}}}");
  mcp_tool_set_handler(t, archive_orders, NULL, NULL);
  return mcp_server_add_tool(s, t, err);
}
