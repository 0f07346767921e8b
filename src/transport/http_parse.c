/* SPDX-License-Identifier: MIT */
/* http_parse.c - request head and chunked body parsing (see http_parse.h).
 */
#include "transport/http_parse.h"

#include <string.h>
#include <strings.h>

#include "transport/http_guard.h"

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

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
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
    if (r[0] == '%' && (hi = hexval((unsigned char)r[1])) >= 0 &&
        (lo = hexval((unsigned char)r[2])) >= 0) {
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
    return MCP__HP_BAD;
  /* request line: method SP target SP HTTP-version */
  char *sp1 = strchr(line, ' ');
  if (sp1 == NULL || sp1 == line)
    return MCP__HP_BAD;
  *sp1 = '\0';
  for (char *m = line; *m; m++)
    if (!is_tchar((unsigned char)*m))
      return MCP__HP_BAD;
  char *target = sp1 + 1;
  char *sp2 = strchr(target, ' ');
  if (sp2 == NULL || sp2 == target)
    return MCP__HP_BAD;
  *sp2 = '\0';
  char *version = sp2 + 1;
  for (char *t = target; *t; t++)
    if ((unsigned char)*t <= 0x20 || *t == 0x7f)
      return MCP__HP_BAD;
  if (strncmp(version, "HTTP/", 5) != 0 || version[5] < '0' ||
      version[5] > '9' || version[6] != '.' || version[7] < '0' ||
      version[7] > '9' || version[8] != '\0')
    return MCP__HP_BAD;
  if (version[5] != '1' || version[7] > '1')
    return MCP__HP_VERSION;
  out->method = line;
  out->version = version;
  out->minor = version[7] - '0';
  /* origin-form, absolute-form (its path), or "*" */
  if (strncasecmp(target, "http://", 7) == 0 ||
      strncasecmp(target, "https://", 8) == 0) {
    char *slash = strchr(strstr(target, "://") + 3, '/');
    if (slash == NULL) {
      out->path = "/";
      goto fields;
    }
    target = slash;
  } else if (target[0] != '/' && strcmp(target, "*") != 0) {
    return MCP__HP_BAD;
  }
  char *cut = strpbrk(target, "?#");
  if (cut)
    *cut = '\0';
  if (target[0] == '/' && !decode_path(target))
    return MCP__HP_BAD;
  out->path = target;

fields:; /* header fields */
  bool close = false, keep = false, have_te = false, te_chunked = false;
  bool have_length = false, lengths_differ = false;
  uint64_t length = 0;
  while (p < end) {
    line = p;
    if ((p = cut_line(line, end)) == NULL)
      return MCP__HP_BAD;
    if (line[0] == '\0')
      break; /* the empty line */
    if (line[0] == ' ' || line[0] == '\t')
      return MCP__HP_BAD; /* obsolete line folding (RFC 9112 5.2) */
    char *colon = strchr(line, ':');
    if (colon == NULL || colon == line)
      return MCP__HP_BAD;
    *colon = '\0';
    for (char *n = line; *n; n++)
      if (!is_tchar((unsigned char)*n))
        return MCP__HP_BAD; /* includes whitespace before the colon */
    char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
      v++;
    char *ve = v + strlen(v);
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
      ve--;
    *ve = '\0';
    /* Other control characters in a value (RFC 9110 5.5 says invalid)
     * reach the request layer, which answers them in MCP terms (a
     * header mismatch carries the request's id); CR, LF and NUL never
     * get here (cut_line). */
    if (out->nfields == MCP__HP_MAX_FIELDS)
      return MCP__HP_TOO_LARGE;
    size_t name_len = (size_t)(colon - line);
    fields[out->nfields++] = (mcp__hp_field){line, v, name_len};
    if (MCP__HTTP_NAME_IS(line, name_len, "Content-Length")) {
      uint64_t n;
      if (!parse_length(v, &n))
        return MCP__HP_BAD;
      if (have_length && n != length)
        lengths_differ = true;
      have_length = true;
      length = n;
    } else if (MCP__HTTP_NAME_IS(line, name_len, "Transfer-Encoding")) {
      te_chunked = !have_te && mcp__http_te_is_chunked(v);
      have_te = true;
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
  if (have_te) {
    out->body = te_chunked ? MCP__HP_BODY_CHUNKED : MCP__HP_BODY_UNKNOWN;
  } else if (lengths_differ) {
    out->body = MCP__HP_BODY_UNKNOWN;
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
  CH_SIZE = 0, /* hex digits */
  CH_EXT,      /* after the size: extensions up to LF */
  CH_DATA,     /* chunk data */
  CH_DATA_CR,  /* CRLF after the data */
  CH_DATA_LF,
  CH_TRAILER, /* trailer lines up to an empty line */
  CH_DONE
};

/* Bytes of extensions and trailer fields accepted in one body. */
#define CH_EXTRA_MAX 8192

void mcp__hp_chunked_init(mcp__hp_chunked *c) {
  memset(c, 0, sizeof *c);
  c->line_empty = true;
}

enum mcp__hp_chunk_result mcp__hp_chunked_feed(mcp__hp_chunked *c,
                                               const char *in, size_t len,
                                               size_t *used, const char **data,
                                               size_t *dlen) {
  size_t i = 0;
  enum mcp__hp_chunk_result res = MCP__HP_CHUNK_MORE;
  while (i < len && res == MCP__HP_CHUNK_MORE) {
    unsigned char ch = (unsigned char)in[i];
    switch (c->state) {
    case CH_SIZE: {
      int v = hexval(ch);
      if (v >= 0) {
        if (c->digits == 15) /* 2^60 bytes is beyond any limit */
          return MCP__HP_CHUNK_BAD;
        c->left = c->left * 16 + (uint64_t)v;
        c->digits++;
        i++;
      } else if (c->digits == 0) {
        return MCP__HP_CHUNK_BAD;
      } else if (ch == ';' || ch == ' ' || ch == '\t' || ch == '\r' ||
                 ch == '\n') {
        c->state = CH_EXT; /* the LF is handled there */
      } else {
        return MCP__HP_CHUNK_BAD;
      }
      break;
    }
    case CH_EXT:
      i++;
      if (ch == '\n') {
        c->digits = 0;
        if (c->left == 0) {
          c->state = CH_TRAILER;
          c->line_empty = true;
        } else {
          c->state = CH_DATA;
        }
      } else if (++c->extra > CH_EXTRA_MAX || ch == 0) {
        return MCP__HP_CHUNK_BAD;
      }
      break;
    case CH_DATA: {
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
    case CH_DATA_CR:
      i++;
      if (ch == '\r')
        c->state = CH_DATA_LF;
      else if (ch == '\n')
        c->state = CH_SIZE;
      else
        return MCP__HP_CHUNK_BAD;
      break;
    case CH_DATA_LF:
      i++;
      if (ch != '\n')
        return MCP__HP_CHUNK_BAD;
      c->state = CH_SIZE;
      break;
    case CH_TRAILER:
      i++;
      if (ch == '\n') {
        if (c->line_empty) {
          c->state = CH_DONE;
          res = MCP__HP_CHUNK_DONE;
        }
        c->line_empty = true;
      } else if (ch != '\r') {
        c->line_empty = false;
        if (++c->extra > CH_EXTRA_MAX || ch == 0)
          return MCP__HP_CHUNK_BAD;
      }
      break;
    default:
      res = MCP__HP_CHUNK_DONE;
      break;
    }
  }
  *used = i;
  return res;
}
