/* SPDX-License-Identifier: MIT */
/* thread.h - starting the library's own threads. */
#ifndef MCP_UTIL_THREAD_H
#define MCP_UTIL_THREAD_H

#include <pthread.h>

/* pthread_create with the process's stop signals (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT) blocked in the new thread: they reach the application's threads
 * (its handler, or the sigwait of mcp_http_serve_until_signal) and never
 * one of ours, where their default action would end the process at once.
 * The caller's own mask is unchanged. Returns pthread_create's result. */
int mcp__thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
