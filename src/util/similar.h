/* SPDX-License-Identifier: MIT */
/* similar.h - "did you mean ...?": the registered names closest to one that
 * matched nothing (an unknown tool or prompt), by edit distance.
 *
 * A model that misspells a tool name gets the right one in the error and can
 * retry; a count or a bare "unknown" leaves it guessing. */
#ifndef MCP_UTIL_SIMILAR_H
#define MCP_UTIL_SIMILAR_H

#include <stdbool.h>
#include <stddef.h>

/* Optimal string alignment distance between a and b (insertions, deletions,
 * substitutions and swaps of two neighbours cost 1; ASCII letters compare
 * without case), or max + 1 as soon as it is certain to exceed max. */
size_t mcp__edit_distance(const char *a, size_t alen, const char *b,
                          size_t blen, size_t max);

enum { MCP__SIMILAR_KEEP = 3, MCP__SIMILAR_NAME_MAX = 128 };

/* The closest names offered so far, best first (ties: first offered). */
typedef struct mcp__similar {
  const char *want;
  size_t want_len, max, offered;
  size_t n;
  size_t dist[MCP__SIMILAR_KEEP];
  char names[MCP__SIMILAR_KEEP][MCP__SIMILAR_NAME_MAX + 1];
} mcp__similar;

/* Starts a search for names close to want (want_len bytes, not
 * NUL-terminated): at most about a third of its length apart. */
void mcp__similar_init(mcp__similar *s, const char *want, size_t want_len);
/* Considers name (copied when kept). Only the first 4096 names offered are
 * considered, and nothing for a wanted name over 160 bytes, so an unknown
 * name costs a bounded time on a huge catalog.
 * Returns false, for use as a catalog visitor that never stops early. */
bool mcp__similar_offer(mcp__similar *s, const char *name);
/* "; did you mean 'a'?", "; did you mean 'a' or 'b'?", ... into buf (cap
 * bytes, cut to fit), or "" when no name was close. */
void mcp__similar_text(const mcp__similar *s, char *buf, size_t cap);

#endif
