/* SPDX-License-Identifier: MIT */
/* idna.c - IDNA2008 host name checks without Unicode data tables.
 *
 * Punycode (RFC 3492) is implemented here; Unicode properties come from
 * PCRE2's tables (general categories and scripts), compiled per call, which
 * is acceptable because idn-hostname checks are rare and must not use global
 * state. Approximations, documented in docs/schema.md: DISALLOWED is derived
 * from general categories plus the RFC 5892 exception list, Virama from a
 * list of code points, joining types and bidi classes from scripts. */
#include "schema/formats.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdint.h>
#include <string.h>

#define MAX_LABEL_CPS 256

/* ---- Punycode -------------------------------------------------------------
 */

enum {
  BASE = 36,
  TMIN = 1,
  TMAX = 26,
  SKEW = 38,
  DAMP = 700,
  IBIAS = 72,
  IN = 128
};

static uint32_t adapt(uint32_t delta, uint32_t numpoints, bool first) {
  delta = first ? delta / DAMP : delta / 2;
  delta += delta / numpoints;
  uint32_t k = 0;
  while (delta > ((BASE - TMIN) * TMAX) / 2) {
    delta /= BASE - TMIN;
    k += BASE;
  }
  return k + (BASE - TMIN + 1) * delta / (delta + SKEW);
}

static int decode_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0' + 26;
  if (c >= 'a' && c <= 'z')
    return c - 'a';
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  return -1;
}

static char encode_digit(uint32_t d) {
  return (char)(d < 26 ? 'a' + d : '0' + (d - 26));
}

/* Decodes s (without "xn--") into out; returns count or -1. */
static int puny_decode(const char *s, size_t len, uint32_t *out, size_t cap) {
  size_t b = 0;
  for (size_t j = 0; j < len; j++)
    if (s[j] == '-')
      b = j;
  size_t n_out = 0;
  for (size_t j = 0; j < b; j++) {
    if ((unsigned char)s[j] >= 0x80 || n_out >= cap)
      return -1;
    out[n_out++] = (unsigned char)s[j];
  }
  uint32_t n = IN, i = 0, bias = IBIAS;
  for (size_t in = b > 0 ? b + 1 : 0; in < len;) {
    uint32_t oldi = i, w = 1;
    for (uint32_t k = BASE;; k += BASE) {
      if (in >= len)
        return -1;
      int digit = decode_digit(s[in++]);
      if (digit < 0 || (uint32_t)digit > (UINT32_MAX - i) / w)
        return -1;
      i += (uint32_t)digit * w;
      uint32_t t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
      if ((uint32_t)digit < t)
        break;
      if (w > UINT32_MAX / (BASE - t))
        return -1;
      w *= BASE - t;
    }
    bias = adapt(i - oldi, (uint32_t)n_out + 1, oldi == 0);
    if (i / (n_out + 1) > UINT32_MAX - n)
      return -1;
    n += i / (uint32_t)(n_out + 1);
    i %= (uint32_t)(n_out + 1);
    if (n > 0x10FFFF || n_out >= cap)
      return -1;
    memmove(out + i + 1, out + i, (n_out - i) * sizeof *out);
    out[i++] = n;
    n_out++;
  }
  return (int)n_out;
}

/* Encodes cps into out (no "xn--"); returns length or -1. */
static int puny_encode(const uint32_t *cps, size_t count, char *out,
                       size_t cap) {
  size_t o = 0, basic = 0;
  for (size_t j = 0; j < count; j++)
    if (cps[j] < 0x80) {
      if (o >= cap)
        return -1;
      out[o++] = (char)cps[j];
      basic++;
    }
  size_t h = basic;
  if (basic > 0) {
    if (o >= cap)
      return -1;
    out[o++] = '-';
  }
  uint32_t n = IN, delta = 0, bias = IBIAS;
  while (h < count) {
    uint32_t m = UINT32_MAX;
    for (size_t j = 0; j < count; j++)
      if (cps[j] >= n && cps[j] < m)
        m = cps[j];
    if ((uint64_t)(m - n) * (h + 1) + delta > UINT32_MAX)
      return -1;
    delta += (m - n) * (uint32_t)(h + 1);
    n = m;
    for (size_t j = 0; j < count; j++) {
      if (cps[j] < n)
        delta++;
      if (cps[j] == n) {
        uint32_t q = delta;
        for (uint32_t k = BASE;; k += BASE) {
          uint32_t t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
          if (q < t)
            break;
          if (o >= cap)
            return -1;
          out[o++] = encode_digit(t + (q - t) % (BASE - t));
          q = (q - t) / (BASE - t);
        }
        if (o >= cap)
          return -1;
        out[o++] = encode_digit(q);
        bias = adapt(delta, (uint32_t)h + 1, h == basic);
        delta = 0;
        h++;
      }
    }
    delta++;
    n++;
  }
  return (int)o;
}

/* ---- Unicode classes through PCRE2 --------------------------------------- */

enum cls {
  C_MARK,
  C_UPPER,
  C_LETTER,
  C_DIGIT,
  C_OTHER, /* symbols, punctuation, separators, controls, Nl/No */
  C_GREEK,
  C_HEBREW,
  C_HKH,
  C_RTL_AL, /* Arabic-like scripts: bidi AL */
  C_JOINING,
  C_COUNT
};

static const char *const cls_pattern[C_COUNT] = {
    "^\\p{M}$",
    "^[\\p{Lu}\\p{Lt}]$",
    "^\\p{L}$",
    "^\\p{Nd}$",
    "^[\\p{S}\\p{P}\\p{Z}\\p{C}\\p{Nl}\\p{No}]$",
    "^\\p{Greek}$",
    "^\\p{Hebrew}$",
    "^[\\p{Hiragana}\\p{Katakana}\\p{Han}]$",
    "^[\\p{Arabic}\\p{Syriac}\\p{Thaana}\\p{Nko}\\p{Mandaic}\\p{Adlam}]$",
    ("^[\\p{Arabic}\\p{Syriac}\\p{Nko}\\p{Mongolian}\\p{Mandaic}"
     "\\p{Manichaean}\\p{Adlam}\\p{Hanifi_Rohingya}\\p{Sogdian}]$"),
};

typedef struct uclass {
  pcre2_code *code[C_COUNT];
  pcre2_match_data *md;
  bool ok;
} uclass;

static void uclass_init(uclass *u) {
  memset(u, 0, sizeof *u);
  u->ok = true;
  for (int i = 0; i < C_COUNT; i++) {
    int ec;
    PCRE2_SIZE off;
    u->code[i] =
        pcre2_compile((PCRE2_SPTR)cls_pattern[i], PCRE2_ZERO_TERMINATED,
                      PCRE2_UTF, &ec, &off, NULL);
    if (u->code[i] == NULL)
      u->ok = false;
  }
  u->md = pcre2_match_data_create(1, NULL);
  if (u->md == NULL)
    u->ok = false;
}

static void uclass_free(uclass *u) {
  for (int i = 0; i < C_COUNT; i++)
    pcre2_code_free(u->code[i]);
  pcre2_match_data_free(u->md);
}

static size_t utf8_put(uint32_t cp, char *b) {
  if (cp < 0x80) {
    b[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    b[0] = (char)(0xC0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    b[0] = (char)(0xE0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  b[0] = (char)(0xF0 | (cp >> 18));
  b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  b[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

static bool is(uclass *u, enum cls c, uint32_t cp) {
  if (cp >= 0xD800 && cp <= 0xDFFF)
    return false;
  char b[4];
  size_t n = utf8_put(cp, b);
  return pcre2_match(u->code[c], (PCRE2_SPTR)b, n, 0, 0, u->md, NULL) >= 0;
}

static bool is_virama(uint32_t cp) {
  static const uint32_t v[] = {
      0x094D,  0x09CD,  0x0A4D,  0x0ACD,  0x0B4D,  0x0BCD,  0x0C4D,  0x0CCD,
      0x0D3B,  0x0D3C,  0x0D4D,  0x0DCA,  0x0E3A,  0x0EBA,  0x0F84,  0x1039,
      0x103A,  0x1714,  0x1715,  0x1734,  0x17D2,  0x1A60,  0x1B44,  0x1BAA,
      0x1BAB,  0x1BF2,  0x1BF3,  0x2D7F,  0xA806,  0xA82C,  0xA8C4,  0xA953,
      0xA9C0,  0xAAF6,  0xABED,  0x10A3F, 0x11046, 0x11070, 0x1107F, 0x110B9,
      0x11133, 0x11134, 0x111C0, 0x11235, 0x112EA, 0x1134D, 0x11442, 0x114C2,
      0x115BF, 0x1163F, 0x116B6, 0x1172B, 0x11839, 0x1193D, 0x1193E, 0x119E0,
      0x11A34, 0x11A47, 0x11A99, 0x11C3F, 0x11D44, 0x11D45, 0x11D97};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (v[i] == cp)
      return true;
  return false;
}

/* RFC 5892 section 2.6 exceptions and the DISALLOWED derivation. */
static bool disallowed(uclass *u, uint32_t cp) {
  switch (cp) {
  case 0x00DF:
  case 0x03C2:
  case 0x06FD:
  case 0x06FE:
  case 0x0F0B:
  case 0x3007:
    return false; /* PVALID exceptions */
  case 0x00B7:
  case 0x0375:
  case 0x05F3:
  case 0x05F4:
  case 0x30FB:
  case 0x200C:
  case 0x200D:
    return false; /* CONTEXTO / CONTEXTJ, checked by context rules */
  case 0x0640:
  case 0x07FA:
  case 0x302E:
  case 0x302F:
  case 0x3031:
  case 0x3032:
  case 0x3033:
  case 0x3034:
  case 0x3035:
  case 0x303B:
    return true; /* DISALLOWED exceptions */
  default:
    break;
  }
  if (cp < 0x80)
    return !((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
             (cp >= '0' && cp <= '9') || cp == '-');
  if (is(u, C_UPPER, cp) || is(u, C_OTHER, cp))
    return true;
  return !(is(u, C_LETTER, cp) || is(u, C_MARK, cp) || is(u, C_DIGIT, cp));
}

/* Bidi classes, approximated by script. */
enum bidi { B_L, B_R, B_AL, B_AN, B_EN, B_NSM, B_OTHER };

static enum bidi bidi_of(uclass *u, uint32_t cp) {
  if (cp >= '0' && cp <= '9')
    return B_EN;
  if (cp >= 0x06F0 && cp <= 0x06F9)
    return B_EN;
  if ((cp >= 0x0660 && cp <= 0x0669) || (cp >= 0x0600 && cp <= 0x0605) ||
      cp == 0x066B || cp == 0x066C || cp == 0x06DD)
    return B_AN;
  if (is(u, C_MARK, cp))
    return B_NSM;
  if (is(u, C_HEBREW, cp))
    return B_R;
  if (is(u, C_RTL_AL, cp))
    return B_AL;
  if (is(u, C_LETTER, cp))
    return B_L;
  return B_OTHER;
}

static bool bidi_label_ok(uclass *u, const uint32_t *cp, size_t n) {
  enum bidi first = bidi_of(u, cp[0]);
  if (first != B_L && first != B_R && first != B_AL)
    return false;
  bool rtl = first != B_L, en = false, an = false;
  size_t last = n;
  while (last > 0 && bidi_of(u, cp[last - 1]) == B_NSM)
    last--;
  if (last == 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    enum bidi b = bidi_of(u, cp[i]);
    if (b == B_EN)
      en = true;
    if (b == B_AN)
      an = true;
    if (rtl ? b == B_L : (b == B_R || b == B_AL || b == B_AN))
      return false;
  }
  enum bidi e = bidi_of(u, cp[last - 1]);
  if (rtl)
    return !(en && an) && (e == B_R || e == B_AL || e == B_EN || e == B_AN);
  return e == B_L || e == B_EN;
}

static bool label_has_rtl(uclass *u, const uint32_t *cp, size_t n) {
  for (size_t i = 0; i < n; i++) {
    enum bidi b = bidi_of(u, cp[i]);
    if (b == B_R || b == B_AL || b == B_AN)
      return true;
  }
  return false;
}

static bool ulabel_ok(uclass *u, const uint32_t *cp, size_t n) {
  if (n == 0 || cp[0] == '-' || cp[n - 1] == '-')
    return false;
  if (n >= 4 && cp[2] == '-' && cp[3] == '-')
    return false;
  if (is(u, C_MARK, cp[0]))
    return false;
  bool arabic_digit = false, ext_digit = false;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = cp[i];
    if (disallowed(u, c))
      return false;
    uint32_t prev = i > 0 ? cp[i - 1] : 0, next = i + 1 < n ? cp[i + 1] : 0;
    switch (c) {
    case 0x00B7:
      if (prev != 'l' || next != 'l')
        return false;
      break;
    case 0x0375:
      if (next == 0 || !is(u, C_GREEK, next))
        return false;
      break;
    case 0x05F3:
    case 0x05F4:
      if (prev == 0 || !is(u, C_HEBREW, prev))
        return false;
      break;
    case 0x30FB: {
      bool found = false;
      for (size_t k = 0; k < n; k++)
        if (cp[k] != 0x30FB && is(u, C_HKH, cp[k]))
          found = true;
      if (!found)
        return false;
      break;
    }
    case 0x200D:
      if (prev == 0 || !is_virama(prev))
        return false;
      break;
    case 0x200C: {
      if (prev != 0 && is_virama(prev))
        break;
      /* (L|D) T* ZWNJ T* (R|D): joining letters around, marks between */
      size_t b = i;
      while (b > 0 && is(u, C_MARK, cp[b - 1]))
        b--;
      size_t a = i + 1;
      while (a < n && is(u, C_MARK, cp[a]))
        a++;
      if (b == 0 || a >= n || !is(u, C_JOINING, cp[b - 1]) ||
          !is(u, C_JOINING, cp[a]))
        return false;
      break;
    }
    default:
      break;
    }
    if (c >= 0x0660 && c <= 0x0669)
      arabic_digit = true;
    if (c >= 0x06F0 && c <= 0x06F9)
      ext_digit = true;
  }
  return !(arabic_digit && ext_digit);
}

/* UTF-8 to code points; -1 on malformed input or overflow. */
static int to_cps(const char *s, size_t len, uint32_t *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    unsigned char c = (unsigned char)s[i];
    uint32_t cp;
    size_t k;
    if (c < 0x80) {
      cp = c;
      k = 1;
    } else if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1F;
      k = 2;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0F;
      k = 3;
    } else if ((c & 0xF8) == 0xF0) {
      cp = c & 0x07;
      k = 4;
    } else {
      return -1;
    }
    if (i + k > len || n >= cap)
      return -1;
    for (size_t j = 1; j < k; j++) {
      if (((unsigned char)s[i + j] & 0xC0) != 0x80)
        return -1;
      cp = (cp << 6) | ((unsigned char)s[i + j] & 0x3F);
    }
    out[n++] = cp;
    i += k;
  }
  return (int)n;
}

static bool ascii_ci_prefix(const uint32_t *cp, size_t n) {
  return n >= 4 && (cp[0] | 0x20) == 'x' && (cp[1] | 0x20) == 'n' &&
         cp[2] == '-' && cp[3] == '-';
}

/* Checks one label given as code points; for A-labels decodes first.
 * *alen receives the label's length in A-label form. */
static bool check_label(uclass *u, const uint32_t *cp, size_t n, uint32_t *buf,
                        size_t *alen, bool *rtl, uint32_t **ul, size_t *uln) {
  bool ascii = true;
  for (size_t i = 0; i < n; i++)
    if (cp[i] >= 0x80)
      ascii = false;
  if (ascii) {
    *alen = n;
    if (n == 0 || n > 63)
      return false;
    if (ascii_ci_prefix(cp, n)) {
      char a[64], re[64];
      for (size_t i = 4; i < n; i++)
        a[i - 4] = (char)cp[i];
      int dn = puny_decode(a, n - 4, buf, MAX_LABEL_CPS);
      if (dn <= 0)
        return false;
      bool any_non_ascii = false;
      for (int i = 0; i < dn; i++)
        if (buf[i] >= 0x80)
          any_non_ascii = true;
      if (!any_non_ascii)
        return false;
      int en = puny_encode(buf, (size_t)dn, re, sizeof re);
      if (en != (int)(n - 4))
        return false;
      for (size_t i = 0; i < n - 4; i++)
        if ((re[i] | 0x20) != (a[i] | 0x20))
          return false;
      if (!ulabel_ok(u, buf, (size_t)dn))
        return false;
      *rtl = label_has_rtl(u, buf, (size_t)dn);
      *ul = buf;
      *uln = (size_t)dn;
      return true;
    }
    if (cp[0] == '-' || cp[n - 1] == '-' ||
        (n >= 4 && cp[2] == '-' && cp[3] == '-'))
      return false;
    for (size_t i = 0; i < n; i++)
      if (disallowed(u, cp[i]))
        return false;
    *rtl = false;
    *ul = (uint32_t *)cp;
    *uln = n;
    return true;
  }
  if (!ulabel_ok(u, cp, n))
    return false;
  char enc[128];
  int en = puny_encode(cp, n, enc, sizeof enc);
  if (en < 0 || en + 4 > 63)
    return false;
  *alen = (size_t)en + 4;
  *rtl = label_has_rtl(u, cp, n);
  *ul = (uint32_t *)cp;
  *uln = n;
  return true;
}

static bool is_dot(uint32_t c) {
  return c == '.' || c == 0x3002 || c == 0xFF0E || c == 0xFF61;
}

static bool hostname_cps(uclass *u, const uint32_t *cp, size_t n) {
  if (n == 0)
    return false;
  size_t total = 0, st = 0;
  bool bidi_domain = false;
  /* first pass: per-label checks and whether the name is a bidi domain */
  uint32_t dec[MAX_LABEL_CPS];
  for (size_t i = 0; i <= n; i++) {
    if (i < n && !is_dot(cp[i]))
      continue;
    size_t alen;
    bool rtl;
    uint32_t *ul;
    size_t uln;
    if (!check_label(u, cp + st, i - st, dec, &alen, &rtl, &ul, &uln))
      return false;
    bidi_domain |= rtl;
    total += alen + (i < n ? 1 : 0);
    st = i + 1;
  }
  if (total > 253)
    return false;
  if (!bidi_domain)
    return true;
  st = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && !is_dot(cp[i]))
      continue;
    size_t alen;
    bool rtl;
    uint32_t *ul;
    size_t uln;
    if (!check_label(u, cp + st, i - st, dec, &alen, &rtl, &ul, &uln) ||
        !bidi_label_ok(u, ul, uln))
      return false;
    st = i + 1;
  }
  return true;
}

bool mcp__idna_hostname_ok(const char *s, size_t len) {
  if (len == 0 || len > 1024)
    return false;
  uint32_t cps[1024];
  int n = to_cps(s, len, cps, 1024);
  if (n <= 0)
    return false;
  uclass u;
  uclass_init(&u);
  bool ok = u.ok && hostname_cps(&u, cps, (size_t)n);
  uclass_free(&u);
  return ok;
}

bool mcp__idna_alabel_ok(const char *s, size_t len) {
  if (len > 63)
    return false;
  uint32_t cps[64];
  for (size_t i = 0; i < len; i++)
    cps[i] = (unsigned char)s[i];
  uclass u;
  uclass_init(&u);
  uint32_t dec[MAX_LABEL_CPS];
  size_t alen, uln;
  bool rtl;
  uint32_t *ul;
  bool ok = u.ok && check_label(&u, cps, len, dec, &alen, &rtl, &ul, &uln) &&
            (!rtl || bidi_label_ok(&u, ul, uln));
  uclass_free(&u);
  return ok;
}
