/* SPDX-License-Identifier: MIT */
/* load_dir.c - a skill read from a directory.
 *
 * Every open is relative to an already opened directory with O_NOFOLLOW
 * (openat), and every entry is checked with fstatat(AT_SYMLINK_NOFOLLOW)
 * before it is opened, so a symbolic link is refused wherever it is (also
 * one swapped in while reading), and no name can lead outside the skill:
 * names come from readdir, are checked as skill paths, and "." / ".." are
 * skipped. Sizes are checked against the limits before anything is read.
 */
#include "skills/skills_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static mcp_status read_fd(int fd, uint64_t size, unsigned char **out,
                          size_t *len) {
  unsigned char *buf = malloc(size ? size : 1);
  if (buf == NULL)
    return MCP_ERR_NOMEM;
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  *out = buf;
  *len = got;
  return MCP_OK;
}

/* Opens name in dirfd after checking it is of type want (S_IFREG/S_IFDIR);
 * -1 with err filled otherwise. */
static int open_checked(int dirfd, const char *name, const char *shown,
                        mode_t want, struct stat *sb, mcp_error_t *err,
                        mcp_status *st) {
  if (fstatat(dirfd, name, sb, AT_SYMLINK_NOFOLLOW) != 0) {
    *st = mcp_error_set(err, MCP_ERR_IO, "cannot read '%.300s': %s", shown,
                        strerror(errno));
    return -1;
  }
  if (S_ISLNK(sb->st_mode)) {
    *st = mcp_error_set(err, MCP_ERR_INVALID,
                        "'%.300s' is a symbolic link; skills may not contain "
                        "links",
                        shown);
    return -1;
  }
  if ((sb->st_mode & S_IFMT) != want) {
    *st = mcp_error_set(err, MCP_ERR_INVALID,
                        "'%.300s' is not a %s (special files are refused)",
                        shown, want == S_IFDIR ? "directory" : "regular file");
    return -1;
  }
  int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC;
  if (want == S_IFDIR)
    flags |= O_DIRECTORY;
  int fd = openat(dirfd, name, flags);
  if (fd < 0) {
    *st = mcp_error_set(err, errno == ELOOP ? MCP_ERR_INVALID : MCP_ERR_IO,
                        "cannot open '%.300s': %s", shown, strerror(errno));
    return -1;
  }
  if (fstat(fd, sb) != 0 || (sb->st_mode & S_IFMT) != want) {
    close(fd);
    *st = mcp_error_set(err, MCP_ERR_INVALID, "'%.300s' changed while read",
                        shown);
    return -1;
  }
  return fd;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted entry names of a directory (without . and ..). */
static mcp_status list_names(int fd, char ***names, size_t *n) {
  *names = NULL;
  *n = 0;
  int dup_fd = dup(fd);
  DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
  if (d == NULL) {
    if (dup_fd >= 0)
      close(dup_fd);
    return MCP_ERR_IO;
  }
  size_t cap = 0;
  mcp_status st = MCP_OK;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 16;
      char **grown = realloc(*names, cap * sizeof *grown);
      if (grown == NULL) {
        st = MCP_ERR_NOMEM;
        break;
      }
      *names = grown;
    }
    if (((*names)[*n] = strdup(de->d_name)) == NULL) {
      st = MCP_ERR_NOMEM;
      break;
    }
    (*n)++;
  }
  closedir(d);
  if (*n > 1)
    qsort(*names, *n, sizeof **names, cmp_names);
  return st;
}

static void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

/* Adds every file below dirfd; prefix is its path in the skill ("" at the
 * root). */
static mcp_status walk(mcp_skill_t *k, int dirfd, const char *prefix,
                       unsigned depth, mcp_error_t *err) {
  char **names;
  size_t n;
  mcp_status st = list_names(dirfd, &names, &n);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "cannot list '%.300s'",
                         *prefix ? prefix : ".");
  for (size_t i = 0; st == MCP_OK && i < n; i++) {
    char *path = NULL;
    if (asprintf(&path, "%s%s%s", prefix, *prefix ? "/" : "", names[i]) < 0) {
      st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
      break;
    }
    if (depth == 0 && strcmp(names[i], "SKILL.md") == 0) {
      free(path);
      continue; /* read first, by the caller */
    }
    struct stat sb;
    if (fstatat(dirfd, names[i], &sb, AT_SYMLINK_NOFOLLOW) != 0) {
      st = mcp_error_set(err, MCP_ERR_IO, "cannot read '%.300s'", path);
    } else if (S_ISDIR(sb.st_mode)) {
      mcp_error_t ignored;
      mcp_status pc = mcp__skill_path_check(k, path, &ignored);
      if (pc == MCP_ERR_INVALID)
        st = mcp__skill_path_check(k, path, err);
      else if (depth + 1 > k->limits.max_depth)
        st = mcp_error_set(err, MCP_ERR_LIMIT,
                           "directory '%.300s' is deeper than the limit of "
                           "%u levels",
                           path, k->limits.max_depth);
      else {
        int fd = open_checked(dirfd, names[i], path, S_IFDIR, &sb, err, &st);
        if (fd >= 0) {
          st = walk(k, fd, path, depth + 1, err);
          close(fd);
        }
      }
    } else if ((st = mcp__skill_path_check(k, path, err)) == MCP_OK) {
      int fd = open_checked(dirfd, names[i], path, S_IFREG, &sb, err, &st);
      if (fd >= 0) {
        uint64_t size = (uint64_t)sb.st_size;
        if (size > k->limits.max_file_bytes ||
            k->total + size > k->limits.max_total_bytes)
          st = mcp_error_set(err, MCP_ERR_LIMIT,
                             "'%.300s' (%llu bytes) exceeds the skill's size "
                             "limits (%llu per file, %llu in all)",
                             path, (unsigned long long)size,
                             (unsigned long long)k->limits.max_file_bytes,
                             (unsigned long long)k->limits.max_total_bytes);
        unsigned char *data = NULL;
        size_t len = 0;
        if (st == MCP_OK && read_fd(fd, size, &data, &len) != MCP_OK)
          st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
        if (st == MCP_OK)
          st = mcp_skill_add_file(k, path, data, len, NULL, err);
        free(data);
        close(fd);
      }
    }
    free(path);
  }
  free_names(names, n);
  return st;
}

mcp_status mcp_skill_load_dir(const char *dir, const mcp_skill_limits *limits,
                              mcp_skill_t **out, mcp_error_t *err) {
  if (out)
    *out = NULL;
  if (dir == NULL || *dir == '\0' || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  mcp_status st = MCP_OK;
  struct stat sb;
  int root = open_checked(AT_FDCWD, dir, dir, S_IFDIR, &sb, err, &st);
  if (root < 0)
    return st;
  int md = open_checked(root, "SKILL.md", "SKILL.md", S_IFREG, &sb, err, &st);
  if (md < 0) {
    close(root);
    return st;
  }
  mcp_skill_limits l = limits ? *limits : (mcp_skill_limits){0};
  uint64_t cap = l.max_file_bytes    ? l.max_file_bytes
                 : l.max_total_bytes ? l.max_total_bytes
                                     : 16u * 1024 * 1024;
  unsigned char *text = NULL;
  size_t len = 0;
  if ((uint64_t)sb.st_size > cap)
    st = mcp_error_set(err, MCP_ERR_LIMIT,
                       "SKILL.md is %llu bytes, over the limit of %llu",
                       (unsigned long long)sb.st_size, (unsigned long long)cap);
  else if (read_fd(md, (uint64_t)sb.st_size, &text, &len) != MCP_OK)
    st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  close(md);
  mcp_skill_t *k = NULL;
  if (st == MCP_OK)
    st = mcp_skill_new((const char *)text, len, limits, &k, err);
  free(text);
  if (st == MCP_OK) {
    /* the Agent Skills rule: the name is the directory's name */
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
      n--;
    const char *base = dir + n;
    while (base > dir && base[-1] != '/')
      base--;
    if (strlen(k->name) != (size_t)(dir + n - base) ||
        strncmp(base, k->name, strlen(k->name)) != 0)
      st = mcp_error_set(err, MCP_ERR_INVALID,
                         "SKILL.md names the skill '%s' but its directory is "
                         "'%.*s'",
                         k->name, (int)(dir + n - base), base);
  }
  if (st == MCP_OK)
    st = walk(k, root, "", 0, err);
  close(root);
  if (st != MCP_OK) {
    mcp_skill_free(k);
    return st;
  }
  *out = k;
  return MCP_OK;
}
