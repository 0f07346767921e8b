/* SPDX-License-Identifier: MIT */
/* regex.h - ECMA-262 regular expressions on top of PCRE2.
 *
 * Patterns are translated where PCRE2 and JavaScript disagree (\s, \S, ".",
 * \v, \uXXXX, \u{...}, \0, "[" inside classes, surrogate pairs), compiled once
 * in UTF mode, interpreted for their first matches and JIT-compiled once they
 * are matched often (see regex.c), and matched under a match limit so that a
 * hostile pattern fails instead of hanging. */
#ifndef MCP_SCHEMA_REGEX_H
#define MCP_SCHEMA_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mcp__regex mcp__regex;

/* Match scratch kept on the caller's stack: PCRE2 match data is carved out of
 * `space` through a custom allocator, so a match allocates nothing unless
 * PCRE2 needs more than that. Lazily initialised; release when done. */
typedef struct mcp__regex_scratch {
  void *gcontext;   /* pcre2_general_context* */
  void *match_data; /* pcre2_match_data* */
  size_t used;
  _Alignas(16) unsigned char space[1024];
} mcp__regex_scratch;

/* Compiles src (len bytes). On failure returns NULL and writes a sentence to
 * errbuf. Returns new; free with mcp__regex_free. */
mcp__regex *mcp__regex_compile(const char *src, size_t len, char *errbuf,
                               size_t errlen);
void mcp__regex_free(mcp__regex *re);
/* The ECMA source text (borrowed). */
const char *mcp__regex_source(const mcp__regex *re);

/* A read-only pcre2_match_context with the match limit; shared by threads. */
void *mcp__regex_match_context_new(uint32_t match_limit);
void mcp__regex_match_context_free(void *mcontext);

/* 1 match, 0 no match, -1 the match limit was hit or the subject is not
 * valid UTF-8. */
int mcp__regex_search(const mcp__regex *re, const char *s, size_t len,
                      mcp__regex_scratch *scratch, void *mcontext);
void mcp__regex_scratch_release(mcp__regex_scratch *scratch);

/* The "regex" format: true when src is a valid ECMA-262 (u-mode) pattern. */
bool mcp__regex_is_valid_ecma(const char *src, size_t len);

#endif
