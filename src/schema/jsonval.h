/* SPDX-License-Identifier: MIT */
/* jsonval.h - JSON Schema value semantics: equality where 1 == 1.0, hashes
 * consistent with it, numeric comparison without precision loss, and
 * code-point counting. */
#ifndef MCP_SCHEMA_JSONVAL_H
#define MCP_SCHEMA_JSONVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

/* A JSON number as jansson holds it, so values from jansson and from the
 * tape (tape.h) share one arithmetic and compare identically. */
typedef struct mcp__num {
  bool is_int;
  json_int_t i; /* when is_int */
  double d;     /* otherwise */
} mcp__num;

static inline mcp__num mcp__num_of(const json_t *v) {
  mcp__num n = {json_is_integer(v), 0, 0};
  if (n.is_int)
    n.i = json_integer_value(v);
  else
    n.d = json_real_value(v);
  return n;
}

int mcp__numv_cmp(mcp__num a, mcp__num b);
bool mcp__numv_is_integral(mcp__num v);
bool mcp__numv_is_multiple(mcp__num v, mcp__num m);

/* The pieces of mcp__json_hash, shared with the tape's hash so that equal
 * values hash equally whichever representation they come from. */
static inline uint64_t mcp__hash_mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}
static inline uint64_t mcp__hash_num(mcp__num n) {
  double d = n.is_int ? (double)n.i : n.d;
  if (d == 0)
    d = 0; /* -0.0 == 0 */
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  return mcp__hash_mix(bits ^ 0x1234);
}
#define MCP__HASH_ARRAY_SEED  0xa11u
#define MCP__HASH_OBJECT_SEED 0x0b1u
#define MCP__HASH_TRUE        0x7u
#define MCP__HASH_FALSE       0x8u
#define MCP__HASH_NULL        0x9u
/* An object's hash: the sum of its members', so order does not matter. */
static inline uint64_t mcp__hash_member(uint64_t key_hash, uint64_t val_hash) {
  return mcp__hash_mix(key_hash ^ (val_hash * 7));
}

bool mcp__json_equal(const json_t *a, const json_t *b);
/* Equal values hash equally (numbers hash by value, objects ignore order). */
uint64_t mcp__json_hash(const json_t *v);
/* -1, 0, 1; both must be numbers. */
int mcp__num_cmp(const json_t *a, const json_t *b);
/* true for integers and for reals with an integral value. */
bool mcp__num_is_integral(const json_t *v);
/* True when v (number) is an exact multiple of m (positive number), using
 * the shortest decimal forms of both so 0.0075 is a multiple of 0.0001. */
bool mcp__num_is_multiple(const json_t *v, const json_t *m);
/* Code points in valid UTF-8 text. */
size_t mcp__utf8_length(const char *s, size_t len);

#endif
