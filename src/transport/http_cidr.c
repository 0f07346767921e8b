/* SPDX-License-Identifier: MIT */
/* http_cidr.c - see http_cidr.h. */
#include "transport/http_cidr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

/* Whether the first prefix bits of a and b agree. */
static bool prefix_matches(const uint8_t *a, const uint8_t *b,
                           unsigned prefix) {
  unsigned whole = prefix / 8, rest = prefix % 8;
  if (memcmp(a, b, whole) != 0)
    return false;
  if (rest == 0)
    return true;
  uint8_t mask = (uint8_t)(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

bool mcp__cidr_parse(const char *text, mcp__cidr *out, const char **why) {
  memset(out, 0, sizeof *out);
  char addr[64];
  const char *slash = strchr(text, '/');
  size_t n = slash ? (size_t)(slash - text) : strlen(text);
  if (n == 0 || n >= sizeof addr) {
    *why = "not an address";
    return false;
  }
  memcpy(addr, text, n);
  addr[n] = '\0';
  unsigned max;
  if (inet_pton(AF_INET, addr, out->addr) == 1) {
    out->family = AF_INET;
    max = 32;
  } else if (inet_pton(AF_INET6, addr, out->addr) == 1) {
    out->family = AF_INET6;
    max = 128;
  } else {
    *why = "not an IPv4 or IPv6 address (e.g. 127.0.0.1/32, 10.0.0.0/8, "
           "::1)";
    return false;
  }
  out->prefix = max;
  if (slash != NULL) {
    const char *p = slash + 1;
    unsigned v = 0;
    if (*p == '\0' || strlen(p) > 3) {
      *why = "the prefix length is not a number from 0 to 32 (IPv4) or 128 "
             "(IPv6)";
      return false;
    }
    for (; *p; p++) {
      if (*p < '0' || *p > '9') {
        *why = "the prefix length is not a number from 0 to 32 (IPv4) or "
               "128 (IPv6)";
        return false;
      }
      v = v * 10 + (unsigned)(*p - '0');
    }
    if (v > max) {
      *why = "the prefix length is longer than the address";
      return false;
    }
    out->prefix = v;
  }
  /* bits beyond the prefix: 10.0.0.1/8 is a typo of one kind or another */
  uint8_t net[16];
  memcpy(net, out->addr, sizeof net);
  for (unsigned bit = out->prefix; bit < max; bit++)
    net[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
  if (memcmp(net, out->addr, max / 8) != 0) {
    *why = "bits are set beyond the prefix (write the network address, "
           "e.g. 10.0.0.0/8, or the host as a /32)";
    return false;
  }
  return true;
}

bool mcp__cidr_parse_list(const char *text, mcp__cidr **out, size_t *n,
                          size_t *bad, size_t *bad_len, const char **why) {
  *out = NULL;
  *n = 0;
  *bad = *bad_len = 0;
  *why = NULL;
  size_t cap = 0;
  const char *p = text;
  for (;;) {
    p += strspn(p, ", \t");
    if (*p == '\0')
      break;
    size_t len = strcspn(p, ", \t");
    char one[64];
    mcp__cidr c;
    bool parsed = false;
    if (len < sizeof one) {
      memcpy(one, p, len);
      one[len] = '\0';
      parsed = mcp__cidr_parse(one, &c, why);
    } else {
      *why = "too long for an address";
    }
    if (!parsed) {
      *bad = (size_t)(p - text);
      *bad_len = len;
      free(*out);
      *out = NULL;
      *n = 0;
      return false;
    }
    if (*n == cap) {
      cap = cap ? 2 * cap : 4;
      mcp__cidr *grown = realloc(*out, cap * sizeof *grown);
      if (grown == NULL) {
        free(*out);
        *out = NULL;
        *n = 0;
        *why = NULL;
        return false;
      }
      *out = grown;
    }
    (*out)[(*n)++] = c;
    p += len;
  }
  if (*n == 0) {
    *why = "the list is empty (NULL: loopback only)";
    return false;
  }
  return true;
}

bool mcp__cidr_list_has(const mcp__cidr *list, size_t n,
                        const struct sockaddr *sa) {
  if (sa == NULL)
    return false;
  uint8_t addr[16];
  int family;
  if (sa->sa_family == AF_INET) {
    memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    family = AF_INET;
  } else if (sa->sa_family == AF_INET6) {
    const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(a6)) {
      memcpy(addr, a6->s6_addr + 12, 4);
      family = AF_INET;
    } else {
      memcpy(addr, a6->s6_addr, 16);
      family = AF_INET6;
    }
  } else {
    return false;
  }
  for (size_t i = 0; i < n; i++)
    if (list[i].family == family &&
        prefix_matches(list[i].addr, addr, list[i].prefix))
      return true;
  return false;
}
