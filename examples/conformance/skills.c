/* SPDX-License-Identifier: MIT */
/* skills.c - the skill the sep-2640-* scenarios read: a SKILL.md with its
 * front matter and a file in a subdirectory, built in memory, and
 * resources/directory/read enabled so the directory checks run too. */
#include "scenarios.h"

#include <stdio.h>
#include <string.h>

static const char skill_md[] =
    "---\n"
    "name: conformance-echo\n"
    "description: How to call this server's greet and slow_compute tools\n"
    "license: MIT\n"
    "metadata:\n"
    "  author: libmcp\n"
    "  version: \"1.0\"\n"
    "---\n"
    "# Conformance echo\n"
    "\n"
    "Call `greet` with a `name` for a quick answer. For long work call\n"
    "`slow_compute`; it runs as a task when the client declares the tasks\n"
    "extension. See [the reference](references/TOOLS.md).\n";

static const char tools_md[] =
    "# Tools\n"
    "\n"
    "- greet {name}: says hello.\n"
    "- slow_compute {seconds, label}: computes, as a task when possible.\n";

mcp_status conformance_add_skills(mcp_server_t *s) {
  mcp_skill_t *k = NULL;
  mcp_error_t err = {0};
  mcp_status st = mcp_skill_new(skill_md, strlen(skill_md), NULL, &k, &err);
  if (st == MCP_OK)
    st = mcp_skill_add_file(k, "references/TOOLS.md", tools_md,
                            strlen(tools_md), NULL, &err);
  if (st == MCP_OK)
    st = mcp_server_add_skill(s, k, &err);
  else
    mcp_skill_free(k);
  if (st == MCP_OK)
    st = mcp_server_set_skills_directory_read(s, true);
  if (st != MCP_OK)
    fprintf(stderr, "mcp-conformance-server: skill: %s\n", err.message);
  return st;
}
