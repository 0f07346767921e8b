/* SPDX-License-Identifier: MIT */
/* tape.c - the single-pass JSON parser behind mcp_schema_validate_text; see
 * tape.h for what it accepts and how it lays values out.
 *
 * Iterative (an explicit stack of open containers) so hostile nesting can
 * only hit the depth limit, never the C stack. Strings without escapes are
 * not copied; ASCII runs are scanned eight bytes at a time because string
 * bytes are most of a typical document. */
#include "json/tape.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/hash.h"
#include "util/hex.h"

typedef struct parser {
  mcp__tape *t;
  const unsigned char *base, *end;
  size_t text_cap;
} parser;

static bool grow(mcp__tape *t) {
  size_t cap = t->cap * 2;
  mcp__tnode *n;
  if (t->nodes == t->inl) {
    n = malloc(cap * sizeof *n);
    if (n != NULL)
      memcpy(n, t->inl, t->count * sizeof *n);
  } else {
    n = realloc(t->nodes, cap * sizeof *n);
  }
  if (n == NULL)
    return false;
  t->nodes = n;
  t->cap = cap;
  return true;
}

/* A fresh node at the end of the tape into idx (the parser's locals
 * nodes, count and cap: kept out of *t while parsing because every
 * byte-sized store into a node may alias t's fields, which the compiler
 * would then load again after each one). */
#define PUSH(type_, idx)                                                       \
  do {                                                                         \
    if (count == cap) {                                                        \
      t->count = count;                                                        \
      if (!grow(t))                                                            \
        DONE(MCP_ERR_NOMEM);                                                   \
      nodes = t->nodes;                                                        \
      cap = t->cap;                                                            \
    }                                                                          \
    nodes[count] = (mcp__tnode){.type = (type_), .skip = 1};                   \
    (idx) = (uint32_t)count++;                                                 \
  } while (0)

static inline const unsigned char *skip_ws(const unsigned char *p,
                                           const unsigned char *end) {
  if (p != end && *p > ' ')
    return p; /* the usual case: compact JSON has no whitespace at all */
  while (p != end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  return p;
}

/* One multi-byte UTF-8 sequence at p (first byte >= 0x80), RFC 3629
 * strictly; the byte after it, or NULL when invalid or truncated. */
static const unsigned char *utf8_seq(const unsigned char *p,
                                     const unsigned char *end) {
  unsigned c = p[0];
  size_t n;
  unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
  if (c >= 0xC2 && c <= 0xDF) {
    n = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 2;
    if (c == 0xE0)
      lo = 0xA0; /* overlong */
    else if (c == 0xED)
      hi = 0x9F; /* UTF-16 surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 3;
    if (c == 0xF0)
      lo = 0x90; /* overlong */
    else if (c == 0xF4)
      hi = 0x8F; /* beyond U+10FFFF */
  } else {
    return NULL;
  }
  if ((size_t)(end - p) <= n || p[1] < lo || p[1] > hi)
    return NULL;
  for (size_t i = 2; i <= n; i++)
    if ((p[i] & 0xC0) != 0x80)
      return NULL;
  return p + n + 1;
}

static int hex4(const unsigned char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    int d = mcp__hex_digit(p[i]);
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

static char *put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) {
    *o++ = (char)cp;
  } else if (cp < 0x800) {
    *o++ = (char)(0xC0 | (cp >> 6));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *o++ = (char)(0xE0 | (cp >> 12));
    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else {
    *o++ = (char)(0xF0 | (cp >> 18));
    *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  }
  return o;
}

/* The rest of a string that has an escape at p: decoded into the tape's
 * text buffer (never longer than the raw text, which bounds the buffer). */
static const unsigned char *decode_string(parser *ps,
                                          const unsigned char *start,
                                          const unsigned char *p,
                                          mcp__tnode *nd) {
  mcp__tape *t = ps->t;
  if (t->text == NULL) {
    size_t need = (size_t)(ps->end - ps->base);
    if (need <= sizeof t->inl_text) {
      t->text = t->inl_text;
      ps->text_cap = sizeof t->inl_text;
    } else {
      t->text = malloc(need);
      if (t->text == NULL)
        return NULL;
      ps->text_cap = need;
    }
  }
  char *o0 = t->text + t->text_used, *o = o0;
  memcpy(o, start, (size_t)(p - start));
  o += p - start;
  const unsigned char *end = ps->end;
  while (p != end) {
    unsigned c = *p;
    if (c == '"') {
      nd->v.s = o0;
      nd->n = (uint32_t)(o - o0);
      t->text_used += (size_t)(o - o0);
      return p + 1;
    }
    if (c < 0x20)
      return NULL;
    if (c >= 0x80) {
      const unsigned char *q = utf8_seq(p, end);
      if (q == NULL)
        return NULL;
      memcpy(o, p, (size_t)(q - p));
      o += q - p;
      p = q;
      continue;
    }
    if (c != '\\') {
      *o++ = (char)c;
      p++;
      continue;
    }
    if (end - p < 2)
      return NULL;
    switch (p[1]) {
    case '"':
    case '\\':
    case '/':
      *o++ = (char)p[1];
      break;
    case 'b':
      *o++ = '\b';
      break;
    case 'f':
      *o++ = '\f';
      break;
    case 'n':
      *o++ = '\n';
      break;
    case 'r':
      *o++ = '\r';
      break;
    case 't':
      *o++ = '\t';
      break;
    case 'u': {
      if (end - p < 6)
        return NULL;
      int cp = hex4(p + 2);
      if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
        return NULL; /* lone low surrogate */
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (end - p < 12 || p[6] != '\\' || p[7] != 'u')
          return NULL; /* lone high surrogate */
        int lo = hex4(p + 8);
        if (lo < 0xDC00 || lo > 0xDFFF)
          return NULL;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        p += 6;
      }
      /* the encoding is never longer than the escape it replaces */
      if (cp == 0)
        t->decoded_nul = true;
      o = put_utf8(o, (unsigned)cp);
      p += 6;
      continue;
    }
    default:
      return NULL;
    }
    p += 2;
  }
  return NULL;
}

/* The high bit of each byte of x that is '"', '\\', a control character or
 * not ASCII; bytes above the first such byte may be marked wrongly (a
 * borrow), the lowest mark is always right. */
static inline uint64_t swar_special(uint64_t x) {
  const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
  uint64_t zero_q = (q - ones) & ~q, zero_b = (b - ones) & ~b;
  uint64_t ctl = (x - ones * 0x20) & ~x;
  return (zero_q | zero_b | ctl | x) & high;
}

/* String at p (just after the opening quote) into nd; the byte after the
 * closing quote, or NULL when malformed. */
static inline const unsigned char *
scan_string(parser *ps, const unsigned char *p, mcp__tnode *nd) {
  const unsigned char *start = p, *end = ps->end;
  for (;;) {
#if defined(__SSE2__)
    /* sixteen bytes a step where the text has them (a quarter of the
     * instructions of the eight-byte step below, which does the rest):
     * the signed compare with 0x20 catches control characters and every
     * byte from 0x80 up. */
    {
      const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
                    space = _mm_set1_epi8(0x20);
      while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i special =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote),
                                      _mm_cmpeq_epi8(x, bslash)),
                         _mm_cmplt_epi8(x, space));
        unsigned m = (unsigned)_mm_movemask_epi8(special);
        if (m != 0) {
          p += __builtin_ctz(m);
          goto found;
        }
        p += 16;
      }
    }
#endif
    while (end - p >= 8) {
      uint64_t x;
      memcpy(&x, p, 8);
      uint64_t m = swar_special(x);
      if (m != 0) {
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        p += __builtin_ctzll(m) >> 3; /* straight to the first such byte */
#endif
        break;
      }
      p += 8;
    }
#if defined(__SSE2__)
  found:
#endif
    if (p == end)
      return NULL;
    unsigned c = *p;
    if (c == '"') {
      nd->v.s = (const char *)start;
      nd->n = (uint32_t)(p - start);
      return p + 1;
    }
    if (c == '\\')
      return decode_string(ps, start, p, nd);
    if (c < 0x20)
      return NULL;
    if (c < 0x80) {
      p++;
      continue;
    }
    p = utf8_seq(p, end);
    if (p == NULL)
      return NULL;
  }
}

static const double pow10_exact[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* strtod on a copy of the literal, with the locale's decimal point the way
 * jansson does it, for the values the exact fast path cannot take. */
static bool slow_real(const unsigned char *s, size_t len, double *out) {
  char small[64], *buf = len < sizeof small ? small : malloc(len + 1);
  if (buf == NULL)
    return false;
  memcpy(buf, s, len);
  buf[len] = '\0';
  const char *point = localeconv()->decimal_point;
  if (point != NULL && point[0] != '.' && point[0] != '\0') {
    char *dot = strchr(buf, '.');
    if (dot != NULL)
      *dot = point[0];
  }
  *out = strtod(buf, NULL);
  if (buf != small)
    free(buf);
  return true;
}

/* Number at p into nd; the byte after it, or NULL when malformed or beyond
 * a double's range. An integer literal beyond int64 becomes a real (see
 * tape.h): jansson would refuse the whole document, but such a number is
 * valid JSON and a schema or a tool should see it, not a parse error. */
static const unsigned char *scan_number(parser *ps, const unsigned char *p,
                                        mcp__tnode *nd) {
  const unsigned char *start = p, *end = ps->end;
  bool neg = false;
  if (*p == '-') {
    neg = true;
    if (++p == end)
      return NULL;
  }
  uint64_t m = 0;
  int digits = 0;
  if (*p == '0') {
    p++;
  } else if (*p >= '1' && *p <= '9') {
    while (p != end && *p >= '0' && *p <= '9') {
      if (digits < 19)
        m = m * 10 + (uint64_t)(*p - '0');
      digits++;
      p++;
    }
  } else {
    return NULL;
  }
  bool real = false;
  int frac = 0;
  if (p != end && *p == '.') {
    real = true;
    p++;
    const unsigned char *f = p;
    while (p != end && *p >= '0' && *p <= '9') {
      if (digits == 0 && *p == '0') {
        frac++; /* a leading zero only shifts the exponent */
      } else {
        if (digits < 19) {
          m = m * 10 + (uint64_t)(*p - '0');
          frac++;
        }
        digits++; /* past 19 the fast path is off: see below */
      }
      p++;
    }
    if (p == f)
      return NULL;
  }
  long exp = 0;
  if (p != end && (*p == 'e' || *p == 'E')) {
    real = true;
    p++;
    bool eneg = false;
    if (p != end && (*p == '+' || *p == '-'))
      eneg = *p++ == '-';
    const unsigned char *f = p;
    while (p != end && *p >= '0' && *p <= '9') {
      if (exp < 100000)
        exp = exp * 10 + (*p - '0');
      p++;
    }
    if (p == f)
      return NULL;
    if (eneg)
      exp = -exp;
  }
  nd->lit = (uint32_t)(start - ps->base);
  nd->n = (uint32_t)(p - start);
  if (!real && digits <= 19 &&
      m <= (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
    nd->type = MCP__J_INT;
    nd->v.i = neg ? (int64_t)(0 - m) : (int64_t)m;
    return p;
  }
  nd->type = MCP__J_REAL;
  if (!real)
    goto slow; /* m holds only the first 19 digits */
  long e = exp - frac;
  if (digits <= 19 && m <= (1ull << 53) && e >= -22 && e <= 22) {
    /* both operands exact, one correctly rounded operation (Clinger) */
    double d = (double)m;
    d = e < 0 ? d / pow10_exact[-e] : d * pow10_exact[e];
    nd->v.d = neg ? -d : d;
    return p;
  }
slow:;
  double d;
  if (!slow_real(start, (size_t)(p - start), &d) || isinf(d))
    return NULL;
  nd->v.d = d;
  return p;
}

/* Marks the keys of the object at index o that reappear later in it, and
 * sets its count of distinct keys. Called for an object of more than 16
 * members or whose keys share a key_bit (see mcp__tape_parse). */
static bool dedupe(mcp__tape *t, uint32_t o) {
  mcp__tnode *nodes = t->nodes;
  uint32_t members = nodes[o].n, end = o + nodes[o].skip;
  if (members < 2)
    return true;
  uint32_t small[16], *keys = small;
  if (members > 16) {
    keys = malloc(members * sizeof *keys);
    if (keys == NULL)
      return false;
  }
  uint32_t k = o + 1;
  for (uint32_t i = 0; k < end; i++) {
    keys[i] = k;
    k = k + 1 + nodes[k + 1].skip;
  }
  uint32_t distinct = members;
  if (members <= 16) {
    for (uint32_t j = 1; j < members; j++) {
      const mcp__tnode *b = &nodes[keys[j]];
      for (uint32_t i = 0; i < j; i++) {
        mcp__tnode *a = &nodes[keys[i]];
        if (!a->dead && a->n == b->n && mcp__bytes_eq(a->v.s, b->v.s, a->n)) {
          a->dead = 1;
          distinct--;
          break;
        }
      }
    }
  } else {
    /* open addressing over key hashes; a slot holds the latest occurrence */
    size_t cap = 32;
    while (cap < (size_t)members * 2)
      cap *= 2;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (slots == NULL) {
      free(keys);
      return false;
    }
    for (uint32_t j = 0; j < members; j++) {
      const mcp__tnode *b = &nodes[keys[j]];
      size_t s = mcp__hash_bytes(b->v.s, b->n) & (cap - 1);
      for (;; s = (s + 1) & (cap - 1)) {
        if (slots[s] == 0) {
          slots[s] = keys[j];
          break;
        }
        mcp__tnode *a = &nodes[slots[s]];
        if (a->n == b->n && memcmp(a->v.s, b->v.s, a->n) == 0) {
          a->dead = 1;
          distinct--;
          slots[s] = keys[j];
          break;
        }
      }
    }
    free(slots);
  }
  nodes[o].n = distinct;
  if (keys != small)
    free(keys);
  return true;
}

/* A key's bit among the 64 of its object's "seen" word: keys that differ
 * in length, first or last byte differ (a typical object's keys all get
 * their own); only an object where two keys share one has its keys compared
 * when it closes (dedupe). */
static inline uint64_t key_bit(const mcp__tnode *key) {
  /* an empty key's bytes "before" and "at" it are its quotes in the text
   * (a key with an escape is never empty): readable, and the same for
   * every empty key */
  const unsigned char *s = (const unsigned char *)key->v.s;
  unsigned first = s[0], last = s[(int64_t)key->n - 1];
  return 1ull << ((first ^ (last << 1) ^ (key->n << 3)) & 63);
}

/* Sets t->count from the parser's local count on the way out. */
#define DONE(status_)                                                          \
  do {                                                                         \
    t->count = count;                                                          \
    t->depth = max_depth;                                                      \
    return (status_);                                                          \
  } while (0)

mcp_status mcp__tape_parse(mcp__tape *t, const char *json, size_t len) {
  t->nodes = t->inl;
  t->count = 0;
  t->cap = MCP__TAPE_INLINE_NODES;
  t->text = NULL;
  t->text_used = 0;
  t->depth = 0;
  t->decoded_nul = false;
  if (len >= UINT32_MAX - 1)
    return MCP_ERR_TOO_LARGE; /* node indexes and offsets are 32-bit */
  if (json == NULL)
    return MCP_ERR_PARSE;
  parser ps = {t, (const unsigned char *)json,
               (const unsigned char *)json + len, 0};
  const unsigned char *p = ps.base, *end = ps.end;
  mcp__tnode *nodes = t->nodes;
  size_t count = 0, cap = t->cap, max_depth = 0;
  /* The open containers form a chain through their "lit" fields (unused by
   * containers) instead of a separate stack: top is the innermost. While an
   * object is open its v.i (unused by containers) holds the key bits seen
   * (key_bit) and its dead (only keys are ever dead) says two shared one. */
  uint32_t top = UINT32_MAX;
  unsigned depth = 0;
  bool in_obj = false; /* nodes[top] is an object */
  for (;;) {
    /* a value at p */
    p = skip_ws(p, end);
    if (p == end)
      DONE(MCP_ERR_PARSE);
    uint32_t i;
    switch (*p) {
    case '{':
    case '[': {
      bool obj = *p == '{';
      if (depth == MCP__TAPE_MAX_DEPTH)
        DONE(MCP_ERR_TOO_DEEP);
      if (depth + 1 > max_depth) /* an empty one counts too */
        max_depth = depth + 1;
      PUSH(obj ? MCP__J_OBJECT : MCP__J_ARRAY, i);
      p = skip_ws(p + 1, end);
      if (p != end && *p == (obj ? '}' : ']')) {
        p++;
        break; /* empty: n 0, skip 1 */
      }
      nodes[i].lit = top;
      top = i;
      in_obj = obj;
      depth++;
      nodes[i].n = 1;
      if (!obj)
        continue;
      goto key;
    }
    case '"':
      PUSH(MCP__J_STRING, i);
      if ((p = scan_string(&ps, p + 1, &nodes[i])) == NULL)
        DONE(MCP_ERR_PARSE);
      break;
    case 't':
    case 'f':
    case 'n': {
      static const char *const words[] = {"true", "false", "null"};
      static const uint8_t types[] = {MCP__J_TRUE, MCP__J_FALSE, MCP__J_NULL};
      int w = *p == 't' ? 0 : *p == 'f' ? 1 : 2;
      size_t wl = strlen(words[w]);
      if ((size_t)(end - p) < wl || memcmp(p, words[w], wl) != 0)
        DONE(MCP_ERR_PARSE);
      PUSH(types[w], i);
      p += wl;
      break;
    }
    default:
      PUSH(MCP__J_INT, i);
      if ((p = scan_number(&ps, p, &nodes[i])) == NULL)
        DONE(MCP_ERR_PARSE);
      break;
    }
    /* after a value: close containers, or find the next item or member */
    for (;;) {
      p = skip_ws(p, end);
      if (depth == 0)
        DONE(p == end ? MCP_OK : MCP_ERR_PARSE);
      if (p == end)
        DONE(MCP_ERR_PARSE);
      if (*p == ',') {
        nodes[top].n++;
        p++;
        if (in_obj)
          goto key;
        break;
      }
      if (*p != (in_obj ? '}' : ']'))
        DONE(MCP_ERR_PARSE);
      p++;
      mcp__tnode *c = &nodes[top];
      c->skip = (uint32_t)(count - top);
      if (in_obj) {
        bool shared = c->dead;
        c->dead = 0;
        c->v.i = 0;
        if ((shared || c->n > 16) && !dedupe(t, top))
          DONE(MCP_ERR_NOMEM);
      }
      uint32_t up = c->lit;
      c->lit = 0;
      top = up;
      depth--;
      in_obj = depth > 0 && nodes[top].type == MCP__J_OBJECT;
    }
    continue;
  key:
    /* a member's key and colon; its value follows */
    p = skip_ws(p, end);
    if (p == end || *p != '"')
      DONE(MCP_ERR_PARSE);
    PUSH(MCP__J_STRING, i);
    if ((p = scan_string(&ps, p + 1, &nodes[i])) == NULL)
      DONE(MCP_ERR_PARSE);
    {
      uint64_t bit = key_bit(&nodes[i]), seen = (uint64_t)nodes[top].v.i;
      nodes[top].dead |= (seen & bit) != 0;
      nodes[top].v.i = (int64_t)(seen | bit);
    }
    if (p == end || *p != ':') { /* compact JSON has the colon right here */
      p = skip_ws(p, end);
      if (p == end || *p != ':')
        DONE(MCP_ERR_PARSE);
    }
    p++;
  }
}

void mcp__tape_release(mcp__tape *t) {
  if (t->nodes != t->inl)
    free(t->nodes);
  if (t->text != t->inl_text)
    free(t->text);
  t->nodes = t->inl;
  t->text = NULL;
}
