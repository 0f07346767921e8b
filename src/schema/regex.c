/* SPDX-License-Identifier: MIT */
/* regex.c - ECMA-262 to PCRE2 translation and matching; see regex.h. */
#include "schema/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/hex.h"

/* JIT compilation is lazy: a pattern is interpreted for its first
 * MCP__REGEX_JIT_AFTER matches, so patterns matched a few times (meta-schema
 * checks at tool registration, rarely used tools) never map PCRE2's JIT
 * code. The thread whose match brings the counter to that number JITs a
 * private copy of the code (pcre2_code_copy leaves out JIT data) and
 * publishes it with a release store; matchers load it with acquire and use
 * it once set, so nobody ever sees a half-built JIT and `code` itself is
 * never modified after compile. */
#define MCP__REGEX_JIT_AFTER 32u

struct mcp__regex {
  pcre2_code *code;          /* interpreted, never JIT-compiled */
  _Atomic(pcre2_code *) jit; /* JIT-compiled copy, NULL until published */
  atomic_uint uses;          /* matches before jit was published */
  char *source;              /* the ECMA text, for messages */
};

/* Translation output: the shared growable buffer, with its first failure
 * made sticky so the translator appends without checking every call. */
typedef struct buf {
  mcp__buf b;
  bool oom;
} buf;

static void bput(buf *b, const char *s, size_t n) {
  if (!b->oom && !mcp__buf_append(&b->b, s, n))
    b->oom = true;
}

static void bputs(buf *b, const char *s) {
  bput(b, s, strlen(s));
}

static void bcode(buf *b, unsigned long cp) {
  char tmp[24];
  snprintf(tmp, sizeof tmp, "\\x{%lx}", cp);
  bputs(b, tmp);
}

/* ECMA \s: WhiteSpace and LineTerminator code points. */
#define ECMA_SPACE                                                             \
  "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}"  \
  "\\x{202f}\\x{205f}\\x{3000}\\x{feff}"

static bool hexn(const char *s, size_t n, size_t avail, unsigned long *out) {
  if (avail < n)
    return false;
  unsigned long v = 0;
  for (size_t i = 0; i < n; i++) {
    int h = mcp__hex_digit((unsigned char)s[i]);
    if (h < 0)
      return false;
    v = v * 16 + (unsigned long)h;
  }
  *out = v;
  return true;
}

/* Parses \uXXXX (with a following low surrogate) or \u{X...} at s (pointing
 * after "\u"); returns bytes consumed or 0. */
static size_t parse_u(const char *s, size_t avail, unsigned long *cp) {
  if (avail > 0 && s[0] == '{') {
    size_t i = 1;
    unsigned long v = 0;
    while (i < avail && s[i] != '}') {
      int h = mcp__hex_digit((unsigned char)s[i]);
      if (h < 0 || v > 0x10FFFF)
        return 0;
      v = v * 16 + (unsigned long)h;
      i++;
    }
    if (i >= avail || i == 1 || v > 0x10FFFF)
      return 0;
    *cp = v;
    return i + 1;
  }
  unsigned long hi;
  if (!hexn(s, 4, avail, &hi))
    return 0;
  if (hi >= 0xD800 && hi <= 0xDBFF && avail >= 10 && s[4] == '\\' &&
      s[5] == 'u') {
    unsigned long lo;
    if (hexn(s + 6, 4, avail - 6, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
      *cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
      return 10;
    }
  }
  *cp = hi;
  return 4;
}

/* ECMA accepts long General_Category names; PCRE2 10.42 only the short
 * ones. */
static const char *gc_short_name(const char *name, size_t len) {
  static const char *const map[][2] = {
      {"Letter", "L"},
      {"Cased_Letter", "L&"},
      {"Uppercase_Letter", "Lu"},
      {"Lowercase_Letter", "Ll"},
      {"Titlecase_Letter", "Lt"},
      {"Modifier_Letter", "Lm"},
      {"Other_Letter", "Lo"},
      {"Mark", "M"},
      {"Combining_Mark", "M"},
      {"Nonspacing_Mark", "Mn"},
      {"Spacing_Mark", "Mc"},
      {"Enclosing_Mark", "Me"},
      {"Number", "N"},
      {"Decimal_Number", "Nd"},
      {"digit", "Nd"},
      {"Letter_Number", "Nl"},
      {"Other_Number", "No"},
      {"Punctuation", "P"},
      {"punct", "P"},
      {"Connector_Punctuation", "Pc"},
      {"Dash_Punctuation", "Pd"},
      {"Open_Punctuation", "Ps"},
      {"Close_Punctuation", "Pe"},
      {"Initial_Punctuation", "Pi"},
      {"Final_Punctuation", "Pf"},
      {"Other_Punctuation", "Po"},
      {"Symbol", "S"},
      {"Math_Symbol", "Sm"},
      {"Currency_Symbol", "Sc"},
      {"Modifier_Symbol", "Sk"},
      {"Other_Symbol", "So"},
      {"Separator", "Z"},
      {"Space_Separator", "Zs"},
      {"Line_Separator", "Zl"},
      {"Paragraph_Separator", "Zp"},
      {"Other", "C"},
      {"Control", "Cc"},
      {"cntrl", "Cc"},
      {"Format", "Cf"},
      {"Surrogate", "Cs"},
      {"Private_Use", "Co"},
      {"Unassigned", "Cn"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strlen(map[i][0]) == len && strncmp(map[i][0], name, len) == 0)
      return map[i][1];
  return NULL;
}

/* Translates ECMA src into PCRE2 syntax. strict rejects what u-mode
 * JavaScript rejects (identity escapes of letters, Python/PCRE-only groups).
 * Returns false with *why set on a construct it refuses. */
static bool translate(const char *src, size_t len, bool strict, buf *out,
                      const char **why) {
  bool in_class = false;
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    char c = src[i];
    if (c == '\\') {
      if (i + 1 >= len) {
        *why = "pattern ends with a lone backslash";
        return false;
      }
      char e = src[++i];
      switch (e) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 't':
      case 'n':
      case 'f':
      case 'r':
        /* without PCRE2_UCP these are ASCII, as in JavaScript */
        bput(out, src + i - 1, 2);
        break;
      case 'b':
      case 'B':
        if (in_class && e == 'B' && strict) {
          *why = "\\B is not allowed in a character class";
          return false;
        }
        bput(out, src + i - 1, 2);
        break;
      case 's':
        bputs(out, in_class ? ECMA_SPACE : "[" ECMA_SPACE "]");
        break;
      case 'S':
        /* PCRE2 has no class subtraction; inside a class fall back to its
         * ASCII \S (documented difference). */
        bputs(out, in_class ? "\\S" : "[^" ECMA_SPACE "]");
        break;
      case 'v':
        bputs(out, "\\x{0b}");
        break;
      case '0':
        if (i + 1 < len && src[i + 1] >= '0' && src[i + 1] <= '9') {
          *why = "octal escapes are not allowed";
          return false;
        }
        bputs(out, "\\x{0}");
        break;
      case 'c': {
        char l = i + 1 < len ? src[i + 1] : 0;
        if ((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z')) {
          bcode(out, (unsigned long)(l & 0x1F));
          i++;
        } else {
          if (strict) {
            *why = "\\c must be followed by a letter";
            return false;
          }
          bputs(out, "\\\\c");
        }
        break;
      }
      case 'x': {
        unsigned long v;
        if (!hexn(src + i + 1, 2, len - i - 1, &v)) {
          *why = "\\x needs two hex digits";
          return false;
        }
        bcode(out, v);
        i += 2;
        break;
      }
      case 'u': {
        unsigned long cp;
        size_t n = parse_u(src + i + 1, len - i - 1, &cp);
        if (n == 0) {
          *why = "malformed \\u escape";
          return false;
        }
        bcode(out, cp);
        i += n;
        break;
      }
      case 'p':
      case 'P': {
        if (i + 1 >= len || src[i + 1] != '{') {
          *why = "\\p needs {Property}";
          return false;
        }
        size_t j = i + 2;
        while (j < len && src[j] != '}')
          j++;
        if (j >= len) {
          *why = "unterminated \\p{...}";
          return false;
        }
        /* "Script=Greek", "sc=Greek", "General_Category=L": PCRE2 spells
         * these with a colon or without the key. */
        const char *name = src + i + 2;
        size_t nlen = j - (i + 2);
        const char *eq = memchr(name, '=', nlen);
        if (eq != NULL) {
          /* "Script=Greek", "sc=Greek", "General_Category=L": PCRE2 10.42
           * takes the bare value. */
          nlen -= (size_t)(eq + 1 - name);
          name = eq + 1;
        }
        bput(out, src + i - 1, 2);
        bputs(out, "{");
        const char *shortname = gc_short_name(name, nlen);
        if (shortname != NULL)
          bputs(out, shortname);
        else
          bput(out, name, nlen);
        bputs(out, "}");
        i = j;
        break;
      }
      case 'k':
        bputs(out, "\\k");
        break;
      default:
        if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z')) {
          if (strict) {
            *why = "unknown escape";
            return false;
          }
          /* Annex B identity escape: the letter itself. */
          bput(out, &e, 1);
        } else if (e >= '1' && e <= '9') {
          bput(out, src + i - 1, 2);
        } else if ((unsigned char)e >= 0x80) {
          /* escaped non-ASCII: drop the backslash, copy the UTF-8 bytes */
          bput(out, &e, 1);
        } else {
          bput(out, src + i - 1, 2);
        }
      }
      continue;
    }
    if (in_class) {
      if (c == ']') {
        in_class = false;
      } else if (c == '[') {
        bputs(out, "\\[");
        continue;
      }
      bput(out, &c, 1);
      continue;
    }
    switch (c) {
    case '[':
      in_class = true;
      bput(out, &c, 1);
      if (i + 1 < len && src[i + 1] == '^') {
        bput(out, "^", 1);
        i++;
      }
      if (i + 1 < len && src[i + 1] == ']') {
        /* "[]" / "[^]": an empty class, closed right away */
        bput(out, "]", 1);
        in_class = false;
        i++;
      }
      break;
    case '.':
      bputs(out, "[^\\n\\r\\x{2028}\\x{2029}]");
      break;
    case '(':
      depth++;
      if (i + 1 < len && src[i + 1] == '?') {
        const char *g = src + i + 2;
        size_t rem = len - i - 2;
        bool ok =
            (rem >= 1 && (g[0] == ':' || g[0] == '=' || g[0] == '!')) ||
            (rem >= 2 && g[0] == '<' && (g[1] == '=' || g[1] == '!')) ||
            (rem >= 2 && g[0] == '<' &&
             (g[1] == '_' || g[1] == '$' || (g[1] >= 'a' && g[1] <= 'z') ||
              (g[1] >= 'A' && g[1] <= 'Z') || (unsigned char)g[1] >= 0x80));
        if (!ok) {
          *why = "unsupported group syntax";
          return false;
        }
      }
      bput(out, &c, 1);
      break;
    case ')':
      if (--depth < 0) {
        *why = "unbalanced parenthesis";
        return false;
      }
      bput(out, &c, 1);
      break;
    default:
      bput(out, &c, 1);
    }
  }
  if (in_class) {
    *why = "unterminated character class";
    return false;
  }
  return true;
}

static pcre2_code *compile_translated(const char *src, size_t len, bool strict,
                                      char *errbuf, size_t errlen,
                                      int *errcode) {
  buf out = {0};
  const char *why = NULL;
  *errcode = 0;
  if (!translate(src, len, strict, &out, &why) || out.oom) {
    snprintf(errbuf, errlen, "invalid regular expression: %s",
             out.oom ? "out of memory" : why);
    mcp__buf_free(&out.b);
    return NULL;
  }
  int ec;
  PCRE2_SIZE off;
  pcre2_code *code =
      pcre2_compile((PCRE2_SPTR)(out.b.data ? out.b.data : ""), out.b.len,
                    PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALLOW_EMPTY_CLASS,
                    &ec, &off, NULL);
  mcp__buf_free(&out.b);
  if (code == NULL) {
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(ec, msg, sizeof msg);
    snprintf(errbuf, errlen, "invalid regular expression: %s", (char *)msg);
    *errcode = ec;
  }
  return code;
}

mcp__regex *mcp__regex_compile(const char *src, size_t len, char *errbuf,
                               size_t errlen) {
  int ec;
  pcre2_code *code = compile_translated(src, len, false, errbuf, errlen, &ec);
  if (code == NULL)
    return NULL;
  mcp__regex *re = malloc(sizeof *re);
  if (re == NULL) {
    pcre2_code_free(code);
    snprintf(errbuf, errlen, "out of memory");
    return NULL;
  }
  re->code = code;
  atomic_init(&re->jit, NULL);
  atomic_init(&re->uses, 0);
  re->source = malloc(len + 1);
  if (re->source == NULL) {
    pcre2_code_free(code);
    free(re);
    snprintf(errbuf, errlen, "out of memory");
    return NULL;
  }
  memcpy(re->source, src, len);
  re->source[len] = '\0';
  return re;
}

void mcp__regex_free(mcp__regex *re) {
  if (re == NULL)
    return;
  pcre2_code_free(re->code);
  pcre2_code_free(atomic_load_explicit(&re->jit, memory_order_acquire));
  free(re->source);
  free(re);
}

void *mcp__regex_match_context_new(uint32_t match_limit) {
  pcre2_match_context *mc = pcre2_match_context_create(NULL);
  if (mc != NULL)
    pcre2_set_match_limit(mc, match_limit);
  return mc;
}

void mcp__regex_match_context_free(void *mcontext) {
  pcre2_match_context_free(mcontext);
}

/* Custom allocator: carve from scratch->space, then fall back to malloc. */
static void *scratch_malloc(PCRE2_SIZE size, void *ud) {
  mcp__regex_scratch *s = ud;
  size_t aligned = (size + 15) & ~(size_t)15;
  if (s->used + aligned <= sizeof s->space) {
    void *p = s->space + s->used;
    s->used += aligned;
    return p;
  }
  return malloc(size);
}

static void scratch_free(void *p, void *ud) {
  mcp__regex_scratch *s = ud;
  unsigned char *c = p;
  if (c >= s->space && c < s->space + sizeof s->space)
    return;
  free(p);
}

/* Run by exactly one thread per pattern (the one whose match made the
 * counter reach MCP__REGEX_JIT_AFTER). JIT is an optimisation: when it is
 * unavailable or fails, matching keeps interpreting. */
static void jit_publish(mcp__regex *re) {
  pcre2_code *copy = pcre2_code_copy(re->code);
  if (copy == NULL)
    return;
  if (pcre2_jit_compile(copy, PCRE2_JIT_COMPLETE) != 0) {
    pcre2_code_free(copy);
    return;
  }
  atomic_store_explicit(&re->jit, copy, memory_order_release);
}

int mcp__regex_search(const mcp__regex *re, const char *s, size_t len,
                      mcp__regex_scratch *sc, void *mcontext) {
  if (sc->match_data == NULL) {
    sc->used = 0;
    sc->gcontext =
        pcre2_general_context_create(scratch_malloc, scratch_free, sc);
    if (sc->gcontext == NULL)
      return -1;
    sc->match_data = pcre2_match_data_create(1, sc->gcontext);
    if (sc->match_data == NULL)
      return -1;
  }
  /* re is shared read-only except for the two atomics (see struct). */
  mcp__regex *mre = (mcp__regex *)re;
  const pcre2_code *code =
      atomic_load_explicit(&mre->jit, memory_order_acquire);
  if (code == NULL) {
    code = re->code;
    /* counts only up to the threshold: no shared writes per match after it
     * (even when JIT is unavailable and jit stays NULL) */
    if (atomic_load_explicit(&mre->uses, memory_order_relaxed) <
            MCP__REGEX_JIT_AFTER &&
        atomic_fetch_add_explicit(&mre->uses, 1, memory_order_relaxed) + 1 ==
            MCP__REGEX_JIT_AFTER)
      jit_publish(mre);
  }
  int rc =
      pcre2_match(code, (PCRE2_SPTR)s, len, 0, 0, sc->match_data, mcontext);
  if (rc >= 0)
    return 1;
  if (rc == PCRE2_ERROR_NOMATCH)
    return 0;
  return -1;
}

void mcp__regex_scratch_release(mcp__regex_scratch *sc) {
  if (sc->match_data != NULL)
    pcre2_match_data_free(sc->match_data);
  if (sc->gcontext != NULL)
    pcre2_general_context_free(sc->gcontext);
  sc->match_data = NULL;
  sc->gcontext = NULL;
}

bool mcp__regex_is_valid_ecma(const char *src, size_t len) {
  char err[200];
  int ec;
  pcre2_code *code = compile_translated(src, len, true, err, sizeof err, &ec);
  if (code != NULL) {
    pcre2_code_free(code);
    return true;
  }
  /* JavaScript allows variable-length lookbehind; PCRE2 10.42 does not. */
  return ec == PCRE2_ERROR_LOOKBEHIND_NOT_FIXED_LENGTH;
}

const char *mcp__regex_source(const mcp__regex *re) {
  return re->source;
}
