/* SPDX-License-Identifier: MIT */
/* uri_template.c - RFC 6570 parsing and reverse matching (see
 * uri_template.h for the matching rules). */
#include "resources/uri_template.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hostile URI against a template with many expressions could otherwise
 * make the backtracking search quadratic or worse. */
#define MATCH_BUDGET 200000
/* Candidate values actually decoded and bound (match_expr, a copy of the
 * bindings) per match, at most: adjacent expressions without a literal
 * between them ("{a}{b}{c}") make every split a candidate, and these steps
 * cost microseconds each, so the step budget alone let one crafted URI
 * take about a second of CPU (found by tests/fuzz, uri_template). */
#define MATCH_HEAVY_BUDGET 4096
#define MAX_URI_LEN        16384

typedef struct tvar {
  char *name;
  unsigned prefix; /* 0: none */
  bool explode;
} tvar;

typedef struct tpart {
  char *literal; /* NULL for an expression */
  size_t literal_len;
  char op; /* '\0' simple, or one of + # . / ; ? & */
  tvar *vars;
  size_t nvars;
} tpart;

struct mcp__uritpl {
  tpart *parts;
  size_t nparts;
};

void mcp__uritpl_free(mcp__uritpl *t) {
  if (t == NULL)
    return;
  for (size_t i = 0; i < t->nparts; i++) {
    free(t->parts[i].literal);
    for (size_t k = 0; k < t->parts[i].nvars; k++)
      free(t->parts[i].vars[k].name);
    free(t->parts[i].vars);
  }
  free(t->parts);
  free(t);
}

static mcp_status fail(char *why, size_t why_len, const char *msg, size_t at) {
  if (why && why_len)
    snprintf(why, why_len, "%s at offset %zu", msg, at);
  return MCP_ERR_INVALID_ARG;
}

static bool is_hex(char c) {
  return isxdigit((unsigned char)c) != 0;
}

static bool is_varchar(const char *s, size_t *adv) {
  unsigned char c = (unsigned char)*s;
  if (isalnum(c) || c == '_') {
    *adv = 1;
    return true;
  }
  if (c == '%' && is_hex(s[1]) && is_hex(s[2])) {
    *adv = 3;
    return true;
  }
  return false;
}

static bool push_part(mcp__uritpl *t, tpart p) {
  tpart *parts = realloc(t->parts, (t->nparts + 1) * sizeof *parts);
  if (parts == NULL)
    return false;
  t->parts = parts;
  t->parts[t->nparts++] = p;
  return true;
}

/* Parses one expression body (between the braces) into p. */
static mcp_status parse_expr(const char *s, size_t n, size_t at, tpart *p,
                             char *why, size_t why_len) {
  size_t i = 0;
  if (n > 0 && strchr("+#./;?&", s[0])) {
    p->op = s[0];
    i = 1;
  } else if (n > 0 && strchr("=,!@|", s[0])) {
    return fail(why, why_len, "reserved operator", at);
  }
  if (i >= n)
    return fail(why, why_len, "empty expression", at);
  while (i < n) {
    size_t start = i, adv;
    bool dot_ok = false;
    while (i < n) {
      if (is_varchar(s + i, &adv)) {
        i += adv;
        dot_ok = true;
      } else if (s[i] == '.' && dot_ok && i + 1 < n && s[i + 1] != '.') {
        i++;
        dot_ok = false;
      } else
        break;
    }
    if (i == start || s[i - 1] == '.')
      return fail(why, why_len, "bad variable name", at + i);
    tvar v = {0};
    if ((v.name = strndup(s + start, i - start)) == NULL)
      return MCP_ERR_NOMEM;
    if (i < n && s[i] == '*') {
      v.explode = true;
      i++;
    } else if (i < n && s[i] == ':') {
      i++;
      size_t d = 0;
      unsigned val = 0;
      while (i < n && isdigit((unsigned char)s[i]) && d < 4) {
        val = val * 10 + (unsigned)(s[i] - '0');
        i++, d++;
      }
      if (d == 0 || val == 0 || (i < n && isdigit((unsigned char)s[i]))) {
        free(v.name);
        return fail(why, why_len, "bad prefix length", at + i);
      }
      v.prefix = val;
    }
    tvar *vars = realloc(p->vars, (p->nvars + 1) * sizeof *vars);
    if (vars == NULL) {
      free(v.name);
      return MCP_ERR_NOMEM;
    }
    p->vars = vars;
    p->vars[p->nvars++] = v;
    if (i < n && s[i] != ',')
      return fail(why, why_len, "unexpected character in expression", at + i);
    if (i < n && ++i == n)
      return fail(why, why_len, "trailing comma", at + i);
  }
  return MCP_OK;
}

mcp_status mcp__uritpl_parse(const char *text, mcp__uritpl **out, char *why,
                             size_t why_len) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  if (text == NULL || *text == '\0')
    return fail(why, why_len, "empty template", 0);
  mcp__uritpl *t = calloc(1, sizeof *t);
  if (t == NULL)
    return MCP_ERR_NOMEM;
  mcp_status st = MCP_OK;
  size_t i = 0, len = strlen(text);
  while (st == MCP_OK && i < len) {
    if (text[i] == '{') {
      const char *close = strchr(text + i + 1, '}');
      const char *open = strchr(text + i + 1, '{');
      if (close == NULL || (open && open < close)) {
        st = fail(why, why_len, "unclosed expression", i);
        break;
      }
      tpart p = {0};
      st = parse_expr(text + i + 1, (size_t)(close - text - i - 1), i + 1, &p,
                      why, why_len);
      if (st == MCP_OK && !push_part(t, p))
        st = MCP_ERR_NOMEM;
      if (st != MCP_OK) {
        for (size_t k = 0; k < p.nvars; k++)
          free(p.vars[k].name);
        free(p.vars);
      }
      i = (size_t)(close - text) + 1;
      continue;
    }
    size_t start = i;
    while (i < len && text[i] != '{') {
      unsigned char c = (unsigned char)text[i];
      if (c <= 0x20 || c == 0x7f || strchr("\"'<>\\^`|}", c)) {
        st = fail(why, why_len, "character not allowed in a literal", i);
        break;
      }
      if (c == '%' && !(is_hex(text[i + 1]) && is_hex(text[i + 2]))) {
        st = fail(why, why_len, "bad percent-escape", i);
        break;
      }
      i++;
    }
    if (st != MCP_OK)
      break;
    tpart p = {0};
    p.literal = strndup(text + start, i - start);
    p.literal_len = i - start;
    if (p.literal == NULL || !push_part(t, p)) {
      free(p.literal);
      st = MCP_ERR_NOMEM;
    }
  }
  if (st != MCP_OK) {
    mcp__uritpl_free(t);
    return st;
  }
  *out = t;
  return MCP_OK;
}

bool mcp__uritpl_has_var(const mcp__uritpl *t, const char *name) {
  for (size_t i = 0; t && name && i < t->nparts; i++)
    for (size_t k = 0; k < t->parts[i].nvars; k++)
      if (strcmp(t->parts[i].vars[k].name, name) == 0)
        return true;
  return false;
}

/* ---- matching ------------------------------------------------------------ */

static bool is_unreserved(unsigned char c) {
  return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

static bool is_reserved(unsigned char c) {
  return c && strchr(":/?#[]@!$&'()*+,;=", c) != NULL;
}

/* Percent-decodes s[0..n) after checking its characters; returns a JSON
 * string (new) or NULL when the text is not an acceptable value. */
static json_t *decode_value(const char *s, size_t n, bool reserved,
                            unsigned prefix) {
  char *buf = malloc(n + 1);
  if (buf == NULL)
    return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '%') {
      if (i + 2 >= n || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) {
        free(buf);
        return NULL;
      }
      char hex[3] = {s[i + 1], s[i + 2], 0};
      c = (unsigned char)strtol(hex, NULL, 16);
      if (c == 0) { /* an embedded NUL cannot be a C string value */
        free(buf);
        return NULL;
      }
      buf[o++] = (char)c;
      i += 2;
    } else if (is_unreserved(c) || (reserved && is_reserved(c))) {
      buf[o++] = (char)c;
    } else {
      free(buf);
      return NULL;
    }
  }
  buf[o] = '\0';
  if (prefix) {
    unsigned cps = 0;
    for (size_t i = 0; i < o; i++)
      if (((unsigned char)buf[i] & 0xC0) != 0x80)
        cps++;
    if (cps > prefix) {
      free(buf);
      return NULL;
    }
  }
  json_t *v = json_stringn(buf, o); /* NULL for invalid UTF-8 */
  free(buf);
  return v;
}

typedef struct span {
  const char *s;
  size_t n;
} span;

/* Splits s[0..n) on sep into at most max spans; returns the count or
 * (size_t)-1 when there are more. */
static size_t split(const char *s, size_t n, char sep, span *out, size_t max) {
  size_t count = 0, start = 0;
  for (size_t i = 0; i <= n; i++)
    if (i == n || s[i] == sep) {
      if (count == max)
        return (size_t)-1;
      out[count].s = s + start;
      out[count].n = i - start;
      count++;
      start = i + 1;
    }
  return count;
}

#define MAX_ITEMS 256

static bool set_var(json_t *obj, const tvar *v, json_t *value) {
  if (value == NULL)
    return false;
  if (v->explode) {
    json_t *arr = json_object_get(obj, v->name);
    if (arr == NULL) {
      arr = json_array();
      if (arr == NULL || json_object_set_new(obj, v->name, arr) != 0) {
        json_decref(value);
        return false;
      }
    }
    return json_array_append_new(arr, value) == 0;
  }
  if (json_object_get(obj, v->name)) { /* a named var given twice */
    json_decref(value);
    return false;
  }
  return json_object_set_new(obj, v->name, value) == 0;
}

/* Matches the text of one expression; on success *out (new) holds its
 * defined variables. */
static bool match_expr(const tpart *p, const char *s, size_t n, json_t **out) {
  char op = p->op;
  bool reserved = op == '+' || op == '#';
  bool named = op == ';' || op == '?' || op == '&';
  char sep = op == '.'                  ? '.'
             : op == '/'                ? '/'
             : op == ';'                ? ';'
             : (op == '?' || op == '&') ? '&'
                                        : ',';
  if (n == 0)
    return op != '\0' && op != '+' && (*out = json_object()) != NULL;
  if (op != '\0' && op != '+') {
    if (s[0] != op)
      return false;
    s++, n--;
  }
  span *items = malloc(MAX_ITEMS * sizeof *items);
  json_t *obj = json_object();
  size_t count = items ? split(s, n, sep, items, MAX_ITEMS) : (size_t)-1;
  bool ok = obj != NULL && count != (size_t)-1;
  if (ok && named) {
    for (size_t i = 0; ok && i < count; i++) {
      const char *eq = memchr(items[i].s, '=', items[i].n);
      size_t name_len = eq ? (size_t)(eq - items[i].s) : items[i].n;
      const tvar *v = NULL;
      for (size_t k = 0; k < p->nvars && !v; k++)
        if (strlen(p->vars[k].name) == name_len &&
            memcmp(p->vars[k].name, items[i].s, name_len) == 0)
          v = &p->vars[k];
      if (v == NULL) {
        ok = false;
        break;
      }
      const char *val = eq ? eq + 1 : items[i].s + items[i].n;
      size_t val_len = items[i].n - (size_t)(val - items[i].s);
      ok = set_var(obj, v, decode_value(val, val_len, reserved, v->prefix));
    }
  } else if (ok) {
    size_t k = p->nvars;
    long ex = -1;
    for (size_t i = 0; i < k && ex < 0; i++)
      if (p->vars[i].explode)
        ex = (long)i;
    if (ex < 0 && count > k) {
      if (sep != ',') {
        ok = false;
      } else { /* a list value of the last variable: "a,b" */
        items[k - 1].n = (size_t)(s + n - items[k - 1].s);
        count = k;
      }
    }
    size_t take_ex = count >= k ? count - (k - 1) : 1;
    size_t item = 0;
    for (size_t vi = 0; ok && vi < k && item < count; vi++) {
      size_t take = (long)vi == ex ? take_ex : 1;
      for (size_t t = 0; ok && t < take && item < count; t++, item++)
        ok = set_var(obj, &p->vars[vi],
                     decode_value(items[item].s, items[item].n, reserved,
                                  p->vars[vi].prefix));
    }
  }
  free(items);
  if (!ok) {
    json_decref(obj);
    return false;
  }
  *out = obj;
  return true;
}

typedef struct mctx {
  const mcp__uritpl *t;
  const char *uri;
  size_t len;
  long budget;
  long heavy; /* MATCH_HEAVY_BUDGET */
  json_t *vars;
} mctx;

/* Adds expr's variables to m->vars; a variable repeated across expressions
 * must have the same value. */
static bool merge(mctx *m, json_t *expr) {
  const char *k;
  json_t *v;
  json_object_foreach(expr, k, v) {
    json_t *old = json_object_get(m->vars, k);
    if (old && !json_equal(old, v))
      return false;
  }
  return json_object_update_missing(m->vars, expr) == 0;
}

static void unmerge(mctx *m, json_t *expr, json_t *before) {
  const char *k;
  json_t *v;
  json_object_foreach(expr, k, v) if (!json_object_get(before, k))
      json_object_del(m->vars, k);
}

static bool match_from(mctx *m, size_t pi, size_t pos) {
  if (--m->budget <= 0)
    return false;
  if (pi == m->t->nparts)
    return pos == m->len;
  const tpart *p = &m->t->parts[pi];
  if (p->literal)
    return m->len - pos >= p->literal_len &&
           memcmp(m->uri + pos, p->literal, p->literal_len) == 0 &&
           match_from(m, pi + 1, pos + p->literal_len);
  const tpart *next = pi + 1 < m->t->nparts ? &m->t->parts[pi + 1] : NULL;
  for (size_t end = m->len + 1; end-- > pos;) {
    if (--m->budget <= 0)
      return false;
    if (next == NULL && end != m->len)
      continue;
    if (next && next->literal &&
        (m->len - end < next->literal_len ||
         memcmp(m->uri + end, next->literal, next->literal_len) != 0))
      continue;
    if (--m->heavy <= 0)
      return false;
    json_t *expr = NULL;
    if (!match_expr(p, m->uri + pos, end - pos, &expr))
      continue;
    json_t *before = json_copy(m->vars);
    bool ok = before && merge(m, expr) && match_from(m, pi + 1, end);
    if (!ok && before)
      unmerge(m, expr, before);
    json_decref(before);
    json_decref(expr);
    if (ok)
      return true;
  }
  return false;
}

bool mcp__uritpl_match(const mcp__uritpl *t, const char *uri, json_t **vars) {
  if (vars)
    *vars = NULL;
  if (t == NULL || uri == NULL || vars == NULL)
    return false;
  size_t len = strlen(uri);
  if (len > MAX_URI_LEN)
    return false;
  mctx m = {t, uri, len, MATCH_BUDGET, MATCH_HEAVY_BUDGET, json_object()};
  if (m.vars == NULL)
    return false;
  if (!match_from(&m, 0, 0)) {
    json_decref(m.vars);
    return false;
  }
  *vars = m.vars;
  return true;
}
