/* SPDX-License-Identifier: MIT */
/* content.c - the content vocabulary: contentEncoding, contentMediaType and
 * contentSchema are annotations in 2020-12 (never asserted), so they compile
 * to nothing; contentSchema's subschema is still indexed (compile.c) so that
 * references into it resolve. */
#include "schema/compiler.h"

static const mcp__keyword keywords[] = {
    {"contentEncoding", NULL, 0, NULL, 0},
    {"contentMediaType", NULL, 0, NULL, 0},
    {"contentSchema", NULL, 0, NULL, 0},
};

const mcp__vocabulary mcp__vocab_content = {
    "content", MCP__V_CONTENT, MCP__V_CONTENT, keywords,
    sizeof keywords / sizeof keywords[0]};
