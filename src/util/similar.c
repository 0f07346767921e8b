/* SPDX-License-Identifier: MIT */
/* similar.c - edit distance and the closest-names list (similar.h). */
#include "util/similar.h"

#include <stdio.h>
#include <string.h>

static unsigned char fold(char c) {
  return (unsigned char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

static size_t min3(size_t a, size_t b, size_t c) {
  size_t m = a < b ? a : b;
  return m < c ? m : c;
}

size_t mcp__edit_distance(const char *a, size_t alen, const char *b,
                          size_t blen, size_t max) {
  if ((alen > blen ? alen - blen : blen - alen) > max)
    return max + 1;
  if (blen > 2 * MCP__SIMILAR_NAME_MAX) /* rows below are on the stack */
    return max + 1;
  /* three rows of the table: i - 2, i - 1 and i */
  size_t rows[3][2 * MCP__SIMILAR_NAME_MAX + 1];
  size_t *older = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= blen; j++)
    prev[j] = j;
  for (size_t i = 1; i <= alen; i++) {
    cur[0] = i;
    size_t row_min = i;
    for (size_t j = 1; j <= blen; j++) {
      size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
      size_t d = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
          fold(a[i - 2]) == fold(b[j - 1]) && older[j - 2] + 1 < d)
        d = older[j - 2] + 1; /* two neighbours swapped */
      cur[j] = d;
      if (d < row_min)
        row_min = d;
    }
    if (row_min > max) /* every later row is at least as far */
      return max + 1;
    size_t *t = older;
    older = prev;
    prev = cur;
    cur = t;
  }
  return prev[blen] > max ? max + 1 : prev[blen];
}

void mcp__similar_init(mcp__similar *s, const char *want, size_t want_len) {
  memset(s, 0, sizeof *s);
  s->want = want;
  s->want_len = want_len;
  s->max = want_len <= 3 ? 1 : want_len <= 6 ? 2 : want_len / 3;
}

bool mcp__similar_offer(mcp__similar *s, const char *name) {
  /* bounded work per unknown name: 4096 names, and a name far longer than
   * any tool's (128) is close to none of them */
  if (s->offered++ >= 4096 || s->want_len > MCP__SIMILAR_NAME_MAX + 32)
    return false;
  size_t len = strlen(name);
  if (len > MCP__SIMILAR_NAME_MAX)
    return false;
  size_t d = mcp__edit_distance(name, len, s->want, s->want_len, s->max);
  if (d > s->max)
    return false;
  size_t at = s->n;
  while (at > 0 && s->dist[at - 1] > d)
    at--;
  if (at == MCP__SIMILAR_KEEP)
    return false;
  size_t last = s->n < MCP__SIMILAR_KEEP ? s->n : MCP__SIMILAR_KEEP - 1;
  for (size_t k = last; k > at; k--) {
    s->dist[k] = s->dist[k - 1];
    memcpy(s->names[k], s->names[k - 1], sizeof s->names[k]);
  }
  s->dist[at] = d;
  memcpy(s->names[at], name, len + 1);
  if (s->n < MCP__SIMILAR_KEEP)
    s->n++;
  return false;
}

void mcp__similar_text(const mcp__similar *s, char *buf, size_t cap) {
  size_t o = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < s->n && o < cap; k++)
    o += (size_t)snprintf(buf + o, cap - o, "%s'%s'",
                          k == 0               ? "; did you mean "
                          : k + 1 == s->n ? " or "
                                               : ", ",
                          s->names[k]);
  if (s->n > 0 && o < cap)
    snprintf(buf + o, cap - o, "?");
}
