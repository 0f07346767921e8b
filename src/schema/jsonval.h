/* jsonval.h - JSON Schema value semantics: equality where 1 == 1.0, hashes
 * consistent with it, numeric comparison without precision loss, and
 * code-point counting. */
#ifndef MCP_SCHEMA_JSONVAL_H
#define MCP_SCHEMA_JSONVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

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
