/* SPDX-License-Identifier: MIT */
/* skill.h - Agent Skills over MCP (extension io.modelcontextprotocol/skills,
 * SEP-2640, 2026-07-28).
 *
 * A skill is a SKILL.md (YAML front matter with at least `name` and
 * `description`, then Markdown) plus any files next to it. A server that
 * publishes skills declares the extension in server/discover, serves every
 * file as a resource skill://<name>/<path> (resources/list, resources/read;
 * SKILL.md as text/markdown named and described from its front matter), and
 * answers skills/list, skills/get and, when enabled, resources/directory/read
 * with the files' sha256 digests and sizes.
 *
 * Build a skill in memory (mcp_skill_new + mcp_skill_add_file) or load a
 * directory (mcp_skill_load_dir); either way it is checked whole before it
 * can be published: a bad front matter, a bad name, a path escaping the
 * skill, a symlink or a limit exceeded is an error with a message saying
 * which, and nothing is served.
 *
 * Thread safety: a skill is built by one thread; once given to a server it
 * is immutable. mcp_server_add_skill may be called while serving.
 */
#ifndef MCP_SKILL_H
#define MCP_SKILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/export.h"
#include "mcp/server.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_skill mcp_skill_t;

/* Limits of one skill. A field left 0 takes its default. */
typedef struct mcp_skill_limits {
  size_t max_files;         /* files, SKILL.md included (default 512) */
  uint64_t max_total_bytes; /* sum of all file sizes (default 16 MiB) */
  uint64_t max_file_bytes;  /* one file (default: max_total_bytes) */
  unsigned max_depth;       /* directories below the skill root (default 8) */
} mcp_skill_limits;

/* Returns new: a skill whose SKILL.md is the len bytes at skill_md (copied).
 * Its front matter must hold `name` (1-64 of a-z, 0-9 and '-', no leading,
 * trailing or doubled '-') and a non-empty `description`; the YAML subset
 * read is one mapping of scalars (plain, quoted, | and > blocks) with
 * one level of nested mapping (e.g. `metadata`). limits may be NULL
 * (defaults). MCP_ERR_INVALID with err saying what is wrong. Free with
 * mcp_skill_free unless given to a server. */
MCP_API mcp_status mcp_skill_new(const char *skill_md, size_t len,
                                 const mcp_skill_limits *limits,
                                 mcp_skill_t **out, mcp_error_t *err);
/* Adds a file at path (relative, '/'-separated segments of A-Z a-z 0-9 and
 * . _ - ~, no "." or ".." segment, not SKILL.md; depth within the limit)
 * with len bytes (copied). mime_type NULL: guessed from the extension.
 * MCP_ERR_INVALID (path), MCP_ERR_EXISTS, MCP_ERR_LIMIT with err filled. */
MCP_API mcp_status mcp_skill_add_file(mcp_skill_t *skill, const char *path,
                                      const void *data, size_t len,
                                      const char *mime_type, mcp_error_t *err);
/* Returns new: the skill in directory dir (its SKILL.md and every regular
 * file below it). Symbolic links anywhere (dir itself included), special
 * files, names that are not valid paths and limits exceeded are refused;
 * the front matter `name` must equal the directory's own name. */
MCP_API mcp_status mcp_skill_load_dir(const char *dir,
                                      const mcp_skill_limits *limits,
                                      mcp_skill_t **out, mcp_error_t *err);
/* The skill's name (borrowed). */
MCP_API const char *mcp_skill_name(const mcp_skill_t *skill);
/* Number of files, SKILL.md included. */
MCP_API size_t mcp_skill_file_count(const mcp_skill_t *skill);
/* NULL is a no-op. */
MCP_API void mcp_skill_free(mcp_skill_t *skill);

/* Publishes skill (steals it, even on failure): its files become resources
 * and the server declares the skills extension. MCP_ERR_EXISTS when a skill
 * of that name or one of its resource URIs is already there. */
MCP_API mcp_status mcp_server_add_skill(mcp_server_t *server,
                                        mcp_skill_t *skill, mcp_error_t *err);
/* Serve resources/directory/read on skill directories and declare
 * directoryRead: true (default false). */
MCP_API mcp_status mcp_server_set_skills_directory_read(mcp_server_t *server,
                                                        bool on);

#ifdef __cplusplus
}
#endif
#endif
