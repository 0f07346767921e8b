/* SPDX-License-Identifier: MIT */
/* pb.h - a protocol buffers wire-format writer (varints, fixed 32/64-bit
 * values, length-delimited bytes and nested messages), written for the
 * OTLP http/protobuf export (telemetry/otlp_pb.h). No schema, no
 * allocation per field: one growing buffer with a hard cap, so a runaway
 * batch fails (and is dropped and counted by the exporter) instead of
 * growing without bound. A nested message is written in place and its
 * length inserted before it when it ends, so nothing is encoded twice. */
#ifndef MCP_TELEMETRY_PB_H
#define MCP_TELEMETRY_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define MCP__PB_MAX_DEPTH 16 /* OTLP nests 8 deep at most (kvlist values) */

typedef struct mcp__pb {
  mcp__buf out;
  size_t limit;                     /* bytes at most */
  size_t open[MCP__PB_MAX_DEPTH];   /* where each open message starts */
  size_t depth;
  bool failed; /* over the limit, nested too deep, or out of memory */
} mcp__pb;

/* Wire types (the low 3 bits of a tag). */
enum { MCP__PB_VARINT = 0, MCP__PB_I64 = 1, MCP__PB_LEN = 2, MCP__PB_I32 = 5 };

/* A varint's bytes (base 128, low groups first, the high bit set on all
 * but the last), for writers that size a message before writing it
 * (span_encode.c): how many, and written at o (room for 10), returning
 * the byte after it. */
static inline size_t mcp__pb_varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7)
    n++;
  return n;
}
static inline unsigned char *mcp__pb_put_varint(unsigned char *o, uint64_t v) {
  for (; v >= 0x80; v >>= 7)
    *o++ = (unsigned char)(v | 0x80);
  *o++ = (unsigned char)v;
  return o;
}

void mcp__pb_init(mcp__pb *w, size_t limit);
void mcp__pb_free(mcp__pb *w);

/* Fields: tag then value. Each is a no-op once w->failed. */
void mcp__pb_varint(mcp__pb *w, uint32_t field, uint64_t v);
void mcp__pb_fixed64(mcp__pb *w, uint32_t field, uint64_t v);
void mcp__pb_fixed32(mcp__pb *w, uint32_t field, uint32_t v);
void mcp__pb_double(mcp__pb *w, uint32_t field, double v);
void mcp__pb_bytes(mcp__pb *w, uint32_t field, const void *p, size_t n);

/* A nested message or a packed repeated field: mcp__pb_begin writes the
 * tag, the contents follow, mcp__pb_end puts the length before them. */
void mcp__pb_begin(mcp__pb *w, uint32_t field);
void mcp__pb_end(mcp__pb *w);
/* Values of a packed repeated fixed64 or double field (no tag each). */
void mcp__pb_raw_fixed64(mcp__pb *w, uint64_t v);
void mcp__pb_raw_double(mcp__pb *w, double v);

#endif
