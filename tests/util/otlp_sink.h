/* SPDX-License-Identifier: MIT */
/* otlp_sink.h - an OTLP/HTTP collector for tests, on 127.0.0.1: it answers
 * 200 to every request (the first one after hold_first_ms, to keep an
 * export in flight) until it is stopped, and keeps every body back to
 * back. requests, bodies and len are read under lock. */
#ifndef MCP_TEST_OTLP_SINK_H
#define MCP_TEST_OTLP_SINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct collector {
  int fd, port;
  int hold_first_ms; /* set before collector_start */
  pthread_mutex_t lock;
  int requests; /* bodies received in full */
  bool holding; /* the first body is in and its answer held back */
  char *bodies;
  size_t len;
  pthread_t thread;
} collector;

/* Starts c (zeroed but for hold_first_ms) on an ephemeral port. */
void collector_start(collector *c);
/* Stops the thread and frees the bodies. */
void collector_stop(collector *c);

#endif
