/* SPDX-License-Identifier: MIT */
/* sse.h - Server-Sent Events framing (WHATWG HTML, "event stream").
 *
 * Pure byte formatting, no I/O: callers append events to a buffer that a
 * connection drains. Data containing line breaks (LF, CRLF or CR) becomes
 * several data: lines, which a conforming client joins back with LF.
 */
#ifndef MCP_TRANSPORT_SSE_H
#define MCP_TRANSPORT_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Appends one event: "id: <id>\n" (when id is non-NULL), one "data: " line
 * per line of data, then the blank line. false on allocation failure (out is
 * left as it was). */
bool mcp__sse_append_event(mcp__buf *out, const char *id, const char *data,
                           size_t len);
/* The priming event of a resumable stream: an id, a retry hint (when
 * retry_ms > 0) and an empty data line. */
bool mcp__sse_append_priming(mcp__buf *out, const char *id, int retry_ms);
/* A comment line (": text\n\n"), used as a heartbeat. */
bool mcp__sse_append_comment(mcp__buf *out, const char *text);

#endif
