/* SPDX-License-Identifier: MIT */
/* demo_resume.c - finishing interrupted start_long_export tasks.
 *
 * start_long_export is not idempotent as far as the library knows, so after
 * a restart the task engine offers each of its interrupted tasks to the
 * resume hook. The demo takes them: one thread per task exports again
 * (with the task's stored arguments, without a client to report progress
 * to: the statusMessage shows it) and completes the task through its own
 * task manager. A stop interrupts those threads in turn and leaves their
 * tasks for the next start.
 */
#include "demo_resume.h"

#include "demo_tasks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STEPS 20
#define STOPPED "Interrupted by a server stop; will resume at the next start"

typedef struct export_job {
  struct export_job *next;
  demo_resumer *owner;
  pthread_t thread;
  char id[MCP_TASK_ID_SIZE];
  char format[8];
  double seconds;
} export_job;

struct demo_resumer {
  mcp_tasks_t *tasks;
  pthread_mutex_t lock;
  pthread_cond_t stop; /* signalled when stopping */
  bool stopping;
  export_job *jobs;
};

demo_resumer *demo_resumer_new(mcp_store_t *store, const char *scope) {
  demo_resumer *r = calloc(1, sizeof *r);
  if (r == NULL)
    return NULL;
  if (mcp_tasks_open(store, scope, &r->tasks) != MCP_OK) {
    free(r);
    return NULL;
  }
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->stop, NULL);
  return r;
}

/* Sleeps ms unless the resumer stops first: false then. */
static bool pause_unless_stopped(demo_resumer *r, long ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += ms / 1000;
  until.tv_nsec += (ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&r->lock);
  while (!r->stopping &&
         pthread_cond_timedwait(&r->stop, &r->lock, &until) == 0)
    ;
  bool go = !r->stopping;
  pthread_mutex_unlock(&r->lock);
  return go;
}

static void *export_again(void *arg) {
  export_job *j = arg;
  demo_resumer *r = j->owner;
  long step_ms = (long)(j->seconds * 1000 / STEPS), rows = 0;
  for (int i = 1; i <= STEPS; i++) {
    if (!pause_unless_stopped(r, step_ms)) {
      mcp_task_update_status(r->tasks, j->id, MCP_TASK_WORKING, STOPPED);
      return NULL;
    }
    rows += 500;
    char msg[96];
    snprintf(msg, sizeof msg,
             "Resumed after a restart: exporting rows (%d of %d)", i, STEPS);
    if (mcp_task_update_status(r->tasks, j->id, MCP_TASK_WORKING, msg) ==
        MCP_ERR_STATE)
      return NULL; /* cancelled meanwhile */
  }
  mcp_result_t *res = NULL;
  if (mcp_result_new(&res) == MCP_OK) {
    demo_export_result(res, rows, j->format, j->id);
    mcp_task_complete(r->tasks, j->id, res);
    mcp_result_free(res);
  }
  return NULL;
}

bool demo_resume_task(mcp_tasks_t *tasks, const json_t *task, void *ud) {
  (void)tasks; /* the resumer's own manager outlives the server's */
  demo_resumer *r = ud;
  const json_t *params = json_object_get(task, "params");
  const char *tool = json_string_value(json_object_get(params, "name"));
  const char *id = json_string_value(json_object_get(task, "taskId"));
  if (r == NULL || id == NULL || tool == NULL ||
      strcmp(tool, "start_long_export") != 0)
    return false; /* the library runs it again (idempotent) or fails it */
  const json_t *args = json_object_get(params, "arguments");
  export_job *j = calloc(1, sizeof *j);
  if (j == NULL)
    return false;
  j->owner = r;
  snprintf(j->id, sizeof j->id, "%s", id);
  snprintf(j->format, sizeof j->format, "%s",
           mcp_arg_string_or(args, "format", "csv"));
  j->seconds = 3;
  mcp_arg_number(args, "seconds", &j->seconds);
  pthread_mutex_lock(&r->lock);
  bool started = !r->stopping &&
                 pthread_create(&j->thread, NULL, export_again, j) == 0;
  if (started) {
    j->next = r->jobs;
    r->jobs = j;
  }
  pthread_mutex_unlock(&r->lock);
  if (!started) {
    free(j);
    return false;
  }
  fprintf(stderr, "mcp-demo-server: resuming start_long_export task %s\n", id);
  return true;
}

void demo_resumer_free(demo_resumer *r) {
  if (r == NULL)
    return;
  pthread_mutex_lock(&r->lock);
  r->stopping = true;
  pthread_cond_broadcast(&r->stop);
  export_job *jobs = r->jobs;
  r->jobs = NULL;
  pthread_mutex_unlock(&r->lock);
  while (jobs) {
    export_job *next = jobs->next;
    pthread_join(jobs->thread, NULL);
    free(jobs);
    jobs = next;
  }
  mcp_tasks_free(r->tasks);
  pthread_cond_destroy(&r->stop);
  pthread_mutex_destroy(&r->lock);
  free(r);
}
