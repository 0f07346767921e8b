/* SPDX-License-Identifier: MIT */
/* methods.h - method rows: how a feature module tells the dispatcher which
 * JSON-RPC methods it serves, in which eras, with which handler; and the
 * hooks through which the tasks module joins tools and the server without
 * either naming it.
 *
 * Each module registers its own rows when the server is made (or, for
 * tasks, when they are enabled); the dispatcher looks methods up here and
 * owns no feature's names.
 */
#ifndef MCP_CORE_METHODS_H
#define MCP_CORE_METHODS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/server.h"
#include "mcp/tool.h"

typedef mcp_status (*mcp__method_fn)(mcp_call_t *call, json_t **result);

/* Eras a method exists in. */
#define MCP__ERA_LEGACY 1u /* 2024-11-05 .. 2025-11-25 sessions */
#define MCP__ERA_MODERN 2u /* 2026-07-28 requests */

typedef struct mcp__method {
  const char *name;
  mcp__method_fn fn;
  unsigned eras;
} mcp__method;

#define MCP__METHOD_TABLES 16

/* A registered table of rows (static storage, never copied). */
typedef struct mcp__method_table {
  const mcp__method *rows;
  size_t count;
} mcp__method_table;

/* Every registered row by a hash of its name (open addressing): a lookup
 * per request hashes the name once instead of comparing it with each
 * row. */
#define MCP__METHOD_SLOTS 256
typedef struct mcp__method_slot {
  const mcp__method *row; /* NULL: empty */
  unsigned table;         /* the row's table: a later one wins */
} mcp__method_slot;

/* Adds n rows (static storage) to s. A later table wins for a name it
 * shares with an earlier one in the same era (an extension may replace a
 * core method). MCP_ERR_LIMIT when MCP__METHOD_TABLES are registered.
 * Not thread-safe: call before serving. */
mcp_status mcp__server_add_methods(mcp_server_t *s, const mcp__method *rows,
                                   size_t n);
/* The handler of name in the era (modern or not), or NULL. */
mcp__method_fn mcp__server_find_method(const mcp_server_t *s, const char *name,
                                       bool modern);

struct mcp__buf;

/* What the tasks module adds to the rest, installed by it when tasks are
 * enabled (NULL otherwise). */
typedef struct mcp__task_hooks {
  /* tools/call: enforces taskSupport and, for a task-augmented call,
   * creates the task and sets *result (*handled true); otherwise *handled
   * is false and the call runs normally. It reads params.task and
   * params.arguments itself, only when it needs them (mcp__call_param), so
   * an ordinary call's params stay unbuilt. */
  mcp_status (*tool_call)(mcp_call_t *call, mcp_tool_t *tool, json_t **result,
                          bool *handled);
  /* A session closed or its standalone stream opened. */
  void (*session_event)(mcp_server_t *s, mcp_session_t *se, bool opened);
  /* Stops the engine (mcp_server_free, before anything else). */
  void (*shutdown)(mcp_server_t *s);
  /* tools/call after the handler ran: when it called
   * mcp_call_continue_as_task (call->handoff set), *result becomes the
   * CreateTaskResult and the call is handed to the task (2026-07-28). */
  mcp_status (*call_started)(mcp_call_t *call, json_t **result);
  /* A task event of another replica, from the relay (core/relay.c):
   * {"kind":"task_status","task":T,"session":K} sends the status to this
   * replica's sessions with tasks key K and wakes waiters;
   * {"kind":"task_cancel","taskId":I} cancels the handler of a task running
   * here. MCP_ERR_INVALID_ARG for a malformed event. */
  mcp_status (*remote_status)(mcp_server_t *s, const json_t *event);
  mcp_status (*remote_cancel)(mcp_server_t *s, const json_t *event);
  /* The questions (server-to-client requests) of 2025-11-25 tasks across
   * replicas: "task_question" (a question of a task running elsewhere, for
   * a tasks/result or standalone stream here), "task_question_taken" (a
   * replica delivered it), "task_want_questions" (a stream for the task or
   * session opened elsewhere: publish what waits here). */
  mcp_status (*remote_question)(mcp_server_t *s, const char *kind,
                                const json_t *event);
} mcp__task_hooks;

/* Installs the task hooks (the tasks module, when tasks are enabled; before
 * serving), and reads them (NULL: tasks are not enabled). */
void mcp__server_set_task_hooks(mcp_server_t *s, const mcp__task_hooks *hooks);
const mcp__task_hooks *mcp__server_task_hooks(const mcp_server_t *s);

/* ServerCapabilities, one mechanism for every module: each registers a hook
 * that adds its members to caps for the era (MCP__ERA_LEGACY: initialize;
 * MCP__ERA_MODERN: server/discover), reading its own state, and only while
 * something backs them. Hooks run in registration order, which is the order
 * of the members clients see. */
typedef void (*mcp__capability_fn)(const mcp_server_t *s, json_t *caps,
                                   unsigned era);
#define MCP__CAPABILITY_HOOKS 16
/* MCP_ERR_LIMIT when MCP__CAPABILITY_HOOKS are registered. Before serving. */
mcp_status mcp__server_add_capability(mcp_server_t *s, mcp__capability_fn fn);
/* The ServerCapabilities of era (returns new; NULL when out of memory). */
json_t *mcp__server_capabilities(const mcp_server_t *s, unsigned era);
/* Adds caps["extensions"][name] = value (value stolen): the extensions of
 * both eras (MCP Apps, skills, tasks in 2026-07-28). */
void mcp__capability_extension(json_t *caps, const char *name, json_t *value);

/* The relay lost events (core/relay.c, "resync"): each module that announces
 * list changes sends its list_changed again. MCP_ERR_LIMIT when
 * MCP__RESYNC_HOOKS are registered. Before serving. */
typedef void (*mcp__resync_fn)(mcp_server_t *s);
#define MCP__RESYNC_HOOKS 8
mcp_status mcp__server_on_resync(mcp_server_t *s, mcp__resync_fn fn);

/* The methods clients send most, NULL-terminated: the server's decoder
 * (mcp__jsonrpc_decode_server) points a message naming one at this static
 * string instead of copying it (one allocation less per request). */
extern const char *const mcp__frequent_methods[];

#endif
