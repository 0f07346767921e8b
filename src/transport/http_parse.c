/* SPDX-License-Identifier: MIT */
/* http_parse.c - request head and chunked body parsing (see http_parse.h).
 */
#include "transport/http_parse.h"

#include <string.h>
#include <strings.h>

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

static bool is_tchar(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
      (c >= '0' && c <= '9') || c == '-')
    return true; /* what header names are made of, tested first */
  return c != 0 && strchr("!#$%&'*+.^_`|~", c) != NULL;
}

/* Cuts the line starting at p (ending in LF or CRLF, within end): returns
 * the next line's start, the line NUL-terminated; NULL when a bare CR or
 * NUL is inside it. */
static char *cut_line(char *p, char *end) {
  char *lf = memchr(p, '\n', (size_t)(end - p));
  if (lf == NULL)
    return NULL;
  char *stop = lf > p && lf[-1] == '\r' ? lf - 1 : lf;
  if (memchr(p, '\r', (size_t)(stop - p)) ||
      memchr(p, '\0', (size_t)(stop - p)))
    return NULL;
  *stop = '\0';
  return lf + 1;
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
  size_t n = strlen(token);
  const char *p = list;
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == ',')
      p++;
    const char *s = p;
    while (*p && *p != ',')
      p++;
    const char *e = p;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
      e--;
    if ((size_t)(e - s) == n && strncasecmp(s, token, n) == 0)
      return true;
  }
  return false;
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
  char *line = p;
  if ((p = cut_line(line, end)) == NULL)
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
  for (char *t = target; *t; t++) /* a URI: visible ASCII (RFC 3986) */
    if ((unsigned char)*t <= 0x20 || (unsigned char)*t >= 0x7f)
      return bad(out, "Bad Request: malformed request line");
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
  if (strncasecmp(target, "http://", 7) == 0 ||
      strncasecmp(target, "https://", 8) == 0) {
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
    target = rest;
  } else if (target[0] != '/' && strcmp(target, "*") != 0) {
    return bad(out, "Bad Request: malformed request-target");
  }
  char *cut = strpbrk(target, "?#");
  if (cut)
    *cut = '\0';
  if (target[0] == '/' && !decode_path(target))
    return bad(out, "Bad Request: the path decodes to a NUL byte");
  out->path = target;

fields:; /* header fields */
  bool close = false, keep = false;
  bool have_length = false, lengths_differ = false;
  uint64_t length = 0;
  mcp__hp_te te = {0};
  size_t hosts = 0, host_at = 0;
  while (p < end) {
    line = p;
    if ((p = cut_line(line, end)) == NULL)
      return bad(out, "Bad Request: CR or NUL inside a header line");
    if (line[0] == '\0')
      break; /* the empty line */
    if (line[0] == ' ' || line[0] == '\t')
      return bad(out, "Bad Request: obsolete line folding"); /* RFC 9112 5.2 */
    char *colon = strchr(line, ':');
    if (colon == NULL || colon == line)
      return bad(out, "Bad Request: malformed header line");
    *colon = '\0';
    for (char *n = line; *n; n++)
      if (!is_tchar((unsigned char)*n)) /* includes whitespace before ':' */
        return bad(out, "Bad Request: malformed header name");
    char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
      v++;
    char *ve = v + strlen(v);
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
    if (MCP__HTTP_NAME_IS(line, name_len, "Content-Length")) {
      uint64_t n;
      if (!parse_length(v, &n))
        return bad(out, "Bad Request: malformed Content-Length");
      if (have_length && n != length)
        lengths_differ = true;
      have_length = true;
      length = n;
    } else if (MCP__HTTP_NAME_IS(line, name_len, "Transfer-Encoding")) {
      mcp__hp_te_add(&te, v);
    } else if (MCP__HTTP_NAME_IS(line, name_len, "Host")) {
      hosts++;
      host_at = out->nfields - 1;
    } else if (MCP__HTTP_NAME_IS(line, name_len, "Connection")) {
      close |= has_token(v, "close");
      keep |= has_token(v, "keep-alive");
    } else if (MCP__HTTP_NAME_IS(line, name_len, "Expect")) {
      out->expect_continue = strcasecmp(v, "100-continue") == 0;
    }
  }
  if (out->minor == 0)
    out->expect_continue = false;
  out->keep_alive = out->minor == 1 ? !close : keep && !close;
  /* RFC 9112 3.2: one Host; 3.2.2: the absolute-form's authority wins. */
  if (hosts > 1)
    return bad(out, "Bad Request: more than one Host header");
  if (authority) {
    if (hosts == 1) {
      fields[host_at].value = authority;
    } else if (out->minor == 1) {
      /* HTTP/1.1 without Host is a 400 all the same (RFC 9112 3.2): the
       * engine answers it */
    } else if (out->nfields < MCP__HP_MAX_FIELDS) {
      fields[out->nfields++] = (mcp__hp_field){"Host", authority, 4};
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
  /* a dozen lookups per request over every field: lengths first */
  size_t n = strlen(name);
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
