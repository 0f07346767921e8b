/* SPDX-License-Identifier: MIT */
/* form.h - application/x-www-form-urlencoded bodies (RFC 6749 token and
 * introspection requests, RFC 7662): what the client's OAuth calls and the
 * resource server's introspection both send.
 *
 * Thread-safety: none needed (works on the caller's buffer only). */
#ifndef MCP_UTIL_FORM_H
#define MCP_UTIL_FORM_H

#include <stdbool.h>

#include "util/buf.h"

/* Appends "name=value" to b, preceded by '&' when b is not empty, with
 * every byte of value but ALPHA, DIGIT, '-', '.', '_' and '~' written as
 * %XX (name is taken as it is: the callers' names are such bytes only).
 * value NULL: nothing is appended (true). false when memory ran out. */
bool mcp__form_append(mcp__buf *b, const char *name, const char *value);

#endif
