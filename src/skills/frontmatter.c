/* SPDX-License-Identifier: MIT */
/* frontmatter.c - the YAML front matter of a SKILL.md, as JSON.
 *
 * Agent Skills front matter is a flat mapping of scalars plus, at most, a
 * mapping one level deep (`metadata`). This reads exactly that subset of
 * YAML 1.2 (core schema): `key: value` lines, plain scalars (null, booleans,
 * decimal integers and floats are typed, everything else is a string),
 * single- and double-quoted scalars, literal (|) and folded (>) block
 * scalars with clip (default) or strip (-) chomping, and comments. Anything
 * else (sequences, flow collections, anchors, tags, deeper nesting,
 * duplicate keys) is refused with the line number, never guessed: what the
 * server lists as `frontmatter` must be what a YAML parser reads from the
 * file.
 */
#include "skills/skills_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lines {
  const char *p, *end; /* rest of the front matter block */
  unsigned no;         /* line number in the file of the next line */
} lines;

/* Next line [*s, *e) without its newline (and a CR before it). */
static bool next_line(lines *l, const char **s, const char **e) {
  if (l->p >= l->end)
    return false;
  const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
  const char *stop = nl ? nl : l->end;
  *s = l->p;
  *e = stop > l->p && stop[-1] == '\r' ? stop - 1 : stop;
  l->p = nl ? nl + 1 : l->end;
  l->no++;
  return true;
}

static size_t indent_of(const char *s, const char *e) {
  size_t n = 0;
  while (s + n < e && s[n] == ' ')
    n++;
  return n;
}

static bool blank_or_comment(const char *s, const char *e) {
  s += indent_of(s, e);
  return s == e || *s == '#';
}

static mcp_status fail(mcp_error_t *err, unsigned line, const char *what) {
  return mcp_error_set(err, MCP_ERR_INVALID,
                       "SKILL.md front matter, line %u: %s", line, what);
}

static bool all_digits(const char *s) {
  if (*s == '+' || *s == '-')
    s++;
  if (!isdigit((unsigned char)*s))
    return false;
  while (isdigit((unsigned char)*s))
    s++;
  return *s == '\0';
}

static bool is_float(const char *s) {
  if (*s == '+' || *s == '-')
    s++;
  bool digits = false;
  while (isdigit((unsigned char)*s))
    s++, digits = true;
  if (*s == '.') {
    s++;
    while (isdigit((unsigned char)*s))
      s++, digits = true;
  }
  if (!digits)
    return false;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-')
      s++;
    if (!isdigit((unsigned char)*s))
      return false;
    while (isdigit((unsigned char)*s))
      s++;
  }
  return *s == '\0';
}

/* A plain scalar (trimmed, comment removed) typed per the core schema. */
static json_t *plain_scalar(const char *text) {
  static const char *const nulls[] = {"null", "Null", "NULL", "~"};
  static const char *const trues[] = {"true", "True", "TRUE"};
  static const char *const falses[] = {"false", "False", "FALSE"};
  for (size_t i = 0; i < 4; i++)
    if (strcmp(text, nulls[i]) == 0)
      return json_null();
  for (size_t i = 0; i < 3; i++) {
    if (strcmp(text, trues[i]) == 0)
      return json_true();
    if (strcmp(text, falses[i]) == 0)
      return json_false();
  }
  if (all_digits(text)) {
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == 0)
      return json_integer(v);
  }
  if (is_float(text))
    return json_real(strtod(text, NULL));
  return json_string(text);
}

/* Parses the value part [s, e) of a line. Block scalars read more lines
 * from l (those indented deeper than indent). */
static mcp_status scalar(lines *l, unsigned line, const char *s, const char *e,
                         size_t indent, json_t **out, mcp_error_t *err) {
  *out = NULL;
  while (s < e && (*s == ' ' || *s == '\t'))
    s++;
  while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
    e--;
  if (s < e && (*s == '|' || *s == '>')) {
    bool folded = *s == '>', strip = false;
    const char *q = s + 1;
    if (q < e && *q == '-')
      strip = true, q++;
    while (q < e && *q == ' ')
      q++;
    if (q < e && *q != '#')
      return fail(err, line, "unsupported block scalar indicator");
    mcp__buf text;
    mcp__buf_init(&text);
    size_t block = 0;
    unsigned pending_breaks = 0;
    bool any = false;
    for (;;) {
      lines save = *l;
      const char *ls, *le;
      if (!next_line(l, &ls, &le))
        break;
      size_t in = indent_of(ls, le);
      if (ls + in == le) { /* empty line inside the block */
        pending_breaks++;
        continue;
      }
      if (in <= indent) {
        *l = save;
        break;
      }
      if (block == 0)
        block = in;
      if (in < block) {
        mcp__buf_free(&text);
        return fail(err, l->no - 1, "block scalar line indented less");
      }
      if (any) {
        if (folded && pending_breaks == 0)
          mcp__buf_append_char(&text, ' ');
        else
          for (unsigned i = 0;
               i < (folded ? pending_breaks : pending_breaks + 1); i++)
            mcp__buf_append_char(&text, '\n');
      }
      pending_breaks = 0;
      mcp__buf_append(&text, ls + block, (size_t)(le - ls - block));
      any = true;
    }
    if (any && !strip)
      mcp__buf_append_char(&text, '\n');
    mcp__buf_append_char(&text, '\0');
    *out = text.data ? json_string(text.data) : json_string("");
    mcp__buf_free(&text);
    return *out ? MCP_OK : MCP_ERR_NOMEM;
  }
  if (s < e && (*s == '"' || *s == '\'')) {
    char quote = *s++;
    mcp__buf text;
    mcp__buf_init(&text);
    const char *p = s;
    bool closed = false;
    for (; p < e; p++) {
      if (quote == '\'' && *p == '\'') {
        if (p + 1 < e && p[1] == '\'') {
          mcp__buf_append_char(&text, '\'');
          p++;
          continue;
        }
        closed = true;
        break;
      }
      if (quote == '"' && *p == '"') {
        closed = true;
        break;
      }
      if (quote == '"' && *p == '\\' && p + 1 < e) {
        char c = *++p;
        static const char from[] = "nt\"\\/0r", to[] = "\n\t\"\\/\0\r";
        const char *hit = strchr(from, c);
        if (hit == NULL || c == '\0') {
          mcp__buf_free(&text);
          return fail(err, line, "unsupported escape in a quoted string");
        }
        mcp__buf_append_char(&text, to[hit - from]);
        continue;
      }
      mcp__buf_append_char(&text, *p);
    }
    const char *rest = closed ? p + 1 : e;
    while (rest < e && *rest == ' ')
      rest++;
    if (!closed || (rest < e && *rest != '#')) {
      mcp__buf_free(&text);
      return fail(err, line,
                  closed ? "text after a quoted string"
                         : "unterminated quoted string (multi-line quoted "
                           "strings are not supported)");
    }
    mcp__buf_append_char(&text, '\0');
    *out = json_string(text.data);
    mcp__buf_free(&text);
    if (*out == NULL)
      return fail(err, line, "quoted string is not valid UTF-8");
    return MCP_OK;
  }
  /* plain: a comment starts at " #" */
  for (const char *p = s; p < e; p++)
    if (*p == '#' && p > s && (p[-1] == ' ' || p[-1] == '\t')) {
      e = p;
      while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
      break;
    }
  if (s < e && strchr("[]{}&*!%@`,", *s) != NULL && !(*s == '-' && e - s > 1))
    return fail(err, line,
                "flow collections, anchors, aliases and tags are not "
                "supported");
  if (s < e && *s == '-' && (e - s == 1 || s[1] == ' '))
    return fail(err, line, "sequences are not supported");
  char *text = strndup(s, (size_t)(e - s));
  if (text == NULL)
    return MCP_ERR_NOMEM;
  if (memmem(text, strlen(text), ": ", 2) != NULL) {
    free(text);
    return fail(err, line, "a plain value may not contain \": \" (quote it)");
  }
  *out = plain_scalar(text);
  free(text);
  if (*out == NULL)
    return fail(err, line, "value is not valid UTF-8");
  return MCP_OK;
}

/* "key:" at [s, e): the key into out (NUL-terminated), *value after ':'. */
static bool split_key(const char *s, const char *e, char *out, size_t cap,
                      const char **value) {
  const char *p = s;
  while (p < e && (isalnum((unsigned char)*p) || *p == '_' || *p == '-' ||
                   *p == '.' || *p == '/'))
    p++;
  if (p == s || p >= e || *p != ':' || (p + 1 < e && p[1] != ' ') ||
      (size_t)(p - s) >= cap)
    return false;
  memcpy(out, s, (size_t)(p - s));
  out[p - s] = '\0';
  *value = p + 1;
  return true;
}

/* The mapping of lines indented by exactly indent, into map. */
static mcp_status mapping(lines *l, size_t indent, json_t *map,
                          mcp_error_t *err) {
  for (;;) {
    lines save = *l;
    const char *s, *e;
    if (!next_line(l, &s, &e))
      return MCP_OK;
    if (blank_or_comment(s, e))
      continue;
    size_t in = indent_of(s, e);
    if (in < indent) {
      *l = save;
      return MCP_OK;
    }
    if (in > indent)
      return fail(err, l->no - 1, "unexpected indentation");
    if (memchr(s, '\t', (size_t)(e - s)) && s[in] == '\t')
      return fail(err, l->no - 1, "tabs may not indent YAML");
    char key[128];
    const char *value;
    if (s[in] == '-' && (s + in + 1 == e || s[in + 1] == ' '))
      return fail(err, l->no - 1, "sequences are not supported");
    if (!split_key(s + in, e, key, sizeof key, &value))
      return fail(err, l->no - 1,
                  "expected \"key: value\" (keys of letters, digits and "
                  "_ - . /)");
    if (json_object_get(map, key))
      return fail(err, l->no - 1, "duplicate key");
    unsigned line = l->no - 1;
    const char *v = value;
    while (v < e && *v == ' ')
      v++;
    json_t *item = NULL;
    mcp_status st;
    if (v == e || *v == '#') {
      /* a nested mapping (one level), or null when nothing is nested */
      lines peek = *l;
      const char *ns, *ne;
      bool nested = false;
      while (next_line(&peek, &ns, &ne))
        if (!blank_or_comment(ns, ne)) {
          nested = indent_of(ns, ne) > indent;
          break;
        }
      if (!nested) {
        item = json_null();
      } else {
        if (indent > 0)
          return fail(err, line, "mappings nested deeper than one level");
        item = json_object();
        if (item == NULL)
          return MCP_ERR_NOMEM;
        lines probe = *l;
        size_t inner = 0;
        while (next_line(&probe, &ns, &ne))
          if (!blank_or_comment(ns, ne)) {
            inner = indent_of(ns, ne);
            break;
          }
        if ((st = mapping(l, inner, item, err)) != MCP_OK) {
          json_decref(item);
          return st;
        }
      }
    } else if ((st = scalar(l, line, value, e, indent, &item, err)) != MCP_OK) {
      return st;
    }
    if (item == NULL || json_object_set_new(map, key, item) != 0)
      return MCP_ERR_NOMEM;
  }
}

mcp_status mcp__skill_frontmatter(const char *text, size_t len, json_t **out,
                                  mcp_error_t *err) {
  *out = NULL;
  const char *p = text, *end = text + len;
  if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
      (unsigned char)p[2] == 0xBF)
    p += 3; /* BOM */
  lines l = {p, end, 1};
  const char *s, *e;
  if (!next_line(&l, &s, &e) || e - s < 3 || memcmp(s, "---", 3) != 0 ||
      indent_of(s + 3, e) != (size_t)(e - s - 3))
    return mcp_error_set(err, MCP_ERR_INVALID,
                         "SKILL.md must begin with a \"---\" line opening "
                         "its YAML front matter");
  /* find the closing "---" */
  lines scan = l;
  const char *block_end = NULL;
  unsigned first = l.no;
  while (next_line(&scan, &s, &e))
    if (e - s >= 3 && memcmp(s, "---", 3) == 0 &&
        indent_of(s + 3, e) == (size_t)(e - s - 3)) {
      block_end = s;
      break;
    }
  if (block_end == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID,
                         "SKILL.md front matter is not closed by a \"---\" "
                         "line");
  json_t *map = json_object();
  if (map == NULL)
    return MCP_ERR_NOMEM;
  lines body = {l.p, block_end, first};
  mcp_status st = mapping(&body, 0, map, err);
  if (st != MCP_OK) {
    json_decref(map);
    return st;
  }
  *out = map;
  return MCP_OK;
}

bool mcp__skill_name_valid(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 64 || name[0] == '-' || name[n - 1] == '-')
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
      return false;
    if (c == '-' && name[i + 1] == '-')
      return false;
  }
  return true;
}
