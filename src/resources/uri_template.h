/* SPDX-License-Identifier: MIT */
/* uri_template.h - RFC 6570 URI templates (levels 1-4), used in reverse:
 * given a concrete URI, find values for the template's variables.
 *
 * Matching rules (expansion read backwards, RFC 6570 section 3.2):
 * - {var} and {+var} must match at least one character; the other operators
 *   ({#var} {.var} {/var} {;var} {?var} {&var}) may match nothing, which
 *   leaves their variables undefined (absent from the result).
 * - {var} {.var} {/var} {;var} {?var} {&var} values hold unreserved
 *   characters and percent-escapes only; {+var} {#var} also admit reserved
 *   characters. Values are percent-decoded and must be valid UTF-8.
 * - Several variables in one expression split on the operator's separator;
 *   missing trailing ones are undefined. For the named operators (; ? &)
 *   names may come in any order, an unknown name fails the match.
 * - An explode modifier {var*} collects its items into a JSON array; a
 *   prefix modifier {var:N} limits the value to N characters.
 * - Where several splits are possible the earlier expression takes the
 *   longest text (greedy, with backtracking); the search is bounded so a
 *   hostile URI cannot make matching expensive.
 */
#ifndef MCP_RESOURCES_URI_TEMPLATE_H
#define MCP_RESOURCES_URI_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "mcp/status.h"

typedef struct mcp__uritpl mcp__uritpl;

/* Parses text (returns new). MCP_ERR_INVALID_ARG with a reason in why
 * (may be NULL) when text is not a valid level-4 template. */
mcp_status mcp__uritpl_parse(const char *text, mcp__uritpl **out, char *why,
                             size_t why_len);
void mcp__uritpl_free(mcp__uritpl *t);
/* True when uri matches; *vars (returns new) then maps each defined
 * variable to a string, or to an array of strings for an exploded one. */
bool mcp__uritpl_match(const mcp__uritpl *t, const char *uri, json_t **vars);
/* True when the template declares a variable of that name. */
bool mcp__uritpl_has_var(const mcp__uritpl *t, const char *name);

#endif
