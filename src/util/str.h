/* SPDX-License-Identifier: MIT */
/* str.h - the optional-string setter every builder object uses, and a
 * bounded copy for fixed buffers on hot paths. */
#ifndef MCP_UTIL_STR_H
#define MCP_UTIL_STR_H

#include <stddef.h>

#include "mcp/status.h"

/* Replaces *slot (malloc'd or NULL) by a copy of value, or by NULL when value
 * is NULL. On MCP_ERR_NOMEM *slot is left as it was. */
mcp_status mcp__str_replace(char **slot, const char *value);

/* Copies src into dst of cap bytes (cap > 0), cut to fit and always
 * NUL-terminated, like snprintf(dst, cap, "%s", src) without its cost;
 * returns strlen(src) (>= cap: it was cut). */
size_t mcp__str_copy(char *dst, size_t cap, const char *src);

/* Appends a printf-formatted line to *list (malloc'd or NULL; lines are
 * joined by '\n'): the reasons a setter refused its argument, kept in the
 * object until it is registered. MCP_ERR_NOMEM leaves *list as it was. */
mcp_status mcp__str_add_line(char **list, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* lines (as mcp__str_add_line makes them) as one line into buf (cap > 0
 * bytes), "; " between them, cut to fit: for an err->message. */
void mcp__str_one_line(const char *lines, char *buf, size_t cap);

/* Removes from *list (as mcp__str_add_line makes it) the lines that start
 * with name followed by ':' or '(': a setter called again with an accepted
 * value takes back what its earlier refusal said (the last call wins, as
 * for the value itself). *list becomes NULL when no line is left. */
void mcp__str_drop_lines(char **list, const char *name);

#endif
