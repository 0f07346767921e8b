/* SPDX-License-Identifier: MIT */
/* task_fixture.c - driving a server's task engine in-process
 * (task_fixture.h). */
#include "task_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Polls: 2000 rounds of 10 ms at least, 20 s. */
#define ROUNDS   2000
#define PAUSE_US 10000

void tu_add_task_tool(mcp_server_t *s, const char *name, mcp_tool_fn fn,
                      mcp_task_support ts) {
  mcp_tool_t *t;
  assert_int_equal(mcp_tool_new(name, &t), MCP_OK);
  assert_int_equal(mcp_tool_set_handler(t, fn, NULL, NULL), MCP_OK);
  assert_int_equal(mcp_tool_set_task_support(t, ts), MCP_OK);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
}

json_t *tu_rpc_as(mcp_server_t *s, mcp_session_t *se, const char *subject,
                  const char *text) {
  tu_capture c;
  tu_capture_init(&c);
  mcp__peer peer = {.subject = subject};
  mcp_call_t *call = NULL;
  if (mcp__server_accept(s, se, &peer, text, strlen(text),
                         tu_capture_channel(&c), &call) == MCP__ACCEPT_REQUEST)
    mcp__call_run(call);
  size_t n = json_array_size(c.messages);
  json_t *last = n ? json_incref(json_array_get(c.messages, n - 1)) : NULL;
  tu_capture_destroy(&c);
  return last;
}

static int next_id = 1000;

json_t *tu_call_tool(mcp_server_t *s, mcp_session_t *se, const char *subject,
                     const char *name, const char *args, const char *task) {
  char buf[1024];
  int id = __atomic_add_fetch(&next_id, 1, __ATOMIC_SEQ_CST);
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
           "\"params\":{\"name\":\"%s\",\"arguments\":%s%s%s,"
           "\"_meta\":{\"progressToken\":\"pt-%d\"}}}",
           id, name, args, task ? ",\"task\":" : "", task ? task : "", id);
  return tu_rpc_as(s, se, subject, buf);
}

json_t *tu_task_method(mcp_server_t *s, mcp_session_t *se,
                       const char *subject, const char *method,
                       const char *id) {
  char buf[512];
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":"
           "{\"taskId\":\"%s\"}}",
           __atomic_add_fetch(&next_id, 1, __ATOMIC_SEQ_CST), method, id);
  return tu_rpc_as(s, se, subject, buf);
}

json_t *tu_result_of(const json_t *msg) {
  return json_object_get(msg, "result");
}

const char *tu_status_of(const json_t *msg) {
  return json_string_value(json_object_get(tu_result_of(msg), "status"));
}

const char *tu_error_message(const json_t *msg) {
  return json_string_value(
      json_object_get(json_object_get(msg, "error"), "message"));
}

char *tu_start_task(mcp_server_t *s, mcp_session_t *se, const char *subject,
                    const char *tool, const char *args, const char *task) {
  json_t *r = tu_call_tool(s, se, subject, tool, args, task);
  const char *id = json_string_value(
      json_object_get(json_object_get(tu_result_of(r), "task"), "taskId"));
  if (id == NULL) {
    char *dump = r ? json_dumps(r, JSON_COMPACT) : NULL;
    fprintf(stderr, "no task: %s\n", dump ? dump : "(no answer)");
    free(dump);
  }
  assert_non_null(id);
  char *copy = strdup(id);
  json_decref(r);
  return copy;
}

void tu_wait_task_status(mcp_server_t *s, mcp_session_t *se, const char *id,
                         const char *want) {
  for (int i = 0; i < ROUNDS; i++) {
    json_t *g = tu_task_method(s, se, NULL, "tasks/get", id);
    const char *got = tu_status_of(g);
    bool done = got && strcmp(got, want) == 0;
    json_decref(g);
    if (done)
      return;
    usleep(PAUSE_US);
  }
  fail_msg("task %s never reached %s", id, want);
}

static void *bg_main(void *arg) {
  tu_bg_rpc *b = arg;
  char buf[256];
  snprintf(buf, sizeof buf,
           "{\"jsonrpc\":\"2.0\",\"id\":\"bg\",\"method\":\"%s\",\"params\":"
           "{\"taskId\":\"%s\"}}",
           b->method, b->id);
  mcp__peer peer = {.subject = b->subject};
  mcp_call_t *call = NULL;
  if (mcp__server_accept(b->server, b->se, &peer, buf, strlen(buf),
                         tu_capture_channel(&b->cap),
                         &call) == MCP__ACCEPT_REQUEST)
    mcp__call_run(call);
  return NULL;
}

void tu_bg_start(tu_bg_rpc *b, mcp_server_t *s, mcp_session_t *se,
                 const char *subject, const char *method, const char *id) {
  memset(b, 0, sizeof *b);
  b->server = s;
  b->se = se;
  b->subject = subject;
  b->method = method;
  snprintf(b->id, sizeof b->id, "%s", id);
  tu_capture_init(&b->cap);
  assert_int_equal(pthread_create(&b->th, NULL, bg_main, b), 0);
}

json_t *tu_bg_answer(tu_bg_rpc *b) {
  for (int i = 0; i < ROUNDS; i++) {
    pthread_mutex_lock(&b->cap.lock);
    json_t *last = NULL;
    size_t j;
    json_t *m;
    json_array_foreach(b->cap.messages, j, m) {
      json_t *id = json_object_get(m, "id");
      if (json_is_string(id) && strcmp(json_string_value(id), "bg") == 0)
        last = m;
    }
    if (last)
      json_incref(last);
    pthread_mutex_unlock(&b->cap.lock);
    if (last) {
      pthread_join(b->th, NULL);
      tu_capture_destroy(&b->cap);
      return last;
    }
    usleep(PAUSE_US);
  }
  fail_msg("%s of %s got no answer", b->method, b->id);
  return NULL;
}

json_t *tu_find_request(tu_capture *const *caps, size_t n, const char *method) {
  for (int i = 0; i < ROUNDS; i++) {
    for (size_t k = 0; k < n; k++) {
      json_t *req = NULL;
      size_t j;
      json_t *m;
      pthread_mutex_lock(&caps[k]->lock);
      json_array_foreach(caps[k]->messages, j, m) {
        const char *mm = json_string_value(json_object_get(m, "method"));
        if (req == NULL && mm && strcmp(mm, method) == 0)
          req = json_incref(m);
      }
      pthread_mutex_unlock(&caps[k]->lock);
      if (req)
        return req;
    }
    usleep(PAUSE_US);
  }
  fail_msg("no %s request arrived", method);
  return NULL;
}

void tu_accept_elicitation(mcp_server_t *s, mcp_session_t *se,
                           const json_t *req, const char *content) {
  char answer[512];
  snprintf(answer, sizeof answer,
           "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":"
           "\"accept\",\"content\":%s}}",
           (long long)json_integer_value(json_object_get(req, "id")), content);
  json_decref(tu_rpc_as(s, se, NULL, answer));
}
