/* SPDX-License-Identifier: MIT */
/* sse.h - an incremental text/event-stream parser (WHATWG HTML "server-sent
 * events" rules): fields data, event, id and retry, comment lines starting
 * with ':', line ends CRLF, LF or CR, a leading BOM ignored. Bytes may arrive
 * split anywhere; each complete event is handed to a callback. */
#ifndef MCP_CLIENT_SSE_H
#define MCP_CLIENT_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* One dispatched event. data is NUL-terminated (len bytes, the lines joined
 * with '\n'); event is "message" when the stream named none; id is the last
 * event id seen so far on the stream ("" when none). All borrowed for the
 * duration of the call. */
typedef void (*mcp__sse_event_fn)(const char *event, const char *id,
                                  const char *data, size_t len,
                                  void *user_data);

typedef struct mcp__sse {
  mcp__buf line;   /* the incomplete current line */
  mcp__buf data;   /* data buffer of the event being assembled */
  mcp__buf event;  /* event type buffer */
  mcp__buf id_buf; /* id field of the event being assembled */
  char *last_id;   /* last event id (persists across events), "" start */
  long retry_ms;   /* last retry: value, -1 when none was sent */
  bool after_cr;   /* previous byte ended a line with CR (skip a LF) */
  bool started;    /* first bytes seen (BOM check done) */
  bool has_data;   /* at least one data field in this event */
  bool has_id;     /* an id field was seen in this event */
  mcp__sse_event_fn fn;
  void *user_data;
} mcp__sse;

void mcp__sse_init(mcp__sse *p, mcp__sse_event_fn fn, void *user_data);
void mcp__sse_free(mcp__sse *p);
/* Feeds n bytes; false on allocation failure. */
bool mcp__sse_feed(mcp__sse *p, const char *bytes, size_t n);
/* Last event id ("" when none; borrowed). */
const char *mcp__sse_last_id(const mcp__sse *p);

#endif
