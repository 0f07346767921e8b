/* SPDX-License-Identifier: MIT */
/* demo_resume.h - the demo's resume hook: start_long_export tasks that a
 * restart interrupted (a crash or a graceful stop) are exported again by
 * the demo itself and completed through the task API. */
#ifndef DEMO_RESUME_H
#define DEMO_RESUME_H

#include <stdbool.h>

#include <mcp/mcp.h>

typedef struct demo_resumer demo_resumer;

/* Returns new: resumed exports are completed through a task manager of its
 * own on store (borrowed; must outlive the resumer) for scope, so they do
 * not depend on the server's lifetime. NULL when out of memory. */
demo_resumer *demo_resumer_new(mcp_store_t *store, const char *scope);
/* The resume hook (mcp_task_resume_fn; user_data is the resumer): takes
 * start_long_export tasks, declines every other one. */
bool demo_resume_task(mcp_tasks_t *tasks, const json_t *task, void *user_data);
/* Stops the exports still running (their tasks stay working with
 * statusMessage "Interrupted by a server stop; will resume at the next
 * start"), waits for them and frees. Call after mcp_server_free (which
 * stops calling the hook). NULL is a no-op. */
void demo_resumer_free(demo_resumer *r);

#endif
