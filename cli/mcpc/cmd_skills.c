/* SPDX-License-Identifier: MIT */
/* cmd_skills.c - skills list | get NAME [--dir DIR]: the skills extension
 * (SEP-2640, io.modelcontextprotocol/skills). skills/list gives entries
 * {uri, frontmatter, resources: [{uri, digest, size}]}; get reads every
 * file of one skill with resources/read, SKILL.md first, verifies each
 * against its entry (byte size, "sha256:" digest, and for SKILL.md the YAML
 * front matter field by field) and writes the files into a folder only when
 * all of them verified: unverified content is never used. */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "util/base64.h"

static void print_skill_line(const json_t *s) {
  json_t *fm = json_object_get(s, "frontmatter");
  const char *name = json_string_value(json_object_get(fm, "name"));
  const char *desc = json_string_value(json_object_get(fm, "description"));
  printf("%s %s\n", name ? name : json_string_value(json_object_get(s, "uri")),
         desc ? desc : "");
}

int mcpc_cmd_skills_list(mcpc_ctx *ctx, int argc, char **argv) {
  return mcpc_list(ctx, argc, "skills list", "skills/list", "skills",
                   print_skill_line);
}

/* The bytes of a ReadResourceResult's first content (malloc'd). */
static unsigned char *content_bytes(json_t *result, size_t *len) {
  json_t *c = json_array_get(json_object_get(result, "contents"), 0);
  json_t *text = json_object_get(c, "text");
  json_t *blob = json_object_get(c, "blob");
  if (json_is_string(text)) {
    *len = json_string_length(text);
    unsigned char *b = malloc(*len + 1);
    if (b != NULL)
      memcpy(b, json_string_value(text), *len + 1);
    return b;
  }
  if (json_is_string(blob))
    return mcp__base64_decode(json_string_value(blob), json_string_length(blob),
                              len);
  return NULL;
}

/* "sha256:<hex>" of the bytes equals digest. */
static bool digest_matches(const char *digest, const unsigned char *b,
                           size_t len) {
  if (strncmp(digest, "sha256:", 7) != 0)
    return false; /* an algorithm mcpc does not know: not verified */
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(b, len, md, &n, EVP_sha256(), NULL) != 1)
    return false;
  char hex[2 * EVP_MAX_MD_SIZE + 1];
  for (unsigned int i = 0; i < n; i++)
    snprintf(hex + 2 * i, 3, "%02x", md[i]);
  return strcasecmp(hex, digest + 7) == 0;
}

/* The YAML front matter of a SKILL.md as flat "key: value" strings (the
 * fields the entry carries are plain scalars); NULL when there is none. */
static json_t *front_matter(const char *text) {
  if (strncmp(text, "---\n", 4) != 0)
    return NULL;
  const char *end = strstr(text + 4, "\n---");
  if (end == NULL)
    return NULL;
  json_t *out = json_object();
  const char *p = text + 4;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    const char *colon = memchr(p, ':', (size_t)(eol - p));
    if (colon != NULL && p[0] != ' ' && p[0] != '#') {
      char *key = strndup(p, (size_t)(colon - p));
      const char *v = colon + 1;
      while (v < eol && *v == ' ')
        v++;
      const char *ve = eol;
      while (ve > v && (ve[-1] == ' ' || ve[-1] == '\r'))
        ve--;
      if (ve - v >= 2 &&
          ((*v == '"' && ve[-1] == '"') || (*v == '\'' && ve[-1] == '\''))) {
        v++;
        ve--;
      }
      if (key != NULL)
        json_object_set_new(out, key, json_stringn(v, (size_t)(ve - v)));
      free(key);
    }
    p = eol + 1;
  }
  return out;
}

/* The file's path below the skill's folder, or NULL when the URI is not
 * inside it or tries to leave it. */
static const char *relative_path(const char *uri, const char *root) {
  size_t n = strlen(root);
  if (strncmp(uri, root, n) != 0 || uri[n] == '\0')
    return NULL;
  const char *rel = uri + n;
  if (rel[0] == '/' || strstr(rel, "//") != NULL)
    return NULL;
  for (const char *seg = rel; seg != NULL;) {
    const char *slash = strchr(seg, '/');
    size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
    if ((len == 1 && seg[0] == '.') || (len == 2 && strncmp(seg, "..", 2) == 0))
      return NULL;
    seg = slash ? slash + 1 : NULL;
  }
  return rel;
}

static bool write_file(const char *dir, const char *rel, const unsigned char *b,
                       size_t len) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", dir, rel) >= (int)sizeof path)
    return false;
  for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
    *p = '\0';
    bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
    *p = '/';
    if (!ok)
      return false;
  }
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    return false;
  bool ok = fwrite(b, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

int mcpc_cmd_skills_get(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "skills get NAME [--dir DIR]";
  const char *name = NULL, *dir = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
      dir = argv[++i];
    else if (argv[i][0] != '-' && name == NULL)
      name = argv[i];
    else
      return mcpc_usage(syn);
  }
  if (name == NULL)
    return mcpc_usage(syn);
  if (dir == NULL)
    dir = name;
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *skills = NULL, *entry = NULL, *files = json_array();
  mcp_error_t err;
  mcp_status st =
      mcp_client_list_all(c, "skills/list", "skills", 0, &skills, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("skills/list", st, &err);
    goto done;
  }
  size_t i;
  json_t *s;
  json_array_foreach(skills, i, s) {
    const char *n = json_string_value(
        json_object_get(json_object_get(s, "frontmatter"), "name"));
    if (n != NULL && strcmp(n, name) == 0)
      entry = s;
  }
  const char *skill_uri = json_string_value(json_object_get(entry, "uri"));
  if (skill_uri == NULL) {
    rc = mcpc_error(MCPC_FAIL, NULL, "no skill named \"%s\"", name);
    goto done;
  }
  /* the skill's folder: its SKILL.md URI without the file name */
  char root[1024];
  snprintf(root, sizeof root, "%s", skill_uri);
  char *slash = strrchr(root, '/');
  if (slash != NULL)
    slash[1] = '\0';
  /* SKILL.md first: nothing else is read when it does not verify */
  json_t *order = json_array();
  json_t *res = json_object_get(entry, "resources");
  json_t *r;
  json_array_foreach(res, i, r) {
    if (json_equal(json_object_get(r, "uri"), json_object_get(entry, "uri")))
      json_array_insert(order, 0, r);
    else
      json_array_append(order, r);
  }
  if (json_array_size(order) == 0)
    json_array_append_new(order, json_pack("{s:s}", "uri", skill_uri));
  json_array_foreach(order, i, r) {
    const char *uri = json_string_value(json_object_get(r, "uri"));
    const char *rel = uri ? relative_path(uri, root) : NULL;
    if (rel == NULL) {
      rc = mcpc_error(MCPC_FAIL, NULL,
                      "skill file %s is outside the skill's folder %s",
                      uri ? uri : "(no uri)", root);
      break;
    }
    json_t *result = NULL;
    st = mcp_client_read_resource(c, uri, &result, &err);
    if (st != MCP_OK) {
      rc = mcpc_fail("resources/read", st, &err);
      break;
    }
    size_t len = 0;
    unsigned char *bytes = content_bytes(result, &len);
    json_decref(result);
    json_t *size = json_object_get(r, "size");
    const char *digest = json_string_value(json_object_get(r, "digest"));
    const char *why = NULL;
    if (bytes == NULL)
      why = "has no content";
    else if (json_is_integer(size) && (size_t)json_integer_value(size) != len)
      why = "has a size other than its entry's";
    else if (digest != NULL && !digest_matches(digest, bytes, len))
      why = "does not match its entry's digest";
    if (why == NULL && i == 0) {
      json_t *fm = front_matter((const char *)bytes);
      const char *key;
      json_t *want;
      json_object_foreach(json_object_get(entry, "frontmatter"), key, want) {
        if (json_is_string(want) && !json_equal(want, json_object_get(fm, key)))
          why = "has front matter that differs from its entry";
      }
      if (fm == NULL)
        why = "has no front matter";
      json_decref(fm);
    }
    if (why != NULL) {
      free(bytes);
      rc = mcpc_error(MCPC_FAIL, NULL, "%s %s: not used", uri, why);
      break;
    }
    json_array_append_new(
        files, json_pack("{s:s,s:o}", "path", rel, "bytes",
                         json_stringn_nocheck((const char *)bytes, len)));
    free(bytes);
  }
  json_decref(order);
  if (rc == MCPC_OK) {
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
      rc = mcpc_error(MCPC_FAIL, NULL, "cannot create %s: %s", dir,
                      strerror(errno));
      goto done;
    }
    json_t *f;
    json_array_foreach(files, i, f) {
      const char *rel = json_string_value(json_object_get(f, "path"));
      json_t *b = json_object_get(f, "bytes");
      if (!write_file(dir, rel, (const unsigned char *)json_string_value(b),
                      json_string_length(b))) {
        rc = mcpc_error(MCPC_FAIL, NULL, "cannot write %s/%s", dir, rel);
        break;
      }
      if (!ctx->json)
        printf("%s/%s\n", dir, rel);
    }
    if (rc == MCPC_OK && ctx->json) {
      json_t *o = json_pack("{s:s,s:s,s:i}", "skill", name, "dir", dir, "files",
                            (int)json_array_size(files));
      mcpc_print_json(o);
      json_decref(o);
    }
  }
done:
  json_decref(files);
  json_decref(skills);
  mcp_client_close(c);
  return rc;
}
