/* SPDX-License-Identifier: MIT */
/* task_fixture.h - driving a server's task engine in-process, shared by
 * tests/unit/tasks_test.c and tests/unit/tasks_hardening_test.c: tools
 * with a task support, requests as a subject run inline on the calling
 * thread, tasks started and polled, a tasks/result (or any task method)
 * blocked on a background thread, and server-to-client requests looked up
 * on the streams that may carry them. Every wait is a bounded poll for a
 * condition (20 s unless said), never an assertion on time. White-box:
 * uses src/server/dispatch.h through testutil.h. */
#ifndef MCP_TEST_TASK_FIXTURE_H
#define MCP_TEST_TASK_FIXTURE_H

#include "testutil.h"

/* Adds tool name with handler fn and task support ts (asserts). */
void tu_add_task_tool(mcp_server_t *s, const char *name, mcp_tool_fn fn,
                      mcp_task_support ts);

/* Sends text on se as subject (NULL: unauthenticated) and runs the call
 * inline; returns the last message it got (new reference) or NULL. */
json_t *tu_rpc_as(mcp_server_t *s, mcp_session_t *se, const char *subject,
                  const char *text);
/* tools/call of name with args (JSON text) and, unless task is NULL,
 * "task": task (JSON text); a fresh id and progress token. */
json_t *tu_call_tool(mcp_server_t *s, mcp_session_t *se, const char *subject,
                     const char *name, const char *args, const char *task);
/* method with params {"taskId": id} and a fresh id. */
json_t *tu_task_method(mcp_server_t *s, mcp_session_t *se,
                       const char *subject, const char *method,
                       const char *id);
/* Starts tool as a task (args and task as for tu_call_tool) and returns
 * its id (malloc'd); fails the test when the answer has no task. */
char *tu_start_task(mcp_server_t *s, mcp_session_t *se, const char *subject,
                    const char *tool, const char *args, const char *task);
/* Polls tasks/get until task id has status want; fails the test when it
 * never does. */
void tu_wait_task_status(mcp_server_t *s, mcp_session_t *se, const char *id,
                         const char *want);

/* result of a response (borrowed), its result.status, error.message. */
json_t *tu_result_of(const json_t *msg);
const char *tu_status_of(const json_t *msg);
const char *tu_error_message(const json_t *msg);

/* A task method (tasks/result mostly) blocked on a background thread: its
 * request id is "bg", its messages go to cap. */
typedef struct tu_bg_rpc {
  mcp_server_t *server;
  mcp_session_t *se;
  const char *subject;
  const char *method;
  char id[64];
  tu_capture cap;
  pthread_t th;
} tu_bg_rpc;

/* Starts method for task id on se as subject in the background. */
void tu_bg_start(tu_bg_rpc *b, mcp_server_t *s, mcp_session_t *se,
                 const char *subject, const char *method, const char *id);
/* The response to b (new reference) once it came, after which the thread
 * is joined and cap destroyed; fails the test when it never comes. */
json_t *tu_bg_answer(tu_bg_rpc *b);

/* The first message with this method (a server-to-client request) that
 * any of the n captures received (new reference); fails the test when
 * none did. */
json_t *tu_find_request(tu_capture *const *caps, size_t n, const char *method);
/* Answers the elicitation request req on se: action "accept" with content
 * (JSON text). */
void tu_accept_elicitation(mcp_server_t *s, mcp_session_t *se,
                           const json_t *req, const char *content);

#endif
