/* SPDX-License-Identifier: MIT */
/* uri.c - RFC 3986 section 5.2 resolution with dot-segment removal, plus
 * JSON Pointer (RFC 6901) walking and escaping. */
#include "schema/uri.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/hex.h"

typedef struct parts {
  const char *scheme, *auth, *path, *query, *frag;
  size_t scheme_len, auth_len, path_len, query_len, frag_len;
  bool has_scheme, has_auth, has_query, has_frag;
} parts;

static void split(const char *s, parts *p) {
  memset(p, 0, sizeof *p);
  const char *c = s;
  if (isalpha((unsigned char)*c)) {
    const char *q = c;
    while (isalnum((unsigned char)*q) || *q == '+' || *q == '-' || *q == '.')
      q++;
    if (*q == ':') {
      p->has_scheme = true;
      p->scheme = c;
      p->scheme_len = (size_t)(q - c);
      c = q + 1;
    }
  }
  if (c[0] == '/' && c[1] == '/') {
    c += 2;
    p->has_auth = true;
    p->auth = c;
    while (*c && *c != '/' && *c != '?' && *c != '#')
      c++;
    p->auth_len = (size_t)(c - p->auth);
  }
  p->path = c;
  while (*c && *c != '?' && *c != '#')
    c++;
  p->path_len = (size_t)(c - p->path);
  if (*c == '?') {
    p->has_query = true;
    p->query = ++c;
    while (*c && *c != '#')
      c++;
    p->query_len = (size_t)(c - p->query);
  }
  if (*c == '#') {
    p->has_frag = true;
    p->frag = c + 1;
    p->frag_len = strlen(c + 1);
  }
}

bool mcp__uri_same(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 0 && a[la - 1] == '#')
    la--;
  if (lb > 0 && b[lb - 1] == '#')
    lb--;
  return la == lb && strncmp(a, b, la) == 0;
}

size_t mcp__uri_strip_len(const char *uri) {
  const char *h = strchr(uri, '#');
  return h ? (size_t)(h - uri) : strlen(uri);
}

/* Removes "." and ".." segments (RFC 3986 5.2.4) from in (len n) into out. */
static size_t remove_dots(const char *in, size_t n, char *out) {
  size_t o = 0, i = 0;
  while (i < n) {
    if (n - i >= 3 && strncmp(in + i, "../", 3) == 0) {
      i += 3;
    } else if (n - i >= 2 && strncmp(in + i, "./", 2) == 0) {
      i += 2;
    } else if (n - i >= 3 && strncmp(in + i, "/./", 3) == 0) {
      i += 2;
    } else if (n - i == 2 && strncmp(in + i, "/.", 2) == 0) {
      i += 1;
      out[o++] = '/';
      i = n;
    } else if ((n - i >= 4 && strncmp(in + i, "/../", 4) == 0) ||
               (n - i == 3 && strncmp(in + i, "/..", 3) == 0)) {
      bool end = n - i == 3;
      i += 3;
      while (o > 0 && out[o - 1] != '/')
        o--;
      if (o > 0)
        o--;
      if (end) {
        out[o++] = '/';
      }
    } else if ((n - i == 1 && in[i] == '.') ||
               (n - i == 2 && strncmp(in + i, "..", 2) == 0)) {
      i = n;
    } else {
      if (in[i] == '/')
        out[o++] = in[i++];
      while (i < n && in[i] != '/')
        out[o++] = in[i++];
    }
  }
  return o;
}

static void put(char *out, size_t *o, const char *s, size_t n) {
  memcpy(out + *o, s, n);
  *o += n;
}

char *mcp__uri_resolve(const char *base, const char *ref) {
  size_t cap = strlen(base) + strlen(ref) + 8;
  char *out = malloc(cap);
  char *tmp = malloc(cap);
  if (out == NULL || tmp == NULL) {
    free(out);
    free(tmp);
    return NULL;
  }
  parts b, r;
  split(base, &b);
  split(ref, &r);
  size_t o = 0;
  if (base[0] == '\0' && !r.has_scheme) {
    strcpy(out, ref);
    free(tmp);
    return out;
  }
  /* RFC 3986 5.2.2: scheme, authority and query each come from the
   * reference or from the base, the path from either or from both. */
  const parts *ps = r.has_scheme ? &r : &b;
  const parts *pa = r.has_scheme || r.has_auth ? &r : &b;
  const parts *pq = &r;
  size_t path_len;
  if (pa == &r) {
    path_len = remove_dots(r.path, r.path_len, tmp);
  } else if (r.path_len == 0) {
    memcpy(tmp, b.path, b.path_len);
    path_len = b.path_len;
    if (!r.has_query)
      pq = &b;
  } else {
    char *merged = malloc(cap);
    if (merged == NULL) {
      free(out);
      free(tmp);
      return NULL;
    }
    size_t m = 0;
    if (r.path[0] == '/') {
      put(merged, &m, r.path, r.path_len);
    } else if (b.has_auth && b.path_len == 0) {
      merged[m++] = '/';
      put(merged, &m, r.path, r.path_len);
    } else {
      size_t keep = b.path_len;
      while (keep > 0 && b.path[keep - 1] != '/')
        keep--;
      put(merged, &m, b.path, keep);
      put(merged, &m, r.path, r.path_len);
    }
    path_len = remove_dots(merged, m, tmp);
    free(merged);
  }
  if (ps->has_scheme) {
    put(out, &o, ps->scheme, ps->scheme_len);
    out[o++] = ':';
  }
  if (pa->has_auth) {
    put(out, &o, "//", 2);
    put(out, &o, pa->auth, pa->auth_len);
  }
  put(out, &o, tmp, path_len);
  if (pq->has_query) {
    out[o++] = '?';
    put(out, &o, pq->query, pq->query_len);
  }
  if (r.has_frag) {
    out[o++] = '#';
    put(out, &o, r.frag, r.frag_len);
  }
  out[o] = '\0';
  free(tmp);
  return out;
}

bool mcp__uri_percent_decode(char *s) {
  char *o = s;
  for (const char *i = s; *i; i++) {
    if (*i == '%') {
      int h = mcp__hex_digit((unsigned char)i[1]);
      int l = h < 0 ? -1 : mcp__hex_digit((unsigned char)i[2]);
      if (l < 0)
        return false;
      *o++ = (char)(h * 16 + l);
      i += 2;
    } else {
      *o++ = *i;
    }
  }
  *o = '\0';
  return true;
}

json_t *mcp__pointer_get(json_t *root, const char *pointer,
                         void (*visit)(json_t *v, void *ud), void *ud) {
  json_t *cur = root;
  if (visit)
    visit(cur, ud);
  const char *p = pointer;
  if (*p == '\0')
    return cur;
  if (*p != '/')
    return NULL;
  char tok[512];
  while (*p == '/') {
    p++;
    size_t n = 0;
    while (*p && *p != '/') {
      char ch = *p++;
      if (ch == '~') {
        if (*p == '0')
          ch = '~';
        else if (*p == '1')
          ch = '/';
        else
          return NULL;
        p++;
      }
      if (n + 1 >= sizeof tok)
        return NULL;
      tok[n++] = ch;
    }
    tok[n] = '\0';
    if (json_is_object(cur)) {
      cur = json_object_getn(cur, tok, n);
    } else if (json_is_array(cur)) {
      if (n == 0 || (n > 1 && tok[0] == '0'))
        return NULL;
      char *end;
      unsigned long idx = strtoul(tok, &end, 10);
      if (*end != '\0')
        return NULL;
      cur = json_array_get(cur, idx);
    } else {
      return NULL;
    }
    if (cur == NULL)
      return NULL;
    if (visit)
      visit(cur, ud);
  }
  return cur;
}

char *mcp__pointer_join(mcp__arena *a, const char *base, const char *token) {
  size_t blen = strlen(base), tlen = 0;
  for (const char *t = token; *t; t++)
    tlen += *t == '~' || *t == '/' ? 2 : 1;
  char *out = mcp__arena_alloc(a, blen + 1 + tlen + 1);
  if (out == NULL)
    return NULL;
  memcpy(out, base, blen);
  char *o = out + blen;
  *o++ = '/';
  for (const char *t = token; *t; t++) {
    if (*t == '~') {
      *o++ = '~';
      *o++ = '0';
    } else if (*t == '/') {
      *o++ = '~';
      *o++ = '1';
    } else {
      *o++ = *t;
    }
  }
  *o = '\0';
  return out;
}
