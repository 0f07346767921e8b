/* SPDX-License-Identifier: MIT */
/* jsonval.c - see jsonval.h. multipleOf is decided on decimal mantissa and
 * exponent pairs with modular arithmetic, so it never overflows and never
 * suffers binary floating-point false negatives. */
#include "schema/jsonval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/map.h"

static int cmp_int_real(json_int_t i, double r) {
  long double li = (long double)i, lr = (long double)r;
  return li < lr ? -1 : li > lr ? 1 : 0;
}

int mcp__numv_cmp(mcp__num a, mcp__num b) {
  if (a.is_int && b.is_int)
    return a.i < b.i ? -1 : a.i > b.i;
  if (a.is_int)
    return cmp_int_real(a.i, b.d);
  if (b.is_int)
    return -cmp_int_real(b.i, a.d);
  return a.d < b.d ? -1 : a.d > b.d;
}

int mcp__num_cmp(const json_t *a, const json_t *b) {
  return mcp__numv_cmp(mcp__num_of(a), mcp__num_of(b));
}

bool mcp__numv_is_integral(mcp__num v) {
  return v.is_int || (isfinite(v.d) && floor(v.d) == v.d);
}

bool mcp__num_is_integral(const json_t *v) {
  if (json_is_integer(v))
    return true;
  if (!json_is_real(v))
    return false;
  return mcp__numv_is_integral(mcp__num_of(v));
}

bool mcp__json_equal(const json_t *a, const json_t *b) {
  if (a == b)
    return true;
  if (json_is_number(a) && json_is_number(b))
    return mcp__num_cmp(a, b) == 0;
  if (json_typeof(a) != json_typeof(b))
    return false;
  switch (json_typeof(a)) {
  case JSON_STRING:
    return json_string_length(a) == json_string_length(b) &&
           memcmp(json_string_value(a), json_string_value(b),
                  json_string_length(a)) == 0;
  case JSON_ARRAY: {
    size_t n = json_array_size(a);
    if (n != json_array_size(b))
      return false;
    for (size_t i = 0; i < n; i++)
      if (!mcp__json_equal(json_array_get(a, i), json_array_get(b, i)))
        return false;
    return true;
  }
  case JSON_OBJECT: {
    if (json_object_size(a) != json_object_size(b))
      return false;
    const char *k;
    size_t kl;
    json_t *v;
    json_object_keylen_foreach((json_t *)a, k, kl, v) {
      json_t *w = json_object_getn(b, k, kl);
      if (w == NULL || !mcp__json_equal(v, w))
        return false;
    }
    return true;
  }
  default:
    return true; /* true, false, null: same type means equal */
  }
}

uint64_t mcp__json_hash(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_INTEGER:
  case JSON_REAL:
    return mcp__hash_num(mcp__num_of(v));
  case JSON_STRING:
    return mcp__hash_bytes(json_string_value(v), json_string_length(v));
  case JSON_ARRAY: {
    uint64_t h = MCP__HASH_ARRAY_SEED;
    for (size_t i = 0; i < json_array_size(v); i++)
      h = mcp__hash_mix(h * 31 + mcp__json_hash(json_array_get(v, i)));
    return h;
  }
  case JSON_OBJECT: {
    uint64_t h = MCP__HASH_OBJECT_SEED;
    const char *k;
    size_t kl;
    json_t *x;
    json_object_keylen_foreach((json_t *)v, k, kl, x) {
      h += mcp__hash_member(mcp__hash_bytes(k, kl), mcp__json_hash(x));
    }
    return h;
  }
  case JSON_TRUE:
    return MCP__HASH_TRUE;
  case JSON_FALSE:
    return MCP__HASH_FALSE;
  default:
    return MCP__HASH_NULL;
  }
}

/* Shortest decimal digits d (no leading zeros) and exponent e so that the
 * value is d * 10^e; d holds up to 17 digits. */
static bool decimal_of(mcp__num v, int64_t *mant, int *exp10, int *neg) {
  if (v.is_int) {
    json_int_t i = v.i;
    *neg = i < 0;
    uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
    int e = 0;
    while (u != 0 && u % 10 == 0) {
      u /= 10;
      e++;
    }
    if (u > (uint64_t)INT64_MAX)
      return false;
    *mant = (int64_t)u;
    *exp10 = e;
    return true;
  }
  double d = v.d;
  if (!isfinite(d))
    return false;
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (strtod(buf, NULL) == d)
      break;
  }
  /* buf: [-]D.DDDDe[+-]XX */
  const char *p = buf;
  *neg = 0;
  if (*p == '-') {
    *neg = 1;
    p++;
  }
  int64_t m = 0;
  int digits_after = 0;
  bool dot = false;
  for (; *p && *p != 'e'; p++) {
    if (*p == '.') {
      dot = true;
      continue;
    }
    m = m * 10 + (*p - '0');
    if (dot)
      digits_after++;
  }
  int e = (*p == 'e') ? atoi(p + 1) : 0;
  e -= digits_after;
  while (m != 0 && m % 10 == 0) {
    m /= 10;
    e++;
  }
  *mant = m;
  *exp10 = e;
  return true;
}

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) {
  return (uint64_t)(((unsigned __int128)a * b) % m);
}

bool mcp__numv_is_multiple(mcp__num v, mcp__num m) {
  if (v.is_int && m.is_int) {
    json_int_t d = m.i;
    return d != 0 && (d == -1 || v.i % d == 0);
  }
  int64_t vm, mm;
  int ve, me, vn, mn;
  if (!decimal_of(m, &mm, &me, &mn) || mm == 0)
    return false;
  if (!decimal_of(v, &vm, &ve, &vn)) {
    /* An infinite or huge value: fall back to binary division. */
    double q = (v.is_int ? (double)v.i : v.d) / (m.is_int ? (double)m.i : m.d);
    return isfinite(q) && floor(q) == q;
  }
  if (vm == 0)
    return true;
  if (ve >= me) {
    /* vm * 10^(ve-me) mod mm == 0 */
    uint64_t mod = (uint64_t)mm, r = (uint64_t)vm % mod, p = 10 % mod;
    for (int k = ve - me; k > 0; k >>= 1) {
      if (k & 1)
        r = mulmod(r, p, mod);
      p = mulmod(p, p, mod);
    }
    return r == 0;
  }
  /* mm * 10^(me-ve) must divide vm */
  int k = me - ve;
  if (k > 18)
    return false;
  unsigned __int128 div = (unsigned __int128)mm;
  for (int i = 0; i < k; i++)
    div *= 10;
  return ((unsigned __int128)vm % div) == 0;
}

bool mcp__num_is_multiple(const json_t *v, const json_t *m) {
  return mcp__numv_is_multiple(mcp__num_of(v), mcp__num_of(m));
}

size_t mcp__utf8_length(const char *s, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80)
      n++;
  return n;
}
