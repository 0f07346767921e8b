/* SPDX-License-Identifier: MIT */
/* formats.c - the "format" checkers used when formats are assertions.
 *
 * Each checker takes the string bytes (UTF-8, may contain NUL) and decides
 * by the RFC the format names: RFC 3339 date/time, ISO 8601 durations as in
 * RFC 3339 appendix A, RFC 5321 mailboxes, RFC 1123 host names, RFC 3986/3987
 * URIs and IRIs, RFC 4122 UUIDs, RFC 6570 templates, RFC 6901 pointers and
 * relative JSON pointers, ECMA-262 regexes. IDN host names are checked in
 * idna.c. Unknown formats have no checker and are always annotations. */
#include "schema/formats.h"

#include <stdint.h>
#include <string.h>

#include "schema/regex.h"

static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
static bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* n ASCII digits at s as a number, or -1. */
static int digits(const char *s, size_t n) {
  int v = 0;
  for (size_t i = 0; i < n; i++) {
    if (!is_digit(s[i]))
      return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* ---- dates and times (RFC 3339) ------------------------------------------ */

static bool leap_year(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static bool full_date(const char *s, size_t len) {
  if (len != 10 || s[4] != '-' || s[7] != '-')
    return false;
  int y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
  if (y < 0 || m < 1 || m > 12 || d < 1)
    return false;
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int max = mdays[m - 1] + (m == 2 && leap_year(y));
  return d <= max;
}

static bool full_time(const char *s, size_t len) {
  if (len < 9 || s[2] != ':' || s[5] != ':')
    return false;
  int h = digits(s, 2), mi = digits(s + 3, 2), se = digits(s + 6, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60)
    return false;
  size_t i = 8;
  if (i < len && s[i] == '.') {
    i++;
    size_t start = i;
    while (i < len && is_digit(s[i]))
      i++;
    if (i == start)
      return false;
  }
  if (i >= len)
    return false;
  int off = 0; /* minutes east of UTC */
  if (s[i] == 'Z' || s[i] == 'z') {
    if (i + 1 != len)
      return false;
  } else if (s[i] == '+' || s[i] == '-') {
    if (len - i != 6 || s[i + 3] != ':')
      return false;
    int oh = digits(s + i + 1, 2), om = digits(s + i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59)
      return false;
    off = (oh * 60 + om) * (s[i] == '+' ? 1 : -1);
  } else {
    return false;
  }
  if (se == 60) {
    /* a leap second only at 23:59 UTC */
    int utc = ((h * 60 + mi - off) % 1440 + 1440) % 1440;
    if (utc != 23 * 60 + 59)
      return false;
  }
  return true;
}

static bool f_date(const char *s, size_t len) {
  return full_date(s, len);
}
static bool f_time(const char *s, size_t len) {
  return full_time(s, len);
}

static bool f_date_time(const char *s, size_t len) {
  if (len < 11 || (s[10] != 'T' && s[10] != 't'))
    return false;
  return full_date(s, 10) && full_time(s + 11, len - 11);
}

/* P[nY][nM][nD][T[nH][nM][nS]] or PnW, at least one component. */
static bool f_duration(const char *s, size_t len) {
  size_t i = 0;
  if (len < 2 || s[i++] != 'P')
    return false;
  static const char date_units[] = "YMD", time_units[] = "HMS";
  int last = -1;
  bool any = false, in_time = false, any_time = false;
  while (i < len) {
    if (s[i] == 'T') {
      if (in_time)
        return false;
      in_time = true;
      last = -1;
      i++;
      continue;
    }
    size_t st = i;
    while (i < len && is_digit(s[i]))
      i++;
    if (i == st || i >= len)
      return false;
    char u = s[i++];
    if (!in_time && u == 'W') {
      /* weeks stand alone */
      return !any && i == len;
    }
    const char *units = in_time ? time_units : date_units;
    const char *p = strchr(units, u);
    /* RFC 3339 appendix A: units are contiguous (no "P1Y2D") */
    if (p == NULL || u == '\0' || (last >= 0 && (int)(p - units) != last + 1))
      return false;
    last = (int)(p - units);
    any = true;
    if (in_time)
      any_time = true;
  }
  return any && (!in_time || any_time);
}

/* ---- network names and addresses ----------------------------------------- */

static bool f_ipv4(const char *s, size_t len) {
  int parts = 0;
  size_t i = 0;
  while (parts < 4) {
    size_t st = i;
    int v = 0;
    while (i < len && is_digit(s[i]) && i - st < 3)
      v = v * 10 + (s[i++] - '0');
    size_t n = i - st;
    if (n == 0 || v > 255 || (n > 1 && s[st] == '0'))
      return false;
    parts++;
    if (parts < 4) {
      if (i >= len || s[i] != '.')
        return false;
      i++;
    }
  }
  return i == len;
}

static bool f_ipv6(const char *s, size_t len) {
  int groups = 0;
  bool dbl = false;
  size_t i = 0;
  if (len >= 2 && s[0] == ':' && s[1] == ':') {
    dbl = true;
    i = 2;
    if (i == len)
      return true;
  } else if (len > 0 && s[0] == ':') {
    return false;
  }
  while (i < len) {
    size_t st = i;
    while (i < len && is_hex(s[i]))
      i++;
    size_t n = i - st;
    if (i < len && s[i] == '.') {
      /* trailing embedded IPv4 */
      if (!f_ipv4(s + st, len - st))
        return false;
      groups += 2;
      i = len;
      break;
    }
    if (n == 0 || n > 4)
      return false;
    groups++;
    if (i == len)
      break;
    if (s[i] != ':')
      return false;
    i++;
    if (i < len && s[i] == ':') {
      if (dbl)
        return false;
      dbl = true;
      i++;
      if (i == len)
        break;
    } else if (i == len) {
      return false;
    }
  }
  return dbl ? groups <= 7 : groups == 8;
}

static bool label_ok(const char *s, size_t n) {
  if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
    return false;
  for (size_t i = 0; i < n; i++)
    if (!is_alpha(s[i]) && !is_digit(s[i]) && s[i] != '-')
      return false;
  return true;
}

static bool f_hostname(const char *s, size_t len) {
  if (len == 0 || len > 253)
    return false;
  size_t st = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len || s[i] == '.') {
      if (!label_ok(s + st, i - st))
        return false;
      /* "--" in positions 3-4 is reserved for A-labels ("xn--") */
      if (i - st >= 4 && s[st + 2] == '-' && s[st + 3] == '-') {
        if (!((s[st] == 'x' || s[st] == 'X') &&
              (s[st + 1] == 'n' || s[st + 1] == 'N')))
          return false;
        if (!mcp__idna_alabel_ok(s + st, i - st))
          return false;
      }
      st = i + 1;
    }
  }
  return true;
}

static bool f_idn_hostname(const char *s, size_t len) {
  return mcp__idna_hostname_ok(s, len);
}

/* RFC 5321 Mailbox; utf8 allows UTF-8 in the local part (RFC 6531). */
static bool mailbox(const char *s, size_t len, bool utf8) {
  const char *at = NULL;
  size_t i = 0;
  if (len == 0)
    return false;
  if (s[0] == '"') {
    i = 1;
    while (i < len && s[i] != '"') {
      if (s[i] == '\\') {
        i++;
        if (i >= len)
          return false;
      } else if ((unsigned char)s[i] < 32 || s[i] == 127) {
        return false;
      }
      i++;
    }
    if (i >= len || i + 1 >= len || s[i + 1] != '@')
      return false;
    at = s + i + 1;
  } else {
    at = memchr(s, '@', len);
    if (at == NULL)
      return false;
    size_t ll = (size_t)(at - s);
    if (ll == 0 || ll > 64 || s[0] == '.' || s[ll - 1] == '.')
      return false;
    for (size_t k = 0; k < ll; k++) {
      unsigned char c = (unsigned char)s[k];
      if (c == '.' && s[k + 1] == '.')
        return false;
      if (c >= 0x80) {
        if (!utf8)
          return false;
        continue;
      }
      if (!is_alpha((char)c) && !is_digit((char)c) &&
          !strchr(".!#$%&'*+-/=?^_`{|}~", c))
        return false;
    }
  }
  const char *dom = at + 1;
  size_t dl = len - (size_t)(dom - s);
  if (dl >= 2 && dom[0] == '[' && dom[dl - 1] == ']') {
    if (dl > 7 && strncmp(dom + 1, "IPv6:", 5) == 0)
      return f_ipv6(dom + 6, dl - 7);
    return f_ipv4(dom + 1, dl - 2);
  }
  return utf8 ? mcp__idna_hostname_ok(dom, dl) : f_hostname(dom, dl);
}

static bool f_email(const char *s, size_t len) {
  return mailbox(s, len, false);
}
static bool f_idn_email(const char *s, size_t len) {
  return mailbox(s, len, true);
}

/* ---- URIs and IRIs (RFC 3986 / 3987) ------------------------------------- */

static bool unreserved(char c) {
  return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' ||
         c == '~';
}
static bool sub_delim(char c) {
  return c && strchr("!$&'()*+,;=", c);
}
/* A percent-encoding "%XX" at s[i] (s[i] == '%') within n bytes. */
static bool pct_encoded(const char *s, size_t i, size_t n) {
  return i + 2 < n && is_hex(s[i + 1]) && is_hex(s[i + 2]);
}

/* Checks s[0..n) against pchar plus `extra` characters; iri allows
 * non-ASCII. */
static bool chars_ok(const char *s, size_t n, const char *extra, bool iri) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '%') {
      if (!pct_encoded(s, i, n))
        return false;
      i += 2;
    } else if ((unsigned char)c >= 0x80) {
      if (!iri)
        return false;
    } else if (!unreserved(c) && !sub_delim(c) && c != ':' && c != '@' &&
               !(extra && strchr(extra, c))) {
      return false;
    }
  }
  return true;
}

static bool authority_ok(const char *s, size_t n, bool iri) {
  const char *at = NULL;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '@')
      at = s + i;
  if (at != NULL) {
    size_t ul = (size_t)(at - s);
    if (memchr(s, '@', ul) != NULL)
      return false; /* one userinfo delimiter only */
    if (!chars_ok(s, ul, NULL, iri))
      return false;
    n -= ul + 1;
    s = at + 1;
  }
  size_t hl = n;
  if (n > 0 && s[0] == '[') {
    const char *close = memchr(s, ']', n);
    if (close == NULL)
      return false;
    hl = (size_t)(close - s) + 1;
    if (!f_ipv6(s + 1, hl - 2)) {
      /* IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
      if (!(hl > 4 && (s[1] == 'v' || s[1] == 'V')))
        return false;
    }
  } else {
    for (hl = 0; hl < n && s[hl] != ':'; hl++)
      ;
    for (size_t i = 0; i < hl; i++) {
      char c = s[i];
      if (c == '%') {
        if (!pct_encoded(s, i, hl))
          return false;
        i += 2;
      } else if ((unsigned char)c >= 0x80) {
        if (!iri)
          return false;
      } else if (!unreserved(c) && !sub_delim(c)) {
        return false;
      }
    }
  }
  if (hl < n) {
    if (s[hl] != ':')
      return false;
    for (size_t i = hl + 1; i < n; i++)
      if (!is_digit(s[i]))
        return false;
  }
  return true;
}

/* A URI or relative reference; need_scheme for uri/iri. */
static bool uri_like(const char *s, size_t len, bool need_scheme, bool iri) {
  size_t i = 0;
  if (memchr(s, '\0', len))
    return false;
  /* scheme */
  size_t k = 0;
  if (len > 0 && is_alpha(s[0])) {
    k = 1;
    while (k < len && (is_alpha(s[k]) || is_digit(s[k]) || strchr("+-.", s[k])))
      k++;
  }
  bool has_scheme = k > 0 && k < len && s[k] == ':';
  if (need_scheme && !has_scheme)
    return false;
  if (has_scheme)
    i = k + 1;
  const char *hash = memchr(s + i, '#', len - i);
  size_t end = hash ? (size_t)(hash - s) : len;
  if (hash && !chars_ok(hash + 1, len - end - 1, "/?", iri))
    return false;
  const char *q = memchr(s + i, '?', end - i);
  size_t pend = q ? (size_t)(q - s) : end;
  if (q && !chars_ok(q + 1, end - pend - 1, "/?", iri))
    return false;
  if (pend - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
    size_t a = i + 2, b = a;
    while (b < pend && s[b] != '/')
      b++;
    if (!authority_ok(s + a, b - a, iri))
      return false;
    i = b;
  } else if (!has_scheme) {
    /* relative-path: first segment must not contain ':' */
    size_t b = i;
    while (b < pend && s[b] != '/')
      b++;
    if (memchr(s + i, ':', b - i))
      return false;
  }
  return chars_ok(s + i, pend - i, "/", iri);
}

static bool f_uri(const char *s, size_t len) {
  return uri_like(s, len, true, false);
}
static bool f_uri_reference(const char *s, size_t len) {
  return uri_like(s, len, false, false);
}
static bool f_iri(const char *s, size_t len) {
  return uri_like(s, len, true, true);
}
static bool f_iri_reference(const char *s, size_t len) {
  return uri_like(s, len, false, true);
}

static bool f_uuid(const char *s, size_t len) {
  if (len != 36)
    return false;
  for (size_t i = 0; i < 36; i++) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !is_hex(s[i]))
      return false;
  }
  return true;
}

/* RFC 6570 level 4 syntax. */
static bool f_uri_template(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c == '{') {
      size_t j = i + 1;
      if (j < len && strchr("+#./;?&=,!@|", s[j]) && s[j])
        j++;
      bool need_var = true;
      while (j < len && s[j] != '}') {
        size_t st = j;
        while (j < len && (is_alpha(s[j]) || is_digit(s[j]) || s[j] == '_' ||
                           s[j] == '%' || s[j] == '.')) {
          if (s[j] == '%' && !pct_encoded(s, j, len))
            return false;
          j += s[j] == '%' ? 3 : 1;
        }
        if (j == st || s[st] == '.' || s[j - 1] == '.')
          return false;
        for (size_t d = st; d + 1 < j; d++)
          if (s[d] == '.' && s[d + 1] == '.')
            return false;
        need_var = false;
        if (j < len && s[j] == ':') {
          size_t ds = ++j;
          while (j < len && is_digit(s[j]))
            j++;
          if (j == ds || j - ds > 4 || s[ds] == '0')
            return false;
        } else if (j < len && s[j] == '*') {
          j++;
        }
        if (j < len && s[j] == ',') {
          j++;
          need_var = true;
        } else if (j < len && s[j] != '}') {
          return false;
        }
      }
      if (j >= len || need_var)
        return false;
      i = j;
    } else if (c == '}') {
      return false;
    } else if ((unsigned char)c < 0x21 || c == 0x7F || strchr("\"<>\\^`|", c)) {
      return false;
    } else if (c == '%') {
      if (!pct_encoded(s, i, len))
        return false;
      i += 2;
    }
  }
  return true;
}

static bool pointer_ok(const char *s, size_t len) {
  if (len == 0)
    return true;
  if (s[0] != '/')
    return false;
  for (size_t i = 0; i < len; i++)
    if (s[i] == '~' && (i + 1 >= len || (s[i + 1] != '0' && s[i + 1] != '1')))
      return false;
  return true;
}

static bool f_json_pointer(const char *s, size_t len) {
  return pointer_ok(s, len);
}

static bool f_relative_json_pointer(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && is_digit(s[i]))
    i++;
  if (i == 0 || (i > 1 && s[0] == '0'))
    return false;
  /* index manipulation: ("+" / "-") positive integer */
  if (i < len && (s[i] == '+' || s[i] == '-')) {
    size_t st = ++i;
    while (i < len && is_digit(s[i]))
      i++;
    if (i == st || s[st] == '0')
      return false;
  }
  if (i < len && s[i] == '#')
    return i + 1 == len;
  return pointer_ok(s + i, len - i);
}

static bool f_regex(const char *s, size_t len) {
  return mcp__regex_is_valid_ecma(s, len);
}

mcp__format_fn mcp__format_lookup(const char *name) {
  static const struct {
    const char *name;
    mcp__format_fn fn;
  } table[] = {
      {"date-time", f_date_time},
      {"date", f_date},
      {"time", f_time},
      {"duration", f_duration},
      {"email", f_email},
      {"idn-email", f_idn_email},
      {"hostname", f_hostname},
      {"idn-hostname", f_idn_hostname},
      {"ipv4", f_ipv4},
      {"ipv6", f_ipv6},
      {"uri", f_uri},
      {"uri-reference", f_uri_reference},
      {"iri", f_iri},
      {"iri-reference", f_iri_reference},
      {"uuid", f_uuid},
      {"uri-template", f_uri_template},
      {"json-pointer", f_json_pointer},
      {"relative-json-pointer", f_relative_json_pointer},
      {"regex", f_regex},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0)
      return table[i].fn;
  return NULL;
}
