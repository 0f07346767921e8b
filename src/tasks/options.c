/* SPDX-License-Identifier: MIT */
/* options.c - the task runner's knobs (mcp_task_options_t) and defaults. */
#include "tasks/tasks_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/str.h"

#define DAY_MS (24 * 60 * 60 * 1000LL)

void mcp__task_options_defaults(mcp_task_options_t *o) {
  memset(o, 0, sizeof *o);
  o->threads = 4;
  o->max_per_caller = 16;
  o->max_stored_per_caller = 1000;
  o->max_stored_total = 50000;
  o->default_ttl_ms = 60 * 60 * 1000LL;
  o->max_ttl_ms = DAY_MS;
  o->poll_interval_ms = 1000;
  o->retention_ms = 7 * DAY_MS;
  o->stuck_ms = DAY_MS;
  o->sweep_interval_ms = 60000;
  o->outcome_retry_ms = 120000;
}

bool mcp__task_options_copy(mcp_task_options_t *dst,
                            const mcp_task_options_t *src) {
  *dst = *src;
  dst->immediate_response = NULL;
  dst->refusals = NULL;
  if (src->immediate_response &&
      (dst->immediate_response = strdup(src->immediate_response)) == NULL)
    return false;
  return true;
}

void mcp__task_options_clear(mcp_task_options_t *o) {
  free(o->immediate_response);
  o->immediate_response = NULL;
  free(o->refusals);
  o->refusals = NULL;
}

/* A setter refusing its argument keeps why in the options, for
 * mcp_server_enable_tasks to report: the mistake shows even where the
 * setter's status went unchecked. */
static mcp_status refuse(mcp_task_options_t *o, const char *what,
                         const char *why) {
  return mcp__str_add_line(&o->refusals, "%s: %s", what, why) == MCP_OK
             ? MCP_ERR_INVALID_ARG
             : MCP_ERR_NOMEM;
}

mcp_status mcp_task_options_new(mcp_task_options_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = calloc(1, sizeof **out);
  if (*out == NULL)
    return MCP_ERR_NOMEM;
  mcp__task_options_defaults(*out);
  return MCP_OK;
}

void mcp_task_options_free(mcp_task_options_t *o) {
  if (o == NULL)
    return;
  mcp__task_options_clear(o);
  free(o);
}

mcp_status mcp_task_options_set_threads(mcp_task_options_t *o,
                                        unsigned threads) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (threads == 0 || threads > 1024)
    return refuse(o, "mcp_task_options_set_threads", "from 1 to 1024");
  o->threads = threads;
  mcp__str_drop_lines(&o->refusals, "mcp_task_options_set_threads");
  return MCP_OK;
}

mcp_status mcp_task_options_set_max_per_caller(mcp_task_options_t *o,
                                               unsigned tasks) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (tasks == 0)
    return refuse(o, "mcp_task_options_set_max_per_caller", "at least 1");
  o->max_per_caller = tasks;
  mcp__str_drop_lines(&o->refusals, "mcp_task_options_set_max_per_caller");
  return MCP_OK;
}

mcp_status mcp_task_options_set_max_running_per_caller(mcp_task_options_t *o,
                                                       unsigned tasks) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->max_running_per_caller = tasks;
  return MCP_OK;
}

mcp_status mcp_task_options_set_max_stored(mcp_task_options_t *o,
                                           size_t per_caller, size_t total) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (per_caller == 0 || total == 0)
    return refuse(o, "mcp_task_options_set_max_stored",
                  "both limits at least 1");
  o->max_stored_per_caller = per_caller;
  o->max_stored_total = total;
  mcp__str_drop_lines(&o->refusals, "mcp_task_options_set_max_stored");
  return MCP_OK;
}

mcp_status mcp_task_options_set_ttl(mcp_task_options_t *o, int64_t default_ms,
                                    int64_t max_ms) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->default_ttl_ms = default_ms < 0 ? -1 : default_ms;
  o->max_ttl_ms = max_ms < 0 ? -1 : max_ms;
  return MCP_OK;
}

mcp_status mcp_task_options_set_poll_interval(mcp_task_options_t *o,
                                              int64_t ms) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->poll_interval_ms = ms < 0 ? -1 : ms;
  return MCP_OK;
}

mcp_status mcp_task_options_set_list(mcp_task_options_t *o, bool declared) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->list = declared;
  return MCP_OK;
}

mcp_status mcp_task_options_set_cleanup(mcp_task_options_t *o,
                                        int64_t retention_ms, int64_t stuck_ms,
                                        int64_t interval_ms) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (stuck_ms <= 0 || interval_ms < 0)
    return refuse(o, "mcp_task_options_set_cleanup",
                  "stuck_ms must be more than 0 and interval_ms not "
                  "negative");
  o->retention_ms = retention_ms < 0 ? -1 : retention_ms;
  o->stuck_ms = stuck_ms;
  o->sweep_interval_ms = interval_ms;
  mcp__str_drop_lines(&o->refusals, "mcp_task_options_set_cleanup");
  return MCP_OK;
}

mcp_status mcp_task_options_set_outcome_retry(mcp_task_options_t *o,
                                              int64_t keep_ms) {
  if (o == NULL || keep_ms < 0 || keep_ms > DAY_MS)
    return MCP_ERR_INVALID_ARG;
  o->outcome_retry_ms = keep_ms;
  return MCP_OK;
}

mcp_status mcp_task_options_set_immediate_response(mcp_task_options_t *o,
                                                   const char *text) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  /* At most one conversion, and only %s: the text is used as a format. */
  if (text) {
    const char *p = strchr(text, '%');
    if (p && (p[1] != 's' || strchr(p + 2, '%') != NULL))
      return refuse(o, "mcp_task_options_set_immediate_response",
                    "the text may hold one %s and no other %");
  }
  mcp_status st = mcp__str_replace(&o->immediate_response, text);
  if (st == MCP_OK)
    mcp__str_drop_lines(&o->refusals,
                        "mcp_task_options_set_immediate_response");
  return st;
}

mcp_status mcp_task_options_set_cancel_hook(mcp_task_options_t *o,
                                            mcp_task_cancel_fn fn,
                                            void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->cancel_fn = fn;
  o->cancel_ud = user_data;
  return MCP_OK;
}

mcp_status mcp_task_options_set_resume_hook(mcp_task_options_t *o,
                                            mcp_task_resume_fn fn,
                                            void *user_data) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->resume_fn = fn;
  o->resume_ud = user_data;
  return MCP_OK;
}

mcp_status mcp_task_options_set_fail_on_stop(mcp_task_options_t *o,
                                             bool fail) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  o->fail_on_stop = fail;
  return MCP_OK;
}
