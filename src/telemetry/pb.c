/* SPDX-License-Identifier: MIT */
/* pb.c - see pb.h. */
#include "telemetry/pb.h"

#include <string.h>

void mcp__pb_init(mcp__pb *w, size_t limit) {
  memset(w, 0, sizeof *w);
  mcp__buf_init(&w->out);
  w->limit = limit;
}

void mcp__pb_free(mcp__pb *w) { mcp__buf_free(&w->out); }

static void put(mcp__pb *w, const void *p, size_t n) {
  if (w->failed)
    return;
  if (n > w->limit - w->out.len || !mcp__buf_append(&w->out, p, n))
    w->failed = true;
}

static size_t varint_bytes(uint64_t v, unsigned char out[10]) {
  return (size_t)(mcp__pb_put_varint(out, v) - out);
}

static void put_varint(mcp__pb *w, uint64_t v) {
  unsigned char b[10];
  put(w, b, varint_bytes(v, b));
}

static void put_tag(mcp__pb *w, uint32_t field, int wire_type) {
  put_varint(w, (uint64_t)field << 3 | (uint64_t)wire_type);
}

/* Little-endian, whatever the host's order. */
static void put_le(mcp__pb *w, uint64_t v, size_t n) {
  unsigned char b[8];
  for (size_t i = 0; i < n; i++)
    b[i] = (unsigned char)(v >> (8 * i));
  put(w, b, n);
}

static uint64_t double_bits(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return bits;
}

void mcp__pb_varint(mcp__pb *w, uint32_t field, uint64_t v) {
  put_tag(w, field, MCP__PB_VARINT);
  put_varint(w, v);
}

void mcp__pb_fixed64(mcp__pb *w, uint32_t field, uint64_t v) {
  put_tag(w, field, MCP__PB_I64);
  put_le(w, v, 8);
}

void mcp__pb_fixed32(mcp__pb *w, uint32_t field, uint32_t v) {
  put_tag(w, field, MCP__PB_I32);
  put_le(w, v, 4);
}

void mcp__pb_double(mcp__pb *w, uint32_t field, double v) {
  mcp__pb_fixed64(w, field, double_bits(v));
}

void mcp__pb_bytes(mcp__pb *w, uint32_t field, const void *p, size_t n) {
  put_tag(w, field, MCP__PB_LEN);
  put_varint(w, n);
  put(w, p, n);
}

void mcp__pb_raw_fixed64(mcp__pb *w, uint64_t v) { put_le(w, v, 8); }

void mcp__pb_raw_double(mcp__pb *w, double v) {
  put_le(w, double_bits(v), 8);
}

void mcp__pb_begin(mcp__pb *w, uint32_t field) {
  put_tag(w, field, MCP__PB_LEN);
  if (w->depth == MCP__PB_MAX_DEPTH)
    w->failed = true;
  if (w->failed)
    return;
  w->open[w->depth++] = w->out.len;
}

void mcp__pb_end(mcp__pb *w) {
  if (w->failed || w->depth == 0) {
    w->failed = true;
    return;
  }
  size_t start = w->open[--w->depth], len = w->out.len - start;
  unsigned char b[10];
  size_t n = varint_bytes(len, b);
  put(w, b, n); /* room for the length (and the limit checked) */
  if (w->failed)
    return;
  memmove(w->out.data + start + n, w->out.data + start, len);
  memcpy(w->out.data + start, b, n);
}
