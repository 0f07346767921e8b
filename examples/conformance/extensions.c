/* SPDX-License-Identifier: MIT */
/* extensions.c - the fixtures of the 2026-07-28 extension scenarios: tasks
 * (tasks-*, SEP-2663) and skills (sep-2640-*).
 *
 * Tasks run on the server's task engine with an in-memory store; which tool
 * becomes a task is the tool's task support (declared once, shown in each
 * era's form). Every handler is ordinary: it asks with mcp_call_elicit and
 * watches mcp_call_is_cancelled; the library turns questions of a task into
 * inputRequests answered with tasks/update.
 */
#include "scenarios.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/mcp.h"

/* Sleeps ms in small steps; false when the call was cancelled meanwhile. */
static bool nap(mcp_call_t *call, long ms) {
  while (ms > 0) {
    if (mcp_call_is_cancelled(call))
      return false;
    long step = ms < 20 ? ms : 20;
    struct timespec ts = {0, step * 1000000L};
    nanosleep(&ts, NULL);
    ms -= step;
  }
  return !mcp_call_is_cancelled(call);
}

static mcp_status greet(mcp_call_t *call, json_t *args, mcp_result_t *r,
                        void *ud) {
  (void)call, (void)ud;
  const char *name = json_string_value(json_object_get(args, "name"));
  mcp_result_add_textf(r, "Hello, %s!", name ? name : "World");
  return MCP_OK;
}

static mcp_status slow_compute(mcp_call_t *call, json_t *args, mcp_result_t *r,
                               void *ud) {
  (void)ud;
  double seconds = json_number_value(json_object_get(args, "seconds"));
  const char *label = json_string_value(json_object_get(args, "label"));
  if (seconds < 0 || seconds > 3600)
    seconds = 0;
  if (!nap(call, (long)(seconds * 1000)))
    return MCP_ERR_CANCELLED;
  mcp_result_add_textf(r, "%s: computed after %g s", label ? label : "result",
                       seconds);
  return MCP_OK;
}

static mcp_status failing_job(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)args, (void)ud;
  if (!nap(call, 1000))
    return MCP_ERR_CANCELLED;
  return mcp_result_set_error(r, "the job failed: disk quota exceeded");
}

static mcp_status protocol_error_job(mcp_call_t *call, json_t *args,
                                     mcp_result_t *r, void *ud) {
  (void)args, (void)r, (void)ud;
  if (!nap(call, 200))
    return MCP_ERR_CANCELLED;
  mcp_call_set_error(call, -32603, "Internal error: the job crashed", NULL);
  return MCP_ERR_INTERNAL;
}

static json_t *confirm_schema(void) {
  return json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties",
                   "confirm", "type", "boolean", "required", "confirm");
}

static bool confirmed(mcp_elicit_action action, json_t *content) {
  return action == MCP_ELICIT_ACCEPT &&
         json_is_true(json_object_get(content, "confirm"));
}

static mcp_status confirm_delete(mcp_call_t *call, json_t *args,
                                 mcp_result_t *r, void *ud) {
  (void)ud;
  const char *file = json_string_value(json_object_get(args, "filename"));
  char question[300];
  snprintf(question, sizeof question, "Delete %.200s?", file ? file : "file");
  mcp_elicit_action action;
  json_t *content = NULL;
  mcp_call_set_question_key(call, "confirm_delete");
  mcp_status st = mcp_call_elicit(call, question, confirm_schema(), 0, &action,
                                  &content, NULL);
  if (st == MCP_OK)
    mcp_result_add_textf(r, "%s %s",
                         confirmed(action, content) ? "Deleted" : "Kept",
                         file ? file : "file");
  json_decref(content);
  return st;
}

/* Two questions in one round: both are outstanding at once. */
static mcp_status multi_input(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)args, (void)ud;
  mcp_elicit_action a1 = MCP_ELICIT_DECLINE, a2 = MCP_ELICIT_DECLINE;
  json_t *c1 = NULL, *c2 = NULL;
  mcp_call_set_question_key(call, "first");
  mcp_status s1 =
      mcp_call_elicit(call, "First input?",
                      json_pack("{s:s,s:{s:{s:s}}}", "type", "object",
                                "properties", "name", "type", "string"),
                      0, &a1, &c1, NULL);
  mcp_call_set_question_key(call, "second");
  mcp_status s2 = mcp_call_elicit(call, "Second input?", confirm_schema(), 0,
                                  &a2, &c2, NULL);
  mcp_status st = s1 != MCP_OK ? s1 : s2;
  if (st == MCP_OK) {
    const char *n1 = json_string_value(json_object_get(c1, "name"));
    const char *n2 = json_string_value(json_object_get(c2, "name"));
    mcp_result_add_textf(r, "got %s and %s", n1 ? n1 : "-", n2 ? n2 : "-");
  }
  json_decref(c1);
  json_decref(c2);
  return st;
}

/* Asks first (an ordinary multi-round request), then becomes a task. */
static mcp_status tool_with_task(mcp_call_t *call, json_t *args,
                                 mcp_result_t *r, void *ud) {
  (void)args, (void)ud;
  mcp_elicit_action action;
  json_t *content = NULL;
  mcp_call_set_question_key(call, "user_name");
  mcp_status st = mcp_call_elicit(
      call, "What is your name?",
      json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties",
                "name", "type", "string", "required", "name"),
      0, &action, &content, NULL);
  if (st == MCP_OK)
    st = mcp_call_continue_as_task(call);
  if (st == MCP_OK) {
    const char *name = json_string_value(json_object_get(content, "name"));
    mcp_result_add_textf(r, "Hello, %s! (finished as task %s)",
                         action == MCP_ELICIT_ACCEPT && name ? name
                                                             : "stranger",
                         mcp_call_task_id(call) ? mcp_call_task_id(call) : "-");
  }
  json_decref(content);
  return st;
}

typedef struct task_fixture {
  const char *name, *description, *input;
  mcp_tool_fn fn;
  mcp_task_support support;
  bool start_in_handler;
} task_fixture;

static const task_fixture fixtures[] = {
    {"greet", "Says hello (never a task)",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}",
     greet, MCP_TASK_FORBIDDEN, false},
    {"slow_compute", "Computes for `seconds` seconds (a task when possible)",
     "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\"},"
     "\"label\":{\"type\":\"string\"}}}",
     slow_compute, MCP_TASK_OPTIONAL, false},
    {"failing_job", "Fails with a tool error after a second (always a task)",
     NULL, failing_job, MCP_TASK_REQUIRED, false},
    {"protocol_error_job", "Fails with a protocol error (a task when possible)",
     NULL, protocol_error_job, MCP_TASK_OPTIONAL, false},
    {"confirm_delete", "Asks before deleting (a task when possible)",
     "{\"type\":\"object\",\"properties\":{\"filename\":{\"type\":\"string\"}}"
     "}",
     confirm_delete, MCP_TASK_OPTIONAL, false},
    {"multi_input", "Asks two questions at once (a task when possible)", NULL,
     multi_input, MCP_TASK_OPTIONAL, false},
    {"test_tool_with_task", "Asks the user's name, then runs as a task", NULL,
     tool_with_task, MCP_TASK_REQUIRED, true},
};

static mcp_status add_task_tools(mcp_server_t *s) {
  mcp_status st = MCP_OK;
  for (size_t i = 0; st == MCP_OK && i < sizeof fixtures / sizeof *fixtures;
       i++) {
    const task_fixture *f = &fixtures[i];
    mcp_tool_t *t = NULL;
    mcp_error_t err = {0};
    st = mcp_tool_new(f->name, &t);
    if (st == MCP_OK)
      st = mcp_tool_set_description(t, f->description);
    if (st == MCP_OK && f->input)
      st = mcp_tool_set_input_schema_text(t, f->input);
    if (st == MCP_OK)
      st = mcp_tool_set_handler(t, f->fn, NULL, NULL);
    if (st == MCP_OK)
      st = mcp_tool_set_task_support(t, f->support);
    if (st == MCP_OK)
      st = mcp_tool_set_task_start_in_handler(t, f->start_in_handler);
    if (st != MCP_OK) {
      mcp_tool_free(t);
      break;
    }
    if ((st = mcp_server_add_tool(s, t, &err)) != MCP_OK)
      fprintf(stderr, "mcp-conformance-server: %s: %s\n", f->name, err.message);
  }
  return st;
}

mcp_status conformance_add_extensions(mcp_server_t *s, mcp_store_t **store) {
  mcp_task_options_t *o = NULL;
  mcp_error_t err = {0};
  mcp_status st = mcp_store_memory_new(store);
  if (st == MCP_OK)
    st = mcp_task_options_new(&o);
  if (st == MCP_OK) /* the suite polls every 200 ms and runs in parallel */
    st = mcp_task_options_set_poll_interval(o, 200);
  if (st == MCP_OK)
    st = mcp_task_options_set_max_per_caller(o, 1000);
  if (st == MCP_OK)
    st = mcp_task_options_set_threads(o, 16);
  if (st == MCP_OK)
    st = mcp_server_enable_tasks(s, *store, o, &err);
  mcp_task_options_free(o);
  if (st == MCP_OK)
    st = add_task_tools(s);
  if (st == MCP_OK)
    st = conformance_add_skills(s);
  return st;
}
