/* SPDX-License-Identifier: MIT */
/* formats.h - format checkers (formats.c) and IDNA2008 host names (idna.c). */
#ifndef MCP_SCHEMA_FORMATS_H
#define MCP_SCHEMA_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

#include "schema/internal.h"

/* The checker for a format name, or NULL when unknown. */
mcp__format_fn mcp__format_lookup(const char *name);

/* An internationalized host name (RFC 5890-5893): U-labels or A-labels
 * separated by any of the four IDNA full stops. */
bool mcp__idna_hostname_ok(const char *s, size_t len);
/* An ASCII "xn--" label whose Punycode decodes to a valid U-label and
 * re-encodes to itself. */
bool mcp__idna_alabel_ok(const char *s, size_t len);

#endif
