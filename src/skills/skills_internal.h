/* SPDX-License-Identifier: MIT */
/* skills_internal.h - shared by the files of src/skills.
 *
 * mcp_skill_t (skill.c) is a counted, immutable-once-published bundle: its
 * SKILL.md and files with their sha256 digests. A server's published
 * skills (skills_server.c) hold one reference each, and every resource made
 * from a skill file holds another, so the order in which the server frees
 * its catalogs and its skills does not matter.
 */
#ifndef MCP_SKILLS_INTERNAL_H
#define MCP_SKILLS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/skill.h"
#include "util/buf.h"

#define MCP__SKILLS_EXT "io.modelcontextprotocol/skills"

typedef struct mcp__skill_file {
  char *path; /* relative, "SKILL.md" for the first */
  char *uri;  /* skill://<name>/<path> */
  char *mime_type;
  unsigned char *data;
  size_t len;
  char digest[72]; /* "sha256:" + 64 hex */
  bool text;       /* UTF-8 without NUL: served as text */
} mcp__skill_file;

struct mcp_skill {
  atomic_uint refs;
  char *name;
  json_t *frontmatter;
  mcp_skill_limits limits;
  uint64_t total;
  mcp__skill_file *files; /* files[0] is SKILL.md */
  size_t nfiles, cap;
};

/* frontmatter.c: the front matter of a SKILL.md as a JSON object (new). */
mcp_status mcp__skill_frontmatter(const char *text, size_t len, json_t **out,
                                  mcp_error_t *err);
bool mcp__skill_name_valid(const char *name);

/* skill.c */
void mcp__skill_retain(mcp_skill_t *skill);
void mcp__skill_release(mcp_skill_t *skill);
/* Whether path is a valid relative file path within limits (err filled). */
mcp_status mcp__skill_path_check(const mcp_skill_t *skill, const char *path,
                                 mcp_error_t *err);
/* The skill entry of skills/list and skills/get (returns new). */
json_t *mcp__skill_entry(const mcp_skill_t *skill);

/* skills_server.c: the server's skills (its feature slot, core/feature.h) */
typedef struct mcp__skills mcp__skills;
struct mcp_server;
/* skills/list, skills/get, resources/directory/read and the extension's
 * part of server/discover (mcp_server_new). */
mcp_status mcp__skills_register(struct mcp_server *s);
void mcp__skills_free(mcp__skills *skills);

#endif
