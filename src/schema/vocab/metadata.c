/* SPDX-License-Identifier: MIT */
/* metadata.c - the meta-data vocabulary: title, description, default,
 * deprecated, readOnly, writeOnly and examples are annotations; they compile
 * to nothing. */
#include "schema/compiler.h"

static const mcp__keyword keywords[] = {
    {"title", NULL, 0, NULL, 0},    {"description", NULL, 0, NULL, 0},
    {"default", NULL, 0, NULL, 0},  {"deprecated", NULL, 0, NULL, 0},
    {"readOnly", NULL, 0, NULL, 0}, {"writeOnly", NULL, 0, NULL, 0},
    {"examples", NULL, 0, NULL, 0},
};

const mcp__vocabulary mcp__vocab_metadata = {
    "meta-data", MCP__V_METADATA, MCP__V_METADATA, keywords,
    sizeof keywords / sizeof keywords[0]};
