/* SPDX-License-Identifier: MIT */
/* http_cidr.h - client address allow-lists of the HTTP transport (the
 * Prometheus endpoint's, http_metrics.c): addresses and CIDR blocks, IPv4
 * and IPv6, parsed once at configuration and matched against a
 * connection's peer address. Pure, so unit tests cover every edge without
 * a socket. */
#ifndef MCP_TRANSPORT_HTTP_CIDR_H
#define MCP_TRANSPORT_HTTP_CIDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct mcp__cidr {
  int family; /* AF_INET or AF_INET6 */
  uint8_t addr[16]; /* network order; IPv4 in the first 4 bytes */
  unsigned prefix;  /* bits that must match */
} mcp__cidr;

/* Parses text ("127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"; an address
 * alone is a /32 or /128). false with why (a static sentence) when it is
 * not one, or has bits set beyond the prefix ("10.0.0.1/8": a typo for
 * 10.0.0.0/8 or for 10.0.0.1/32?). */
bool mcp__cidr_parse(const char *text, mcp__cidr *out, const char **why);
/* Parses a list separated by commas and/or spaces into a new array
 * (*out, *n; free()). false when an entry is malformed (*bad: its offset in
 * text, *bad_len its length, *why as above) or the list is empty (*bad_len
 * 0), or memory ran out (*why NULL). */
bool mcp__cidr_parse_list(const char *text, mcp__cidr **out, size_t *n,
                          size_t *bad, size_t *bad_len, const char **why);
/* True when sa (AF_INET or AF_INET6; an IPv4-mapped IPv6 address counts as
 * its IPv4 address) is inside one block of list. NULL sa: false. */
bool mcp__cidr_list_has(const mcp__cidr *list, size_t n,
                        const struct sockaddr *sa);

#endif
