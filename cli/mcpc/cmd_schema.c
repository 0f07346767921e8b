/* SPDX-License-Identifier: MIT */
/* cmd_schema.c - "mcpc schema check": validates a JSON file against a JSON
 * Schema file and prints one line per error:
 *   <instance pointer>: <message> (<keyword location>)
 * Exit 0 valid, 1 invalid, 2 unreadable/invalid schema, unreadable data or
 * usage error. Files are read with the library's own JSON rules (see
 * load_file). --remote-dir DIR registers every .json file under DIR at
 * http://localhost:1234/<relative path> so $ref can reach them offline. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "mcp/schema.h"
#include "json/load.h"

/* Reads a JSON file the way the library reads requests and schema text
 * (json/load.h): "\u0000" in strings, integers beyond int64 as reals.
 * jansson's file loader with its default flags refuses both, so files the
 * library would validate could not be checked. NULL with e filled on
 * failure. */
static json_t *load_file(const char *path, json_error_t *e) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    memset(e, 0, sizeof *e);
    snprintf(e->text, sizeof e->text, "unable to open %s", path);
    return NULL;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0, n;
  do {
    if (len == cap) {
      size_t ncap = cap ? cap * 2 : 65536;
      char *nb = realloc(buf, ncap);
      if (nb == NULL) {
        free(buf);
        fclose(f);
        memset(e, 0, sizeof *e);
        snprintf(e->text, sizeof e->text, "out of memory");
        return NULL;
      }
      buf = nb, cap = ncap;
    }
    n = fread(buf + len, 1, cap - len, f);
    len += n;
  } while (n > 0);
  bool failed = ferror(f) != 0;
  fclose(f);
  json_t *doc = NULL;
  if (failed) {
    memset(e, 0, sizeof *e);
    snprintf(e->text, sizeof e->text, "read error on %s", path);
  } else {
    doc = mcp__json_load(buf, len, e);
  }
  free(buf);
  return doc;
}

static int check_usage(void) {
  fprintf(stderr, "usage: mcpc schema check [--format-assertion] "
                  "[--remote-dir DIR] SCHEMA_FILE DATA_FILE\n");
  return 2;
}

static bool ends_with_json(const char *name) {
  size_t n = strlen(name);
  return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

/* Registers root/rel recursively; false after printing the reason. */
static bool register_dir(mcp_schema_registry_t *reg, const char *root,
                         const char *rel) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
  DIR *d = opendir(dir);
  if (d == NULL) {
    fprintf(stderr, "mcpc: cannot open directory %s\n", dir);
    return false;
  }
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char sub[4096], full[8192];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", root, sub);
    struct stat st;
    if (stat(full, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      ok = register_dir(reg, root, sub);
    } else if (ends_with_json(e->d_name)) {
      json_error_t je;
      json_t *doc = load_file(full, &je);
      if (doc == NULL) {
        fprintf(stderr, "mcpc: %s: %s (line %d)\n", full, je.text, je.line);
        ok = false;
        break;
      }
      char uri[8300];
      snprintf(uri, sizeof uri, "http://localhost:1234/%s", sub);
      mcp_error_t err;
      if (mcp_schema_registry_add(reg, uri, doc, &err) != MCP_OK) {
        fprintf(stderr, "mcpc: cannot register %s: %s\n", uri, err.message);
        ok = false;
      }
    }
  }
  closedir(d);
  return ok;
}

int mcpc_schema_check(int argc, char **argv) {
  bool assert_formats = false;
  const char *remote_dir = NULL, *files[2];
  int nfiles = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--format-assertion") == 0) {
      assert_formats = true;
    } else if (strcmp(argv[i], "--remote-dir") == 0) {
      if (++i >= argc)
        return check_usage();
      remote_dir = argv[i];
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "mcpc: unknown option %s\n", argv[i]);
      return check_usage();
    } else if (nfiles < 2) {
      files[nfiles++] = argv[i];
    } else {
      return check_usage();
    }
  }
  if (nfiles != 2)
    return check_usage();

  int rc = 2;
  json_t *schema = NULL, *data = NULL;
  mcp_schema_registry_t *reg = NULL;
  mcp_schema_options_t *opts = NULL;
  mcp_schema_t *compiled = NULL;
  mcp_validation_t *v = NULL;
  json_error_t je;

  schema = load_file(files[0], &je);
  if (schema == NULL) {
    fprintf(stderr, "mcpc: cannot read schema %s: %s (line %d)\n", files[0],
            je.text, je.line);
    goto out;
  }
  data = load_file(files[1], &je);
  if (data == NULL) {
    fprintf(stderr, "mcpc: cannot read data %s: %s (line %d)\n", files[1],
            je.text, je.line);
    goto out;
  }
  if (mcp_schema_registry_new(&reg) != MCP_OK ||
      mcp_schema_options_new(&opts) != MCP_OK) {
    fprintf(stderr, "mcpc: out of memory\n");
    goto out;
  }
  if (remote_dir != NULL && !register_dir(reg, remote_dir, ""))
    goto out;
  mcp_schema_options_set_registry(opts, reg);
  mcp_schema_options_set_format_assertion(opts, assert_formats);
  mcp_error_t err;
  mcp_status st = mcp_schema_compile(schema, opts, &compiled, &err);
  if (st != MCP_OK) {
    fprintf(stderr, "mcpc: invalid schema %s: %s%s%s\n", files[0], err.message,
            err.pointer[0] ? " at " : "", err.pointer);
    goto out;
  }
  st = mcp_schema_validate(compiled, data, &v);
  if (st == MCP_OK) {
    rc = 0;
  } else if (st == MCP_ERR_INVALID) {
    for (size_t i = 0; i < mcp_validation_count(v); i++)
      printf("%s: %s (%s)\n", mcp_validation_instance_location(v, i),
             mcp_validation_message(v, i),
             mcp_validation_keyword_location(v, i));
    rc = 1;
  } else {
    fprintf(stderr, "mcpc: validation failed: %s\n", mcp_strerror(st));
  }
out:
  mcp_validation_free(v);
  mcp_schema_free(compiled);
  mcp_schema_options_free(opts);
  mcp_schema_registry_free(reg);
  json_decref(schema);
  json_decref(data);
  return rc;
}
