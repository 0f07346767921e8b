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

int mcp__num_cmp(const json_t *a, const json_t *b) {
  if (json_is_integer(a) && json_is_integer(b)) {
    json_int_t x = json_integer_value(a), y = json_integer_value(b);
    return x < y ? -1 : x > y;
  }
  if (json_is_integer(a))
    return cmp_int_real(json_integer_value(a), json_real_value(b));
  if (json_is_integer(b))
    return -cmp_int_real(json_integer_value(b), json_real_value(a));
  double x = json_real_value(a), y = json_real_value(b);
  return x < y ? -1 : x > y;
}

bool mcp__num_is_integral(const json_t *v) {
  if (json_is_integer(v))
    return true;
  if (!json_is_real(v))
    return false;
  double d = json_real_value(v);
  return isfinite(d) && floor(d) == d;
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

static uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

uint64_t mcp__json_hash(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_INTEGER:
  case JSON_REAL: {
    double d =
        json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
    if (d == 0)
      d = 0; /* -0.0 == 0 */
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return mix(bits ^ 0x1234);
  }
  case JSON_STRING:
    return mcp__hash_bytes(json_string_value(v), json_string_length(v));
  case JSON_ARRAY: {
    uint64_t h = 0xa11;
    for (size_t i = 0; i < json_array_size(v); i++)
      h = mix(h * 31 + mcp__json_hash(json_array_get(v, i)));
    return h;
  }
  case JSON_OBJECT: {
    uint64_t h = 0x0b1;
    const char *k;
    size_t kl;
    json_t *x;
    json_object_keylen_foreach((json_t *)v, k, kl, x) {
      h += mix(mcp__hash_bytes(k, kl) ^ (mcp__json_hash(x) * 7));
    }
    return h;
  }
  case JSON_TRUE:
    return 0x7;
  case JSON_FALSE:
    return 0x8;
  default:
    return 0x9;
  }
}

/* Shortest decimal digits d (no leading zeros) and exponent e so that the
 * value is d * 10^e; d holds up to 17 digits. */
static bool decimal_of(const json_t *v, int64_t *mant, int *exp10, int *neg) {
  if (json_is_integer(v)) {
    json_int_t i = json_integer_value(v);
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
  double d = json_real_value(v);
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

bool mcp__num_is_multiple(const json_t *v, const json_t *m) {
  if (json_is_integer(v) && json_is_integer(m)) {
    json_int_t d = json_integer_value(m);
    return d != 0 && (d == -1 || json_integer_value(v) % d == 0);
  }
  int64_t vm, mm;
  int ve, me, vn, mn;
  if (!decimal_of(m, &mm, &me, &mn) || mm == 0)
    return false;
  if (!decimal_of(v, &vm, &ve, &vn)) {
    /* An infinite or huge value: fall back to binary division. */
    double q = json_number_value(v) / json_number_value(m);
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

size_t mcp__utf8_length(const char *s, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80)
      n++;
  return n;
}
