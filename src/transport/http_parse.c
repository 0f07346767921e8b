/* SPDX-License-Identifier: MIT */
/* http_parse.c - request head and chunked body parsing (see http_parse.h).
 */
#include "transport/http_parse.h"

#include <string.h>
#include <strings.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "transport/http_guard.h"
#include "util/hex.h"

size_t mcp__hp_head_end(const char *buf, size_t len, size_t from) {
  /* Back up so that a line end split across two reads is seen. */
  size_t i = from > 3 ? from - 3 : 0;
  /* Leading empty lines (RFC 9112 2.2) do not end the head. */
  size_t start = 0;
  while (start < len && (buf[start] == '\r' || buf[start] == '\n'))
    start++;
  if (i < start)
    i = start;
#if defined(__SSE2__)
  /* Sixteen places a step: an LF at j followed by LF, or by CR LF (three
   * loads, one and two bytes apart), instead of a memchr call per line. */
  {
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (; i < len && len - i >= 18; i += 16) {
      const __m128i *at = (const __m128i *)(const void *)(buf + i);
      __m128i a = _mm_loadu_si128(at);
      __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + 1));
      __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(buf + i + 2));
      __m128i hit = _mm_and_si128(
          _mm_cmpeq_epi8(a, lf),
          _mm_or_si128(_mm_cmpeq_epi8(b, lf),
                       _mm_and_si128(_mm_cmpeq_epi8(b, cr),
                                     _mm_cmpeq_epi8(c, lf))));
      unsigned m = (unsigned)_mm_movemask_epi8(hit);
      if (m != 0) {
        size_t j = i + (size_t)__builtin_ctz(m);
        return buf[j + 1] == '\n' ? j + 2 : j + 3;
      }
    }
  }
#endif
  while (i < len) {
    const char *lf = memchr(buf + i, '\n', len - i);
    if (lf == NULL)
      return 0;
    i = (size_t)(lf - buf);
    /* an empty line follows this LF: "\n\n" or "\n\r\n" */
    if (i + 1 < len && buf[i + 1] == '\n')
      return i + 2;
    if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
      return i + 3;
    i++;
  }
  return 0;
}

/* token characters (RFC 9110 5.6.2): what header names and methods are
 * made of; a table, since every byte of every name is looked up */
static const bool tchar[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1,
    ['*'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1,
    ['`'] = 1, ['|'] = 1, ['~'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
    ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
    ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
    ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
    ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
    ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
    ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
    ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1,
};

static bool is_tchar(unsigned char c) { return tchar[c]; }

/* The first CR or LF in [p, end), or end. */
static inline char *find_cr_or_lf(char *p, char *end) {
#if defined(__SSE2__)
  /* sixteen bytes a step: a header line is a few dozen bytes, where a
   * memchr call costs more than the search */
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  while (end - p >= 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    unsigned m = (unsigned)_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, cr)));
    if (m != 0)
      return p + __builtin_ctz(m);
    p += 16;
  }
#endif
  while (p != end && *p != '\n' && *p != '\r')
    p++;
  return p;
}

/* Cuts the line starting at p (ending in LF or CRLF, within end): returns
 * the next line's start, the line NUL-terminated at *stop; NULL when a bare
 * CR is inside it (a CR not followed by LF) or no LF ends it. (No NUL is:
 * mcp__hp_parse_head looked once for the whole head.) */
static inline __attribute__((always_inline)) char *
cut_line(char *p, char *end, char **stop) {
  char *e = find_cr_or_lf(p, end);
  if (e == end)
    return NULL;
  char *next = e + 1;
  if (*e == '\r') {
    if (next == end || *next != '\n')
      return NULL;
    next++;
  }
  *stop = e;
  *e = '\0';
  return next;
}

/* The ':' after a header name made of letters, digits and '-' (nearly
 * every name) within the first 32 bytes of line, sixteen bytes a step;
 * NULL when the name has another byte (a token character or not) or is
 * longer, and the table loop decides. */
static inline char *plain_name_colon(char *line, const char *end) {
#if defined(__SSE2__)
  const __m128i colon = _mm_set1_epi8(':'), dash = _mm_set1_epi8('-'),
                bit5 = _mm_set1_epi8(0x20);
  for (char *p = line; p - line < 32 && end - p >= 16; p += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i lower = _mm_or_si128(x, bit5); /* a letter's small form */
    __m128i alpha =
        _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                      _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
    unsigned ok = (unsigned)_mm_movemask_epi8(
        _mm_or_si128(_mm_or_si128(alpha, digit), _mm_cmpeq_epi8(x, dash)));
    unsigned c = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, colon));
    if (c != 0) {
      unsigned below = (1u << __builtin_ctz(c)) - 1;
      return (ok & below) == below ? p + __builtin_ctz(c) : NULL;
    }
    if (ok != 0xFFFFu)
      return NULL;
  }
#else
  (void)line;
  (void)end;
#endif
  return NULL;
}

/* Decodes %XX in place; false when it decodes to NUL. */
static bool decode_path(char *s) {
  char *w = s;
  for (char *r = s; *r; r++) {
    int hi, lo;
    if (r[0] == '%' && (hi = mcp__hex_digit((unsigned char)r[1])) >= 0 &&
        (lo = mcp__hex_digit((unsigned char)r[2])) >= 0) {
      *w = (char)(hi * 16 + lo);
      if (*w == '\0')
        return false;
      w++;
      r += 2;
    } else {
      *w++ = *r;
    }
  }
  *w = '\0';
  return true;
}

static bool has_token(const char *list, const char *token) {
  size_t n = strlen(token), len;
  const char *item;
  while (mcp__http_list_next(&list, &item, &len))
    if (len == n && strncasecmp(item, token, n) == 0)
      return true;
  return false;
}

/* Whether name (n >= 4 bytes, token characters) is the literal lit of the
 * same length (letters and '-'), ASCII case-insensitive: eight (or four)
 * bytes at a time, the last load overlapping. Clearing bit 5 of each byte's
 * difference folds case: a letter matches its two cases, and '-' only
 * itself (its bit-5 twin is CR, no token character). */
static bool known_name_is(const char *name, const char *lit, size_t n) {
  if (n < 8) {
    uint32_t a, b, c, d;
    memcpy(&a, name, 4);
    memcpy(&b, lit, 4);
    memcpy(&c, name + n - 4, 4);
    memcpy(&d, lit + n - 4, 4);
    return (((a ^ b) | (c ^ d)) & ~0x20202020u) == 0;
  }
  uint64_t diff = 0, a, b;
  for (size_t i = 0; i + 8 < n; i += 8) {
    memcpy(&a, name + i, 8);
    memcpy(&b, lit + i, 8);
    diff |= a ^ b;
  }
  memcpy(&a, name + n - 8, 8);
  memcpy(&b, lit + n - 8, 8);
  diff |= a ^ b;
  return (diff & ~0x2020202020202020ull) == 0;
}

enum mcp__hp_known mcp__hp_known_of(const char *name, size_t len) {
  /* by length, then by first letter: one comparison at most */
  if (len < 4)
    return MCP__HK_COUNT;
  unsigned first = (unsigned char)name[0] | 0x20;
  const char *lit;
  enum mcp__hp_known k;
#define KNOWN(l, kk) (lit = (l), k = (kk))
  switch (len) {
  case 4:
    first == 'h' ? KNOWN("Host", MCP__HK_HOST) : KNOWN("DPoP", MCP__HK_DPOP);
    break;
  case 6:
    first == 'a'   ? KNOWN("Accept", MCP__HK_ACCEPT)
    : first == 'o' ? KNOWN("Origin", MCP__HK_ORIGIN)
                   : KNOWN("Expect", MCP__HK_EXPECT);
    break;
  case 8:
    KNOWN("Mcp-Name", MCP__HK_MCP_NAME);
    break;
  case 10:
    first == 'c' ? KNOWN("Connection", MCP__HK_CONNECTION)
                 : KNOWN("Mcp-Method", MCP__HK_MCP_METHOD);
    break;
  case 11:
    KNOWN("traceparent", MCP__HK_TRACEPARENT);
    break;
  case 12:
    KNOWN("Content-Type", MCP__HK_CONTENT_TYPE);
    break;
  case 13:
    first == 'a' ? KNOWN("Authorization", MCP__HK_AUTHORIZATION)
                 : KNOWN("Last-Event-ID", MCP__HK_LAST_EVENT_ID);
    break;
  case 14:
    first == 'c' ? KNOWN("Content-Length", MCP__HK_CONTENT_LENGTH)
                 : KNOWN("Mcp-Session-Id", MCP__HK_MCP_SESSION_ID);
    break;
  case 16:
    KNOWN("Content-Encoding", MCP__HK_CONTENT_ENCODING);
    break;
  case 17:
    KNOWN("Transfer-Encoding", MCP__HK_TRANSFER_ENCODING);
    break;
  case 20:
    KNOWN("MCP-Protocol-Version", MCP__HK_MCP_PROTOCOL_VERSION);
    break;
  default:
    return MCP__HK_COUNT;
  }
#undef KNOWN
  return known_name_is(name, lit, len) ? k : MCP__HK_COUNT;
}

/* A refusal with its reason. */
static enum mcp__hp_result bad(mcp__hp_head *out, const char *why) {
  out->error = why;
  return MCP__HP_BAD;
}

/* The authority of an absolute-form target (RFC 3986 3.2): host and
 * optional port, no userinfo (RFC 9110 4.2.4 makes it an error). */
static bool authority_ok(const char *a, size_t n) {
  if (n == 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)a[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
          (ch >= '0' && ch <= '9') || strchr("-._~%!$&'()*+,;=:[]", ch)))
      return false;
  }
  return true;
}

void mcp__hp_te_add(mcp__hp_te *te, const char *value) {
  te->fields++;
  const char *p = value;
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == ',')
      p++; /* empty list elements are allowed (RFC 9110 5.6.1) */
    if (*p == '\0')
      break;
    const char *s = p;
    while (*p && *p != ',')
      p++;
    const char *e = p;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
      e--;
    bool is_chunked = e - s == 7 && strncasecmp(s, "chunked", 7) == 0;
    te->chunked += is_chunked;
    te->others |= !is_chunked;
    te->last_chunked = is_chunked;
  }
}

bool mcp__hp_te_body(const mcp__hp_te *te, enum mcp__hp_body *body) {
  if (!te->last_chunked || te->chunked > 1)
    return false;
  *body = te->others ? MCP__HP_BODY_UNKNOWN : MCP__HP_BODY_CHUNKED;
  return true;
}

static bool parse_length(const char *v, uint64_t *out) {
  if (*v == '\0')
    return false;
  uint64_t n = 0;
  for (; *v; v++) {
    if (*v < '0' || *v > '9' || n > (UINT64_MAX - 9) / 10)
      return false;
    n = n * 10 + (uint64_t)(*v - '0');
  }
  *out = n;
  return true;
}

enum mcp__hp_result mcp__hp_parse_head(char *buf, size_t len,
                                       mcp__hp_field *fields,
                                       mcp__hp_head *out) {
  memset(out, 0, sizeof *out);
  out->fields = fields;
  char *end = buf + len;
  char *p = buf;
  while (p < end && (*p == '\r' || *p == '\n'))
    p++;
  char *line = p, *stop;
  /* a NUL is refused anywhere in the head: looked for once */
  const char *nul = memchr(p, '\0', (size_t)(end - p));
  const char *first_lf = memchr(p, '\n', (size_t)(end - p));
  if (nul != NULL && (first_lf == NULL || nul < first_lf))
    return bad(out, "Bad Request: CR or NUL inside the request line");
  if ((p = cut_line(line, end, &stop)) == NULL)
    return bad(out, "Bad Request: CR or NUL inside the request line");
  /* request line: method SP target SP HTTP-version */
  char *sp1 = strchr(line, ' ');
  if (sp1 == NULL || sp1 == line)
    return bad(out, "Bad Request: malformed request line");
  *sp1 = '\0';
  for (char *m = line; *m; m++)
    if (!is_tchar((unsigned char)*m))
      return bad(out, "Bad Request: malformed request line");
  char *target = sp1 + 1;
  char *sp2 = strchr(target, ' ');
  if (sp2 == NULL || sp2 == target)
    return bad(out, "Bad Request: malformed request line");
  *sp2 = '\0';
  char *version = sp2 + 1;
  char *query = NULL; /* the first '?' or '#' */
  for (char *t = target; *t; t++) { /* a URI: visible ASCII (RFC 3986) */
    if ((unsigned char)*t <= 0x20 || (unsigned char)*t >= 0x7f)
      return bad(out, "Bad Request: malformed request line");
    if ((*t == '?' || *t == '#') && query == NULL)
      query = t;
  }
  if (strncmp(version, "HTTP/", 5) != 0 || version[5] < '0' ||
      version[5] > '9' || version[6] != '.' || version[7] < '0' ||
      version[7] > '9' || version[8] != '\0')
    return bad(out, "Bad Request: malformed request line");
  if (version[5] != '1')
    return MCP__HP_VERSION;
  out->method = line;
  out->version = version;
  /* a later 1.x is served as 1.1 (RFC 9110 2.5) */
  out->minor = version[7] == '0' ? 0 : 1;
  /* origin-form, absolute-form (its path; its authority replaces Host),
   * or "*" */
  char *authority = NULL;
  if (target[0] != '/' && /* origin-form, the usual, is not compared */
      (strncasecmp(target, "http://", 7) == 0 ||
       strncasecmp(target, "https://", 8) == 0)) {
    char *start = strstr(target, "://") + 3;
    size_t alen = strcspn(start, "/?#");
    if (!authority_ok(start, alen))
      return bad(out, "Bad Request: malformed authority in the request-target");
    char *rest = start + alen;
    /* NUL-terminate the authority in place: it moves one byte left, over
     * the scheme's last '/', so the path after it stays where it is. */
    memmove(start - 1, start, alen);
    start[alen - 1] = '\0';
    authority = start - 1;
    out->authority = authority;
    if (*rest != '/') {
      out->path = "/";
      goto fields;
    }
    target = rest; /* query, when any, is in rest: the authority has none */
  } else if (target[0] != '/' && strcmp(target, "*") != 0) {
    return bad(out, "Bad Request: malformed request-target");
  }
  if (query)
    *query = '\0';
  if (target[0] == '/' && !decode_path(target))
    return bad(out, "Bad Request: the path decodes to a NUL byte");
  out->path = target;

fields:; /* header fields */
  bool close = false, keep = false;
  bool have_length = false, lengths_differ = false;
  uint64_t length = 0;
  mcp__hp_te te = {0};
  if (nul != NULL)
    return bad(out, "Bad Request: CR or NUL inside a header line");
  while (p < end) {
    line = p;
    if ((p = cut_line(line, end, &stop)) == NULL)
      return bad(out, "Bad Request: CR or NUL inside a header line");
    if (line[0] == '\0')
      break; /* the empty line */
    if (line[0] == ' ' || line[0] == '\t')
      return bad(out, "Bad Request: obsolete line folding"); /* RFC 9112 5.2 */
    /* the name: token characters up to ':' (whitespace before it too is
     * malformed) */
    char *colon = plain_name_colon(line, end);
    if (colon == NULL)
      for (colon = line; is_tchar((unsigned char)*colon);)
        colon++;
    if (colon == line || *colon != ':') {
      const char *any = strchr(line, ':');
      return bad(out, any != NULL && any != line
                          ? "Bad Request: malformed header name"
                          : "Bad Request: malformed header line");
    }
    *colon = '\0';
    char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
      v++;
    char *ve = stop;
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
      ve--;
    *ve = '\0';
    /* Other control characters in a value (RFC 9110 5.5 says invalid,
     * and lets a recipient keep them) reach the request layer, which
     * answers them in MCP terms (a header mismatch carries the request's
     * id); CR, LF and NUL never get here (cut_line). */
    if (out->nfields == MCP__HP_MAX_FIELDS)
      return MCP__HP_TOO_LARGE;
    size_t name_len = (size_t)(colon - line);
    fields[out->nfields++] = (mcp__hp_field){line, v, name_len};
    enum mcp__hp_known k = mcp__hp_known_of(line, name_len);
    if (k == MCP__HK_COUNT) {
      if (name_len > MCP__HP_PARAM_PREFIX_LEN &&
          strncasecmp(line, MCP__HP_PARAM_PREFIX, MCP__HP_PARAM_PREFIX_LEN) ==
              0 &&
          out->params < UINT8_MAX)
        out->params++;
      continue;
    }
    if (out->known_n[k] == 0)
      out->known_at[k] = (uint8_t)out->nfields; /* 1 + its index */
    if (out->known_n[k] < UINT8_MAX)
      out->known_n[k]++;
    switch (k) {
    case MCP__HK_CONTENT_LENGTH: {
      uint64_t n;
      if (!parse_length(v, &n))
        return bad(out, "Bad Request: malformed Content-Length");
      if (have_length && n != length)
        lengths_differ = true;
      have_length = true;
      length = n;
      break;
    }
    case MCP__HK_TRANSFER_ENCODING:
      mcp__hp_te_add(&te, v);
      break;
    case MCP__HK_CONNECTION:
      close |= has_token(v, "close");
      keep |= has_token(v, "keep-alive");
      break;
    case MCP__HK_EXPECT:
      out->expect_continue = strcasecmp(v, "100-continue") == 0;
      break;
    default:
      break;
    }
  }
  if (out->minor == 0)
    out->expect_continue = false;
  out->keep_alive = out->minor == 1 ? !close : keep && !close;
  /* RFC 9112 3.2: one Host; 3.2.2: the absolute-form's authority wins. */
  if (out->known_n[MCP__HK_HOST] > 1)
    return bad(out, "Bad Request: more than one Host header");
  if (authority) {
    if (out->known_n[MCP__HK_HOST] == 1) {
      fields[out->known_at[MCP__HK_HOST] - 1].value = authority;
    } else if (out->minor == 1) {
      /* HTTP/1.1 without Host is a 400 all the same (RFC 9112 3.2): the
       * engine answers it */
    } else if (out->nfields < MCP__HP_MAX_FIELDS) {
      fields[out->nfields++] = (mcp__hp_field){"Host", authority, 4};
      out->known_at[MCP__HK_HOST] = (uint8_t)out->nfields;
      out->known_n[MCP__HK_HOST] = 1;
    } else {
      return MCP__HP_TOO_LARGE;
    }
  }
  /* RFC 9112 6.1 and 6.3: framing a front end might read otherwise. */
  if (te.fields > 0) {
    if (have_length)
      return bad(out, "Bad Request: Transfer-Encoding together with "
                      "Content-Length");
    if (out->minor == 0)
      return bad(out, "Bad Request: Transfer-Encoding in an HTTP/1.0 "
                      "request");
    if (!mcp__hp_te_body(&te, &out->body))
      return bad(out, "Bad Request: the final transfer coding must be "
                      "chunked, applied once");
  } else if (lengths_differ) {
    return bad(out, "Bad Request: conflicting Content-Length headers");
  } else if (have_length && length > 0) {
    out->body = MCP__HP_BODY_LENGTH;
    out->content_length = length;
  }
  if (out->body == MCP__HP_BODY_UNKNOWN)
    out->keep_alive = false;
  return MCP__HP_OK;
}

const char *mcp__hp_field_get(const mcp__hp_head *h, const char *name) {
  size_t n = strlen(name);
  enum mcp__hp_known k = mcp__hp_known_of(name, n);
  if (k != MCP__HK_COUNT)
    return mcp__hp_known_get(h, k);
  for (size_t i = 0; i < h->nfields; i++)
    if (h->fields[i].name_len == n && strcasecmp(h->fields[i].name, name) == 0)
      return h->fields[i].value;
  return NULL;
}

/* ---- chunked ------------------------------------------------------------- */

enum {
  CH_SIZE = 0,      /* hex digits */
  CH_BWS,           /* whitespace after the size or an extension */
  CH_EXT_NAME0,     /* after ';': whitespace, then a name */
  CH_EXT_NAME,      /* the name (token) */
  CH_EXT_AFTER_NAME, /* whitespace after it: '=', ';' or the line end */
  CH_EXT_VALUE0,    /* after '=': whitespace, then a token or '"' */
  CH_EXT_VALUE,     /* a token value */
  CH_EXT_QUOTED,    /* a quoted-string value */
  CH_EXT_ESCAPE,    /* after a backslash in it */
  CH_LF,            /* after a CR: only LF may follow */
  CH_DATA,          /* chunk data */
  CH_DATA_CR,       /* the CR after the data */
  CH_TRAILER,       /* the start of a trailer line (or the empty line) */
  CH_TRAILER_NAME,  /* a trailer field's name */
  CH_TRAILER_VALUE, /* its value */
  CH_DONE
};

/* Where the LF of a line leads (mcp__hp_chunked.after_cr). */
enum { LF_SIZE = 0, LF_DATA, LF_TRAILER, LF_END };

/* Bytes of extensions and trailer fields accepted in one body. */
#define CH_EXTRA_MAX 8192

void mcp__hp_chunked_init(mcp__hp_chunked *c) { memset(c, 0, sizeof *c); }

static bool is_ws(unsigned char ch) { return ch == ' ' || ch == '\t'; }

/* A byte of a quoted-string's text or of a field value: HTAB, SP, VCHAR,
 * obs-text (RFC 9110 5.5, 5.6.4). */
static bool is_text(unsigned char ch) {
  return ch == '\t' || (ch >= 0x20 && ch != 0x7f);
}

/* The next state of a chunk-size line at ch, from a state where the line
 * may end or another extension begin; CH_DONE means malformed. */
static uint8_t ext_next(mcp__hp_chunked *c, unsigned char ch) {
  if (is_ws(ch))
    return CH_BWS;
  if (ch == ';')
    return CH_EXT_NAME0;
  if (ch == '\r') {
    c->after_cr = LF_SIZE;
    return CH_LF;
  }
  return CH_DONE;
}

enum mcp__hp_chunk_result mcp__hp_chunked_feed(mcp__hp_chunked *c,
                                               const char *in, size_t len,
                                               size_t *used, const char **data,
                                               size_t *dlen) {
  size_t i = 0;
  enum mcp__hp_chunk_result res = MCP__HP_CHUNK_MORE;
  while (i < len && res == MCP__HP_CHUNK_MORE) {
    unsigned char ch = (unsigned char)in[i];
    uint8_t next = c->state;
    if (c->state == CH_DATA) {
      size_t take = len - i;
      if ((uint64_t)take > c->left)
        take = (size_t)c->left;
      *data = in + i;
      *dlen = take;
      i += take;
      c->left -= take;
      if (c->left == 0)
        c->state = CH_DATA_CR;
      res = MCP__HP_CHUNK_DATA;
      break;
    }
    if (c->state == CH_DONE) {
      res = MCP__HP_CHUNK_DONE;
      break;
    }
    i++;
    /* extensions and trailers are counted against one bound */
    if (c->state != CH_SIZE && c->state != CH_LF && c->state != CH_DATA_CR &&
        ++c->extra > CH_EXTRA_MAX)
      return MCP__HP_CHUNK_BAD;
    switch (c->state) {
    case CH_SIZE: {
      int v = mcp__hex_digit(ch);
      if (v >= 0) {
        if (c->left >> 56) /* 2^60 bytes is beyond any limit */
          return MCP__HP_CHUNK_BAD;
        c->left = c->left * 16 + (uint64_t)v;
        c->digits = 1; /* leading zeros are no limit */
      } else {
        next = c->digits == 0 ? CH_DONE : ext_next(c, ch);
      }
      break;
    }
    case CH_BWS:
      next = ext_next(c, ch);
      break;
    case CH_EXT_NAME0:
      next = is_ws(ch) ? CH_EXT_NAME0 : is_tchar(ch) ? CH_EXT_NAME : CH_DONE;
      break;
    case CH_EXT_NAME:
    case CH_EXT_AFTER_NAME:
      if (c->state == CH_EXT_NAME && is_tchar(ch))
        break;
      if (ch == '=')
        next = CH_EXT_VALUE0;
      else if (is_ws(ch))
        next = CH_EXT_AFTER_NAME;
      else
        next = ext_next(c, ch);
      break;
    case CH_EXT_VALUE0:
      next = is_ws(ch)     ? CH_EXT_VALUE0
             : ch == '"'   ? CH_EXT_QUOTED
             : is_tchar(ch) ? CH_EXT_VALUE
                           : CH_DONE;
      break;
    case CH_EXT_VALUE:
      if (!is_tchar(ch))
        next = ext_next(c, ch);
      break;
    case CH_EXT_QUOTED:
      next = ch == '"'     ? CH_BWS
             : ch == '\\'  ? CH_EXT_ESCAPE
             : is_text(ch) ? CH_EXT_QUOTED
                           : CH_DONE;
      break;
    case CH_EXT_ESCAPE:
      next = is_text(ch) ? CH_EXT_QUOTED : CH_DONE;
      break;
    case CH_DATA_CR:
      c->after_cr = LF_DATA;
      next = ch == '\r' ? CH_LF : CH_DONE;
      break;
    case CH_TRAILER:
      if (ch == '\r') {
        c->after_cr = LF_END;
        next = CH_LF;
      } else {
        next = is_tchar(ch) ? CH_TRAILER_NAME : CH_DONE;
      }
      break;
    case CH_TRAILER_NAME:
      next = ch == ':' ? CH_TRAILER_VALUE : is_tchar(ch) ? next : CH_DONE;
      break;
    case CH_TRAILER_VALUE:
      if (ch == '\r') {
        c->after_cr = LF_TRAILER;
        next = CH_LF;
      } else if (!is_text(ch)) {
        next = CH_DONE;
      }
      break;
    case CH_LF:
      if (ch != '\n')
        return MCP__HP_CHUNK_BAD;
      if (c->after_cr == LF_SIZE) {
        c->digits = 0;
        next = c->left == 0 ? CH_TRAILER : CH_DATA;
      } else if (c->after_cr == LF_DATA) {
        next = CH_SIZE;
      } else if (c->after_cr == LF_TRAILER) {
        next = CH_TRAILER;
      } else {
        c->state = CH_DONE;
        res = MCP__HP_CHUNK_DONE;
        continue;
      }
      break;
    default:
      return MCP__HP_CHUNK_BAD;
    }
    /* CH_DONE here marks a malformed byte: the real end is set above */
    if (next == CH_DONE)
      return MCP__HP_CHUNK_BAD;
    c->state = next;
  }
  *used = i;
  return res;
}
