/* SPDX-License-Identifier: MIT */
/* skill.c - a skill built in memory: SKILL.md, its front matter, its files
 * and their digests, with the limits checked as files are added.
 */
#include "skills/skills_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/sha.h>

#define DEFAULT_FILES 512
#define DEFAULT_TOTAL (16u * 1024 * 1024)
#define DEFAULT_DEPTH 8

static void limits_fill(mcp_skill_limits *dst, const mcp_skill_limits *src) {
  mcp_skill_limits l = src ? *src : (mcp_skill_limits){0};
  if (l.max_files == 0)
    l.max_files = DEFAULT_FILES;
  if (l.max_total_bytes == 0)
    l.max_total_bytes = DEFAULT_TOTAL;
  if (l.max_file_bytes == 0 || l.max_file_bytes > l.max_total_bytes)
    l.max_file_bytes = l.max_total_bytes;
  if (l.max_depth == 0)
    l.max_depth = DEFAULT_DEPTH;
  *dst = l;
}

static bool is_utf8_text(const unsigned char *s, size_t n) {
  if (memchr(s, 0, n) != NULL)
    return false;
  json_t *probe = json_stringn((const char *)s, n); /* validates UTF-8 */
  bool ok = probe != NULL;
  json_decref(probe);
  return ok;
}

static const char *guess_mime(const char *path, bool text) {
  static const struct {
    const char *ext, *mime;
  } known[] = {
      {".md", "text/markdown"},      {".txt", "text/plain"},
      {".json", "application/json"}, {".yaml", "application/yaml"},
      {".yml", "application/yaml"},  {".py", "text/x-python"},
      {".sh", "text/x-shellscript"}, {".js", "text/javascript"},
      {".html", "text/html"},        {".csv", "text/csv"},
      {".xml", "application/xml"},   {".pdf", "application/pdf"},
      {".png", "image/png"},         {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},       {".svg", "image/svg+xml"},
  };
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (dot && (slash == NULL || dot > slash))
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
      if (strcasecmp(dot, known[i].ext) == 0)
        return known[i].mime;
  return text ? "text/plain" : "application/octet-stream";
}

static void file_clear(mcp__skill_file *f) {
  free(f->path);
  free(f->uri);
  free(f->mime_type);
  free(f->data);
}

/* Appends a file (data copied); limits are the caller's business. */
static mcp_status push_file(mcp_skill_t *k, const char *path, const void *data,
                            size_t len, const char *mime) {
  if (k->nfiles == k->cap) {
    size_t ncap = k->cap ? k->cap * 2 : 8;
    mcp__skill_file *grown = realloc(k->files, ncap * sizeof *grown);
    if (grown == NULL)
      return MCP_ERR_NOMEM;
    k->files = grown;
    k->cap = ncap;
  }
  mcp__skill_file f = {0};
  f.path = strdup(path);
  f.data = malloc(len ? len : 1);
  if (f.path == NULL || f.data == NULL ||
      asprintf(&f.uri, "skill://%s/%s", k->name, path) < 0) {
    f.uri = NULL;
    file_clear(&f);
    return MCP_ERR_NOMEM;
  }
  if (len)
    memcpy(f.data, data, len);
  f.len = len;
  f.text = is_utf8_text(f.data, len);
  f.mime_type = strdup(mime ? mime : guess_mime(path, f.text));
  if (f.mime_type == NULL) {
    file_clear(&f);
    return MCP_ERR_NOMEM;
  }
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(f.data, len, md);
  memcpy(f.digest, "sha256:", 7);
  for (size_t i = 0; i < sizeof md; i++)
    snprintf(f.digest + 7 + 2 * i, 3, "%02x", md[i]);
  k->files[k->nfiles++] = f;
  k->total += len;
  return MCP_OK;
}

static void skill_destroy(mcp_skill_t *k) {
  for (size_t i = 0; i < k->nfiles; i++)
    file_clear(&k->files[i]);
  free(k->files);
  free(k->name);
  json_decref(k->frontmatter);
  free(k);
}

void mcp__skill_retain(mcp_skill_t *k) {
  atomic_fetch_add(&k->refs, 1);
}

void mcp__skill_release(mcp_skill_t *k) {
  if (k && atomic_fetch_sub(&k->refs, 1) == 1)
    skill_destroy(k);
}

void mcp_skill_free(mcp_skill_t *k) {
  mcp__skill_release(k);
}

const char *mcp_skill_name(const mcp_skill_t *k) {
  return k ? k->name : NULL;
}

size_t mcp_skill_file_count(const mcp_skill_t *k) {
  return k ? k->nfiles : 0;
}

mcp_status mcp_skill_new(const char *md, size_t len,
                         const mcp_skill_limits *limits, mcp_skill_t **out,
                         mcp_error_t *err) {
  if (out)
    *out = NULL;
  if (md == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  mcp_skill_t *k = calloc(1, sizeof *k);
  if (k == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  atomic_init(&k->refs, 1);
  limits_fill(&k->limits, limits);
  mcp_status st;
  if (len > k->limits.max_file_bytes) {
    st = mcp_error_set(err, MCP_ERR_LIMIT,
                       "SKILL.md is %zu bytes, over the limit of %llu", len,
                       (unsigned long long)k->limits.max_file_bytes);
    skill_destroy(k);
    return st;
  }
  if ((st = mcp__skill_frontmatter(md, len, &k->frontmatter, err)) != MCP_OK) {
    skill_destroy(k);
    return st;
  }
  json_t *name = json_object_get(k->frontmatter, "name");
  json_t *desc = json_object_get(k->frontmatter, "description");
  if (!json_is_string(name) || !mcp__skill_name_valid(json_string_value(name)))
    st = mcp_error_set(err, MCP_ERR_INVALID,
                       "SKILL.md front matter: name must be 1-64 characters "
                       "of a-z, 0-9 and '-', without a leading, trailing or "
                       "doubled '-'");
  else if (!json_is_string(desc) || json_string_length(desc) == 0 ||
           json_string_length(desc) > 1024)
    st = mcp_error_set(err, MCP_ERR_INVALID,
                       "SKILL.md front matter: description must be a "
                       "non-empty string of at most 1024 characters");
  else if ((k->name = strdup(json_string_value(name))) == NULL ||
           push_file(k, "SKILL.md", md, len, "text/markdown") != MCP_OK)
    st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  else if (!k->files[0].text)
    st = mcp_error_set(err, MCP_ERR_INVALID, "SKILL.md is not UTF-8 text");
  if (st != MCP_OK) {
    skill_destroy(k);
    return st;
  }
  *out = k;
  return MCP_OK;
}

static bool path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' || c == '~';
}

mcp_status mcp__skill_path_check(const mcp_skill_t *k, const char *path,
                                 mcp_error_t *err) {
  size_t n = strlen(path);
  unsigned depth = 0;
  if (n == 0 || n > 1024 || path[0] == '/')
    return mcp_error_set(err, MCP_ERR_INVALID,
                         "skill file path '%.200s' must be relative and "
                         "non-empty",
                         path);
  const char *seg = path;
  for (size_t i = 0; i <= n; i++) {
    if (path[i] != '/' && path[i] != '\0') {
      if (!path_char(path[i]))
        return mcp_error_set(err, MCP_ERR_INVALID,
                             "skill file path '%.200s': only A-Z a-z 0-9 "
                             ". _ - ~ and '/' are allowed",
                             path);
      continue;
    }
    size_t len = (size_t)(path + i - seg);
    if (len == 0 || (len == 1 && seg[0] == '.') ||
        (len == 2 && seg[0] == '.' && seg[1] == '.'))
      return mcp_error_set(err, MCP_ERR_INVALID,
                           "skill file path '%.200s' has an empty, '.' or "
                           "'..' segment (no path may leave the skill)",
                           path);
    if (path[i] == '/')
      depth++;
    seg = path + i + 1;
  }
  if (depth > k->limits.max_depth)
    return mcp_error_set(err, MCP_ERR_LIMIT,
                         "skill file path '%.200s' is %u directories deep, "
                         "over the limit of %u",
                         path, depth, k->limits.max_depth);
  if (strcmp(path, "SKILL.md") == 0)
    return mcp_error_set(err, MCP_ERR_EXISTS, "SKILL.md is already there");
  return MCP_OK;
}

mcp_status mcp_skill_add_file(mcp_skill_t *k, const char *path,
                              const void *data, size_t len,
                              const char *mime_type, mcp_error_t *err) {
  if (k == NULL || path == NULL || (data == NULL && len > 0))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  mcp_status st = mcp__skill_path_check(k, path, err);
  if (st != MCP_OK)
    return st;
  for (size_t i = 0; i < k->nfiles; i++) {
    const char *p = k->files[i].path;
    size_t lp = strlen(p), ln = strlen(path);
    if (strcmp(p, path) == 0)
      return mcp_error_set(err, MCP_ERR_EXISTS, "skill file '%.200s' exists",
                           path);
    /* a file and a directory of the same name cannot both exist */
    if ((lp < ln && strncmp(p, path, lp) == 0 && path[lp] == '/') ||
        (ln < lp && strncmp(p, path, ln) == 0 && p[ln] == '/'))
      return mcp_error_set(err, MCP_ERR_EXISTS,
                           "skill file '%.200s' clashes with '%.200s'", path,
                           p);
  }
  if (k->nfiles + 1 > k->limits.max_files)
    return mcp_error_set(err, MCP_ERR_LIMIT,
                         "skill '%s' would have more than %zu files", k->name,
                         k->limits.max_files);
  if (len > k->limits.max_file_bytes)
    return mcp_error_set(err, MCP_ERR_LIMIT,
                         "skill file '%.200s' is %zu bytes, over the limit "
                         "of %llu",
                         path, len,
                         (unsigned long long)k->limits.max_file_bytes);
  if (k->total + len > k->limits.max_total_bytes)
    return mcp_error_set(err, MCP_ERR_LIMIT,
                         "skill '%s' would exceed its size limit of %llu "
                         "bytes with '%.200s'",
                         k->name, (unsigned long long)k->limits.max_total_bytes,
                         path);
  if (push_file(k, path, data, len, mime_type) != MCP_OK)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  return MCP_OK;
}

json_t *mcp__skill_entry(const mcp_skill_t *k) {
  json_t *files = json_array();
  json_t *o = files
                  ? json_pack("{s:s,s:O,s:o}", "uri", k->files[0].uri,
                              "frontmatter", k->frontmatter, "resources", files)
                  : NULL;
  if (o == NULL)
    return NULL;
  for (size_t i = 0; i < k->nfiles; i++) {
    const mcp__skill_file *f = &k->files[i];
    if (json_array_append_new(files, json_pack("{s:s,s:s,s:I}", "uri", f->uri,
                                               "digest", f->digest, "size",
                                               (json_int_t)f->len)) != 0) {
      json_decref(o);
      return NULL;
    }
  }
  return o;
}
