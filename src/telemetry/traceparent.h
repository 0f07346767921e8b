/* SPDX-License-Identifier: MIT */
/* traceparent.h - the W3C Trace Context traceparent value
 * ("00-<trace id>-<parent id>-<flags>", lowercase hex), read from an HTTP
 * header or params._meta and written into the requests a client sends.
 * Shared by the server's request spans and the client's spans.
 *
 * Thread-safety: pure functions. */
#ifndef MCP_TELEMETRY_TRACEPARENT_H
#define MCP_TELEMETRY_TRACEPARENT_H

#include <stdbool.h>

/* The text's length, NUL included, as written by mcp__traceparent_format. */
#define MCP__TRACEPARENT_SIZE 56

/* Parses text (NULL: false). false when it is not a valid traceparent:
 * version "ff" or not hex, a version-00 value with anything after its
 * flags, an id that is not lowercase hex or is all zeros (W3C Trace
 * Context 3.2.2). A later version is read by its version-00 prefix. */
bool mcp__traceparent_parse(const char *text, unsigned char trace_id[16],
                            unsigned char parent_id[8], bool *sampled);

/* Writes a version-00 traceparent with the sampled flag set (NUL-ended). */
void mcp__traceparent_format(char out[MCP__TRACEPARENT_SIZE],
                             const unsigned char trace_id[16],
                             const unsigned char span_id[8]);

#endif
